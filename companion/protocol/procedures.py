"""What each procedure of play puts in the replay JSON (``report.summary``)
and how its records read in the protocol, by its name
(``Ruleset.procedure``, as ``core/procedures.py`` names them): who stands
for the vote, the keys of its own, its records' fields in words
(``lines.describe``) and the announcements that begin a day or a night
(``model.py``'s periods). A new procedure adds one line here."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.rules import Ruleset
from ..core.sports import rights
from ..core.sports.state import table_or_blank
from ..core.state import Game, Seat
from .forum_summary import forum_summary
from .forum_text import forum_fields
from .game_log import seconds_value

#: (the game, the summary so far) -> adds the procedure's own keys
SummaryExtras = Callable[[Game, dict[str, Any]], None]


#: (record kind, its fields, lang, the rules) -> its fields in words, in place
RecordFields = Callable[[str, dict[str, object], str, Ruleset | None], None]


def nothing_more(game: Game, out: dict[str, Any]) -> None:
    """The common summary is the whole of it."""


def fields_as_given(kind: str, data: dict[str, object], lang: str, rules: Ruleset | None) -> None:
    """Its records' fields need no words beyond the protocol's templates."""


def no_nominees(game: Game) -> list[int]:
    return []


def sports_nominees(game: Game) -> list[int]:
    return list(table_or_blank(game).nominees)


def sports_rights(game: Game, seat: Seat) -> dict[str, Any]:
    """A seat's rights on the sports table: its next speech, nominating, voting."""
    return {
        "next_speech_s": seconds_value(rights.next_speech_s(game, seat)),
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
    #: its records' fields in words before the protocol's templates lay them out
    record_fields: RecordFields = fields_as_given
    #: the cues of its ``public`` records that begin a day or a night ("day", "night")
    periods: Mapping[str, str] = field(default_factory=dict)


SUMMARIES: dict[str, SummaryPart] = {
    "sports_table": SummaryPart(sports_nominees),
    "forum": SummaryPart(
        no_nominees,
        forum_summary,
        record_fields=forum_fields,
        periods={"forum_day": "day", "forum_night": "night"},
    ),
}


def of(rules: Ruleset) -> SummaryPart:
    """The part of the procedure ``rules`` names; a procedure with no line
    here (one registered in the core alone) has a bare one: its records
    still read."""
    return SUMMARIES.get(rules.procedure) or _BARE


_BARE = SummaryPart(no_nominees)
