"""Running a game from timed inputs on a fake clock.

``Table`` owns a game, the timers the engine asked for (as deadlines) and an
optional journal. Inputs come with their time; before each one, every timer
due by then fires in deadline order, as the live runtime would have fired it.
Timer deadlines are kept as numbers, so a long game accumulates no drift.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .core.effects import CancelTimer, Effect, StartTimer
from .core.engine import new_game, step
from .core.events import Event, GameSetUp, TimerExpired, Undone
from .core.state import Game
from .journal import Journal
from .script import ScriptError, ScriptLine, event_fields

EffectSink = Callable[[float, tuple[Effect, ...]], None]


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
    timers: dict[str, tuple[float, int]] = field(default_factory=dict)
    _timer_history: list[dict[str, tuple[float, int]]] = field(default_factory=list)

    # --- feeding --------------------------------------------------------------
    def run(self, lines: Iterable[ScriptLine]) -> Game | None:
        for line in lines:
            self.feed(line)
        return self.game

    def feed(self, line: ScriptLine) -> None:
        if self.auto_timers:
            self.advance_to(line.at)
        self.now = max(self.now, line.at)
        if line.event is None:  # "wait"
            self.last_line = max(self.last_line, line.fields.get("line", line.number))
            return
        record = {"at": line.at, **line.fields}
        if isinstance(line.event, GameSetUp) and self.journal is not None:
            record["journal"] = True
        record.setdefault("line", line.number)
        try:
            self.apply(line.event, record)
        except ValueError as error:  # IllegalInput and BadEvent
            raise ScriptError(self.source, line.number, line.text, str(error)) from None
        self.last_line = max(self.last_line, int(record["line"]))

    def advance_to(self, at: float) -> None:
        """Fire, in deadline order, every timer due by ``at``."""
        while self.timers:
            name, (deadline, generation) = min(self.timers.items(), key=lambda kv: kv[1])
            if deadline > at:
                break
            self.now = deadline
            expired = TimerExpired(name, generation)
            self.apply(expired, {"at": deadline, **event_fields(expired)})

    def apply(self, event: Event, record: dict[str, Any]) -> tuple[Effect, ...]:
        """Step the engine; journal the input once accepted; then carry out its effects."""
        if isinstance(event, GameSetUp):
            if self.game is not None:
                raise ValueError("the table is already set up")
            game, effects = new_game(event)
        else:
            if self.game is None:
                raise ValueError("the first input must be a setup")
            game, effects = step(self.game, event)
        changed = game is not self.game
        if self.journal is not None:
            self.journal.append(record)
        self.inputs += 1
        if isinstance(event, TimerExpired):
            self.timers.pop(event.name, None)
        if isinstance(event, Undone):
            self.timers = self._timer_history.pop() if self._timer_history else {}
        elif changed and self.game is not None:
            self._timer_history.append(dict(self.timers))
        self.game = game
        self._carry_out(effects)
        return effects

    def _carry_out(self, effects: tuple[Effect, ...]) -> None:
        for effect in effects:
            if isinstance(effect, StartTimer):
                self.timers[effect.name] = (self.now + effect.seconds, effect.generation)
            elif isinstance(effect, CancelTimer):
                self.timers.pop(effect.name, None)
        if self.on_effects is not None and effects:
            self.on_effects(self.now, effects)
