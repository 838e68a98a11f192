"""The ruleset's ids in words, for the protocol and the host log: a role,
a team, a night step, an offence, a clause.

Russian uses the ruleset's own words (``name``, an offence's ``text``) and
words for the clause ids' sections; English the ids, with their
underscores as spaces. A caller that has no ruleset at hand (the host log
is built before a game) gets the words of the bundled rulesets: their ids
mean the same thing in each.
"""

from __future__ import annotations

from functools import cache

from ..core.rules import Ruleset

#: the sections of the clause ids (rulesets/*.toml, docs/forum-rules-catalogue.md 1),
#: and the words of their middle parts, in Russian
_SECTIONS = {
    # the club's text: «<section>.<bullet>» (rulesets/club.toml's header)
    "general": "общие положения",
    "remarks": "замечания",
    "ladder": "счёт замечаний",
    "removal": "удаление",
    "team_loss": "поражение команды",
    "rating": "рейтинг",
    # the forum's text
    "meta": "заголовок",
    "game": "об игре",
    "deal": "жеребьёвка",
    "spirit": "дух игры",
    "phase": "этапы",
    "deadline": "сроки",
    "sides": "стороны",
    "balance": "баланс",
    "topic": "темы",
    "vote": "голосование",
    "morgue": "морг",
    "end": "конец игры",
    "roles": "роли",
    "fm": "форс-мажоры",
    "forbid": "запрещается",
    "sanction": "санкции",
    "duty": "обязанности",
    "amb": "разъяснения",
}
_PARTS = {
    "night": "ночь",
    "day": "день",
    "vote": "голосование",
    "autokill": "автокилл",
    "change": "изменения",
    "game": "игровая тема",
    "two": "двухсторонка",
    "three": "трёхсторонка",
    "final": "финал",
    "playon": "игра продолжается",
}


#: clause values that are not a clause of the text: where the engine says why
_MARKERS = {
    "ru": {"at_morning": "утром", "night": ""},
    "en": {"at_morning": "at morning", "night": ""},
}


def humane(key: str) -> str:
    """An id as English words: ``excessive_gestures`` → ``excessive gestures``."""
    return key.replace("_", " ")


@cache
def bundled_rulesets() -> tuple[Ruleset, ...]:
    """The rulesets shipped, for words when no game is at hand."""
    from ..config.rulesets import DataFileError, available_rulesets, load_ruleset

    found = []
    for name in available_rulesets():
        try:
            found.append(load_ruleset(name))
        except (DataFileError, OSError):  # a broken file is the rulesets command's to report
            continue
    return tuple(found)


def _rulesets(rules: Ruleset | None) -> tuple[Ruleset, ...]:
    return (rules,) if rules is not None else bundled_rulesets()


def role_name(role: str, lang: str, rules: Ruleset | None = None) -> str:
    if lang != "ru":
        return humane(role)
    for each in _rulesets(rules):
        try:
            return each.role(role).name
        except KeyError:
            continue
    return role


def team_name(team: str, lang: str, rules: Ruleset | None = None) -> str:
    if lang != "ru":
        return humane(team)
    for each in _rulesets(rules):
        try:
            return each.team(team).name
        except KeyError:
            continue
    return team


def teams_text(teams: object, lang: str, rules: Ruleset | None, nobody: str) -> str:
    """Comma-separated team ids as their names, or ``nobody``."""
    names = [team_name(t, lang, rules) for t in str(teams).split(",") if t]
    return ", ".join(names) or nobody


def step_name(step: str, lang: str, rules: Ruleset | None = None) -> str:
    if lang == "ru":
        for each in _rulesets(rules):
            for night_step in (*each.night0, *each.night):
                if night_step.id == step and night_step.name:
                    return night_step.name
    return humane(step)


def offence_text(offence: str, lang: str, rules: Ruleset | None = None, limit: int = 70) -> str:
    """The ruleset's wording of an offence (Russian, cut to ``limit``
    characters at a word) or its id in words (English)."""
    if lang != "ru":
        return humane(offence)
    for each in _rulesets(rules):
        try:
            text = each.offence(offence).text
        except KeyError:
            continue
        if len(text) <= limit:
            return text
        cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,.;:—-")
        return cut + "…"
    return offence


def clause_text(clause: str, lang: str, rules: Ruleset | None = None) -> str:
    """Where the rules say it: ``п. 4.6.1`` (a numbered text), ``замечания,
    п. 5`` (the club's ``remarks.5``), ``роли, Вампир, п. 2`` (the forum's
    ``roles.vampire.2``); in English ``clause remarks.5``."""
    markers = _MARKERS["ru" if lang == "ru" else "en"]
    if not clause or clause in markers:
        return markers.get(clause, "")
    if lang != "ru":
        return f"clause {clause}"
    parts = clause.split(".")
    if not parts[0].isascii() or " " in clause:  # a sentence of the text itself
        return f"«{clause}»"
    if all(part.isdigit() for part in parts):
        return f"п. {clause}"
    words: list[str] = []
    number: list[str] = []
    for index, part in enumerate(parts):
        if part.isdigit():
            number.append(part)
        elif index == 0:
            words.append(_SECTIONS.get(part, part))
        elif part in _PARTS:
            words.append(_PARTS[part])
        else:
            words.append(role_name(part, lang, rules))
    if number:
        words.append("п. " + ".".join(number))
    return ", ".join(words)
