"""One game as every driver runs it: the engine's state, its timers'
deadlines and its journal.

The replay of a script (fake clock) and the live loop (real clock) differ
only in where inputs and time come from. What happens to an input is this
one implementation: the time left on the running timers is filled in for
the host's pause and ±time, the engine steps, the accepted input is
journaled (whole and fsynced), and only then is the new state kept and the
effects carried out. A refused input — by the engine, or because its line
could not be written — leaves everything as it was.

The live loop writes behind (``writer``: runner/journal_writer.py): the new
state is kept at once, so that the timers go on on time, and the line is
queued to the writer's thread; the input's effects are *held* until the
writer says its line is on disk (``written``), and only then carried out,
in order. A line that could not be written (``not_written``) takes the
session back to where it was before it, and every input held after it is
dropped: none of them was ever shown. ``shown`` is the game as the table
has seen it (the last line on disk).
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..config.rulesets import ruleset_digest
from ..core.effects import Effect, Ignored
from ..core.engine import apply
from ..core.events import Event, GameSetUp, TimeAdjusted, TimerExpired, TimersPaused, Undone
from ..core.state import Game
from ..core.views import trailing_flags
from . import codec, fields
from .clock import Deadlines, Kept, Timers
from .journal import Journal
from .journal_writer import Line

log = logging.getLogger(__name__)

EffectSink = Callable[[float, tuple[Effect, ...]], None]
Changed = Callable[[Game | None, Game], None]  # the state before and after an input


class Lines(Protocol):
    """Where a session writing behind queues its lines (``JournalWriter``)."""

    def put(self, line: Line) -> None: ...


@dataclass(frozen=True, slots=True)
class Shown:
    """The game as the table has seen it: the state, the running timers'
    deadlines and the time of the last input whose line is on disk."""

    game: Game | None
    deadlines: Deadlines
    now: float


@dataclass(frozen=True, slots=True)
class _Before:
    """The session before a held input: what a rollback puts back."""

    shown: Shown
    timers: Kept
    inputs: int
    last_line: int
    ignored: int
    speed: float
    speeds: int


@dataclass(frozen=True, slots=True)
class Held:
    """An input (or a speed line: ``event`` None) taken, its line queued
    to the writer, its effects held until the line is on disk."""

    seq: int
    before: _Before
    event: Event | None
    at: float
    line: int | None
    changed: tuple[Game | None, Game] | None  # for on_changed: the game changed
    effects: tuple[Effect, ...]


class GameSession:
    """Owns the game, the timers the engine asked for (as deadlines) and
    the journal. ``take`` is the only way an input gets in."""

    def __init__(
        self,
        *,
        journal: Journal | None = None,
        game: Game | None = None,
        deadlines: Deadlines | None = None,
        on_effects: EffectSink | None = None,
        on_changed: Changed | None = None,
        now: float = 0.0,
    ) -> None:
        self.journal = journal
        self.game = game
        self.timers = Timers(deadlines)
        self.on_effects = on_effects
        self.on_changed = on_changed
        self.now = now  # the time of the last input taken: time never runs back
        self.inputs = 0  # inputs taken
        self.ignored: list[int] = []  # script lines of inputs that changed nothing
        self.last_line = 0  # the highest script line taken (for resuming)
        #: a practice game's clock speed (game seconds per real second) as
        #: the journal records it: the setup's ``speed``, then ``speed`` lines
        self.speed = 1.0
        #: every speed journaled: (when, speed), the setup's first if not 1
        self.speeds: list[tuple[float, float]] = []
        #: an undo without the time left gets it from the timers' history; off
        #: while an old journal's lines are read again (their undo had none)
        self.fill_undo = True
        #: the journal's writer thread (the live loop's); None: each line is
        #: appended before ``take`` returns
        self.writer: Lines | None = None
        self.held: deque[Held] = deque()  # in order, the first the writer's now
        self.epoch = 0  # rollbacks so far (a writer drops a failed epoch's lines)
        self._queued = 0  # lines queued to the writer

    def take(
        self,
        event: Event,
        at: float,
        *,
        line: int | None = None,
        ruleset: str | None = None,
    ) -> tuple[Effect, ...]:
        """Apply one input that happened at ``at``. ``line``: the script line
        it came from; ``ruleset``: a setup's ruleset as the script names it.
        Raises IllegalInput or BadEvent (refused by the engine) or
        JournalWriteError (not written): in every case nothing changed.
        Writing behind, the line is queued and the effects held: never a
        JournalWriteError (``not_written`` comes later instead)."""
        # Times are kept to the microsecond, as the journal writes them, so that
        # a resumed game has exactly the deadlines the first run had.
        at = round(at if at > self.now else self.now, 6)
        kind = type(event)
        if kind is TimersPaused or kind is TimeAdjusted:
            event = self._with_time_left(event, at)
        # The host's undo passes over the microphone's latest flags: the
        # timers go back past them (clock.Timers.accepted).
        past_flags = isinstance(event, Undone) and event.past_flags
        passed = len(trailing_flags(self.game)) if past_flags and self.game is not None else 0
        if kind is Undone and self.fill_undo:
            event = self._with_undo_time(event, passed)
        before = self.game
        game, effects = apply(before, event)
        record: dict[str, Any] | None = None
        kept: _Before | None = None
        if self.journal is not None:
            record = _record(event, at, line, ruleset, self.speed)
            if self.writer is None:
                self.journal.append(record)  # before anything
            else:
                kept = self._before()  # written behind; the effects wait for it
        self.game = game
        self.now = at
        self.inputs += 1
        if kind is GameSetUp and self.speed != 1.0:
            self.speeds.append((at, self.speed))
        again = len(trailing_flags(game)) if past_flags else 0
        self.timers.accepted(
            event, game is not before and before is not None, effects, at, flags=(passed, again)
        )
        if line is not None and kind is not TimerExpired:
            if line > self.last_line:
                self.last_line = line
            if game is before and any(type(e) is Ignored for e in effects):
                self.ignored.append(line)
        changed = (before, game) if game is not before else None
        if kept is not None:
            self._hold(Held(self._queued + 1, kept, event, at, line, changed, effects), record)
        else:
            self._show(changed, at, effects)
        return effects

    def _show(
        self, changed: tuple[Game | None, Game] | None, at: float, effects: tuple[Effect, ...]
    ) -> None:
        """Carry out what an input caused (its line is on disk)."""
        if self.on_changed is not None and changed is not None:
            try:
                self.on_changed(*changed)  # the seat lights, before the slower voice
            except Exception:
                log.exception("showing the new state failed")
        if effects and self.on_effects is not None:
            try:
                self.on_effects(at, effects)
            except Exception:  # a broken shell never stops the game
                log.exception("carrying out %s failed", effects)

    # --- writing behind (the live loop's writer) -----------------------------------
    @property
    def shown(self) -> Shown:
        """The game as the table has seen it: as it is, unless lines are
        held; then as it was before the first of them."""
        if self.held:
            return self.held[0].before.shown
        return Shown(self.game, self.timers.deadlines, self.now)

    def _before(self) -> _Before:
        return _Before(
            Shown(self.game, self.timers.deadlines, self.now),
            self.timers.kept(),
            self.inputs,
            self.last_line,
            len(self.ignored),
            self.speed,
            len(self.speeds),
        )

    def _hold(self, held: Held, record: dict[str, Any] | None) -> None:
        assert self.writer is not None and record is not None
        self._queued = held.seq
        self.held.append(held)
        self.writer.put(Line(held.seq, self.epoch, record))

    def written(self, seq: int) -> Held | None:
        """The writer put line ``seq`` on disk: carry out what it caused.
        None: no such line is held (it was dropped by a rollback)."""
        if not self.held or self.held[0].seq != seq:
            return None
        held = self.held.popleft()
        if held.event is not None:
            self._show(held.changed, held.at, held.effects)
        return held

    def not_written(self, seq: int) -> list[Held]:
        """The writer could not write line ``seq``: back to before it. The
        inputs dropped, in order, that one first ([]: not held)."""
        if not self.held or self.held[0].seq != seq:
            return []
        dropped = list(self.held)
        self.held.clear()
        kept = dropped[0].before
        self.game, self.now = kept.shown.game, kept.shown.now
        self.timers.put_back(kept.timers)
        self.inputs, self.last_line, self.speed = kept.inputs, kept.last_line, kept.speed
        del self.ignored[kept.ignored :]
        del self.speeds[kept.speeds :]
        self.epoch += 1
        return dropped

    def _with_time_left(self, event: Event, at: float) -> Event:
        """The host's pause / ±time carries what the clock shows now (a
        journal's line already does)."""
        if isinstance(event, TimersPaused) and not event.remaining:
            return TimersPaused(self.timers.remaining(at))
        if isinstance(event, TimeAdjusted) and not event.remaining:
            return TimeAdjusted(event.seconds, self.timers.remaining(at))
        return event

    def _with_undo_time(self, event: Event, passed: int) -> Event:
        """The host's undo carries what the timers had left (a journal's
        line already does); ``passed``: the flags it passes over."""
        if isinstance(event, Undone) and event.remaining is None:
            return Undone(self.timers.undo_remaining(passed), past_flags=event.past_flags)
        return event

    def fire_due(self, until: float) -> None:
        """Fire, in deadline order, every timer due by ``until``, each at its
        own deadline (one an undo brought back, already past, fires now)."""
        while (due := self.timers.earliest()) is not None and due[1] <= until:
            name, deadline, generation = due
            self.take(TimerExpired(name, generation), deadline)

    def speed_changed(self, speed: float, at: float, *, line: int | None = None) -> None:
        """A practice game's clock runs ``speed`` times as fast from ``at``:
        journaled as a ``speed`` line (not an input to the engine: the state,
        the timers and the undo history do not change; docs/journal.md).
        Before the setup nothing is written: the setup line carries it.
        Raises JournalWriteError (not written): nothing changed then."""
        speed = fields.speed_factor(speed, "factor")
        if self.game is None:
            self.speed = speed
            return
        at = round(at if at > self.now else self.now, 6)
        kept = None
        if self.journal is not None:
            record: dict[str, Any] = {"at": at, "input": "speed", "factor": speed}
            if line is not None:
                record["line"] = line
            if self.writer is None:
                self.journal.append(record)
            else:
                kept = self._before()
        self.speed = speed
        self.speeds.append((at, speed))
        self.now = at
        if line is not None and line > self.last_line:
            self.last_line = line
        if kept is not None:
            self._hold(Held(self._queued + 1, kept, None, at, line, None, ()), record)

    def passed(self, at: float, line: int) -> None:
        """A script line that is not an input (``wait``) was reached at ``at``."""
        self.now = max(self.now, round(at, 6))
        self.last_line = max(self.last_line, line)


def _record(
    event: Event, at: float, line: int | None, ruleset: str | None, speed: float = 1.0
) -> dict[str, Any]:
    """The journal line of an accepted input: its time, its fields, the
    script line it came from (a setup's: a practice game's ``speed``)."""
    record: dict[str, Any] = {"at": at, **codec.encode(event)}
    if isinstance(event, GameSetUp):
        reference = ruleset or event.ruleset.name
        if reference.endswith(".toml") or "/" in reference:
            # A relative path must still resolve when the journal is resumed
            # from another folder.
            reference = str(Path(reference).resolve())
        record["ruleset"] = reference
        record["journal"] = True
        record["ruleset_sha256"] = ruleset_digest(reference)
        if speed != 1.0:
            record["speed"] = speed
    if line is not None and type(event) is not TimerExpired:
        record["line"] = line
    return record
