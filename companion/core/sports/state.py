"""The sports table's own state: the queue of speaking turns, the ballot,
tonight's steps and choices, and what the sports texts remember across a
game (misses in a row, the first night's victim, the best move).

The shared parts of a game (seats, discipline, timers, the protocol) are
``Game``'s; this is ``Game.procedure_state`` when the ruleset plays the
sports table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from ..rules import NightStep
from ..state import Game, ProcedureState, check_draft, drafted, evolve
from ..step import Step

TurnKind = Literal["last_word", "speech", "tie_speech"]

#: What follows when the queue of speaking turns is done.
After = Literal["vote", "revote", "night"]

BallotKind = Literal["vote", "revote", "all_leave"]

#: The sports table's phases (besides every procedure's "setup" and "ended").
PHASES = ("night", "speeches", "voting")


@dataclass(frozen=True, slots=True)
class Turn:
    seat: int
    kind: TurnKind
    seconds: float = 0  # a last word's length, given when it is queued


@dataclass(frozen=True)  # no slots: evolve() copies it dict to dict
class Ballot:
    """One round of voting over ``candidates`` (an all-leave vote has one
    pseudo-candidate, 0, standing for «all of them»)."""

    kind: BallotKind
    candidates: tuple[int, ...]
    index: int = 0  # the candidate being voted on
    counting: bool = False  # after «Спасибо», before «Принято»
    #: each candidate's voters, in seat order (tuples of ints: the collector
    #: stops walking them, and a game's undo chain keeps every ballot)
    votes: tuple[tuple[int, ...], ...] = ()
    tied: tuple[int, ...] = ()  # for all_leave: the seats it would send out


@dataclass(frozen=True)  # no slots: evolve() copies it dict to dict
class TableSeat:
    """What the sports table keeps of one seat beside the shared ``Seat``:
    its speeches, its nomination, a removal waiting for the morning."""

    silenced_day: int = 0  # the day whose regular speech the seat has lost
    spoke_day: int = 0  # the last day the seat began its regular speech
    nominated_day: int = 0  # the last day the seat nominated
    #: leaves without a last word when the host announces the morning
    removal_at_morning: bool = False


_NO_MARKS = TableSeat()


#: Slots and a draft, as ``Game`` (state.py): nearly every input changes it.
@dataclass(frozen=True, slots=True)
class TableState(ProcedureState):
    # speeches
    turns: tuple[Turn, ...] = ()
    turn_at: int = 0
    #: the current turn's length, fixed when it starts (kept here, not in
    #: the turn: rebuilding the queue at each turn left two more objects
    #: per turn in the undo chain for the collector to walk)
    turn_seconds: float = 0
    turn_warned: bool = False  # the warning before the end has sounded
    turn_over: bool = False  # the current turn's time has run out (overrun)
    after: After = "vote"
    first_speaker: int = 1
    #: vote windows wait for the host's «Спасибо» (GameSetUp.host_closes_votes)
    host_closes_votes: bool = False
    opener: int = 0  # the seat that opened the current (or last) day
    nominees: tuple[int, ...] = ()
    ballot: Ballot | None = None
    # Buttons down that the engine took (a hand in a vote, a speaker's «Пас»):
    # kept past the end of the vote, so lifting a hand after «Принято» is a
    # release like any other and only a release of nothing held is ignored.
    held: tuple[int, ...] = ()  # in seat order (a tuple of ints: see Ballot.votes)
    # night
    night_step: int = 0
    tonight: tuple[NightStep, ...] = ()  # this night's steps, fixed when it falls
    choices: tuple[tuple[str, int, int], ...] = ()  # (step id, seat, target)
    misses: int = 0  # misses in a row while the miss rule applies
    first_victim: int = 0
    best_move: tuple[int, ...] = ()
    #: each seat's ``TableSeat``, seat 1 first; () until one is marked
    seats: tuple[TableSeat, ...] = ()

    def draft(self) -> TableState:
        copy: Any = object.__new__(_TableDraft)
        copy.turns = self.turns
        copy.turn_at = self.turn_at
        copy.turn_seconds = self.turn_seconds
        copy.turn_warned = self.turn_warned
        copy.turn_over = self.turn_over
        copy.after = self.after
        copy.first_speaker = self.first_speaker
        copy.host_closes_votes = self.host_closes_votes
        copy.opener = self.opener
        copy.nominees = self.nominees
        copy.ballot = self.ballot
        copy.held = self.held
        copy.night_step = self.night_step
        copy.tonight = self.tonight
        copy.choices = self.choices
        copy.misses = self.misses
        copy.first_victim = self.first_victim
        copy.best_move = self.best_move
        copy.seats = self.seats
        return copy  # type: ignore[no-any-return]


_TableDraft = drafted(TableState)  # see state.py's drafts


def _sealed(state: TableState) -> TableState:
    copy: Any = state.draft()
    copy.__class__ = TableState
    return copy  # type: ignore[no-any-return]


check_draft(TableState, _sealed)


def table_seat(game: Game, number: int) -> TableSeat:
    """What the sports table keeps of seat ``number`` (a blank one for a
    seat not yet marked, or a game of another procedure)."""
    state = game.procedure_state
    if isinstance(state, TableState) and number <= len(state.seats):
        return state.seats[number - 1]
    return _NO_MARKS


def table_seats(game: Game) -> tuple[TableSeat, ...]:
    """Every seat's ``TableSeat``, seat 1 first."""
    state = game.procedure_state
    if isinstance(state, TableState) and state.seats:
        return state.seats
    return (_NO_MARKS,) * len(game.seats)


def mark_seat(t: Step, number: int, **changes: object) -> None:
    """Change seat ``number``'s ``TableSeat`` (copy on write, as ``set_state``)."""
    seats = list(table_seats(t.game))
    seats[number - 1] = evolve(seats[number - 1], changes)
    t.set_state(seats=tuple(seats))


def with_seat(seats: tuple[int, ...], number: int) -> tuple[int, ...]:
    """``seats`` (in order) and ``number``."""
    return seats if number in seats else tuple(sorted((*seats, number)))


def without_seat(seats: tuple[int, ...], number: int) -> tuple[int, ...]:
    return tuple(n for n in seats if n != number)


def table(game: Game) -> TableState:
    """The sports table's state of a game that plays it (the engine hands
    the sports table's functions no other; unchecked, as it is called
    several times an input)."""
    return game.procedure_state  # type: ignore[return-value]


def queued_turn(game: Game) -> Turn | None:
    """The speaking turn under way, as it was queued: whose it is and its
    kind (``seconds`` is a last word's as queued, 0 for a speech). What the
    rules ask on many inputs, without the new Turn ``current_turn`` may build."""
    state = game.procedure_state
    if (
        game.phase == "speeches"
        and isinstance(state, TableState)
        and state.turn_at < len(state.turns)
    ):
        return state.turns[state.turn_at]
    return None


def current_turn(game: Game) -> Turn | None:
    """The speaking turn under way, if the table is in its speeches, with
    the length it started with."""
    turn = queued_turn(game)
    if turn is None:
        return None
    seconds = table(game).turn_seconds
    if turn.seconds == seconds:
        return turn
    return Turn(turn.seat, turn.kind, seconds)  # its length, as started


_BLANK = TableState()


def table_or_blank(game: Game) -> TableState:
    """The sports table's state, or a blank one (no turns, nominees, ballot
    or night steps) for a game of another procedure: for the shells that
    draw the sports table's parts whatever the game."""
    state = game.procedure_state
    return state if isinstance(state, TableState) else _BLANK
