"""What each procedure of play puts in the replay JSON (``report.summary``),
by its name (``Ruleset.procedure``, as ``core/procedures.py`` names them):
who stands for the vote, and the keys of its own. A new procedure adds
one line here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..core.sports import rights
from ..core.sports.state import table_or_blank
from ..core.state import Game, Seat
from .forum_summary import forum_summary

#: (the game, the summary so far) -> adds the procedure's own keys
SummaryExtras = Callable[[Game, dict[str, Any]], None]


def nothing_more(game: Game, out: dict[str, Any]) -> None:
    """The common summary is the whole of it."""


def no_nominees(game: Game) -> list[int]:
    return []


def sports_nominees(game: Game) -> list[int]:
    return list(table_or_blank(game).nominees)


def _number(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value


def sports_rights(game: Game, seat: Seat) -> dict[str, Any]:
    """A seat's rights on the sports table: its next speech, nominating, voting."""
    return {
        "next_speech_s": _number(rights.next_speech_s(game, seat)),
        "may_nominate": rights.may_nominate(game, seat),
        "may_vote": rights.may_vote(game, seat),
    }


@dataclass(frozen=True, slots=True)
class SummaryPart:
    #: the seats nominated for the day's vote ("nominees"; [] where nobody is)
    nominees: Callable[[Game], list[int]]
    extras: SummaryExtras = nothing_more
    #: a seat's rights, keys of each seat's entry. The forum game's replay
    #: JSON has carried the sports table's keys since it began (what a table
    #: with no speeches gives); they stay so that its JSON stays as it was.
    seat_rights: Callable[[Game, Seat], dict[str, Any]] = sports_rights


SUMMARIES: dict[str, SummaryPart] = {
    "sports_table": SummaryPart(sports_nominees),
    "forum": SummaryPart(no_nominees, forum_summary),
}
