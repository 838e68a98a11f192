"""The forum game's own state: the open windows and their deadlines, the
choices and votes posted, and what the game remembers from night to night
(the Doctor's last patient, skips used, the Tin Man's block and the guns he
took, basements used, the Bomzh's vote owner).

Kept as tuples of plain values (the collector does not walk them, and a
game's undo chain keeps every state). Memory is keyed by seat; the Vampire
who steals a role takes its counters with it (amb.22).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..state import Game, ProcedureState, Seat
from .rules import ForumRole, forum_rules

#: (seat, action, target, gun, at): one post to a cabinet, in posting order
Post = tuple[int, str, int, str, str]
#: (voter, target, at)
Ballot = tuple[int, int, str]

#: the MM teams (the three-sided «мафоманы»); the lone Maniac is his own side
MM_TEAMS = ("mafia", "maniacs")
#: the role an MM team's new member plays (a converted ДМ, Sniper, Tin Man, Vampire)
MEMBER_ROLE = {"mafia": "mafia", "maniacs": "maniacs_member", "zombie": "zombie_member"}


@dataclass(frozen=True)  # no slots: evolve() copies it dict to dict
class ForumState(ProcedureState):
    #: the options the game was set up with (FORUM_OPTIONS)
    options: tuple[str, ...] = ()
    #: the date of the current game day ("" when the setup gave none)
    date: str = ""
    #: the windows open now, of DEADLINES
    open: tuple[str, ...] = ()
    #: deadline name -> its first refused stamp for the current game day
    deadlines: tuple[tuple[str, str], ...] = ()
    #: the posts of the windows open now (choices), in order
    posts: tuple[Post, ...] = ()
    votes: tuple[Ballot, ...] = ()
    # --- memory ---
    #: (seat, target, day or night number): the last choice that counted
    last_target: tuple[tuple[int, int, int], ...] = ()
    #: (seat, skips used)
    skips: tuple[tuple[int, int], ...] = ()
    #: Tin Men whose one block is spent (roles.tin_woodman.2)
    block_used: tuple[int, ...] = ()
    #: teams whose basement is used (roles.mafia.6)
    basement_used: tuple[str, ...] = ()
    #: (Tin Man, gun) he holds for the coming night; a gun is its owner's
    #: seat number as text, or a team id (roles.tin_woodman.5, amb.18)
    guns: tuple[tuple[int, str], ...] = ()
    #: (Bomzh, owner) whose vote the owner directs on the coming day
    #: (roles.tramp.3); the owner as a gun is named
    tramp_owner: tuple[tuple[int, str], ...] = ()
    #: seats that took the Cop's gun as the Pom (roles.cop_assistant.4)
    was_pom: tuple[int, ...] = ()
    #: seats whose next choice does not count (a sanction's lost move)
    lost_move: tuple[int, ...] = ()
    #: the coming night is a mourning night (roles.tin_woodman.13)
    mourning: bool = False
    #: the Vampire's one night has resolved (amb.23)
    vampire_done: bool = False
    #: the host was told the Mafia reached parity (end.two.3: he decides)
    parity_told: bool = False
    #: the day's choices once their deadline passed, for the vote's count
    #: and its results post: (protected, annulled, ((Bomzh, ordered
    #: target), ...), ((cue, args), ...))
    today: tuple[
        int,
        int,
        tuple[tuple[int, int], ...],
        tuple[tuple[str, tuple[tuple[str, int | str], ...]], ...],
    ] = (0, 0, (), ())


def state(game: Game) -> ForumState:
    s = game.procedure_state
    assert isinstance(s, ForumState), "not a forum game"
    return s


def phase_name(game: Game) -> str:
    """setup, day_choices (until the day choices' deadline), vote, night, ended."""
    if game.phase == "day":
        return "day_choices" if "day_choices" in state(game).open else "vote"
    return game.phase


def forum_role(game: Game, seat: Seat) -> ForumRole:
    rules = forum_rules(game.rules)
    assert rules is not None
    return rules.role(seat.role)


def lookup(pairs: tuple[tuple[int, int], ...], key: int, default: int = 0) -> int:
    for k, v in pairs:
        if k == key:
            return v
    return default


def put(pairs: tuple[tuple[int, int], ...], key: int, value: int) -> tuple[tuple[int, int], ...]:
    return (*[(k, v) for k, v in pairs if k != key], (key, value))


#: (seat, skips used)
Skips = tuple[tuple[int, int], ...]
#: (seat, target, day or night number)
LastTargets = tuple[tuple[int, int, int], ...]


def remembered(last: LastTargets, seat: int, target: int, when: int) -> LastTargets:
    """``last`` with the seat's last counted choice now ``target`` on ``when``."""
    return (*[x for x in last if x[0] != seat], (seat, target, when))


def last_target(s: ForumState, seat: int) -> tuple[int, int]:
    """(target, day or night number) of the seat's last counted choice."""
    for k, target, when in s.last_target:
        if k == seat:
            return target, when
    return 0, -1


# --- the forum clock -----------------------------------------------------------


def stamp(day_date: str, time_of_day: str) -> str:
    """A deadline's stamp: the date and time, or the time alone without a date."""
    return f"{day_date}T{time_of_day}" if day_date else time_of_day


def next_date(day_date: str) -> str:
    """The day after "YYYY-MM-DD" (the core reads no clock and imports no
    datetime: the Gregorian calendar's months are enough)."""
    if not day_date:
        return ""
    year, month, day = (int(part) for part in day_date.split("-"))
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    lengths = (31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
    day += 1
    if day > lengths[month - 1]:
        day, month = 1, month + 1
    if month > 12:
        month, year = 1, year + 1
    return f"{year:04d}-{month:02d}-{day:02d}"


def open_deadlines(game: Game) -> tuple[tuple[str, str], ...]:
    """(window, stamp) of the windows open now, in the order they fall: what
    the live table's watch closes and the console's clock counts down to.
    None for a game of another procedure, or one not under way."""
    s = game.procedure_state
    if not isinstance(s, ForumState) or game.phase in ("setup", "ended"):
        return ()
    return tuple((name, at) for name, at in s.deadlines if name in s.open)


def too_late(at: str, deadline: str) -> bool:
    """A post at ``at`` misses ``deadline`` (its first refused moment).
    Compared as full stamps when both carry a date, else by time of day."""
    if not at or not deadline:
        return False
    if ("T" in at) != ("T" in deadline):
        at, deadline = at[-8:], deadline[-8:]
    return at >= deadline
