"""The journal written on a thread of its own (issue 24, docs/journal.md
"Written behind"): the live loop only queues each line, so a disk that
stalls in fsync never holds a timer up; an input's effects are carried out
only once its line is on disk; a line that cannot be written takes the game
back to before it and refuses what followed; the lines keep their order
and their checksum chain, byte for byte what the inline path writes.

The disk is the real file with real fsyncs behind a gate the test holds
(``StallingDisk``): an fsync waits at it for as long as the test says, and
one made on the loop's own thread (the test's, which drives the loop with
``run_pending``) is an error at once — there is no sleeping and no timing.
"""

from __future__ import annotations

import errno
import io
import logging
import os
import threading
from pathlib import Path

import pytest
from helpers import TOURNAMENT_ROLES

from companion.config.rulesets import load_ruleset
from companion.core.effects import Effect, Ignored
from companion.core.events import Event, GameSetUp, HostAdvanced, SeatPressed, TimerExpired
from companion.core.sports.state import table as table_state
from companion.live.assembly import LiveTable, TableSpec
from companion.runner.clock import FakeClock
from companion.runner.journal import Journal, read
from companion.runner.journal_writer import JournalWriter
from companion.runner.loop import RETRY_AFTER, LiveLoop
from companion.runner.session import GameSession
from companion.voice.settings import VoiceSettings
from companion.voice.speaker import CaptionSpeaker

RULES = load_ruleset("tournament")
SETUP = GameSetUp(RULES, 10, tuple(TOURNAMENT_ROLES))


class StallingDisk:
    """The journal's system calls, real, but each fsync first waits at a
    gate the test holds (a card that stalls); the next ``fail`` fsyncs
    then fail with ENOSPC. An fsync on the thread that drives the loop
    fails the test: the disk must be out of the timer's way."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.gate.set()
        self.waiting = threading.Event()  # an fsync is held at the gate
        self.fail = 0
        self.loop_thread = threading.current_thread()

    write = staticmethod(os.write)
    ftruncate = staticmethod(os.ftruncate)

    def fsync(self, fd: int) -> None:
        if threading.current_thread() is self.loop_thread:
            raise AssertionError("an fsync on the timer loop's thread")
        if not self.gate.is_set():
            self.waiting.set()
            if not self.gate.wait(60):
                raise OSError(errno.EIO, "the test never opened the gate")
        if self.fail:
            self.fail -= 1
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        os.fsync(fd)

    def hold(self) -> None:
        self.waiting.clear()
        self.gate.clear()

    def stalled(self) -> None:
        """Wait until the writer is held in an fsync (it never got through)."""
        assert self.waiting.wait(60), "the writer never reached the disk"


class Shown:
    """The effects sink: each input's effects, with how many lines the
    journal had on disk at that moment."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.effects: list[tuple[Effect, ...]] = []
        self.lines_then: list[int] = []

    def __call__(self, _now: float, effects: tuple[Effect, ...]) -> None:
        self.effects.append(effects)
        self.lines_then.append(len(self.path.read_bytes().splitlines()))

    def each_after_its_line(self) -> bool:
        """The n-th input's effects came with at least n lines on disk (in
        these tests every input has effects)."""
        return all(then >= n for n, then in enumerate(self.lines_then, 1))


class Refused:
    def __init__(self) -> None:
        self.events: list[Event] = []
        self.reasons: list[str] = []

    def __call__(self, event: Event, reason: str, _line: int | None) -> None:
        self.events.append(event)
        self.reasons.append(reason)


class SpeedClock(FakeClock):
    """A fake clock with a practice game's speed (the loop sets it)."""

    speed = 1.0

    def set_speed(self, speed: float) -> None:
        self.speed = speed


