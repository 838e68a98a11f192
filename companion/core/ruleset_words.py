"""``[listening.words]``: a ruleset's forbidden phrases, read and checked.

Each entry names the offence its phrases propose and lists them::

    [listening.words.oath]
    offence = "oath_phrases"
    phrases = ["клян*", "зуб даю", "отвечаю"]
    unless = ["отвечаю на"]

A phrase is one to :data:`MAX_PHRASE_WORDS` words of letters separated by
spaces; a word ending in ``*`` is a stem of at least :data:`MIN_STEM`
letters that takes any ending (a shorter stem would match half the
language: ``бо*`` is «больше»). Phrases are kept normalised — lower case,
«ё» as «е», single spaces — the way :func:`normalise` also treats what the
recogniser heard, so «Клянёмся» in a file and «клянемся» from the model
meet. Pure: the standard library only, like the rest of the core.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from ..textfiles.toml_table import TomlTable, show
from .rules import ForbiddenWords

#: words in one phrase: «клянусь всем святым что я мирный» is an oath
#: already at its first word
MAX_PHRASE_WORDS = 6
#: letters before a ``*``
MIN_STEM = 3
_WORD = re.compile(r"[a-zа-я]+\*?\Z")
_KEYS = ("offence", "phrases", "unless")


def normalise(word: str) -> str:
    """A word as phrases are compared: lower case, «ё» written «е» (the
    recogniser and the person who wrote the ruleset may differ on both)."""
    return word.lower().replace("ё", "е")


def phrase_problem(phrase: str) -> str | None:
    """Why ``phrase`` (normalised) cannot be a phrase, or None."""
    words = phrase.split(" ")
    if not phrase or len(words) > MAX_PHRASE_WORDS:
        return f"a phrase is 1 to {MAX_PHRASE_WORDS} words, got {show(phrase)}"
    for word in words:
        if not _WORD.match(word):
            return (
                f"{show(word)} in {show(phrase)}: a word is letters, with '*' at the end"
                " for any ending (write «ей-богу» as «ей богу»)"
            )
        if word.endswith("*") and len(word) - 1 < MIN_STEM:
            return f"{show(word)}: a stem before '*' needs at least {MIN_STEM} letters"
    return None


def parse_forbidden_words(
    listening: TomlTable, offences: Collection[str]
) -> tuple[ForbiddenWords, ...]:
    """The entries of ``[listening.words]`` (none when it is absent)."""
    if "words" not in listening.data:
        return ()
    out = []
    for ident, t in listening.entries("words", _KEYS):
        offence = t.str_("offence", required=True)
        t.ref("offence", "offence", offence, offences)
        t.raw("phrases", required=True)
        phrases = _phrases(t, "phrases")
        if not phrases:
            t.fail("phrases", "must list at least one phrase")
        out.append(ForbiddenWords(ident, offence, phrases, _phrases(t, "unless")))
    return tuple(out)


def _phrases(t: TomlTable, key: str) -> tuple[str, ...]:
    seen: dict[str, int] = {}
    for index, raw in enumerate(t.strs(key)):
        phrase = " ".join(normalise(raw).split())
        problem = phrase_problem(phrase)
        if problem is not None:
            t.ctx.fail((*t.path, key, index), problem)
        if phrase in seen:
            t.ctx.fail(
                (*t.path, key, index), f"{show(raw)} is listed twice (as item {seen[phrase]})"
            )
        seen[phrase] = index
    return tuple(seen)
