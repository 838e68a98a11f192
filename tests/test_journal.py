"""The journal (docs/journal.md): append-only, one JSON line per accepted
input, on disk (written and fsynced) before the input's effects are carried
out; ``companion resume`` rebuilds the game from it after a crash.

The crash tests kill a real ``companion replay`` with SIGKILL through the
journal's test hook ``COMPANION_CRASH_AT`` ("N:after": right after input N is
journaled; "N:mid": halfway through writing it, leaving a torn line) and
check that ``companion resume`` reaches the state of the uninterrupted run.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT, TOURNAMENT_ROLES, spread
from journal_files import write_crash_state

from companion import cli
from companion.commands import play
from companion.config.rulesets import load_ruleset
from companion.core.effects import Effect
from companion.protocol import report
from companion.runner import journal, journal_check
from companion.runner.replay import ScriptReplay
from companion.runner.script import ScriptError, parse_lines

ROLES_JSON = json.dumps(TOURNAMENT_ROLES)

#: A whole tournament game: 99 script lines, 96 journaled inputs (timer
#: expiries included). Seats: 3, 8 mafia; 6 don; 5 sheriff; the rest civilians.
GAME = f"""\
# A whole tournament game: night 0, three days, two nights, red wins.
{{"at": 0, "input": "setup", "ruleset": "tournament", "roles": {ROLES_JSON}}}
# night 0: agreement (60 s) and free seating (20 s) run out on their timers
{{"at": 80, "input": "wait"}}
{{"at": 85, "input": "nominate", "by": 1, "target": 3}}
{{"at": 90, "input": "pass", "seat": 1}}
{{"at": 95, "input": "nominate", "by": 2, "target": 8}}
{{"at": 96, "input": "undo"}}
{{"at": 97, "input": "nominate", "by": 2, "target": 6}}
{{"at": 100, "input": "press", "seat": 2}}
# seat 3 runs over: the warning and the turn timer fire before the host's next
{{"at": 165, "input": "next"}}
{{"at": 170, "input": "offence", "seat": 4, "offence": "4.6.1"}}
{{"after": 5, "input": "next"}}
{{"after": 10, "input": "next"}}
{{"after": 10, "input": "next"}}
{{"after": 10, "input": "next"}}
{{"after": 10, "input": "next"}}
{{"after": 10, "input": "next"}}
{{"after": 10, "input": "next"}}
# the vote: 6 hands for seat 3; seat 9 lifts early (4.6.4 proposed, the vote stands)
{{"at": 235.5, "input": "press", "seat": 1}}
{{"input": "press", "seat": 2}}
{{"input": "press", "seat": 4}}
{{"input": "press", "seat": 5}}
{{"input": "press", "seat": 7}}
{{"input": "press", "seat": 9}}
{{"at": 236, "input": "release", "seat": 9}}
{{"at": 236.5, "input": "press", "seat": 9}}
{{"at": 240, "input": "wait"}}
{{"at": 240.5, "input": "release", "seat": 1}}
{{"input": "release", "seat": 2}}
{{"input": "release", "seat": 4}}
{{"input": "release", "seat": 5}}
{{"input": "release", "seat": 7}}
{{"input": "release", "seat": 9}}
{{"at": 241, "input": "dismiss", "index": 0}}
{{"at": 250, "input": "next"}}
# night 1
{{"at": 255, "input": "shot", "seat": 6, "target": 1}}
{{"at": 256, "input": "shot", "seat": 8, "target": 1}}
{{"at": 256, "input": "next"}}
{{"at": 260, "input": "check", "seat": 6, "target": 5}}
{{"at": 260, "input": "next"}}
{{"at": 265, "input": "check", "seat": 5, "target": 6}}
{{"at": 265, "input": "next"}}
# day 2: seat 1's last word and best move
{{"at": 270, "input": "best_move", "seat": 1, "suspects": [3, 6, 8]}}
{{"at": 275, "input": "next"}}
{{"at": 280, "input": "nominate", "by": 2, "target": 6}}
{{"at": 285, "input": "next"}}
{{"at": 290, "input": "nominate", "by": 4, "target": 8}}
{{"at": 295, "input": "next"}}
{{"at": 300, "input": "next"}}
{{"at": 305, "input": "next"}}
{{"at": 310, "input": "next"}}
{{"at": 315, "input": "next"}}
{{"at": 320, "input": "next"}}
{{"at": 325, "input": "next"}}
{{"at": 325.5, "input": "press", "seat": 2}}
{{"input": "press", "seat": 4}}
{{"input": "press", "seat": 5}}
{{"input": "press", "seat": 7}}
{{"at": 330, "input": "wait"}}
{{"at": 330.5, "input": "release", "seat": 2}}
{{"input": "release", "seat": 4}}
{{"input": "release", "seat": 5}}
{{"input": "release", "seat": 7}}
# a tie: tie speeches, then the revote
{{"at": 335, "input": "next"}}
{{"at": 340, "input": "next"}}
{{"at": 340.5, "input": "press", "seat": 2}}
{{"input": "press", "seat": 4}}
{{"input": "press", "seat": 5}}
{{"input": "press", "seat": 7}}
{{"input": "press", "seat": 9}}
{{"at": 345, "input": "wait"}}
{{"at": 345.5, "input": "release", "seat": 2}}
{{"input": "release", "seat": 4}}
{{"input": "release", "seat": 5}}
{{"input": "release", "seat": 7}}
{{"input": "release", "seat": 9}}
{{"at": 350, "input": "next"}}
# night 2: the Don is out, his step runs its time
{{"at": 355, "input": "shot", "seat": 8, "target": 2}}
{{"at": 355, "input": "next"}}
{{"at": 375, "input": "wait"}}
{{"at": 380, "input": "check", "seat": 5, "target": 8}}
{{"at": 380, "input": "next"}}
# day 3
{{"at": 385, "input": "next"}}
{{"at": 390, "input": "nominate", "by": 4, "target": 8}}
{{"at": 395, "input": "next"}}
{{"at": 400, "input": "next"}}
{{"at": 405, "input": "next"}}
{{"at": 410, "input": "next"}}
{{"at": 415, "input": "next"}}
{{"at": 420, "input": "next"}}
{{"at": 430, "input": "next"}}
"""

#: Few script lines, many timer expiries: the journal's line numbers run
#: ahead of the script's (a resume must go by the "line" key, not by them).
COMPACT = f"""\
{{"at": 0, "input": "setup", "ruleset": "tournament", "roles": {ROLES_JSON}}}
{{"at": 1000, "input": "next"}}
{{"at": 1001, "input": "nominate", "by": 2, "target": 3}}
"""

#: Where the crash tests kill the process: the journal record (1-based) and
#: what it is. ``test_crash_points_are_what_they_say`` keeps this honest.
CRASH_POINTS = {
    "setup": (1, {"input": "setup"}),
    "night-0 timer": (2, {"input": "timer", "name": "night"}),
    "nomination": (4, {"input": "nominate", "by": 1}),
    "undo": (7, {"input": "undo"}),
    "overrun timer": (11, {"input": "timer", "name": "turn"}),
    "hand in a vote": (22, {"input": "press", "seat": 2}),
    "hand lifted early": (27, {"input": "release", "seat": 9}),
    "«Принято» timer": (30, {"input": "timer", "name": "count"}),
    "the night's last shot": (40, {"input": "shot", "seat": 8}),
    "best move": (46, {"input": "best_move"}),
    "night step timer": (85, {"input": "timer", "name": "night"}),
    "the end": (96, {"input": "next"}),
}


# --- helpers -------------------------------------------------------------------


@pytest.fixture
def game_script(tmp_path: Path) -> Path:
    path = tmp_path / "game.jsonl"
    path.write_text(GAME, encoding="utf-8")
    return path


def companion(
    *args: str | Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m companion.cli`` as its own process."""
    environ = {k: v for k, v in os.environ.items() if k != "COMPANION_CRASH_AT"}
    environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), environ.get("PYTHONPATH", "")])
    environ.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", *map(str, args)],
        capture_output=True,
        text=True,
        env=environ,
        timeout=60,
    )


