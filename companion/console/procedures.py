"""The console's part of each procedure of play, by its name
(``Ruleset.procedure``, as ``core/procedures.py`` names them): a new
procedure adds its folder under ``console/`` and one line here."""

from __future__ import annotations

from ..core.rules import Ruleset
from .forum import procedure as forum
from .procedure_parts import ConsoleProcedure
from .sports import procedure as sports_table

PROCEDURES: dict[str, ConsoleProcedure] = {
    "sports_table": sports_table.CONSOLE,
    "forum": forum.CONSOLE,
}


def of(rules: Ruleset) -> ConsoleProcedure:
    """The console's part of the procedure ``rules`` names."""
    return PROCEDURES[rules.procedure]
