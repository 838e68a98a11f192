"""The state of one game: immutable values the engine replaces, never mutates.

Each accepted input gives a new ``Game`` that keeps the one before it in
``prev``, which is how the host's undo works without a second history.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from .rules import NightStep, Ruleset

OutHow = Literal["killed", "voted", "removed"]

#: Coarse phases; ``companion.core.views.phase_name`` gives the detailed one.
Phase = Literal["setup", "night", "speeches", "voting", "ended"]

TurnKind = Literal["last_word", "speech", "tie_speech"]

#: What follows when the queue of speaking turns is done.
After = Literal["vote", "revote", "night"]

BallotKind = Literal["vote", "revote", "all_leave"]


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
class Turn:
    seat: int
    kind: TurnKind
    seconds: float = 0  # fixed when the turn starts


@dataclass(frozen=True)  # no slots: evolve() copies it dict to dict
class Ballot:
    """One round of voting over ``candidates`` (an all-leave vote has one
    pseudo-candidate, 0, standing for «all of them»)."""

    kind: BallotKind
    candidates: tuple[int, ...]
    index: int = 0  # the candidate being voted on
    counting: bool = False  # after «Спасибо», before «Принято»
    votes: tuple[frozenset[int], ...] = ()
    tied: tuple[int, ...] = ()  # for all_leave: the seats it would send out


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
class Game:
    rules: Ruleset
    seats: tuple[Seat, ...] = ()
    phase: Phase = "setup"
    day: int = 0  # day N; night N follows day N; night 0 precedes day 1
    # speeches
    turns: tuple[Turn, ...] = ()
    turn_at: int = 0
    turn_warned: bool = False  # the warning before the end has sounded
    turn_over: bool = False  # the current turn's time has run out (overrun)
    after: After = "vote"
    first_speaker: int = 1
    opener: int = 0  # the seat that opened the current (or last) day
    nominees: tuple[int, ...] = ()
    ballot: Ballot | None = None
    # Buttons down that the engine took (a hand in a vote, a speaker's «Пас»):
    # kept past the end of the vote, so lifting a hand after «Принято» is a
    # release like any other and only a release of nothing held is ignored.
    held: frozenset[int] = frozenset()
    # night
    night_step: int = 0
    tonight: tuple[NightStep, ...] = ()  # this night's steps, fixed when it falls
    choices: tuple[tuple[str, int, int], ...] = ()  # (step id, seat, target)
    misses: int = 0  # misses in a row while the miss rule applies
    first_victim: int = 0
    best_move: tuple[int, ...] = ()
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

    @property
    def turn(self) -> Turn | None:
        if self.phase == "speeches" and self.turn_at < len(self.turns):
            return self.turns[self.turn_at]
        return None


_Copied = TypeVar("_Copied", Game, Seat, Ballot)


def evolve(obj: _Copied, changes: dict[str, Any]) -> _Copied:
    """``dataclasses.replace`` for the three classes the engine copies on
    every input, dict to dict (they have no slots for that reason) and
    without replace's checks: replay speed is bound by state copies."""
    copy = object.__new__(type(obj))
    fields = copy.__dict__
    fields.update(obj.__dict__)
    fields.update(changes)
    return copy
