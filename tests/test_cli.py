"""The command line: ``companion [replay|resume|rulesets]``, and bad input:
one line on stderr naming the file, the line and the input, the reason in
the user's words (Russian; the script's own with ``--lang en``); exit
status 2; nothing on stdout; no journal written for a script that does not
parse. (The help and argparse's words: tests/test_cli_words.py.)"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import EXAMPLES, ROOT, TOURNAMENT_ROLES

from companion import cli

SETUP = json.dumps({"input": "setup", "ruleset": "tournament", "roles": TOURNAMENT_ROLES})
#: a short start: setup, night 0 on its timers, day 1 with seat 1 speaking
START = [
    "# a bad script",
    SETUP,
    '{"at": 80, "input": "wait"}',
    '{"at": 85, "input": "nominate", "by": 1, "target": 3}',
]


@pytest.fixture(autouse=True)
def no_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No club's config (this machine's, if any, is not read): Russian."""
    monkeypatch.setenv("COMPANION_CONFIG", str(tmp_path / "no-config.toml"))


def main(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    status = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def script(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


#: (name, the bad line, found by the parser before anything runs?, a bit of the
#: message in Russian, the same in English: the reader's or the engine's own words)
BAD = [
    ("broken JSON", '{"input": "next", "seat": }', True, "не JSON", "not JSON"),
    (
        "unknown input",
        '{"input": "raise_hand", "seat": 3}',
        True,
        "«input» — одно из: adjust, best_move",
        "'input' must be one of",
    ),
    (
        "unknown key",
        '{"input": "press", "seat": 3, "hold": 2}',
        True,
        "у ввода «press» нет ключа «hold»",
        "unknown key 'hold'",
    ),
    (
        "missing key",
        '{"input": "nominate", "by": 2}',
        True,
        "вводу «nominate» нужен ключ «target»",
        "input 'nominate' needs 'target'",
    ),
    (
        "wrong type",
        '{"input": "press", "seat": "3"}',
        True,
        "«seat» — номер места (1, 2, …), а дано «3»",
        "'seat' must be a seat number",
    ),
    (
        "wrong list",
        '{"input": "best_move", "seat": 1, "suspects": "3"}',
        True,
        "«suspects» — список номеров мест, а дано «3»",
        "list of seat",
    ),
    ("time backwards", '{"at": 10, "input": "next"}', True, "не раньше 85", "not before 85"),
    (
        "unknown ruleset",
        '{"input": "setup", "ruleset": "street"}',
        True,
        "нет правил «street» в папке",
        "no ruleset named",
    ),
    (
        "unknown seat",
        '{"after": 1, "input": "press", "seat": 11}',
        False,
        "места 11 за этим столом нет",  # the engine's refusal, in the host's words
        "press: seat 11",
    ),
    (
        "unknown offence",
        '{"input": "offence", "seat": 2, "offence": "4.6.99"}',
        False,
        "нет нарушения «4.6.99»",
        "offence: no offence '4.6.99' in ruleset 'tournament'",
    ),
    (
        "wrong phase",
        '{"input": "shot", "seat": 3, "target": 1}',
        False,
        "не в эту фазу игры (речь)",
        "shot: not allowed in phase speech",
    ),
]


@pytest.mark.parametrize(
    ("bad", "early", "message", "english"), [b[1:] for b in BAD], ids=[b[0] for b in BAD]
)
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    bad: str,
    early: bool,
    message: str,
    english: str,
) -> None:
    path = script(tmp_path, *START, bad)
    for lang, said in (("ru", message), ("en", english)):
        status, out, err = main(capsys, "replay", path, "--json", "--lang", lang)
        assert status == 2
        assert out == ""  # no half-written JSON
        assert err.count("\n") == 1
        assert err.startswith(f"companion: {path}:5: {bad}: ")  # the file, the line, the input
        assert said in err


@pytest.mark.parametrize(
    ("bad", "early", "message", "english"), [b[1:] for b in BAD], ids=[b[0] for b in BAD]
)
def test_bad_input_with_a_journal(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    bad: str,
    early: bool,
    message: str,
    english: str,
) -> None:
    """A line that does not parse stops everything before the journal is
    opened; an input the engine refuses leaves the inputs accepted before it,
    a journal that resumes."""
    path, journal = script(tmp_path, *START, bad), tmp_path / "j.jsonl"
    status, out, err = main(capsys, "replay", path, "--json", "--journal", journal)
    assert (status, out) == (2, "")
    assert message in err
    if early:
        assert not journal.exists()
        return
    lines = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
    assert [r["input"] for r in lines] == ["setup", "timer", "timer", "nominate"]
    status, out, err = main(capsys, "resume", journal, "--json")
    assert (status, err) == (0, "")
    assert json.loads(out)["phase"] == "speech"


def test_a_nomination_at_night(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = '{"at": 5, "input": "nominate", "by": 1, "target": 2}'
    path = script(tmp_path, SETUP, bad)
    status, out, err = main(capsys, "replay", path)
    assert (status, out) == (2, "")
    assert err == f"companion: {path}:2: {bad}: Выставить — не в эту фазу игры (ночь)\n"
    status, out, err = main(capsys, "replay", path, "--lang", "en")  # the script's own words
    assert err == f"companion: {path}:2: {bad}: nominate: not allowed in phase night\n"


def test_a_script_without_setup(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = script(tmp_path, "# nothing yet")
    status, out, err = main(capsys, "replay", path)
    assert (status, out) == (2, "")
    assert err == f"companion: {path}: нет строки setup (начала игры): играть нечего\n"
    status, out, err = main(capsys, "replay", path, "--lang", "en")
    assert err == f"companion: {path}: no setup line: nothing to play\n"


def test_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("replay", "resume"):
        status, out, err = main(capsys, command, tmp_path / "nowhere.jsonl")
        assert (status, out) == (2, "")
        assert err.count("\n") == 1 and "nowhere.jsonl" in err


def test_exit_status_and_streams_of_a_real_process(tmp_path: Path) -> None:
    path = script(tmp_path, *START, '{"after": 1, "input": "press", "seat": 11}')
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("COMPANION_CRASH_AT", None)
    done = subprocess.run(
        [sys.executable, "-m", "companion.cli", "replay", str(path), "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f'companion: {path}:5: {{"after": 1, "input": "press", "seat": 11}}: '
        "Кнопка места — места 11 за этим столом нет (места 1–10)"
    ]


# --- the commands ------------------------------------------------------------------


def test_replay_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = script(tmp_path, *START)
    status, out, err = main(capsys, "replay", path, "--json")
    assert (status, err) == (0, "")
    state = json.loads(out)
    assert state["ruleset"] == "tournament" and state["phase"] == "speech"
    assert state["day"] == 1 and state["nominees"] == [3]
    assert len(state["seats"]) == 10


def test_replay_prints_the_protocol(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = main(capsys, "replay", script(tmp_path, *START))
    assert (status, err) == (0, "")
    assert len(out.splitlines()) > 3


def test_demo_replays_the_demo(capsys: pytest.CaptureFixture[str]) -> None:
    """(``companion`` alone opens the console: tests/test_console_pty.py.)"""
    status, out, err = main(capsys, "demo")
    assert (status, err) == (0, "")
    assert out.strip()
    assert out == main(capsys, "replay", EXAMPLES / "demo.jsonl")[1]


def test_rulesets(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = main(capsys, "rulesets")
    assert status == 0
    assert {"club", "tournament"} <= set(out.split())


@pytest.fixture
def restored_collector() -> Iterator[None]:
    thresholds = gc.get_threshold()
    try:
        yield
    finally:  # the live loop tunes the collector for the whole process
        gc.unfreeze()
        gc.set_threshold(*thresholds)


@pytest.mark.usefixtures("restored_collector")
def test_realtime_keeps_the_tables_stream_apart_from_the_hosts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``replay --realtime``: standard output is the table's (captions
    alone); the host log and the protocol go to standard error."""
    path = script(tmp_path, SETUP)  # the setup alone: its cues, then the end of the script
    status, out, err = main(capsys, "replay", path, "--realtime", "--captions", "--speed", "20")
    assert os.sched_getscheduler(0) == os.SCHED_OTHER  # only the loop's thread was raised
    assert status == 0
    assert out.splitlines()[0] == "» Наступает ночь. Город засыпает."
    assert all(line.startswith(("» ", "! ")) for line in out.splitlines())
    assert "роль" not in out and "шериф" not in out.lower()
    assert "00:00.00  Место 5: роль Шериф" in err.splitlines()  # the host's
    assert "Стол: «Турнирный регламент», мест 10" in err


@pytest.mark.usefixtures("restored_collector")
def test_realtime_json_goes_to_the_host_log_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, host = script(tmp_path, SETUP), tmp_path / "host.json"
    status, out, err = main(
        capsys, "replay", path, "--realtime", "--captions", "--json", "--host-log", host
    )
    assert status == 0 and err == ""
    assert json.loads(host.read_text(encoding="utf-8"))["ruleset"] == "tournament"
    assert (host.stat().st_mode & 0o777) == 0o600  # it holds every role
    assert "» Наступает ночь. Город засыпает." in out.splitlines()


def test_captions_and_host_log_in_one_file_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, both = script(tmp_path, SETUP), tmp_path / "both.txt"
    status, out, err = main(
        capsys, "replay", path, "--realtime", "--captions-to", both, "--host-log", both
    )
    assert (status, out) == (2, "")
    assert err == (
        "companion: --captions-to и --host-log указывают на один файл: реплики — для стола, "
        "а строки ведущего — только для ведущего\n"
    )
    status, out, err = main(
        capsys,
        "replay",
        path,
        "--realtime",
        "--captions-to",
        both,
        "--host-log",
        both,
        "--lang",
        "en",
    )
    assert err == (
        "companion: --captions-to and --host-log name the same file: captions are the "
        "table's, the host log is the host's alone\n"
    )


@pytest.mark.parametrize(
    "option", [["--captions"], ["--speed", "2"], ["--host-log", "h.txt"], ["--device", "pulse"]]
)
def test_live_options_need_realtime(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: list[str]
) -> None:
    status, out, err = main(capsys, "replay", script(tmp_path, SETUP), *option)
    assert (status, out) == (2, "")
    assert err.startswith(f"companion: {option[0]}: только вместе с --realtime")
    status, out, err = main(capsys, "replay", script(tmp_path, SETUP), *option, "--lang", "en")
    assert err.startswith(f"companion: {option[0]}: only with --realtime")


def test_global_options_work_after_the_subcommand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = script(tmp_path, *START)
    after = main(capsys, "replay", path, "--lang", "en")
    before = main(capsys, "--lang", "en", "replay", path)
    assert after == before and after[0] == 0
    assert "Seat 1 nominated seat 3" in after[1]
    assert main(capsys, "replay", path)[1] != after[1]  # Russian by default
