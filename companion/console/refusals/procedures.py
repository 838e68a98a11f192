"""Each procedure's refusal words by its name (``Ruleset.procedure``): the
refusals its core raises, its inputs' keys, its word table
(``core_words.ProcedureWords``). ``wording.py`` looks them up here and
names no procedure; a new procedure adds one line."""

from __future__ import annotations

from collections.abc import Mapping

from ...core.rules import Ruleset
from .. import words
from ..forum import refusals as forum
from ..sports import refusals as sports_table
from .core_words import ProcedureWords

PROCEDURES: dict[str, ProcedureWords] = {
    "sports_table": sports_table.WORDS,
    "forum": forum.WORDS,
}


def in_order(rules: Ruleset | None) -> list[ProcedureWords]:
    """Every procedure's words, the game's own first (a script may give
    another's input or id whatever the game)."""
    own = PROCEDURES.get(rules.procedure) if rules is not None else None
    return ([own] if own else []) + [each for each in PROCEDURES.values() if each is not own]


def own_word(key: str, rules: Ruleset | None, lang: str) -> str | None:
    """A procedure's word for ``key`` (``action.post``), the game's first."""
    for each in in_order(rules):
        found = each.words.get("ru" if lang == "ru" else "en", {}).get(key)
        if found:
            return found
    return None


def key_word(input_name: str, common: str | None, rules: Ruleset | None, lang: str) -> str | None:
    """The word of the console's key for an input: the game's procedure's
    key, else ``common`` (the key every table has), else another
    procedure's; each looked up in its words, then the console's."""
    console = words.RU if lang == "ru" else words.EN
    ordered = in_order(rules)
    mine = ordered[:1] if rules is not None else []
    for each in mine:
        found = _word_of(each, input_name, lang, console)
        if found:
            return found
    if common and console.get(common):
        return console[common]
    for each in ordered[len(mine) :]:
        found = _word_of(each, input_name, lang, console)
        if found:
            return found
    return None


def _word_of(
    each: ProcedureWords, input_name: str, lang: str, console: Mapping[str, str]
) -> str | None:
    key = each.inputs.get(input_name)
    if key is None:
        return None
    return each.words.get("ru" if lang == "ru" else "en", {}).get(key) or console.get(key)
