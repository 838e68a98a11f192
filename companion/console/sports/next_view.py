"""«Дальше:»: what the host's "next" (space) leads to, in the host's words.
The core works it out (``core/sports/ahead.py``: the state ``HostAdvanced``
would make now); here it is only said. The forum game's windows close by
deadline, so its screen shows the next deadline instead
(forum/view.py's clock_view)."""

from __future__ import annotations

from ...core.sports.ahead import Ahead, after_next, ahead
from ...core.state import Game
from ..words import Words

__all__ = ["after_next", "next_words"]


def next_words(game: Game, words: Words) -> str:
    """What comes next, in the host's words ("" when nothing does)."""
    found = ahead(game)
    return "" if found is None else _said(found, words)


def _said(found: Ahead, words: Words) -> str:
    key = "next." + found.kind
    if found.then is not None:  # «Принято», then where the count leads
        return words(key, then=_said(found.then, words))
    if found.seat is not None:
        return words(key, seat=found.seat)
    if found.step:
        return words(key, step=found.step)
    return words(key)
