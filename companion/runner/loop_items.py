"""What the live loop's one queue carries besides the journal writer's word
(an input stamped with its moment, the host's practice speed), what the
loop tells of what it took, and what it counts of its timers (loop.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..core.events import Event

#: (the input refused, why, the script line it came from if any)
Rejected = Callable[[Event, str, int | None], None]
#: (the clock's speed now, why a change was not taken or None): after a
#: practice game's speed change was journaled and the clock runs at it
SpeedTaken = Callable[[float, str | None], None]


@dataclass(frozen=True, slots=True)
class Queued:
    at: float  # when it happened, on the runtime's clock
    event: Event
    line: int | None = None  # the script line it came from, if any
    ruleset: str | None = None  # a setup's ruleset as its script names it
    #: a script's next line is due then: no timer due later fires before it
    #: comes (``submit``'s ``next_at``)
    next_at: float | None = None


@dataclass(frozen=True, slots=True)
class SpeedChange:
    """The host's practice speed: the clock runs ``speed`` times as fast
    from ``at`` (journaled; not an input to the engine)."""

    at: float
    speed: float


@dataclass
class TimerStats:
    """How late timers fired: deadline -> the moment the loop stepped the
    engine; and, writing behind, how long after each input (a timer's
    expiry: its deadline) its line was on disk, in seconds of the clock."""

    lateness: list[float] = field(default_factory=list)
    durable: list[float] = field(default_factory=list)
