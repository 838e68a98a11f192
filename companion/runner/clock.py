"""Time for the shells: the ``Clock`` port and the table of timer deadlines.

The engine asks for timers in seconds; ``Timers`` turns each into a
deadline on a monotonic clock, counted from the moment of the input that
asked for it (for a timer started by another timer's expiry, that expiry's
deadline). Deadlines are never derived from "now" after the fact, so
lateness never accumulates: a three-hour game ends on its deadlines.
"""

from __future__ import annotations

import time
from typing import Protocol

from ..core.effects import CancelTimer, Effect, StartTimer
from ..core.events import Event, TimerExpired, Undone

#: name -> (deadline, generation); replaced, never changed in place, so an
#: undo history can keep each version without copying it
Deadlines = dict[str, tuple[float, int]]

_NEVER = float("inf")


class Clock(Protocol):
    """Seconds on a clock that never goes back."""

    def now(self) -> float: ...


class MonotonicClock:
    """The real clock: ``time.monotonic``."""

    def now(self) -> float:
        return time.monotonic()


class GameClock:
    """Game time on the monotonic clock: seconds since the setup (the
    numbers the journal holds), starting at ``start_at`` (a resumed game
    goes on from its last journaled time) and running ``speed`` times as
    fast as the wall clock (a demo, a training run, a bench)."""

    def __init__(self, start_at: float = 0.0, speed: float = 1.0) -> None:
        if not speed > 0:
            raise ValueError("a clock's speed must be above 0")
        self.speed = speed
        self.start_at = start_at
        self.origin = time.monotonic()  # the monotonic time at which the game read start_at

    @classmethod
    def following(cls, origin: float, start_at: float, speed: float) -> GameClock:
        """The same game clock as another's, in another process of this
        machine (``time.monotonic`` is the system's: both read alike)."""
        clock = cls(start_at, speed)
        clock.origin = origin
        return clock

    def now(self) -> float:
        return self.start_at + (time.monotonic() - self.origin) * self.speed

    def wall_time(self, at: float) -> float:
        """The monotonic time at which the game clock reads ``at``."""
        return self.origin + (at - self.start_at) / self.speed


class FakeClock:
    """A clock that moves only when told to (tests, replays)."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("a clock never goes back")
        self._now += seconds

    def set(self, now: float) -> None:
        self.advance(now - self._now)


class Timers:
    """The running timers' deadlines."""

    __slots__ = ("_history", "deadlines", "next_due")

    def __init__(self, deadlines: Deadlines | None = None) -> None:
        self.deadlines: Deadlines = deadlines or {}
        self.next_due = min(self.deadlines.values())[0] if self.deadlines else _NEVER
        # The deadlines as they were before each input that changed the game:
        # what an undo of that input brings back.
        self._history: list[Deadlines] = []

    def accepted(self, event: Event, changed: bool, effects: tuple[Effect, ...], at: float) -> None:
        """Follow an input the engine accepted at ``at`` (``changed``: the game
        is a new state, not the one before)."""
        if isinstance(event, Undone):
            self.restore(self._history.pop() if self._history else {})
        else:
            if changed:
                self._history.append(self.deadlines)  # an expired timer included
            if isinstance(event, TimerExpired):
                self.expired(event.name)
        if effects:
            self.carry_out(effects, at)

    def _replace(self, deadlines: Deadlines) -> None:
        self.deadlines = deadlines
        self.next_due = min(deadlines.values())[0] if deadlines else _NEVER

    def carry_out(self, effects: tuple[Effect, ...], at: float) -> None:
        """Apply the engine's StartTimer / CancelTimer orders given at ``at``."""
        deadlines: Deadlines | None = None
        for effect in effects:
            kind = type(effect)
            if kind is StartTimer:
                assert isinstance(effect, StartTimer)
                if deadlines is None:
                    deadlines = dict(self.deadlines)
                deadlines[effect.name] = (at + effect.seconds, effect.generation)
            elif kind is CancelTimer:
                assert isinstance(effect, CancelTimer)
                if deadlines is None:
                    deadlines = dict(self.deadlines)
                deadlines.pop(effect.name, None)
        if deadlines is not None:
            self._replace(deadlines)

    def expired(self, name: str) -> None:
        """The timer fired (its expiry was accepted)."""
        if name in self.deadlines:
            self._replace({k: v for k, v in self.deadlines.items() if k != name})

    def restore(self, deadlines: Deadlines) -> None:
        """Go back to an earlier version (the host's undo)."""
        self._replace(deadlines)

    def earliest(self) -> tuple[str, float, int] | None:
        """The timer due first: (name, deadline, generation)."""
        if not self.deadlines:
            return None
        name = min(self.deadlines, key=self.deadlines.__getitem__)
        deadline, generation = self.deadlines[name]
        return name, deadline, generation

    def remaining(self, now: float) -> tuple[tuple[str, float], ...]:
        """Seconds left on each running timer (what pause and ±time report)."""
        return tuple((name, max(0.0, d - now)) for name, (d, _) in self.deadlines.items())
