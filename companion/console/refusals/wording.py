"""A refused input in the host's words: the console's refusal line and the
command line's, Russian by default, English by ``lang``.

The core refuses in English sentences that name ids (``seat 5 (maniac)
does not act in night step 'doctor'``), and stays so: they are also the
script authors' errors, and tests match them. The table hands the console
``input: message`` (runner/loop.py, runner/replay.py), ``nominate: ...``.
This module matches the message against the core's templates
(``core_words.py``, ``inputs.py``, and each procedure's own,
registered in ``procedures.py``: none is named here), turns each argument into words
(a role id into the ruleset's name, a phase into a phase, a list into
"2, 3, 6", a float to one decimal; ``terms.py``) and the input's
name into the key the console shows for it. A message with no words
here becomes a plain Russian line, its original in the log, never
English on a Russian screen.

Imports no Textual: the command line uses it too.
"""

from __future__ import annotations

import ast
import logging
import re
from collections.abc import Callable
from functools import cache

from ...core.rules import Ruleset
from ...protocol.names import (
    bundled_rulesets,
    clause_text,
    humane,
    offence_text,
    role_name,
    step_name,
    team_name,
)
from ...protocol.report import FLAG_WORDS
from ...runner.codec import shapes
from .core_words import REFUSALS, Entry, ProcedureWords
from .inputs import INPUT_KEYS, INPUT_WORDS, JOURNAL_REFUSALS, MALFORMED
from .procedures import PROCEDURES, key_word, own_word
from .terms import (
    ACTIONS,
    COSTS,
    LADDER_UNITS,
    PHASES,
    TIMERS,
    WHAT,
    holder_words,
    json_words,
    number_words,
    shown_words,
)

log = logging.getLogger(__name__)

#: what a Russian refusal says when the core's message has no words here
#: (an English one says the core's message)
UNKNOWN = "ввод не принят (причина записана в журнал работы консоли)"
#: the longest an echoed value or an offence's text is shown
_SHOWN = 40
_OFFENCE_SHOWN = 60
_PLACEHOLDER = re.compile(r"\{(?:!r)?(?::[^{}]*)?\}")


def refusal_line(reason: str, rules: Ruleset | None, lang: str) -> str:
    """The line the host reads for ``reason`` as the table gives it
    (``nominate: seat 3 has already nominated today``): ``Выставить —
    игрок 3 сегодня уже выставлял``. ``rules``: the game's, for the names
    of roles, steps and offences (None before a game: the bundled
    rulesets' names)."""
    name, message = split_reason(reason)
    said = refusal_words(name, message, rules, lang)
    if said is not None:
        return said
    log.warning("a refusal with no words in %s: %s", lang, reason)
    if lang != "ru":
        return reason
    return _with_input(name, UNKNOWN, lang, rules)


def refusal_words(
    input_name: str | None, message: str, rules: Ruleset | None, lang: str
) -> str | None:
    """``message`` (the core's) in words, led by the input's key name;
    None when no template matches it."""
    lang = lang if lang in ("ru", "en") else "ru"
    found = match(message)
    if found is None:
        return None
    return _with_input(input_name, worded(*found, rules, lang), lang, rules)


def worded(entry: Entry, args: tuple[str, ...], rules: Ruleset | None, lang: str) -> str:
    """A matched template's line in ``lang``, each argument in words."""
    kinds, ru, en = entry
    said = [_word(kind, arg, rules, lang) for kind, arg in zip(kinds, args, strict=True)]
    return (ru if lang == "ru" else en).format(*said)


def split_reason(reason: str) -> tuple[str | None, str]:
    """(input name, the core's message) of ``input: message``; no name for
    a message the table gives bare (a malformed input, the journal)."""
    head, sep, rest = reason.partition(": ")
    if sep and head in shapes():
        return head, rest
    return None, reason


Patterns = tuple[tuple[re.Pattern[str], Entry], ...]


def match(message: str, patterns: Patterns | None = None) -> tuple[Entry, tuple[str, ...]] | None:
    """The template ``message`` was made from, and its arguments as text
    (``patterns``: another table's, ``compiled``; default: the refusals')."""
    for pattern, entry in _patterns() if patterns is None else patterns:
        found = pattern.fullmatch(message)
        if found is not None:
            return entry, found.groups()
    return None


def _patterns() -> Patterns:
    # the registry as it stands (a procedure may be registered at run time)
    return _patterns_of(tuple(PROCEDURES.values()))


@cache
def _patterns_of(procedures: tuple[ProcedureWords, ...]) -> Patterns:
    own = {template: entry for each in procedures for template, entry in each.refusals.items()}
    return compiled({**REFUSALS, **own, **MALFORMED, **JOURNAL_REFUSALS})


def compiled(table: dict[str, Entry]) -> Patterns:
    """Every template as a regular expression, the most literal first: a
    template whose placeholders could swallow another's words loses."""
    ordered = sorted(table, key=lambda t: -len(_PLACEHOLDER.sub("", t)))
    return tuple((_pattern(template), table[template]) for template in ordered)


