"""Control characters never reach the terminal from a game's data (issue
24, item 6): the protocol in every format, ``verify-deal``, ``players``,
``replay``, ``resume`` and ``demo``.

A ruleset comes from a club's folder (a backup restores it), a journal's
file name from whoever made it: here both carry an OSC 52 clipboard write,
a screen clear, a C1 CSI and a bidirectional override. Each command runs as
a user runs it; its output may hold line breaks (and the CSV's CR) but no
other unprintable character, and the JSON still holds the data as it was.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_here import companion_here
from helpers import EXAMPLES, ROOT

#: what an attacker puts in a name: the clipboard, a screen clear, 8-bit CSI, RLO
HOSTILE = "\x1b]52;c;cHduZWQ=\x07\x1b[2J\x9b31m\u202e"
#: the same as a TOML basic string writes it
_TOML = "\\u001b]52;c;cHduZWQ=\\u0007\\u001b[2J\\u009b31m\\u202e"


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A rulesets folder whose titles and civilian's name carry escapes, and
    the environment that uses it."""
    folder = tmp_path_factory.mktemp("rulesets")
    for name in ("club", "tournament"):
        text = (ROOT / "rulesets" / f"{name}.toml").read_text(encoding="utf-8")
        lines = []
        for line in text.splitlines():
            if line.startswith("title = ") or line == 'name = "Мирный житель"':
                line = line[:-1] + _TOML + '"'
            lines.append(line)
        (folder / f"{name}.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {**os.environ, "COMPANION_RULESETS": str(folder)}


def companion(env: dict[str, str], *args: str | Path) -> subprocess.CompletedProcess[str]:
    """The command run in this process (cli_here.py): what it prints is
    what a process prints; ``companion_process`` starts one."""
    return companion_here(*args, env=env, cwd=ROOT)


def companion_process(env: dict[str, str], *args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        env=env,
    )


def inert(text: str) -> bool:
    """Nothing a terminal would obey: printable characters and line ends."""
    return all(ch.isprintable() or ch in "\r\n" for ch in text)


@pytest.fixture(scope="module")
def journal(club: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A club game journaled under a file name with escapes in it."""
    path = tmp_path_factory.mktemp("games") / f"game{HOSTILE}.jsonl"
    done = companion_process(club, "replay", EXAMPLES / "club-ladder.jsonl", "--journal", path)
    assert done.returncode == 0, done.stderr
    assert inert(done.stdout) and "\\x1b]52" in done.stdout  # the title, shown
    return path


@pytest.mark.parametrize("fmt", ["text", "json", "csv", "html"])
def test_the_protocol_in_every_format(club: dict[str, str], journal: Path, fmt: str) -> None:
    done = companion(club, "protocol", journal, "--format", fmt)
    assert done.returncode == 0, done.stderr
    assert inert(done.stdout) and inert(done.stderr)
    assert "\\x1b" in done.stdout or "\\u001b" in done.stdout  # there, as text
    if fmt == "json":  # a program still reads the data as it was
        data = json.loads(done.stdout)
        assert data["game"]["title"].endswith(HOSTILE)
        assert data["game"]["journal"] == journal.name


def test_replay_and_resume_and_demo(club: dict[str, str], journal: Path, tmp_path: Path) -> None:
    for args in (
        ("replay", EXAMPLES / "club-ladder.jsonl"),
        ("replay", EXAMPLES / "club-ladder.jsonl", "--json"),
        ("resume", journal),
        ("demo",),
    ):
        done = companion_process(club, *args)  # demo's one real process in the suite
        assert done.returncode == 0, done.stderr
        assert inert(done.stdout) and inert(done.stderr), args
        if "--json" not in args:  # the text names the ruleset by its title
            assert "\\x1b]52" in done.stdout, args


def test_a_live_replay_captions_and_host_log(club: dict[str, str], tmp_path: Path) -> None:
    """At the table's pace (sped up): the captions on standard output, the
    host's log (every role dealt, by the ruleset's names) on standard error.
    The game: a setup, and a second later the host stops it."""
    lines = (EXAMPLES / "club-ladder.jsonl").read_text(encoding="utf-8").splitlines()
    setup = next(line for line in lines if '"input": "setup"' in line)
    script = tmp_path / "short.jsonl"
    script.write_text(setup + '\n{"after": 1, "input": "stop", "reason": "конец"}\n', "utf-8")
    done = companion_process(club, "replay", script, "--realtime", "--captions", "--speed", "100")
    assert done.returncode == 0, done.stderr
    assert inert(done.stdout) and inert(done.stderr)
    assert "роль Мирный житель\\x1b]52;c;" in done.stderr


def test_verify_deal_names_the_file_as_text(
    club: dict[str, str], journal: Path, tmp_path: Path
) -> None:
    dealt = tmp_path / "dealt.jsonl"
    text = (EXAMPLES / "club-ladder.jsonl").read_text(encoding="utf-8")
    setup = '{"at": 0, "input": "setup", "ruleset": "club", "seats": 10, "seed": 159764}'
    lines = [setup if '"input": "setup"' in line else line for line in text.splitlines()]
    dealt.write_text("\n".join(lines) + "\n", encoding="utf-8")
    game = tmp_path / "dealt.game.jsonl"
    assert companion(club, "replay", dealt, "--journal", game).returncode == 0
    protocol = tmp_path / f"p{HOSTILE}.json"
    assert companion(club, "protocol", game, "--format", "json", "-o", protocol).returncode == 0
    for lang in ("ru", "en"):
        done = companion(club, "verify-deal", protocol, "--lang", lang)
        assert done.returncode == 0, done.stdout + done.stderr
        assert inert(done.stdout) and "p\\x1b]52;c;" in done.stdout
    missing = tmp_path / f"none{HOSTILE}.json"
    done = companion(club, "verify-deal", missing)
    assert done.returncode == 2 and inert(done.stderr) and "none\\x1b]52" in done.stderr


def test_players_shows_no_escape(tmp_path: Path) -> None:
    """The roster's names and its path are checked printable where they are
    read; ``players`` shows what it prints through printable() all the same."""
    roster = tmp_path / "roster.toml"
    escaped = json.dumps(f"Анна{HOSTILE}", ensure_ascii=True)
    roster.write_text(f"players = [ {{ name = {escaped}, games = 2 }} ]\n", encoding="utf-8")
    config = tmp_path / "config.toml"
    config.write_text(f"[paths]\nroster = {json.dumps(str(roster))}\n", encoding="utf-8")
    env = {**os.environ, "COMPANION_CONFIG": str(config)}
    for lang in ("ru", "en"):
        done = companion(env, "players", "--lang", lang)
        assert inert(done.stdout) and inert(done.stderr), done.stdout + done.stderr
        assert done.returncode == 2 and done.stderr.count("\n") == 1


def test_the_fixture_is_hostile() -> None:
    """The characters above are ones a terminal obeys (else the tests prove nothing)."""
    assert not any(ch.isprintable() for ch in HOSTILE if ch in "\x1b\x07\x9b\u202e")
