"""Running a game from timed inputs on a fake clock.

``Table`` owns a game, the timers the engine asked for (as deadlines) and an
optional journal. Inputs come with their time; before each one, every timer
due by then fires in deadline order, as the live runtime would have fired it.
Timer deadlines are kept as numbers, so a long game accumulates no drift.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from .clock import Deadlines, Timers
from .core.effects import Effect
from .core.engine import apply
from .core.events import Event, GameSetUp, TimeAdjusted, TimerExpired, TimersPaused
from .core.state import Game
from .journal import Journal
from .script import ScriptError, ScriptLine, event_fields

EffectSink = Callable[[float, tuple[Effect, ...]], None]

#: host inputs that carry the time left on the running timers
_TIMED = (TimersPaused, TimeAdjusted)


@dataclass
class Table:
    journal: Journal | None = None
    #: fire timers by the clock (scripts); off while re-reading a journal,
    #: whose timer expiries are inputs of their own
    auto_timers: bool = True
    on_effects: EffectSink | None = None
    source: str = "script"
    game: Game | None = None
    now: float = 0.0
    inputs: int = 0
    last_line: int = 0  # the last script line applied (for resuming)
    clock: Timers = field(default_factory=Timers)  # the engine's timers as deadlines

    @property
    def timers(self) -> Deadlines:
        """Running timers: name -> (deadline, generation)."""
        return self.clock.deadlines

    # --- feeding --------------------------------------------------------------
    def run(self, lines: Iterable[ScriptLine]) -> Game | None:
        feed = self.feed
        for line in lines:
            feed(line)
        return self.game

    def feed(self, line: ScriptLine) -> None:
        at = line.at
        try:
            if self.auto_timers and at >= self.clock.next_due:
                self.advance_to(at)
            if at > self.now:
                self.now = at
            event = line.event
            if event is None:  # "wait"
                self.last_line = max(self.last_line, line.fields.get("line", line.number))
                return
            if type(event) in _TIMED and not line.fields.get("remaining"):
                # The host's pause / ±time carries what the clock shows now.
                event, line = self._with_remaining(event, line)
            self._apply(event, line, None)
        except ValueError as error:  # IllegalInput and BadEvent
            raise ScriptError(self.source, line.number, line.text, str(error)) from None
        # A timer expiry read back from a journal came from the clock, not from
        # a script line: it must not move ``last_line`` (the journal's own line
        # numbers are not the script's).
        number = line.fields.get("line")
        if number is None and type(event) is not TimerExpired:
            number = line.number
        if number is not None and number > self.last_line:
            self.last_line = number

    def advance_to(self, at: float) -> None:
        """Fire, in deadline order, every timer due by ``at``."""
        while (due := self.clock.earliest()) is not None:
            name, deadline, generation = due
            if deadline > at:
                break
            # A deadline already past (a timer an undo brought back) fires now:
            # the clock, and so the journal, never runs backwards.
            if deadline > self.now:
                self.now = deadline
            expired = TimerExpired(name, generation)
            record = None if self.journal is None else {"at": self.now, **event_fields(expired)}
            self._apply(expired, None, record)

    def _with_remaining(self, event: Event, line: ScriptLine) -> tuple[Event, ScriptLine]:
        left = self.clock.remaining(self.now)
        timed: Event
        if isinstance(event, TimeAdjusted):
            timed = TimeAdjusted(event.seconds, left)
        else:
            timed = TimersPaused(left)
        fields = {**line.fields, "remaining": [[name, seconds] for name, seconds in left]}
        return timed, replace(line, event=timed, fields=fields)

    def apply(self, event: Event, record: dict[str, Any]) -> tuple[Effect, ...]:
        """Step the engine; journal the input once accepted; then carry out its effects."""
        return self._apply(event, None, record)

    def _apply(
        self, event: Event, line: ScriptLine | None, record: dict[str, Any] | None
    ) -> tuple[Effect, ...]:
        """``apply`` for a script line or a ready record; the record of a script
        line is only built when there is a journal to write it to."""
        before = self.game
        game, effects = apply(before, event)
        if self.journal is not None:
            if record is None:
                assert line is not None
                record = self._record(line)
            self.journal.append(record)
        self.inputs += 1
        self.game = game
        self.clock.accepted(event, game is not before and before is not None, effects, self.now)
        if effects and self.on_effects is not None:
            self.on_effects(self.now, effects)
        return effects

    def _record(self, line: ScriptLine) -> dict[str, Any]:
        """The journal line of a script line: its time, its fields, its line number."""
        record = {"at": line.at, **line.fields}
        if type(line.event) is GameSetUp:
            record["journal"] = True
        record.setdefault("line", line.number)
        return record
