"""Practice speed (issue 23, must-hold 10): a game whose clock runs N times
as fast is journaled as such (the setup's ``speed``, a ``speed`` line for
each change) and replays, resumes and resumes with ``--script`` exactly as
the same game at real speed; the clock changes speed without a jump; the
live loop plans the next timer's cues anew, and the voice is captions only
above real time. Fake clocks only: ``time.monotonic`` under the game clock
is the test's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import EXAMPLES
from journal_files import write_crash_state

from companion import cli
from companion.config.rulesets import load_ruleset
from companion.core.events import GameSetUp, HostAdvanced
from companion.live.assembly import LiveTable, TableSpec, Update
from companion.protocol import report
from companion.runner import clock as clock_module
from companion.runner import journal
from companion.runner.clock import FakeClock, GameClock
from companion.runner.journal import Journal
from companion.runner.replay import ScriptReplay
from companion.runner.resume import resume_journal
from companion.runner.script import ScriptError, parse_lines
from companion.voice.settings import VoiceSettings
from companion.voice.speaker import FakeSpeaker


class Monotonic:
    """``time.monotonic`` as the test says."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def monotonic(self) -> float:
        return self.now


@pytest.fixture
def mono(monkeypatch: pytest.MonkeyPatch) -> Monotonic:
    fake = Monotonic()
    monkeypatch.setattr(clock_module, "time", fake)
    return fake


# --- the clock ----------------------------------------------------------------------


def test_the_game_clock_changes_speed_without_a_jump(mono: Monotonic) -> None:
    clock = GameClock(start_at=5.0)
    mono.now += 10
    assert clock.now() == 15.0
    clock.set_speed(10)
    assert clock.now() == 15.0  # no jump
    mono.now += 1.5
    assert clock.now() == 30.0 and clock.speed == 10
    assert clock.wall_time(40.0) == mono.now + 1.0
    other = GameClock.following(*clock.anchor)  # the console's side, another process
    assert other.now() == clock.now()
    clock.set_speed(1)
    mono.now += 2
    assert clock.now() == 32.0
    other.follow(*clock.anchor)
    assert other.now() == 32.0 and other.speed == 1
    with pytest.raises(ValueError, match="above 0"):
        clock.set_speed(0)


# --- the journal --------------------------------------------------------------------

#: the demo game with a practice speed: begun at ×10, back to 1 in the
#: first night, ×4 on day 2
SPEEDS = {0: 10, 12: 1, 40: 4}


def practice_script() -> tuple[str, str]:
    """The demo's script as it is, and the same game at practice speed."""
    plain = (EXAMPLES / "demo.jsonl").read_text(encoding="utf-8")
    lines: list[str] = []
    inputs = 0
    for text in plain.splitlines():
        if not text.strip() or text.startswith("#"):
            lines.append(text)
            continue
        record = json.loads(text)
        if record["input"] == "setup":
            record["speed"] = SPEEDS[0]
            lines.append(json.dumps(record))
        else:
            lines.append(text)
        inputs += 1
        if inputs in SPEEDS and inputs:
            lines.append(json.dumps({"after": 0, "input": "speed", "factor": SPEEDS[inputs]}))
    return plain, "\n".join(lines) + "\n"


def summary(table: ScriptReplay) -> dict[str, Any]:
    assert table.game is not None
    return report.summary(table.game, table.ignored)


def test_speed_lines_change_nothing_but_the_journal(tmp_path: Path) -> None:
    plain, practice = practice_script()
    path = tmp_path / "j.jsonl"
    reference = ScriptReplay()
    reference.run(parse_lines(plain.splitlines(), "plain", load_ruleset))
    played = ScriptReplay(Journal.create(path))
    played.run(parse_lines(practice.splitlines(), "practice", load_ruleset))
    assert played.journal is not None
    played.journal.close()
    assert summary(played) == summary(reference)  # the same game, the same ending
    records = [json.loads(line) for line in journal.read(path).lines]  # the chain holds
    assert records[0]["speed"] == 10.0
    changes = [(r["at"], r["factor"]) for r in records if r["input"] == "speed"]
    assert [factor for _, factor in changes] == [1.0, 4.0]
    assert played.session.speeds == [(0.0, 10.0), *changes]
    # The journal alone, as a script, replays to the same state and speed.
    again = ScriptReplay(auto_timers=False)
    again.run(parse_lines(journal.read(path).lines, str(path), load_ruleset))
    assert summary(again) == summary(reference)
    assert again.session.speed == 4.0 and again.session.speeds == played.session.speeds