def _pattern(template: str) -> re.Pattern[str]:
    pieces = _PLACEHOLDER.split(template)
    return re.compile("(.+?)".join(re.escape(piece) for piece in pieces), re.DOTALL)


def _with_input(input_name: str | None, text: str, lang: str, rules: Ruleset | None) -> str:
    if input_name is None:
        return text[:1].upper() + text[1:]
    return f"{input_word(input_name, lang, rules)} — {text}"


def input_word(input_name: str, lang: str, rules: Ruleset | None = None) -> str:
    """An input as the host knows it: the name of the console's key for it
    (``nominate`` → «Выставить»), the game's procedure's own first."""
    ru = lang == "ru"
    shown = key_word(input_name, INPUT_KEYS.get(input_name), rules, lang)
    if shown:
        return shown
    pair = INPUT_WORDS.get(input_name)
    return pair[0 if ru else 1] if pair else ("Ввод" if ru else humane(input_name))


# --- the arguments in words ------------------------------------------------------


def _word(kind: str, text: str, rules: Ruleset | None, lang: str) -> str:
    if kind == "value":  # a repr whose quotes say it was text
        return _value(text, rules, lang)
    if kind == "shown":  # fields.shown(): a repr, or its words for what it cut
        return shown_words(text, lang) or _value(text, rules, lang)
    return _KINDS.get(kind, _as_given)(_unquoted(text), rules, lang)


def _unquoted(text: str) -> str:
    """A string argument without its repr's quotes; its escapes stay
    (``a\\u2028b``): what the input gave is echoed on one line."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def _pair(table: dict[str, tuple[str, str]], key: str, lang: str, default: str) -> str:
    pair = table.get(key)
    return pair[0 if lang == "ru" else 1] if pair else default


def _as_given(text: str, rules: Ruleset | None, lang: str) -> str:
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def _value(text: str, rules: Ruleset | None, lang: str) -> str:
    """A value the input gave (``got {!r}``): a number to one decimal at
    most, a text in quotes, nothing as «ничего»."""
    if _unquoted(text) != text:
        return f"«{_as_given(_unquoted(text), rules, lang)}»"
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return _as_given(text, rules, lang)
    if value is None:
        return "ничего" if lang == "ru" else "nothing"
    if isinstance(value, bool):
        return ("да" if value else "нет") if lang == "ru" else ("yes" if value else "no")
    if isinstance(value, float):
        return _seconds(text, rules, lang)
    if isinstance(value, list | tuple):
        return ", ".join(_value(repr(item), rules, lang) for item in value) or "—"
    return _as_given(str(value) if isinstance(value, int) else text, rules, lang)


def _seconds(text: str, rules: Ruleset | None, lang: str) -> str:
    try:
        value = float(_unquoted(text))
    except ValueError:
        return _as_given(text, rules, lang)
    if value != value or value in (float("inf"), float("-inf")):
        return "не число" if lang == "ru" else "not a number"
    shown = f"{value:.1f}".rstrip("0").rstrip(".")
    return shown.replace(".", ",") if lang == "ru" else shown


def _role(text: str, rules: Ruleset | None, lang: str) -> str:
    return role_name(text, lang, rules)


def _team(text: str, rules: Ruleset | None, lang: str) -> str:
    return team_name(text, lang, rules)


def _step(text: str, rules: Ruleset | None, lang: str) -> str:
    return step_name(text, lang, rules)


def _phase(text: str, rules: Ruleset | None, lang: str) -> str:
    return _pair(PHASES, text, lang, humane(text) if lang != "ru" else "эта фаза")


def _timer(text: str, rules: Ruleset | None, lang: str) -> str:
    return _pair(TIMERS, text, lang, humane(text) if lang != "ru" else "таймер")


def _timers(text: str, rules: Ruleset | None, lang: str) -> str:
    """A Python list of timer names (``['turn', 'warning']``) as words."""
    try:
        names = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        names = []
    said = [_timer(str(name), rules, lang) for name in names] if isinstance(names, list) else []
    return ", ".join(said) or ("ничего" if lang == "ru" else "none")


def _action(text: str, rules: Ruleset | None, lang: str) -> str:
    own = ACTIONS.get(text)
    if own is not None:
        return own[0 if lang == "ru" else 1]
    found = own_word("action." + text, rules, lang)
    if found and "{" not in found:
        return found
    return f"«{text}»" if lang == "ru" else humane(text)


def _cost(text: str, rules: Ruleset | None, lang: str) -> str:
    if text == "count":
        unit = rules.ladder.unit if rules is not None else "remark"
        return _pair(LADDER_UNITS, unit, lang, _pair(LADDER_UNITS, "remark", lang, unit))
    return _pair(COSTS, text, lang, humane(text) if lang != "ru" else "другое")


def _offence(text: str, rules: Ruleset | None, lang: str) -> str:
    """«крики за игровым столом» (замечания, п. 5): the ruleset's words and
    where they are; an id no ruleset knows, as given."""
    for each in (rules,) if rules is not None else bundled_rulesets():
        try:
            offence = each.offence(text)
        except KeyError:
            continue
        said = offence_text(offence.id, lang, each, _OFFENCE_SHOWN)
        return f"«{said}» ({clause_text(offence.clause, lang, each)})"
    return f"«{text}»"


def _ruleset(text: str, rules: Ruleset | None, lang: str) -> str:
    """A ruleset's title (Russian), its name (English)."""
    if lang != "ru":
        return text
    for each in (rules,) if rules is not None and rules.name == text else bundled_rulesets():
        if each.name == text and each.title:
            return each.title
    return text


