"""The night's choice the host keys in at the sports table: the step that
takes one now, who acts in it, and a typed answer as inputs: a seat and
its target, or one target for all who act (the mafia agreed on it), which
is one input (seat 0) so that one undo takes it back. The console asks
and shows (``console/sports/keys.py``); the engine checks each choice
again when it is taken (``night.choose``)."""

from __future__ import annotations

from collections.abc import Sequence

from ..events import NightChoiceMade
from ..rules import NightStep
from ..state import Game
from .state import table_or_blank


def choice_step(game: Game) -> NightStep | None:
    """Tonight's step that takes a choice now (None: no night, the night's
    steps are over, or this one takes no choice)."""
    state = table_or_blank(game)
    if game.phase != "night" or state.night_step >= len(state.tonight):
        return None
    step = state.tonight[state.night_step]
    return None if step.action == "none" else step


def actors(game: Game, step: NightStep) -> tuple[int, ...]:
    """The living seats whose role acts in ``step``."""
    return tuple(s.number for s in game.seats if s.out is None and s.role in step.roles)


def choice(seats: Sequence[int]) -> NightChoiceMade:
    """The input for what the host typed: ``seats`` is (actor, target), or
    (target,) for one target for all who act."""
    if len(seats) == 2:
        return NightChoiceMade(seats[0], seats[1])
    if len(seats) != 1:
        raise ValueError("a choice is a target, or a seat and its target")
    return NightChoiceMade(0, seats[0])