def behind(
    tmp_path: Path, disk: StallingDisk | None
) -> tuple[LiveLoop, SpeedClock, Shown, Refused]:
    """A live loop writing behind on a stalling disk, the game set up
    (``disk`` None: writing inline on the plain disk, as before)."""
    path = tmp_path / "game.jsonl"
    journal = Journal.create(path, files=disk)
    clock, shown, refused = SpeedClock(), Shown(path), Refused()
    loop = LiveLoop(
        clock,
        shown,
        journal=journal,
        on_rejected=refused,
        writer=JournalWriter(journal) if disk is not None else None,
    )
    loop.submit(SETUP)
    assert loop.settle()
    return loop, clock, shown, refused


def test_timers_fire_on_time_while_a_line_is_stuck_in_fsync(tmp_path: Path) -> None:
    disk = StallingDisk()
    loop, clock, shown, _ = behind(tmp_path, disk)
    disk.hold()
    clock.set(1.0)
    loop.submit(SeatPressed(3))
    loop.run_pending()
    disk.stalled()  # the press's line is held in its fsync
    clock.set(60.0)  # the agreement's minute runs out
    loop.run_pending()  # would be an fsync on this thread, inline
    game = loop.game
    assert game is not None and table_state(game).night_step == 1  # the timer fired
    assert loop.stats.lateness == [0.0]
    assert len(shown.effects) == 1 and loop.session.shown.game is not game  # nothing shown yet
    disk.gate.set()
    assert loop.settle()
    # Shown in order, each once its own line was on disk.
    assert [type(e) for e in shown.effects[1]] == [Ignored]
    assert len(shown.effects) == 3 and shown.each_after_its_line()
    assert loop.session.shown.game is game and loop.stats.durable[-1] == 0.0
    text = read(tmp_path / "game.jsonl")  # the chain and the head hold
    assert [line.count('"input":"timer"') for line in text.lines] == [0, 0, 1]
    loop.close_writer()


def test_effects_wait_for_their_line_and_a_table_shows_what_is_on_disk(tmp_path: Path) -> None:
    """At a live table: the update the console gets and ``table.game``
    are the game as far as the journal holds it."""
    disk = StallingDisk()
    journal = Journal.create(tmp_path / "game.jsonl", files=disk)
    updates: list[object] = []
    table = LiveTable(
        TableSpec(voice=VoiceSettings(captions_only=True), seats="none"),  # threaded: a writer
        RULES,
        10,
        session=GameSession(journal=journal),
        clock=FakeClock(),
        speaker=CaptionSpeaker(io.StringIO()),
        on_update=updates.append,
    )
    assert table.loop.writer is not None
    table.submit(SETUP)
    assert table.loop.settle()
    setup = table.game
    seen = len(updates)
    disk.hold()
    table.submit(HostAdvanced())  # the agreement ends: free seating, 20 s
    table.pump()
    disk.stalled()
    assert table.loop.game is not setup  # the loop goes on from it ...
    assert table.game is setup and len(updates) == seen  # ... the table has not seen it
    assert table.timer_deadlines == {"night": (60.0, 1)}
    disk.gate.set()
    assert table.loop.settle()
    assert table.game is table.loop.game and table.timer_deadlines == {"night": (20.0, 2)}
    assert len(updates) > seen
    table.close()
    assert len(read(tmp_path / "game.jsonl").lines) == 2


