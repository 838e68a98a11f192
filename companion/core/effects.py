"""Orders from the rules engine to the shells, named in the imperative.

The engine never acts; it returns these and the runtime carries them out in
order after the input that caused them is safely in the journal. Seat lights
are not among them: they are a view of the state (``views.lights``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Say:
    """Speak a cue from the phrase catalogue. ``args`` are (name, value) pairs."""

    cue: str
    args: tuple[tuple[str, int | str], ...] = ()
    urgent: bool = False  # cuts in over a cue that is playing


@dataclass(frozen=True, slots=True)
class StartTimer:
    """Fire ``TimerExpired(name, generation)`` after ``seconds``; replaces a
    running timer of the same name."""

    name: str
    seconds: float
    generation: int


@dataclass(frozen=True, slots=True)
class CancelTimer:
    name: str


@dataclass(frozen=True, slots=True)
class ProposeOffence:
    """Ask the host to confirm an offence the table noticed (a hand lifted early)."""

    seat: int
    offence: str
    reason: str


@dataclass(frozen=True, slots=True)
class TellHost:
    """Something only the host may see (a check's answer, a dealt role)."""

    what: str
    args: tuple[tuple[str, int | str], ...] = ()


@dataclass(frozen=True, slots=True)
class Ignored:
    """An input that was harmless but did nothing (a press outside a window):
    logged so the host can see it."""

    reason: str


Effect = Say | StartTimer | CancelTimer | ProposeOffence | TellHost | Ignored
