"""The values of each procedure of play's own cue arguments, by its name
(``Ruleset.procedure``, as ``core/procedures.py`` names them): what
``game_cues.argument_values`` does not know of itself. A new procedure
adds one line here."""

from __future__ import annotations

from collections.abc import Callable

from ..core.rules import Ruleset
from .forum_values import forum_values

#: (cue, argument, rules) -> the values it takes; None: not an argument of its own
ArgumentValues = Callable[[str, str, Ruleset], list[int | str] | None]


def none_of_its_own(cue: str, arg: str, rules: Ruleset) -> list[int | str] | None:
    """The sports table's cues take only the shared arguments."""
    return None


ARGUMENT_VALUES: dict[str, ArgumentValues] = {
    "sports_table": none_of_its_own,
    "forum": forum_values,
}
