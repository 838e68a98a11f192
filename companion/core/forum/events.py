"""The forum game's own inputs: a role's choice posted, a day vote, a
deadline come, near or moved (docs/forum.md). Each checks its fields
against the forum's rules (its actions, its deadlines); the engine hands
them to the forum procedure's handlers (``core.forum.procedure``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from ..events import BadEvent, LineField, ProcedureEvent, seat_number
from .rules import DEADLINES, FORUM_ACTIONS

#: a forum clock time: "HH:MM:SS", or with its date "YYYY-MM-DDTHH:MM:SS"
_STAMP = re.compile(r"([0-9]{4}-[01][0-9]-[0-3][0-9]T)?([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\Z")


def _stamp(value: str, what: str, empty: bool) -> None:
    if not isinstance(value, str) or not (_STAMP.match(value) or (empty and value == "")):
        raise BadEvent(f'{what} must be a time "HH:MM:SS" or "YYYY-MM-DDTHH:MM:SS", got {value!r}')


@dataclass(frozen=True, slots=True)
class ForumChoiceMade(ProcedureEvent):
    """The forum game: a role's choice posted to its cabinet (or to the
    host), stamped with the forum clock's time it was posted (``at``; ""
    when the host enters it live, before the deadline). ``target`` 0
    withdraws the seat's choice. ``gun``: the Tin Man firing a taken gun
    names its owner (a seat's number or a team id); ``hide``: an MM team's
    basement for that member tonight, beside the team's shot."""

    seat: int
    action: str
    target: int
    at: str = ""
    gun: str = ""

    INPUT: ClassVar[str] = "post"
    LINE: ClassVar[tuple[LineField, ...]] = (
        LineField("seat", "seat"),
        LineField("action", "text"),
        LineField("target", "seat_or_none"),
        LineField("at", "text", key="time", optional=True),
        LineField("gun", "text", optional=True),
    )

    def __post_init__(self) -> None:
        seat_number(self.seat, "seat")
        if self.action not in (*FORUM_ACTIONS, "fire", "hide", "order"):
            raise BadEvent(f"no forum action {self.action!r}")
        if not isinstance(self.target, int) or isinstance(self.target, bool) or self.target < 0:
            raise BadEvent(f"target must be a seat number or 0 (none), got {self.target!r}")
        _stamp(self.at, "at", empty=True)
        if (self.action == "fire") != bool(self.gun):
            raise BadEvent("a gun is named by the Tin Man's 'fire' and only by it")


@dataclass(frozen=True, slots=True)
class ForumVoted(ProcedureEvent):
    """The forum game's day vote: ``voter`` posted ``target`` at ``at``.
    Target 0: a post naming nobody at the table (amb.36). ``edit``: the
    voter edited his one post (vote.3); a second post does not count."""

    voter: int
    target: int
    at: str = ""
    edit: bool = False

    INPUT: ClassVar[str] = "vote"
    LINE: ClassVar[tuple[LineField, ...]] = (
        LineField("voter", "seat"),
        LineField("target", "seat_or_none"),
        LineField("at", "text", key="time", optional=True),
        LineField("edit", "flag", optional=True),
    )

    def __post_init__(self) -> None:
        seat_number(self.voter, "voter")
        if not isinstance(self.target, int) or isinstance(self.target, bool) or self.target < 0:
            raise BadEvent(f"target must be a seat number or 0 (nobody), got {self.target!r}")
        _stamp(self.at, "at", empty=True)


@dataclass(frozen=True, slots=True)
class DeadlinePassed(ProcedureEvent):
    """A forum deadline came (``day_choices``, ``vote``, ``night``): the
    shell's wall clock, or the host closing it."""

    name: str

    INPUT: ClassVar[str] = "deadline"
    LINE: ClassVar[tuple[LineField, ...]] = (LineField("name", "text"),)

    def __post_init__(self) -> None:
        if self.name not in DEADLINES:
            raise BadEvent(f"no deadline {self.name!r} (known: {', '.join(DEADLINES)})")


@dataclass(frozen=True, slots=True)
class DeadlineNear(ProcedureEvent):
    """A forum deadline is ``warn_minutes`` away (the ruleset's): the
    companion says so («до конца голосования десять минут»)."""

    name: str

    INPUT: ClassVar[str] = "deadline_near"
    LINE: ClassVar[tuple[LineField, ...]] = (LineField("name", "text"),)

    def __post_init__(self) -> None:
        if self.name not in DEADLINES:
            raise BadEvent(f"no deadline {self.name!r} (known: {', '.join(DEADLINES)})")


@dataclass(frozen=True, slots=True)
class DeadlineMoved(ProcedureEvent):
    """The host moved a deadline of the current game day (deadline.change.1)
    to ``at``, the first refused moment (as the ruleset's times)."""

    name: str
    at: str

    INPUT: ClassVar[str] = "move_deadline"
    LINE: ClassVar[tuple[LineField, ...]] = (
        LineField("name", "text"),
        LineField("at", "text", key="to"),
    )

    def __post_init__(self) -> None:
        if self.name not in DEADLINES:
            raise BadEvent(f"no deadline {self.name!r} (known: {', '.join(DEADLINES)})")
        _stamp(self.at, "at", empty=False)


#: the forum game's inputs
EVENTS: tuple[type[ProcedureEvent], ...] = (
    ForumChoiceMade, ForumVoted, DeadlinePassed, DeadlineNear, DeadlineMoved,
)  # fmt: skip
