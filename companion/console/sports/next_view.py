"""«Дальше:»: what the host's "next" (space) leads to, read off the
procedure itself. The core is pure, so the console asks it: the state that
``HostAdvanced`` would make now is what comes next, in every phase of the
sports table, without a second copy of its transition table that could
drift from it. A night never tells the day it leads to (who died is the
morning's news); the forum game's windows close by deadline, so its
screen shows the next deadline instead (forum_view.clock_view)."""

from __future__ import annotations

from ...core import views
from ...core.engine import apply
from ...core.events import HostAdvanced
from ...core.forum.rules import forum_rules
from ...core.sports.state import current_turn, table_or_blank
from ...core.state import Game
from ..words import Words

_NEXT = HostAdvanced()


def after_next(game: Game) -> Game | None:
    """The state the host's "next" would make now (None: it takes none)."""
    if game.phase in ("setup", "ended") or forum_rules(game.rules) is not None:
        return None
    try:
        after, _ = apply(game, _NEXT)
    except ValueError:  # IllegalInput: "next" means nothing here
        return None
    return after


def next_words(game: Game, words: Words) -> str:
    """What comes next, in the host's words ("" when nothing does)."""
    after = after_next(game)
    if after is None:
        return ""
    name = views.phase_name(game)
    if name in ("vote", "all_leave_vote"):
        return words("next.thanks")
    then = _reached(game, after, words)
    if name in ("count", "all_leave_count"):
        return words("next.accepted", then=then)
    return then


def _reached(before: Game, after: Game, words: Words) -> str:
    """The phase ``after`` stands in, as the host hears of it next."""
    name = views.phase_name(after)
    if after.phase == "ended":
        return words("next.end")
    if before.phase == "night" and after.phase != "night":
        return words("next.morning")  # not whose last word: that is the morning's
    if name == "night":
        state = table_or_blank(after)
        if before.phase == "night" and state.night_step < len(state.tonight):
            step = state.tonight[state.night_step]
            return words("next.night_step", step=step.name or step.id)
        return words("next.night")
    turn = current_turn(after)
    if name in ("speech", "last_word", "tie_speech") and turn is not None:
        return words("next." + name, seat=turn.seat)
    ballot = table_or_blank(after).ballot
    if name == "vote" and ballot is not None:
        return words("next.vote_for", seat=ballot.candidates[ballot.index])
    if name == "all_leave_vote":
        return words("next.all_leave")
    return words("next.thanks")
