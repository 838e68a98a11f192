"""The state of one game: immutable values the engine replaces, never mutates.

Each accepted input gives a new ``Game`` that keeps the one before it in
``prev``, which is how the host's undo works without a second history.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
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
    no_nomination_day: int = 0  # the day the seat may not nominate
    no_vote_day: int = 0  # the day the seat may not vote
    # (what a procedure keeps of a seat beside these, its speeches and its
    # morning, is its own: the sports table's ``TableSeat``)
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


@dataclass(frozen=True, slots=True)
class ProcedureState:
    """What one procedure (the sports table, the forum game) keeps of a game
    beside the shared parts: its queues, ballots, night choices and memory.
    Each procedure subclasses it as a frozen dataclass: with slots and a
    ``draft`` (the sports table's, changed on nearly every input), or
    without slots, copied dict to dict (``evolve``)."""

    def draft(self) -> ProcedureState | None:
        """A private copy that one input's ``Step`` may write (as
        ``draft_game``), or None: the state is copied dict to dict."""
        return None


#: Slots, not a dict: a long game keeps every state in its undo chain, and
#: the collector walks them all; a slotted Game is one object where a dict's
#: is two, and half the bytes. It is copied through a draft (``draft_game``).
@dataclass(frozen=True, slots=True)
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
    """``dataclasses.replace`` for the classes the engine copies dict to
    dict (seats, ballots, the forum game's state: they have no slots for
    that reason), without replace's checks: replay speed is bound by state
    copies."""
    copy = object.__new__(type(obj))
    object.__setattr__(copy, "__dict__", {**obj.__dict__, **changes})
    return copy


# --- drafts ------------------------------------------------------------------
# A frozen dataclass sets each field through object.__setattr__, about twenty
# times the cost of a plain slot store, and a slotted class has no dict to
# copy whole. So what the engine builds on every input is built as a draft:
# an instance of a private subclass that stores its slots plainly, filled
# field by field and turned into the frozen class (``__class__``: the same
# slots) before anybody else sees it. ``Step`` keeps one input's changes in
# drafts of the game and its procedure state, and seals them when the input
# is done; ``new_record`` seals its draft at once.


def drafted(cls: type) -> type:
    """The draft class of a frozen slotted dataclass."""
    # Both: setattr and delattr share one type slot, which stays the frozen
    # class's (and slow) unless both are the plain ones.
    plain = {"__slots__": (), "__setattr__": object.__setattr__, "__delattr__": object.__delattr__}
    return type(f"_{cls.__name__}Draft", (cls,), plain)


def check_draft(cls: type, copy: Callable[[Any], Any]) -> None:
    """Fail at import if a hand-written draft ``copy`` of an instance misses
    a field of ``cls`` (one added to the class and not to its copy), rather
    than in a game."""
    probe: Any = object.__new__(cls)
    for f in fields(cls):
        object.__setattr__(probe, f.name, f.name)  # each field holds its own name
    copied = copy(probe)
    missing = [f.name for f in fields(cls) if getattr(copied, f.name, None) != f.name]
    if missing or type(copied) is not cls:
        raise TypeError(f"the draft copy of {cls.__name__} misses {missing}")


_GameDraft = drafted(Game)


def draft_game(game: Game) -> Game:
    """A writable copy of ``game`` for one input (``Step``, which seals it)."""
    copy: Any = object.__new__(_GameDraft)
    copy.rules = game.rules
    copy.seats = game.seats
    copy.phase = game.phase
    copy.day = game.day
    copy.procedure_state = game.procedure_state
    copy.result = game.result
    copy.proposals = game.proposals
    copy.timer_generation = game.timer_generation
    copy.timers = game.timers
    copy.paused = game.paused
    copy.seed = game.seed
    copy.log = game.log
    copy.prev = game.prev
    return copy  # type: ignore[no-any-return]


def _sealed(game: Game) -> Game:
    copy: Any = draft_game(game)
    copy.__class__ = Game
    return copy  # type: ignore[no-any-return]


check_draft(Game, _sealed)
_RecordDraft = drafted(Record)


def new_record(
    day: int, kind: str, data: tuple[tuple[str, object], ...], prev: Record | None
) -> Record:
    """``Record(day, kind, data, prev)`` built as a draft: most inputs add
    one, and this costs a sixth of the dataclass's own ``__init__``."""
    record: Any = object.__new__(_RecordDraft)
    record.day = day
    record.kind = kind
    record.data = data
    record.prev = prev
    record.__class__ = Record
    return record  # type: ignore[no-any-return]


check_draft(Record, lambda r: new_record(r.day, r.kind, r.data, r.prev))
