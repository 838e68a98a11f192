"""The procedures a ruleset can name (``Ruleset.procedure``): the registry.

The one core module that names the procedures of play; every other generic
module asks the procedure through it (``of``, ``named``). A new procedure
is a folder under ``core/`` with its ``Procedure`` and one line in
``_BUILT_IN`` (or, for a test's procedure, a ``register`` call).
"""

from __future__ import annotations

from .forum import procedure as forum
from .sports import procedure as sports_table
from .state import Game
from .step import Procedure

#: the procedures this package plays, the first the default of a ruleset
#: that names none
_BUILT_IN: tuple[Procedure, ...] = (
    sports_table.PROCEDURE,
    forum.PROCEDURE,
)

PROCEDURES: dict[str, Procedure] = {procedure.name: procedure for procedure in _BUILT_IN}

#: the procedure of a ruleset that names none
DEFAULT = _BUILT_IN[0].name


def every_option() -> tuple[str, ...]:
    """The options a game of any procedure may be set up with."""
    return tuple(dict.fromkeys(o for each in PROCEDURES.values() for o in each.options))


def register(procedure: Procedure) -> None:
    """Make ``procedure`` one a ruleset may name (a test's toy game); its
    name may not be taken by another procedure."""
    known = PROCEDURES.get(procedure.name)
    if known is not None and known is not procedure:
        raise ValueError(f"a procedure named {procedure.name!r} is already registered")
    PROCEDURES[procedure.name] = procedure


def named(name: str) -> Procedure:
    """The procedure of that name (a ruleset's ``procedure``)."""
    return PROCEDURES[name]


def of(game: Game) -> Procedure:
    """The procedure a game plays (its ruleset names it)."""
    return PROCEDURES[game.rules.procedure]
