"""The state of one game: immutable values the engine replaces, never mutates.

Each accepted input gives a new ``Game`` that keeps the one before it in
``prev``, which is how the host's undo works without a second history.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from .rules import Ruleset

OutHow = Literal["killed", "voted", "removed"]


@dataclass(frozen=True, slots=True)
class Out:
    how: OutHow
    day: int  # the day it happened on; a night kill carries the day before that night
    last_word_s: float  # seconds of last word granted (0 when removed)


@dataclass(frozen=True)  # no slots: evolve() copies it dict to dict
class Seat:
    number: int
    role: str
    team: str
    out: Out | None = None
    count: int = 0  # remarks / fouls as the ladder reads them
    silenced_day: int = 0  # the day whose regular speech the seat has lost
    no_nomination_day: int = 0  # the day the seat may not nominate
    no_vote_day: int = 0  # the day the seat may not vote
    spoke_day: int = 0  # the last day the seat began its regular speech
    nominated_day: int = 0  # the last day the seat nominated
    removal_at_morning: bool = False
    excluded: bool = False
    rating_penalty: int = 0
    offences: tuple[str, ...] = ()  # ids given, in order (for the protocol)
    name: str = ""  # the player's name or nickname, if the host gave one

    @property
    def alive(self) -> bool:
        return self.out is None


@dataclass(frozen=True, slots=True)
class Proposal:
    seat: int
    offence: str
    reason: str


@dataclass(frozen=True, slots=True)
class Result:
    winners: tuple[str, ...]  # team ids
    losers: tuple[str, ...]
    reason: str
    clause: str | None = None


@dataclass(frozen=True, slots=True)
class Record:
    """One line of the game protocol, kept as a linked list for O(1) appends."""

    day: int
    kind: str
    data: tuple[tuple[str, object], ...]
    prev: Record | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)  # no slots: evolve() copies it dict to dict
class ProcedureState:
    """What one procedure (the sports table, the forum game) keeps of a game
    beside the shared parts: its queues, ballots, night choices and memory.
    Each procedure subclasses it as a frozen dataclass without slots."""


@dataclass(frozen=True)  # no slots: evolve() copies it dict to dict
class Game:
    """The shared parts of a game (seats, discipline, journal, timers) and
    the procedure's own state in ``procedure_state``."""

    rules: Ruleset
    seats: tuple[Seat, ...] = ()
    #: the procedure's phase ("setup" and "ended" are every procedure's);
    #: ``companion.core.views.phase_name`` gives the detailed one
    phase: str = "setup"
    day: int = 0  # day N; night N follows day N; night 0 precedes day 1
    procedure_state: ProcedureState = field(default_factory=ProcedureState)
    result: Result | None = None
    proposals: tuple[Proposal, ...] = ()
    timer_generation: int = 0
    timers: tuple[tuple[str, int], ...] = ()  # running timers: (name, generation)
    paused: tuple[tuple[str, float], ...] = ()  # paused timers: (name, seconds left)
    seed: int = 0
    log: Record | None = field(default=None, repr=False, compare=False)
    prev: Game | None = field(default=None, repr=False, compare=False)

    def seat(self, number: int) -> Seat:
        return self.seats[number - 1]


_Copied = TypeVar("_Copied")


def evolve(obj: _Copied, changes: dict[str, Any]) -> _Copied:
    """``dataclasses.replace`` for the classes the engine copies on every
    input (games, seats, procedure states and what they hold), dict to
    dict (they have no slots for that reason) and
    without replace's checks: replay speed is bound by state copies."""
    copy = object.__new__(type(obj))
    object.__setattr__(copy, "__dict__", {**obj.__dict__, **changes})
    return copy