def _window(text: str, rules: Ruleset | None, lang: str) -> str:
    key = "window." + text.replace(" ", "_")
    return own_word(key, rules, lang) or (humane(text) if lang != "ru" else "окно")


def _windows(text: str, rules: Ruleset | None, lang: str) -> str:
    return ", ".join(_window(name, rules, lang) for name in text.split(", "))


def _option(text: str, rules: Ruleset | None, lang: str) -> str:
    return own_word("option." + text, rules, lang) or text


def _options(text: str, rules: Ruleset | None, lang: str) -> str:
    return ", ".join(f"«{_option(name, rules, lang)}»" for name in text.split(", "))


def _kind(text: str, rules: Ruleset | None, lang: str) -> str:
    return FLAG_WORDS.get(lang, FLAG_WORDS["ru"]).get(text, text)


def _kinds(text: str, rules: Ruleset | None, lang: str) -> str:
    return ", ".join(_kind(name, rules, lang) for name in text.split(", "))


def _phrase(text: str, rules: Ruleset | None, lang: str) -> str:
    """A forbidden-words id as its first phrase («клян* ...»)."""
    entry = next((w for w in rules.forbidden_words if w.id == text), None) if rules else None
    if entry is None or not entry.phrases or lang != "ru":
        return f"«{text if lang == 'ru' else humane(text)}»"
    return f"«{entry.phrases[0]}»"


def _gun(text: str, rules: Ruleset | None, lang: str) -> str:
    """A gun's owner: a seat (digits) or a team."""
    if text.isdigit():
        return f"игрока {text}" if lang == "ru" else f"seat {text}"
    return f"команды «{_team(text, rules, lang)}»" if lang == "ru" else f"team {humane(text)}"


def _what(text: str, rules: Ruleset | None, lang: str) -> str:
    return _pair(WHAT, text, lang, "" if lang == "ru" else f"{humane(text)}: ")


def _clause(text: str, rules: Ruleset | None, lang: str) -> str:
    return clause_text(text, lang, rules)


def _hidden(text: str, rules: Ruleset | None, lang: str) -> str:
    return ""


def _whole(text: str, rules: Ruleset | None, lang: str) -> str:
    return text


#: what the system says of a disk that takes no more (os.strerror), in Russian
_DISK_WORDS = {
    "No space left on device": "на диске нет места",
    "Disk quota exceeded": "превышена квота диска",
    "Read-only file system": "диск только для чтения",
    "Input/output error": "ошибка чтения или записи диска",
    "Permission denied": "нет прав на запись",
    "No such file or directory": "нет такой папки или файла",
}


def _disk(text: str, rules: Ruleset | None, lang: str) -> str:
    return os_words(text, lang)


def os_words(text: str, lang: str) -> str:
    """An OS error's words (``strerror``: a journal's disk, a file): the
    common ones in Russian, any other as the system gave it (the host's
    log has it too)."""
    return _DISK_WORDS.get(text, text) if lang == "ru" else text


_Kind = Callable[[str, Ruleset | None, str], str]
_KINDS: dict[str, _Kind] = {
    "seat": _as_given,
    "num": _as_given,
    "text": _as_given,
    "value": _value,
    "seconds": _seconds,
    "key": _as_given,
    "what": _what,
    "role": _role,
    "team": _team,
    "step": _step,
    "phase": _phase,
    "timer": _timer,
    "timers": _timers,
    "action": _action,
    "cost": _cost,
    "offence": _offence,
    "ruleset": _ruleset,
    "window": _window,
    "deadline": _window,
    "deadlines": _windows,
    "option": _option,
    "options": _options,
    "kind": _kind,
    "kinds": _kinds,
    "phrase": _phrase,
    "gun": _gun,
    "clause": _clause,
    "index": _hidden,
    "disk": _disk,
    # a script's or journal's line that could not be read (refusals/script.py)
    "hidden": _hidden,
    "path": _whole,
    "list": _whole,
    "number": lambda text, rules, lang: number_words(text, lang),
    "json": lambda text, rules, lang: json_words(text, lang),
    "holder": lambda text, rules, lang: holder_words(text, lang),
}