def test_a_line_not_written_takes_the_game_back_and_refuses_what_followed(
    tmp_path: Path,
) -> None:
    disk = StallingDisk()
    loop, clock, shown, refused = behind(tmp_path, disk)
    setup = loop.game
    disk.hold()
    disk.fail = 1  # the next line does not go in, nor anywhere
    clock.set(5.0)
    advanced = HostAdvanced()
    loop.submit(advanced)  # free seating: a 20-second timer
    loop.run_pending()
    disk.stalled()
    clock.set(6.0)
    press = SeatPressed(3)
    loop.submit(press)
    clock.set(25.0)  # free seating runs out meanwhile
    loop.run_pending()
    assert loop.game is not None and loop.game.phase == "speeches"  # the loop went on
    disk.gate.set()
    assert loop.settle()
    # None of the three happened: refused, the free seating's expiry due
    # again only if the game gets there again; nothing of them was shown.
    assert refused.events == [advanced, press]
    assert all("No space left on device" in why for why in refused.reasons)
    assert loop.game is setup and loop.session.shown.game is setup
    assert dict(loop.timers.deadlines) == {"night": (60.0, 1)}
    assert loop.session.inputs == 1 and len(shown.effects) == 1
    assert len(read(tmp_path / "game.jsonl").lines) == 1
    # The disk takes lines again: the host's key again, the game goes on.
    clock.set(26.0)
    loop.submit(HostAdvanced())
    assert loop.settle()
    assert refused.events == [advanced, press] and len(shown.effects) == 2
    clock.set(46.0)
    loop.run_pending()  # the new free seating's 20 s
    assert loop.settle() and loop.game is not None and loop.game.phase == "speeches"
    records = read(tmp_path / "game.jsonl").lines
    assert len(records) == 3 and '"at":26.0,"input":"next"' in records[1]
    assert len(shown.effects) == 3 and shown.each_after_its_line()
    loop.close_writer()


def test_a_timer_not_written_fires_again_a_second_later(tmp_path: Path) -> None:
    disk = StallingDisk()
    loop, clock, _, refused = behind(tmp_path, disk)
    disk.hold()
    disk.fail = 1
    clock.set(60.0)
    loop.run_pending()  # the agreement's timer
    disk.stalled()
    disk.gate.set()
    assert loop.settle()
    assert [type(e) for e in refused.events] == [TimerExpired]
    assert loop.game is not None and table_state(loop.game).night_step == 0
    clock.set(60.0 + RETRY_AFTER / 2)
    assert loop.settle() and table_state(loop.game).night_step == 0  # no spinning
    clock.set(60.0 + RETRY_AFTER)
    assert loop.settle() and table_state(loop.game).night_step == 1
    last = read(tmp_path / "game.jsonl").lines[-1]
    assert last.startswith('{"at":60.0,"input":"timer"')  # at its deadline, as ever
    loop.close_writer()


def test_a_speed_change_not_written_is_taken_back(tmp_path: Path) -> None:
    disk = StallingDisk()
    told: list[tuple[float, str | None]] = []
    loop, clock, _, _ = behind(tmp_path, disk)
    loop.on_speed = lambda speed, why: told.append((speed, why))
    disk.hold()
    disk.fail = 1
    loop.change_speed(4.0)
    loop.run_pending()
    assert clock.speed == 4.0 and told == [(4.0, None)]  # at once, as the host asked
    disk.gate.set()
    assert loop.settle()
    assert clock.speed == 1.0 and loop.session.speed == 1.0 and loop.session.speeds == []
    assert told[-1][0] == 1.0 and "No space left on device" in str(told[-1][1])
    assert len(read(tmp_path / "game.jsonl").lines) == 1
    loop.close_writer()


def script(loop: LiveLoop, clock: FakeClock, disk: StallingDisk | None) -> None:
    """Inputs and timers, a stall now and then: the same moments for both paths."""
    for n in range(60):
        if disk is not None and n % 7 == 0:
            disk.hold()
        clock.advance(1.5)
        loop.submit(SeatPressed(n % 10 + 1) if n % 5 else HostAdvanced())
        loop.run_pending()
        if disk is not None and n % 7 == 3:
            disk.gate.set()
    if disk is not None:
        disk.gate.set()
    assert loop.settle()


def test_lines_keep_their_order_and_chain_byte_for_byte(tmp_path: Path) -> None:
    inline = tmp_path / "inline"
    inline.mkdir()
    ref, ref_clock, ref_shown, _ = behind(inline, None)
    script(ref, ref_clock, None)
    disk = StallingDisk()
    loop, clock, shown, _ = behind(tmp_path, disk)
    script(loop, clock, disk)
    loop.close_writer()
    ref.session.journal.close()  # type: ignore[union-attr]
    assert (tmp_path / "game.jsonl").read_bytes() == (inline / "game.jsonl").read_bytes()
    assert len(read(tmp_path / "game.jsonl").lines) > 60  # inputs and timers
    assert shown.effects == ref_shown.effects and loop.game == ref.game


