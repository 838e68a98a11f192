"""Numbers in words and the noun forms that agree with them.

Cardinals and ordinals come from ``num2words`` (checked with 0.5.14, whose
Russian takes a gender); the plural choice is ours, a few lines per language:

* Russian has three noun forms: one (1, 21, 101 ... but not 11), few (2–4,
  22–24 ... but not 12–14) and many (0, 5–20, 25 ...):
  «один голос», «два голоса», «пять голосов», «ноль голосов».
* English has two: one (exactly 1) and other: "one vote", "two votes",
  "zero votes".

Only the nominative case is needed: the catalogues are written so that
numbers stand where the nominative does («игроку номер три»).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from typing import Literal

Gender = Literal["m", "f", "n"]

#: Languages with numbers and a plural rule, and how many noun forms each
#: catalogue template must give for an agreeing noun.
PLURAL_FORMS: dict[str, int] = {"ru": 3, "en": 2}
LANGUAGES = tuple(PLURAL_FORMS)

#: The word before the last item of a spoken list («три, шесть и девять»).
_AND = {"ru": "и", "en": "and"}
#: Languages whose num2words converter takes a ``gender`` keyword.
_GENDERED = frozenset({"ru"})


def check_language(lang: str) -> None:
    if lang not in PLURAL_FORMS:
        raise ValueError(f"no numbers for language {lang!r}; known: {', '.join(LANGUAGES)}")


def cardinal(number: int, lang: str = "ru", gender: Gender = "m") -> str:
    """``3`` -> «три»; ``21, gender="f"`` -> «двадцать одна»; ``-10`` -> «минус десять»."""
    return _words(number, lang, "cardinal", gender)


def ordinal(number: int, lang: str = "ru", gender: Gender = "m") -> str:
    """``3`` -> «третий»; ``4, gender="n"`` -> «четвёртое»; in English "third"."""
    return _words(number, lang, "ordinal", gender)


def plural_index(number: int, lang: str = "ru") -> int:
    """Which of the language's noun forms agrees with `number` (0-based)."""
    check_language(lang)
    n = abs(number)
    if lang == "en":
        return 0 if n == 1 else 1
    if n % 10 == 1 and n % 100 != 11:
        return 0
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return 1
    return 2


def agree(number: int, forms: Sequence[str], lang: str = "ru") -> str:
    """The form of a noun that agrees with `number`:
    ``agree(5, ("голос", "голоса", "голосов"))`` -> «голосов»."""
    if len(forms) != PLURAL_FORMS.get(lang, -1):
        check_language(lang)
        raise ValueError(f"{lang} nouns take {PLURAL_FORMS[lang]} forms, got {len(forms)}")
    return forms[plural_index(number, lang)]


def join(items: Iterable[str], lang: str = "ru") -> str:
    """Spoken list: ``["три", "шесть", "девять"]`` -> «три, шесть и девять»."""
    check_language(lang)
    words = list(items)
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} {_AND[lang]} {words[-1]}"


@cache
def _words(number: int, lang: str, to: str, gender: Gender) -> str:
    check_language(lang)
    # Imported here: the catalogue module loads without it until a number is said.
    from num2words import num2words  # type: ignore[import-untyped]

    extra = {"gender": gender} if lang in _GENDERED else {}
    return str(num2words(number, lang=lang, to=to, **extra))
