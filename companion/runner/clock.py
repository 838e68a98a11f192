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

#: what ``Timers.kept`` keeps: the deadlines, the undo history, the lengths
Kept = tuple[Deadlines, list[tuple[Deadlines, float]], dict[int, float]]

_NEVER = float("inf")
#: a vote window, its count or a night step with less than this left when
#: an input stopped it opens whole again after an undo of that input (its
#: expiry, or a moment before); a speech keeps what it had (0: over time)
NEARLY_OUT_S = 0.5
OPEN_WHOLE_AGAIN = frozenset({"vote", "count", "night"})


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
    fast as the wall clock (a demo, a practice game, a bench).

    ``set_speed`` changes the speed from now on (a practice game's key):
    game time goes on from where it is, never jumps. The three numbers are
    kept as one tuple, replaced whole, so that a thread reading the clock
    while another changes its speed sees the old clock or the new one,
    never half of each."""

    def __init__(self, start_at: float = 0.0, speed: float = 1.0) -> None:
        _check_speed(speed)
        #: (the monotonic time at which the game read start_at, start_at, speed)
        self.anchor: tuple[float, float, float] = (time.monotonic(), start_at, speed)

    @classmethod
    def following(cls, origin: float, start_at: float, speed: float) -> GameClock:
        """The same game clock as another's, in another process of this
        machine (``time.monotonic`` is the system's: both read alike)."""
        clock = cls(start_at, speed)
        clock.follow(origin, start_at, speed)
        return clock

    def follow(self, origin: float, start_at: float, speed: float) -> None:
        """Read as another process's clock now does (its ``anchor``, after
        its speed changed); bound methods given out before stay good."""
        _check_speed(speed)
        self.anchor = (origin, start_at, speed)

    @property
    def origin(self) -> float:
        """The monotonic time at which the game read ``start_at``."""
        return self.anchor[0]

    @property
    def start_at(self) -> float:
        return self.anchor[1]

    @property
    def speed(self) -> float:
        return self.anchor[2]

    def now(self) -> float:
        origin, start_at, speed = self.anchor
        return start_at + (time.monotonic() - origin) * speed

    def wall_time(self, at: float) -> float:
        """The monotonic time at which the game clock reads ``at`` (at the
        speed of the moment)."""
        origin, start_at, speed = self.anchor
        return origin + (at - start_at) / speed

    def set_speed(self, speed: float) -> None:
        """Run ``speed`` times as fast as the wall clock from now on."""
        _check_speed(speed)
        origin, start_at, old = self.anchor
        moment = time.monotonic()
        self.anchor = (moment, start_at + (moment - origin) * old, speed)


def _check_speed(speed: float) -> None:
    if not speed > 0:
        raise ValueError("a clock's speed must be above 0")


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

    __slots__ = ("_history", "_lengths", "deadlines", "next_due")

    def __init__(self, deadlines: Deadlines | None = None) -> None:
        self.deadlines: Deadlines = deadlines or {}
        self.next_due = min(self.deadlines.values())[0] if self.deadlines else _NEVER
        # The deadlines as they were before each input that changed the game,
        # and that input's time: what an undo of it brings back.
        self._history: list[tuple[Deadlines, float]] = []
        # Each timer's length as it was started, by its generation (unique in
        # a game): an undo gives a timer that had run out its whole length.
        self._lengths: dict[int, float] = {}

    def accepted(
        self,
        event: Event,
        changed: bool,
        effects: tuple[Effect, ...],
        at: float,
        *,
        flags: tuple[int, int] = (0, 0),
    ) -> None:
        """Follow an input the engine accepted at ``at`` (``changed``: the game
        is a new state, not the one before). ``flags``: for the host's undo,
        the microphone's flags it passed over and those it proposed again
        (``Undone.past_flags``): each a state of its own, no timer changed."""
        if isinstance(event, Undone):
            passed, again = flags
            del self._history[max(0, len(self._history) - passed) :]
            self.restore(self._history.pop()[0] if self._history else {})
        else:
            if changed:
                self._history.append((self.deadlines, at))  # an expired timer included
            if isinstance(event, TimerExpired):
                self.expired(event.name)
            again = 0
        if effects:
            self.carry_out(effects, at)
        self._history.extend([(self.deadlines, at)] * again)

    def undo_remaining(self, passed: int = 0) -> tuple[tuple[str, float], ...]:
        """For an undo now: each timer that ran before the last input that
        changed the game (``passed``: before the inputs this many back, the
        microphone's flags the undo passes over), with the seconds it had
        left when that input came; a timer that had (nearly) run out, its
        whole length, so that what it timed (a vote window, a night step)
        opens again whole."""
        if len(self._history) <= passed:
            return ()
        deadlines, at = self._history[-1 - passed]
        left = []
        for name, (deadline, generation) in deadlines.items():
            seconds = deadline - at
            if seconds < NEARLY_OUT_S and name in OPEN_WHOLE_AGAIN:
                seconds = self._lengths.get(generation, max(seconds, 0.0))
            left.append((name, round(max(seconds, 0.0), 3)))
        return tuple(left)

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
                self._lengths[effect.generation] = effect.seconds
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

    def kept(self) -> Kept:
        """Everything as it is now, for ``put_back`` (an input whose journal
        line the writer may yet fail to write: runner/journal_writer.py).
        The deadlines are never changed in place; the undo history and the
        lengths are copied (a few thousand entries in a long game)."""
        return self.deadlines, list(self._history), dict(self._lengths)

    def put_back(self, kept: Kept) -> None:
        """Be again as ``kept()`` found them (each value used once)."""
        deadlines, self._history, self._lengths = kept
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