def test_the_loop_ends_once_its_lines_are_on_disk(tmp_path: Path) -> None:
    disk = StallingDisk()
    loop, _, shown, _ = behind(tmp_path, disk)
    disk.hold()
    loop.submit(SeatPressed(3), at=1.0)
    loop.stop()
    runner = threading.Thread(target=loop.run, name="timer loop")
    disk.loop_thread = runner
    runner.start()
    disk.stalled()
    disk.gate.set()
    runner.join(60)
    assert not runner.is_alive() and loop.writer is not None and not loop.writer.running
    assert len(shown.effects) == 2 and shown.lines_then == [1, 2]  # shown before the end


def test_a_hung_fsync_is_given_up_on_and_its_file_left_open(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    disk = StallingDisk()
    loop, _, shown, _ = behind(tmp_path, disk)
    disk.hold()
    loop.submit(SeatPressed(3), at=1.0)
    loop.run_pending()
    disk.stalled()
    with caplog.at_level(logging.ERROR):
        loop.close_writer(timeout=0.05)
        journal = loop.session.journal
        assert journal is not None
        journal.close(wait=0.05)
    assert "1 line(s) not on disk after" in caplog.text
    assert "a write has not come back; its file is left open" in caplog.text
    assert len(shown.effects) == 1  # the press was never shown
    disk.gate.set()  # the card answers at last: its line goes in, whole
    assert loop.writer is not None and loop.writer.drained(60)
    journal.close()
    assert len(read(tmp_path / "game.jsonl").lines) == 2


class Foreseen:
    """The announcer's side of foresight, recorded, with the effects sink:
    a timer's foreseen cues must be followed by that timer's own effects."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, object]] = []

    def plan(self, at: float, effects: tuple[Effect, ...]) -> int:
        self.calls.append(("plan", at))
        return len(self.calls)

    def withdraw(self, ticket: object) -> None:
        self.calls.append(("withdraw", ticket))

    def carried_out(self, ticket: object) -> None:
        self.calls.append(("carried out", ticket))

    def sink(self, _now: float, effects: tuple[Effect, ...]) -> None:
        self.calls.append(("effects", effects))


def test_a_timers_foreseen_cues_go_with_its_own_effects(tmp_path: Path) -> None:
    """The announcer takes the effects after ``carried_out`` for the
    timer's (voice/announcer.py): an input held before the timer must not
    come between, or its cues would pass for the timer's, already said."""
    disk = StallingDisk()
    journal = Journal.create(tmp_path / "game.jsonl", files=disk)
    voice, clock = Foreseen(), FakeClock()
    writer = JournalWriter(journal)
    loop = LiveLoop(clock, voice.sink, journal=journal, foresight=voice, writer=writer)
    loop.submit(SETUP)
    assert loop.settle()
    ticket = voice.calls.index(("plan", 60.0)) + 1  # the agreement's end, foreseen
    seen = len(voice.calls)
    disk.hold()
    loop.submit(SeatPressed(3), at=1.0)
    loop.run_pending()
    disk.stalled()
    clock.set(60.0)
    loop.run_pending()  # the timer fires: its cues are under way at the speaker
    disk.gate.set()
    assert loop.settle()
    told = [(kind, what) for kind, what in voice.calls[seen:] if kind != "plan"]
    assert [kind for kind, _ in told] == ["effects", "carried out", "effects"]
    assert told[0][1] == (Ignored("seat 3 pressed in phase night"),)  # the press's
    assert told[1][1] == ticket  # then the timer's, its cues already under way
    loop.close_writer()
