"""``companion console --service``, the start-up the systemd unit runs
(issue 12): the real command in a pseudo-terminal (testkit/terminal.py),
with a ``NOTIFY_SOCKET`` of the test's as systemd's would be. An unfinished
game goes on without a question; without one, the set-up screen; either way
``READY=1`` once the first screen is drawn. The scripted source under
SIGKILL: tests/test_bench_faults.py."""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

import pytest

from companion import cli
from testkit.command import companion
from testkit.terminal import Terminal, console_env

#: a tournament game stopped in its first day's speeches (no timer runs out
#: in a test's seconds: a speech is 60 s)
GAME = [
    '{"at": 0, "input": "setup", "ruleset": "tournament", "seats": 10, "seed": 3}',
    '{"at": 1, "input": "next"}',
    '{"at": 2, "input": "next"}',
    '{"at": 3, "input": "nominate", "by": 1, "target": 5}',
]


def service(tmp_path: Path, address: str) -> Terminal:
    env = console_env(tmp_path)
    env["NOTIFY_SOCKET"] = address
    # Not the fallback folders the machine shares (runner/fallback.py).
    env["COMPANION_FALLBACK_JOURNALS"] = str(tmp_path / "fallback")
    return Terminal(env, ["console", "--service"])


def test_an_unfinished_game_goes_on_without_a_question(
    tmp_path: Path, notify: tuple[socket.socket, str]
) -> None:
    sock, address = notify
    script = tmp_path / "game.jsonl"
    script.write_text("\n".join(GAME) + "\n", encoding="utf-8")
    journal = tmp_path / "journals" / "2026-12-01_20-00-00.jsonl"
    argv, env = companion("replay", script, "--journal", journal)
    subprocess.run(argv, env=env, check=True, capture_output=True)
    before = journal.read_bytes()
    terminal = service(tmp_path, address)
    try:
        terminal.until("Игра продолжена после перезапуска")
        terminal.until("Выставлены: 5")  # the table's screen, the game where it was
        assert sock.recv(4096) == b"READY=1"
        assert terminal.quit() == 0
    finally:
        terminal.kill()
    assert "Есть незаконченная игра" not in terminal.seen  # nobody was asked
    assert "Traceback" not in terminal.seen
    assert journal.read_bytes().startswith(before)  # the same journal, nothing lost
    assert len(list(journal.parent.glob("*.jsonl"))) == 1  # and no new game


def test_without_an_unfinished_game_the_set_up_screen_opens(
    tmp_path: Path, notify: tuple[socket.socket, str]
) -> None:
    sock, address = notify
    terminal = service(tmp_path, address)
    try:
        terminal.until("Новая игра")
        terminal.until("Хеш расклада")
        assert sock.recv(4096) == b"READY=1"
        assert terminal.quit() == 0
    finally:
        terminal.kill()
    assert "Traceback" not in terminal.seen
    assert not list((tmp_path / "journals").glob("*.jsonl"))


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (
            ["--speed", "20000"],
            "companion: --speed 20000: нужно число от 0,01 до 10000",
        ),  # practice
        (
            ["--inputs", "{script}", "--speed", "0"],
            "companion: --speed 0: нужно число от 0,01 до 10000",
        ),
        (["--inputs", "{missing}"], "companion: {missing}: "),
        (["--inputs", "{broken}"], "companion: {broken}:2: "),
        (["--inputs", "{journal}"], "журнал; его продолжают так: companion resume"),
    ],
)
def test_the_service_options_are_checked_before_the_screen_is_taken(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    error: str,
) -> None:
    monkeypatch.setenv("COMPANION_CONFIG", str(tmp_path / "no-config.toml"))
    names = {
        "script": tmp_path / "game.jsonl",
        "missing": tmp_path / "missing.jsonl",
        "broken": tmp_path / "broken.jsonl",
        "journal": tmp_path / "journal.jsonl",
    }
    names["script"].write_text("\n".join(GAME) + "\n", encoding="utf-8")
    names["broken"].write_text(GAME[0] + '\n{"at": 1, "input": "nxt"}\n', encoding="utf-8")
    argv, env = companion("replay", names["script"], "--journal", names["journal"])
    subprocess.run(argv, env=env, check=True, capture_output=True)
    given = [arg.format(**names) for arg in args]
    assert cli.main(["console", *given]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and error.format(**names) in err