def main(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    """Run the command line in this process: (exit status, stdout, stderr)."""
    status = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def assert_clean(path: Path) -> None:
    """A journal with no torn bytes: every line whole JSON, ending in a newline."""
    data = path.read_bytes()
    assert data.endswith(b"\n")
    text = journal.read(path)
    assert text.torn is None and text.good_bytes == len(data)
    for line in text.lines:
        json.loads(line)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The uninterrupted run of GAME: its JSON and its journal."""
    folder = tmp_path_factory.mktemp("reference")
    script, path = folder / "game.jsonl", folder / "journal.jsonl"
    script.write_text(GAME, encoding="utf-8")
    assert cli.main(["replay", str(script), "--journal", str(path)]) == 0
    table = play.replay(script, None)
    assert table.game is not None
    return {"json": report.summary(table.game, table.ignored), "journal": path.read_bytes()}


# --- what a journal holds -------------------------------------------------------


def test_one_line_per_accepted_input(game_script: Path, tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    table = ScriptReplay(journal=journal.Journal.create(path))
    table.run(parse_lines(GAME.splitlines(), "game", load_ruleset))
    lines = records(path)
    assert len(lines) == table.inputs == 96
    setup = lines[0]
    assert setup["input"] == "setup" and setup["journal"] is True and setup["line"] == 2
    timers = [r for r in lines if r["input"] == "timer"]
    assert timers and all("line" not in r for r in timers)  # from the clock, not the script
    assert all("line" in r for r in lines if r["input"] != "timer")
    assert [r["at"] for r in lines] == sorted(r["at"] for r in lines)  # time never runs back


def test_replay_stamps_the_ruleset_digest(game_script: Path, tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    assert cli.main(["replay", str(game_script), "--journal", str(path)]) == 0
    setup = records(path)[0]
    assert len(setup["ruleset_sha256"]) == 64


def test_a_rejected_input_is_not_journaled(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    table = ScriptReplay(journal=journal.Journal.create(path))
    table.run(parse_lines(COMPACT.splitlines()[:2], "compact", load_ruleset))
    before = path.read_bytes()
    bad = parse_lines(
        ['{"at": 1001, "input": "nominate", "by": 5, "target": 3}'], "x", load_ruleset
    )
    with pytest.raises(ScriptError, match="only in their own speech"):
        table.run(bad)
    assert path.read_bytes() == before


def test_journal_is_on_disk_before_the_effects(tmp_path: Path) -> None:
    """The effects sink reads the journal file: the input is already there."""
    path = tmp_path / "j.jsonl"
    seen: list[tuple[int, dict[str, Any]]] = []
    table: ScriptReplay

    def sink(now: float, effects: tuple[Effect, ...]) -> None:
        lines = path.read_text(encoding="utf-8").splitlines()
        assert len(lines) == table.inputs  # the input whose effects these are is written
        last = json.loads(lines[-1])
        assert last["at"] == now
        seen.append((len(lines), last))

    table = ScriptReplay(journal=journal.Journal.create(path), on_effects=sink)
    table.run(parse_lines(GAME.splitlines(), "game", load_ruleset))
    # Presses and releases that only move a hand have no effects (lights are a
    # view of the state, not effects); everything else has some.
    assert len(seen) >= 50
    assert {r["input"] for _, r in seen} >= {"setup", "timer", "next", "check", "undo"}


def test_write_and_fsync_come_before_the_effects(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Order of the system calls: the new file's folder fsynced once, then
    for every input its write and its fsync, then the effects."""
    events: list[str] = []

    class Spy:
        """The journal's file layer, logging writes and fsyncs."""

        def write(self, fd: int, data: bytes) -> int:
            events.append("write")
            return os.write(fd, data)

        def fsync(self, fd: int) -> None:
            events.append("fsync")
            os.fsync(fd)

        ftruncate = staticmethod(os.ftruncate)

    real_fsync_dir = journal._fsync_dir

    def fsync_dir(folder: Path) -> None:
        events.append("fsync dir")
        real_fsync_dir(folder)

    monkeypatch.setattr(journal, "_fsync_dir", fsync_dir)
    table = ScriptReplay(journal.Journal.create(tmp_path / "j.jsonl", files=Spy()))
    table.on_effects = lambda _now, _effects: events.append("effects")
    table.run(parse_lines(COMPACT.splitlines(), "compact", load_ruleset))
    assert events[:4] == ["fsync dir", "write", "fsync", "effects"]
    rest = events[4:]
    assert "fsync dir" not in rest
    for i, event in enumerate(rest):
        if event == "effects":  # every batch of effects follows a write and its fsync
            assert rest[i - 2 : i] == ["write", "fsync"]
    assert rest.count("write") == table.inputs - 1


def test_replay_refuses_to_overwrite_a_journal(
    game_script: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "j.jsonl"
    assert main(capsys, "replay", game_script, "--journal", path)[0] == 0
    before = path.read_bytes()
    status, out, err = main(capsys, "replay", game_script, "--journal", path)
    assert status == 2 and out == ""
    assert f"{path}: журнал уже есть; его продолжают так: companion resume {path}" in err
    assert path.read_bytes() == before


# --- resume ------------------------------------------------------------------------


def test_resume_continues_a_game(
    game_script: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], reference: dict[str, Any]
) -> None:
    half = tmp_path / "half.jsonl"
    half.write_text("\n".join(GAME.splitlines()[:45]) + "\n", encoding="utf-8")
    path = tmp_path / "j.jsonl"
    assert main(capsys, "replay", half, "--journal", path)[0] == 0
    written = path.read_bytes()
    status, out, err = main(capsys, "resume", path, "--script", game_script, "--json")
    assert (status, err) == (0, "")
    assert json.loads(out) == reference["json"]
    assert path.read_bytes().startswith(written)  # append-only
    assert path.read_bytes() == reference["journal"]


def test_resume_alone_rebuilds_the_state(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reference: dict[str, Any]
) -> None:
    path = tmp_path / "j.jsonl"
    path.write_bytes(reference["journal"])
    status, out, _ = main(capsys, "resume", path, "--json")
    assert status == 0 and json.loads(out) == reference["json"]
    assert path.read_bytes() == reference["journal"]  # nothing new to write


def test_a_journal_is_a_table_script(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reference: dict[str, Any]
) -> None:
    """Replaying a journal alone (its timer lines are inputs) gives the same JSON."""
    path = tmp_path / "j.jsonl"
    path.write_bytes(reference["journal"])
    status, out, _ = main(capsys, "replay", path, "--json")
    assert status == 0 and json.loads(out) == reference["json"]


def test_resume_after_every_possible_crash(
    game_script: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], reference: dict[str, Any]
) -> None:
    """In this process: each prefix of the journal (what a crash right after
    input N leaves), with and without half of the next line torn after it
    (under ``--fast``, every fourth prefix)."""
    whole: bytes = reference["journal"]
    lines = whole.splitlines(keepends=True)
    path = tmp_path / "j.jsonl"
    for n in spread(range(len(lines))):
        for torn in (b"", lines[n][: len(lines[n]) // 2]):
            write_crash_state(path, b"".join(lines[:n]))
            path.write_bytes(b"".join(lines[:n]) + torn)
            status, out, err = main(capsys, "resume", path, "--script", game_script, "--json")
            assert status == 0, (n, torn, err)
            assert json.loads(out) == reference["json"], (n, torn)
            assert path.read_bytes() == whole, (n, torn)
            assert ("оборванная последняя строка пропущена" in err) == bool(torn)


def test_resume_goes_by_script_lines_not_journal_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script, path = tmp_path / "compact.jsonl", tmp_path / "j.jsonl"
    script.write_text(COMPACT, encoding="utf-8")
    assert main(capsys, "replay", script, "--journal", path)[0] == 0
    whole = path.read_bytes()
    assert len(whole.splitlines()) == 7  # setup, 4 timers, next, nominate
    expected = main(capsys, "replay", script, "--json")[1]
    for n in range(1, 7):
        write_crash_state(path, b"".join(whole.splitlines(keepends=True)[:n]))
        status, out, err = main(capsys, "resume", path, "--script", script, "--json")
        assert (status, err) == (0, ""), n
        assert out == expected, n
        assert path.read_bytes() == whole, n


def test_undo_of_a_timer_expiry_brings_the_turn_back_paused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The undone time-up does not fire again: the turn comes back paused
    with what it had (nothing), and the undo's line carries that, so the
    journal replays and resumes on its own to the same state."""
    script, path = tmp_path / "undo.jsonl", tmp_path / "j.jsonl"
    script.write_text(
        f'{{"at": 0, "input": "setup", "ruleset": "tournament", "roles": {ROLES_JSON}}}\n'
        '{"at": 100, "input": "next"}\n'  # seat 2's minute: warning at 150, time up at 160
        '{"at": 170, "input": "undo"}\n'  # takes back the time-up
        '{"at": 171, "input": "adjust", "seconds": 10}\n',
        encoding="utf-8",
    )
    status, expected, _ = main(capsys, "replay", script, "--json", "--journal", path)
    assert status == 0
    kinds = [(r["at"], r["input"], r.get("remaining")) for r in records(path)[3:]]
    assert kinds == [
        (100, "next", None),
        (150, "timer", None),
        (160, "timer", None),
        (170, "undo", [["turn", 0.0]]),
        (171, "adjust", []),
    ]
    assert main(capsys, "replay", path, "--json")[1] == expected
    assert main(capsys, "resume", path, "--json")[1] == expected


# --- torn and corrupt journals ------------------------------------------------------


@pytest.mark.parametrize("tail", [b'{"at":999.0,"inp', b'{"at":999.0,"inp' + b"\0" * 9 + b"\n"], ids=["no-newline", "zeros"])  # fmt: skip
def test_a_torn_last_line_is_reported_and_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reference: dict[str, Any], tail: bytes
) -> None:
    path = tmp_path / "j.jsonl"
    write_crash_state(path, reference["journal"])
    path.write_bytes(reference["journal"] + tail)
    status, out, err = main(capsys, "resume", path, "--json")
    assert status == 0  # never fatal
    assert json.loads(out) == reference["json"]
    assert err.count("\n") == 1
    assert f"{path}:97: оборванная последняя строка пропущена" in err
    assert_clean(path)
    assert path.read_bytes() == reference["journal"]


def test_read(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    path.write_bytes(b"")
    assert journal.read(path).lines == [] and journal.read(path).torn is None
    with journal.Journal.create(tmp_path / "w.jsonl") as writer:
        writer.append({"a": 1})
        writer.append({"b": "x\u2028y"})  # stays one line (json.dumps leaves it raw)
    data = (tmp_path / "w.jsonl").read_bytes()
    first, second = data.splitlines(keepends=True)
    write_crash_state(path, first)
    path.write_bytes(first + b'{"b"')
    text = journal.read(path)
    assert (text.lines, text.torn, text.good_bytes) == ([first[:-1].decode()], '{"b"', len(first))
    write_crash_state(path, data)
    text = journal.read(path)
    assert [json.loads(x) for x in text.lines] == [
        {"a": 1, "sum": json.loads(first)["sum"]},
        {"b": "x\u2028y", "sum": json.loads(second)["sum"]},
    ]
    assert text.torn is None and text.good_bytes == len(data) and text.warnings == []


def reseal(lines: list[bytes]) -> list[bytes]:
    """Recompute every checksum, as someone who edits a journal on purpose
    could: the content is then checked by the engine as it is replayed."""
    out, previous = [], ""
    for raw in lines:
        body = raw[: raw.rindex(b',"sum":')] + b"}"
        previous = journal_check.chain(previous, body)
        out.append(body[:-1] + b',"sum":"' + previous.encode() + b'"}\n')
    return out


def test_a_corrupt_middle_line_is_an_error_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reference: dict[str, Any]
) -> None:
    lines = reference["journal"].splitlines(keepends=True)
    lines[4] = lines[4][:20] + lines[4][21:]  # a byte lost
    path = tmp_path / "j.jsonl"
    write_crash_state(path, reference["journal"])
    path.write_bytes(b"".join(lines))
    status, out, err = main(capsys, "resume", path, "--json")
    assert status == 2 and out == ""
    assert err.count("\n") == 1
    assert err.startswith(f"companion: {path}:5: ") and "контрольная сумма не сходится" in err
    assert path.read_bytes() == b"".join(lines)  # nothing written to it


def test_an_impossible_middle_line_is_an_error_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reference: dict[str, Any]
) -> None:
    """Even with its checksums recomputed, a line the engine refuses stops
    the resume, naming it."""
    lines = reference["journal"].splitlines(keepends=True)
    assert b'"target":3' in lines[3]
    lines[3] = lines[3].replace(b'"target":3', b'"target":33')
    path = tmp_path / "j.jsonl"
    write_crash_state(path, b"".join(reseal(lines)))
    status, out, err = main(capsys, "resume", path)
    assert status == 2 and out == ""
    assert err.startswith(f"companion: {path}:4: ") and "цель: места 33 за этим столом нет" in err


def test_a_changed_ruleset_warns(
    game_script: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    reference: dict[str, Any],
) -> None:
    rulesets = tmp_path / "rulesets"
    shutil.copytree(ROOT / "rulesets", rulesets)
    monkeypatch.setenv("COMPANION_RULESETS", str(rulesets))
    path = tmp_path / "j.jsonl"
    assert main(capsys, "replay", game_script, "--journal", path)[0] == 0
    status, out, err = main(capsys, "resume", path, "--json")
    assert (status, err) == (0, "")
    with (rulesets / "tournament.toml").open("a", encoding="utf-8") as file:
        file.write("\n# edited after the game began\n")
    status, out, err = main(capsys, "resume", path, "--json")
    assert status == 0 and json.loads(out) == reference["json"]  # a warning, not an error
    assert err == f"companion: {path}:1: правила «tournament» изменились с начала этой игры\n"


# --- SIGKILL --------------------------------------------------------------------


def test_crash_points_are_what_they_say(reference: dict[str, Any]) -> None:
    lines = [json.loads(line) for line in reference["journal"].splitlines()]
    assert len(lines) == 96
    for name, (n, expected) in CRASH_POINTS.items():
        assert expected.items() <= lines[n - 1].items(), name
    phases = {lines[n - 1]["input"] for n, _ in CRASH_POINTS.values()}
    assert phases >= {"setup", "timer", "nominate", "press", "release", "shot", "next"}


@pytest.mark.parametrize("where", ["after", "mid"])
@pytest.mark.parametrize("point", spread(list(CRASH_POINTS)))  # --fast: every fourth
def test_sigkill_then_resume_reaches_the_same_state(
    game_script: Path, tmp_path: Path, reference: dict[str, Any], point: str, where: str
) -> None:
    n = CRASH_POINTS[point][0]
    path = tmp_path / "j.jsonl"
    crashed = companion(
        "replay", game_script, "--journal", path, "--json", env={"COMPANION_CRASH_AT": f"{n}:{where}"}
    )  # fmt: skip
    assert crashed.returncode == -signal.SIGKILL, crashed.stderr
    assert crashed.stdout == ""
    left = journal.read(path)
    assert len(left.lines) == (n if where == "after" else n - 1)
    assert (left.torn is not None) == (where == "mid")

    resumed = companion("resume", path, "--script", game_script, "--json")
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout) == reference["json"]
    if where == "mid":
        assert resumed.stderr.startswith(
            f"companion: {path}:{n}: оборванная последняя строка пропущена"
        )
    else:
        assert resumed.stderr == ""
    # The resumed journal is clean and whole: the same bytes as an uninterrupted run's,
    # and it replays alone to the same state.
    assert_clean(path)
    assert path.read_bytes() == reference["journal"]
    assert cli.main(["replay", str(path), "--json"]) == 0


def test_sigkill_during_a_resume(
    game_script: Path, tmp_path: Path, reference: dict[str, Any]
) -> None:
    """A second crash, while the resumed game is being journaled, is survived too."""
    path = tmp_path / "j.jsonl"
    first = companion("replay", game_script, "--journal", path, env={"COMPANION_CRASH_AT": "30:mid"})  # fmt: skip
    assert first.returncode == -signal.SIGKILL
    # The resumed table counts its own appends: the 20th new line is input 49.
    second = companion(
        "resume", path, "--script", game_script, env={"COMPANION_CRASH_AT": "20:mid"}
    )
    assert second.returncode == -signal.SIGKILL
    assert len(journal.read(path).lines) == 29 + 19
    third = companion("resume", path, "--script", game_script, "--json")
    assert third.returncode == 0, third.stderr
    assert json.loads(third.stdout) == reference["json"]
    assert path.read_bytes() == reference["journal"]