def test_a_resumed_practice_game_has_its_speed_and_goes_on_journaling(tmp_path: Path) -> None:
    _, practice = practice_script()
    lines = parse_lines(practice.splitlines(), "practice", load_ruleset)
    path = tmp_path / "j.jsonl"
    first = ScriptReplay(Journal.create(path))
    first.run(lines[:20])  # the first night, back at speed 1
    assert first.journal is not None
    first.journal.close()
    resumed = resume_journal(path, load_ruleset)
    try:
        assert resumed.session.speed == 1.0 and resumed.session.speeds[0] == (0.0, 10.0)
        resumed.session.speed_changed(3.0, resumed.session.now + 1)
    finally:
        assert resumed.session.journal is not None
        resumed.session.journal.close()
    text = journal.read(path)  # the chain and the head hold across the resume
    assert json.loads(text.lines[-1])["factor"] == 3.0
    assert resume_journal(path, load_ruleset).session.speed == 3.0


def test_resume_with_the_script_after_every_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each prefix of a practice game's journal (a crash after it) resumed
    with ``--script``: the same state and, byte for byte, the same journal
    as the uninterrupted run, speed lines included."""
    _, practice = practice_script()
    script, path = tmp_path / "practice.jsonl", tmp_path / "j.jsonl"
    script.write_text(practice, encoding="utf-8")
    assert cli.main(["replay", str(script), "--journal", str(path)]) == 0
    capsys.readouterr()  # its protocol
    whole = path.read_bytes()
    assert cli.main(["replay", str(script), "--json"]) == 0
    expected = json.loads(capsys.readouterr().out)
    lines = whole.splitlines(keepends=True)
    speed_at = [n for n, line in enumerate(lines) if b'"speed"' in line]
    assert len(speed_at) == 3  # the setup and two changes
    for n in sorted({1, *speed_at, *(n + 1 for n in speed_at), len(lines) - 1}):
        write_crash_state(path, b"".join(lines[:n]))
        status = cli.main(["resume", str(path), "--script", str(script), "--json"])
        out, err = capsys.readouterr()
        assert (status, err) == (0, ""), n
        assert json.loads(out) == expected, n
        assert path.read_bytes() == whole, n


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ({"at": 1, "input": "speed", "factor": 0}, r"'factor' must be a speed from 0\.01 to 10000"),
        ({"at": 1, "input": "speed", "factor": "fast"}, "'factor' must be a speed"),
        ({"at": 1, "input": "speed", "factor": True}, "'factor' must be a speed"),
        ({"at": 1, "input": "speed", "factor": 1e9}, "'factor' must be a speed"),
        ({"at": 1, "input": "speed"}, "input 'speed' needs 'factor'"),
        ({"at": 1, "input": "speed", "factor": 2, "x": 1}, "unknown key 'x'"),
    ],
)
def test_a_bad_speed_line_is_one_error_naming_it(line: dict[str, Any], message: str) -> None:
    setup = '{"at": 0, "input": "setup", "ruleset": "tournament"}'
    with pytest.raises(ScriptError, match=message) as caught:
        parse_lines([setup, json.dumps(line)], "s.jsonl", load_ruleset)
    assert str(caught.value).startswith("s.jsonl:2: ") and "\n" not in str(caught.value)


def test_a_bad_setup_speed_is_refused() -> None:
    setup = '{"at": 0, "input": "setup", "ruleset": "tournament", "speed": -2}'
    with pytest.raises(ScriptError, match=r"'speed' must be a speed from 0\.01"):
        parse_lines([setup], "s.jsonl", load_ruleset)


# --- the live table -----------------------------------------------------------------

RULES = load_ruleset("tournament")


def live_table(tmp_path: Path, clock: Any, speed: float, **parts: Any) -> LiveTable:
    spec = TableSpec(
        voice=VoiceSettings(captions_only="speaker" not in parts),
        seats="simulated",
        journal=tmp_path / "j.jsonl",
        speed=speed,
        practice=True,
        threaded=False,
    )
    return LiveTable(spec, RULES, 10, clock=clock, **parts)


def test_the_live_table_journals_a_speed_change_and_plans_the_cues_anew(
    tmp_path: Path, mono: Monotonic
) -> None:
    clock = GameClock()
    speaker = FakeSpeaker(schedules=True)
    updates: list[Update] = []
    told: list[float] = []
    table = live_table(
        tmp_path,
        clock,
        1.0,
        speaker=speaker,
        on_update=updates.append,
        on_speed=lambda t: told.append(t.speed),
    )
    try:
        table.submit(GameSetUp(RULES, 10, seed=1))
        table.submit(HostAdvanced())  # night 0's first step: a timer with a cue ahead
        (name, deadline, _) = table.session.timers.earliest() or ("", 0.0, 0)
        assert speaker.scheduled and table.voice.sound
        planned_at = speaker.scheduled[-1].at
        assert planned_at == clock.wall_time(deadline)
        mono.now += 4  # game second 4
        table.set_speed(10)
        assert clock.speed == 10 and table.speed == 10 and told == [10]
        assert not table.voice.sound  # captions only above real time
        # The cue handed over for the old moment is withdrawn; none is handed
        # over while the voice is silent, and the deadline has not moved.
        assert speaker.withdrawn and table.session.timers.earliest() == (name, deadline, _)
        assert updates[-1].effects == () and updates[-1].at == 4.0
        mono.now += 1  # game second 14
        table.set_speed(1)
        assert table.voice.sound and speaker.scheduled[-1].at == clock.wall_time(deadline)
        assert speaker.scheduled[-1].at == mono.now + (deadline - 14.0)
    finally:
        table.close()
    records = [json.loads(line) for line in journal.read(tmp_path / "j.jsonl").lines]
    assert "speed" not in records[0]  # begun at real speed
    assert [(r["at"], r["factor"]) for r in records if r["input"] == "speed"] == [
        (4.0, 10.0),
        (14.0, 1.0),
    ]


def test_a_practice_table_begins_and_resumes_at_its_speed(tmp_path: Path) -> None:
    table = live_table(tmp_path, FakeClock(), 20.0)
    try:
        assert table.speed == 20.0
        table.submit(GameSetUp(RULES, 10, seed=1))
        table.advance(30)
    finally:
        table.close()
    records = [json.loads(line) for line in journal.read(tmp_path / "j.jsonl").lines]
    assert records[0]["speed"] == 20.0
    resumed = resume_journal(tmp_path / "j.jsonl", load_ruleset)
    again = LiveTable(
        TableSpec(voice=VoiceSettings(captions_only=True), speed=1.0, practice=True),
        RULES,
        10,
        session=resumed.session,
    )
    try:
        # The journal's speed, not the spec's: the clock runs at ×20 again.
        assert again.speed == 20.0 and isinstance(again.clock, GameClock)
        assert again.clock.speed == 20.0
    finally:
        again.close()


def test_a_drivers_pace_is_not_journaled(tmp_path: Path) -> None:
    """A script's pace (``--inputs --speed``, the benches) is not the
    game's: the journal stays the fake-clock replay's, byte for byte."""
    spec = TableSpec(
        voice=VoiceSettings(captions_only=True),
        journal=tmp_path / "j.jsonl",
        speed=50.0,
        threaded=False,
    )
    table = LiveTable(spec, RULES, 10, clock=FakeClock())
    try:
        table.submit(GameSetUp(RULES, 10, seed=1))
    finally:
        table.close()
    (setup,) = journal.read(tmp_path / "j.jsonl").lines
    assert '"speed"' not in setup
