"""The procedures a ruleset can name (``Ruleset.procedure``)."""

from __future__ import annotations

from . import sports_table
from .procedure import Procedure
from .state import Game

PROCEDURES: dict[str, Procedure] = {sports_table.PROCEDURE.name: sports_table.PROCEDURE}


def of(game: Game) -> Procedure:
    """The procedure a game plays (its ruleset names it)."""
    return PROCEDURES[game.rules.procedure]
