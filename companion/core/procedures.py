"""The procedures a ruleset can name (``Ruleset.procedure``)."""

from __future__ import annotations

from .forum import procedure as forum
from .sports import procedure as sports_table
from .state import Game
from .step import Procedure

PROCEDURES: dict[str, Procedure] = {
    procedure.name: procedure for procedure in (sports_table.PROCEDURE, forum.PROCEDURE)
}


def of(game: Game) -> Procedure:
    """The procedure a game plays (its ruleset names it)."""
    return PROCEDURES[game.rules.procedure]
