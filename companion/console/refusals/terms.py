"""The words of a refusal's arguments, Russian and English: phases,
timers, night and forum actions, what an offence costs, which seat of an
input a message means (ids the ruleset names are worded by
``protocol.names``); and of a script's or journal's line that could not be
read: the values ``runner/codec.py`` echoes, its bounds, the JSON reader's
complaint, a journal's holder.
"""

from __future__ import annotations

import re

#: phase ids (``views.phase_name``, ``Game.phase``, the forum's) -> words
PHASES: dict[str, tuple[str, str]] = {
    "setup": ("подготовка", "setting up"),
    "night": ("ночь", "night"),
    "day": ("день", "day"),
    "speeches": ("речи", "speeches"),
    "speech": ("речь", "a speech"),
    "last_word": ("последнее слово", "a last word"),
    "tie_speech": ("оправдательная речь", "a tie speech"),
    "voting": ("голосование", "the vote"),
    "vote": ("голосование", "the vote"),
    "count": ("подсчёт голосов", "the count"),
    "all_leave_vote": ("голосование за уход всех", "the vote for all to leave"),
    "all_leave_count": ("подсчёт за уход всех", "the count for all to leave"),
    "day_choices": ("выборы дня", "the day's choices"),
    "ended": ("игра окончена", "the game is over"),
}

#: timer names (``Step.start_timer``) -> words
TIMERS: dict[str, tuple[str, str]] = {
    "turn": ("речь", "speech"),
    "warning": ("предупреждение", "warning"),
    "vote": ("голосование", "vote"),
    "count": ("подсчёт", "count"),
    "night": ("шаг ночи", "night step"),
}

#: night and forum actions -> words (a forum screen's own, forum/words.py,
#: come first for the forum's)
ACTIONS: dict[str, tuple[str, str]] = {
    "none": ("без выбора", "no choice"),
    "shoot": ("выстрел", "shot"),
    "kill": ("убийство", "kill"),
    "check": ("проверка", "check"),
    "heal": ("лечение", "heal"),
    "block": ("блок", "block"),
    "fire": ("выстрел из взятой пушки", "shot with a taken gun"),
}

#: what an offence costs (rules.Cost) -> words; "count": the ladder's unit
COSTS: dict[str, tuple[str, str]] = {
    "warning": ("устное предупреждение", "a warning"),
    "removal": ("удаление", "a removal"),
    "removal_at_morning": ("удаление утром", "a removal at morning"),
    "team_loss": ("поражение команды", "the team's loss"),
    "demotion": ("лишение роли", "a demotion"),
    "lost_move": ("лишение хода", "a lost move"),
}
LADDER_UNITS: dict[str, tuple[str, str]] = {
    "remark": ("замечание", "a remark"),
    "foul": ("фол", "a foul"),
}

#: which seat of an input a message means (``seat_in_range``'s ``what``,
#: events' field names), written before the rest of the line
WHAT: dict[str, tuple[str, str]] = {
    "seat": ("", ""),
    "target": ("цель: ", "target: "),
    "suspect": ("лучший ход: ", "best move: "),
    "voter": ("голосующий: ", "voter: "),
    "by": ("выставляющий: ", "nominator: "),
    "first_speaker": ("первый говорящий: ", "first speaker: "),
    "at": ("время поста: ", "the post's time: "),
    "to": ("новый срок: ", "the new deadline: "),
}


# --- the values a script's line gave (runner/codec.py's ``shown``) -------------------

#: ``fields.shown``'s own words for what it does not echo whole, in Russian
_SHOWN_FORMS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"a list of (\d+) items"), "список (элементов: {0})"),
    (re.compile(r"an object of (\d+) keys"), "объект (ключей: {0})"),
    (re.compile(r"a (\d+)-bit number"), "число длиной {0} бит"),
    (re.compile(r"""['"](.*)['"]\.\.\. \((\d+) characters\)""", re.DOTALL), "«{0}…» (знаков: {1})"),
    (re.compile(r"""['"](.*)\.\.\.""", re.DOTALL), "«{0}…»"),  # a repr cut short
)
_NOT_NUMBERS = {"nan": "не число", "inf": "бесконечность", "-inf": "минус бесконечность"}


def shown_words(text: str, lang: str) -> str | None:
    """A value as ``fields.shown`` gives it, in Russian where it is English
    (a list, an object, a long number, a string cut short, NaN); None for a
    plain repr, worded as any value is."""
    if lang != "ru":
        return None
    if text in _NOT_NUMBERS:
        return _NOT_NUMBERS[text]
    for pattern, said in _SHOWN_FORMS:
        found = pattern.fullmatch(text)
        if found is not None:
            return said.format(*found.groups())
    return None


def number_words(text: str, lang: str) -> str:
    """A bound as the message gives it (``1e+07``, ``0.01``): whole digits,
    a decimal comma in Russian."""
    try:
        value = float(text)
    except ValueError:
        return text
    if value.is_integer() and abs(value) < 1e18:
        return str(int(value))
    shown = format(value, "f").rstrip("0").rstrip(".")
    return shown.replace(".", ",") if lang == "ru" else shown


#: what Python's JSON reader says of a line that is no JSON, in Russian
JSON_WORDS: dict[str, str] = {
    "Expecting value": "ожидалось значение",
    "Expecting property name enclosed in double quotes": "ожидалось имя ключа в двойных кавычках",
    "Expecting ':' delimiter": "ожидалось «:»",
    "Expecting ',' delimiter": "ожидалось «,»",
    "Unterminated string starting at": "кавычки не закрыты",
    "Invalid control character at": "управляющий знак внутри строки",
    "Invalid \\escape": "неверный знак после «\\»",
    "Invalid \\uXXXX escape": "неверный код знака после «\\u»",
    "Extra data": "лишнее после объекта",
}


def json_words(text: str, lang: str) -> str:
    if lang != "ru":
        return text
    return JSON_WORDS.get(text, "ошибка")


_HOLDER = re.compile(r"pid (\d+) on (.+?) since (.+?) \((.*)\)", re.DOTALL)


def holder_words(text: str, lang: str) -> str:
    """Who holds a journal, as its lock file says (``pid 12 on pi since
    2026-05-01 20:15:00 (companion console)``)."""
    if lang != "ru":
        return text
    found = _HOLDER.fullmatch(text)
    if found is None:
        return "другой процесс" if text == "another process" else text
    pid, host, since, command = found.groups()
    return f"процесс {pid} на машине {host} с {since} ({command})"
