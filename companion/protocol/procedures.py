"""What each procedure of play puts in the replay JSON (``report.summary``),
by its name (``Ruleset.procedure``, as ``core/procedures.py`` names them):
who stands for the vote, and the keys of its own. A new procedure adds
one line here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..core.sports.state import table_or_blank
from ..core.state import Game
from .forum_summary import forum_summary

#: (the game, the summary so far) -> adds the procedure's own keys
SummaryExtras = Callable[[Game, dict[str, Any]], None]


def nothing_more(game: Game, out: dict[str, Any]) -> None:
    """The common summary is the whole of it."""


def no_nominees(game: Game) -> list[int]:
    return []


def sports_nominees(game: Game) -> list[int]:
    return list(table_or_blank(game).nominees)


@dataclass(frozen=True, slots=True)
class SummaryPart:
    #: the seats nominated for the day's vote ("nominees"; [] where nobody is)
    nominees: Callable[[Game], list[int]]
    extras: SummaryExtras = nothing_more


SUMMARIES: dict[str, SummaryPart] = {
    "sports_table": SummaryPart(sports_nominees),
    "forum": SummaryPart(no_nominees, forum_summary),
}
