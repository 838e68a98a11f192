"""What the host's "next" (``HostAdvanced``) leads to at the sports table,
read off the procedure itself: the state that input would make now, and
where the table then stands as the host hears of it next, without a
second copy of the transition table that could drift from it. A night
never tells the day it leads to (who died is the morning's news). The
console shows it as «Дальше:» (``console/sports/next_view.py``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .. import views
from ..engine import apply
from ..events import HostAdvanced
from ..state import Game
from .procedure import PROCEDURE
from .state import current_turn, table_or_blank

_NEXT = HostAdvanced()

AheadKind = Literal[
    "thanks",  # «Спасибо»: a vote window closed
    "accepted",  # «Принято»: a count taken, then ``then``
    "end",  # the game's result
    "morning",  # the night over
    "night",  # the night falls
    "night_step",  # tonight's next step (``step``)
    "speech",  # a seat's speech (``seat``)
    "last_word",
    "tie_speech",
    "vote_for",  # the vote on a candidate (``seat``)
    "all_leave",  # the vote that all leave
]


@dataclass(frozen=True, slots=True)
class Ahead:
    """Where the host's "next" leads."""

    kind: AheadKind
    seat: int | None = None
    step: str = ""  # a night step's name, else its id
    then: Ahead | None = None  # after «Принято»: where the count leads


def after_next(game: Game) -> Game | None:
    """The state the host's "next" would make now (None: it takes none)."""
    if game.phase in ("setup", "ended") or game.rules.procedure != PROCEDURE.name:
        return None
    try:
        after, _ = apply(game, _NEXT)
    except ValueError:  # IllegalInput: "next" means nothing here
        return None
    return after


def ahead(game: Game) -> Ahead | None:
    """What comes next (None when nothing does)."""
    after = after_next(game)
    if after is None:
        return None
    name = views.phase_name(game)
    if name in ("vote", "all_leave_vote"):
        return Ahead("thanks")
    then = _reached(game, after)
    if name in ("count", "all_leave_count"):
        return Ahead("accepted", then=then)
    return then


def _reached(before: Game, after: Game) -> Ahead:
    """The phase ``after`` stands in, as the host hears of it next."""
    name = views.phase_name(after)
    if after.phase == "ended":
        return Ahead("end")
    if before.phase == "night" and after.phase != "night":
        return Ahead("morning")  # not whose last word: that is the morning's
    if name == "night":
        state = table_or_blank(after)
        if before.phase == "night" and state.night_step < len(state.tonight):
            step = state.tonight[state.night_step]
            return Ahead("night_step", step=step.name or step.id)
        return Ahead("night")
    turn = current_turn(after)
    if name == "speech" and turn is not None:
        return Ahead("speech", seat=turn.seat)
    if name == "last_word" and turn is not None:
        return Ahead("last_word", seat=turn.seat)
    if name == "tie_speech" and turn is not None:
        return Ahead("tie_speech", seat=turn.seat)
    ballot = table_or_blank(after).ballot
    if name == "vote" and ballot is not None:
        return Ahead("vote_for", seat=ballot.candidates[ballot.index])
    if name == "all_leave_vote":
        return Ahead("all_leave")
    return Ahead("thanks")
