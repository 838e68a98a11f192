"""The forum game's records in words, for the protocol and the host log.

A ``public`` record carries a cue (the announcement the table says and the
results post writes) and a ``private`` record or host message a note (what
the host passes to one player); their arguments are declared in
``core/vocabulary.py`` (``CUES``, ``NOTES``). Here each has a written line,
Russian by default or English: the protocol is read, not heard, so a tally
stays "№5 — 4, №3 — 2" and a moved deadline keeps its new time, where the
voice's phrases (``voices/*.toml``) say them. The wording of the text's
own announcements is the text's (docs/forum-rules-catalogue.md 3.5).

``forum_fields`` words the fields of the forum's other record kinds (an
action, a deadline's name, a role) before the protocol's templates
(``report._TEMPLATES``) lay them out.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..core.rules import Ruleset
from .names import clause_text, role_name, team_name

PUBLIC: dict[str, dict[str, str]] = {
    "ru": {
        "forum_balance": "Баланс сторон: подвалы — {basements}; Дитя Мафии — {child}",
        "forum_day": "Начался игровой день {day}",
        "forum_night": "Наступила ночь {day}",
        "vote_tally": "Итоги голосования: {tally}",
        "lawyer_protected": "Адвокат защитил игрока {seat}",
        "bouncer_annulled": "Вышибала аннулировал голос игрока {seat}",
        "lawyer_skipped": "Адвокат никого не защищал",
        "bouncer_skipped": "Вышибала пропустил ход",
        "lawyer_lost_role": "Адвокат никого не защищал и потерял роль",
        "bouncer_lost_role": "Вышибала пропустил ход и потерял роль",
        "doctor_lost_role": "Доктор никого не лечил и потерял роль",
        "forum_voted_out": "По итогам голосования игру покидает игрок {seat}",
        "nobody_voted_out": "По итогам голосования никто не покидает игру",
        "autokill": "Игрок {seat}: автокилл",
        "child_killed": "Игрок {seat}: было убито Дитя",
        "forum_killed": "Ночью убит игрок {seat}",
        "night_no_deaths": "Ночью никто не погиб",
        "cop_missed": "Коп промахнулся",
        "shooter_missed": "{shooter} промахнулся",
        "sniper_joined_mm": "Снайпер теперь в стане ММ",
        "doctor_healed_healthy": "Доктор лечил здорового",
        "kamikaze_saved": "Коп или Док спасли от пули ММ",
        "vampire_bit_child": (
            "Вампир укусил ДМ, но выстрел Копа лишил его этой роли, и Вампир продолжает игру как мж"
        ),
        "mm_found_child": "Мафоманы (за которых стрелял ЖД) нашли свое дитя",
        "mourning": "Траур: этой ночью ночных ходов нет",
        "deadline_moved": "Срок «{name}» перенесён: до {at}",
        "deadline_soon": "До конца «{name}»: {minutes} мин.",
    },
    "en": {
        "forum_balance": "Balance of sides: basements — {basements}; the Mafia's Child — {child}",
        "forum_day": "Game day {day} began",
        "forum_night": "Night {day} fell",
        "vote_tally": "The vote's tally: {tally}",
        "lawyer_protected": "The Lawyer protected seat {seat}",
        "bouncer_annulled": "The Bouncer annulled the vote of seat {seat}",
        "lawyer_skipped": "The Lawyer protected nobody",
        "bouncer_skipped": "The Bouncer skipped his move",
        "lawyer_lost_role": "The Lawyer protected nobody and lost his role",
        "bouncer_lost_role": "The Bouncer skipped his move and lost his role",
        "doctor_lost_role": "The Doctor healed nobody and lost his role",
        "forum_voted_out": "By the vote, seat {seat} leaves the game",
        "nobody_voted_out": "By the vote, nobody leaves the game",
        "autokill": "Seat {seat}: autokill",
        "child_killed": "Seat {seat}: the Child was killed",
        "forum_killed": "Seat {seat} was killed at night",
        "night_no_deaths": "Nobody died at night",
        "cop_missed": "The Cop missed",
        "shooter_missed": "The {shooter} missed",
        "sniper_joined_mm": "The Sniper is now in the MM camp",
        "doctor_healed_healthy": "The Doctor healed a healthy player",
        "kamikaze_saved": "The Cop or the Doctor saved from the MM's bullet",
        "vampire_bit_child": (
            "The Vampire bit the Mafia's Child, but the Cop's shot took that role away,"
            " and the Vampire plays on as a civilian"
        ),
        "mm_found_child": "The MM (whom the Tin Man shot for) found their child",
        "mourning": "Mourning: no night moves tonight",
        "deadline_moved": "The deadline «{name}» moved: until {at}",
        "deadline_soon": "{minutes} min. left of «{name}»",
    },
}

NOTES: dict[str, dict[str, str]] = {
    "ru": {
        "your_role": "ваша роль — {role}",
        "team_members": "ваша команда ({team}): игроки {seats}",
        "cops": "Коп и Помощник Копа: игроки {seats}",
        "now_cop": "вы теперь Коп",
        "now_head": "вы теперь главный Зомби",
        "joined_team": "вы теперь в команде: {team}",
        "joined_cops": "вы теперь Помощник Копа",
        "lost_role": "вы потеряли свою роль",
        "found_cop": "Коп — игрок {seat}",
        "found_don": "Дон — игрок {seat}",
        "new_member": "игрок {seat} теперь в команде: {team}",
        "gun_taken": "следующей ночью у вас оружие: {gun}",
        "block_hit": "ваш блок игрока {seat} отменил его выстрел",
        "block_missed": "ваш блок игрока {seat} ничего не отменил",
        "tramp_is": "игрок {seat} — Бомж; его голос на этот день ваш",
        "tramp_order": "голосуйте за игрока {seat}",
        "cop_checked": "игрок {seat} — мирный",
    },
    "en": {
        "your_role": "your role is {role}",
        "team_members": "your team ({team}): seats {seats}",
        "cops": "the Cop and his assistant: seats {seats}",
        "now_cop": "you are the Cop now",
        "now_head": "you are the head Zombie now",
        "joined_team": "you are now in the team: {team}",
        "joined_cops": "you are the Cop's assistant now",
        "lost_role": "you have lost your role",
        "found_cop": "the Cop is seat {seat}",
        "found_don": "the Don is seat {seat}",
        "new_member": "seat {seat} is now in the team: {team}",
        "gun_taken": "next night you hold the gun of {gun}",
        "block_hit": "your block of seat {seat} voided his shot",
        "block_missed": "your block of seat {seat} voided nothing",
        "tramp_is": "seat {seat} is the Bomzh; his vote this day is yours",
        "tramp_order": "vote for seat {seat}",
        "cop_checked": "seat {seat} is a civilian",
    },
}

#: argument and field values in words
WORDS: dict[str, dict[str, str]] = {
    "ru": {
        "yes": "есть",
        "no": "нет",
        "plain": "обычное",
        "multi": "многофункциональное",
        "sniper": "Снайпер",
        "maniac": "Маньяк",
        "kamikaze": "Камикадзе",
        "day_choices": "дневной выбор",
        "vote": "голосование",
        "night": "ночной выбор",
        "no_votes": "голосов нет",
        "nobody": "никто",
        "seat": "игрок {seat}",
        "edited": " (правка)",
        "hit": "выстрел отменён",
        "missed": "ничего не отменил",
        "shoot": "выстрел",
        "heal": "лечение",
        "block": "блок",
        "bite": "укус",
        "mark": "метка Камикадзе",
        "protect": "защита",
        "annul": "аннулирование голоса",
        "fire": "выстрел из оружия {gun}",
        "hide": "подвал",
        "order": "приказ Бомжу",
    },
    "en": {
        "yes": "yes",
        "no": "no",
        "plain": "plain",
        "multi": "multi-functional",
        "sniper": "Sniper",
        "maniac": "Maniac",
        "kamikaze": "Kamikaze",
        "day_choices": "the day's choices",
        "vote": "the vote",
        "night": "the night's choices",
        "no_votes": "no votes",
        "nobody": "nobody",
        "seat": "seat {seat}",
        "edited": " (edited)",
        "hit": "shot voided",
        "missed": "voided nothing",
        "shoot": "shot",
        "heal": "heal",
        "block": "block",
        "bite": "bite",
        "mark": "the Kamikaze's mark",
        "protect": "protection",
        "annul": "vote annulled",
        "fire": "shot with the gun of {gun}",
        "hide": "basement",
        "order": "order to the Bomzh",
    },
}

#: arguments whose value is a role id, a team id (or several), a word of WORDS
_ROLES = frozenset({"role", "was"})
_TEAMS = frozenset({"team", "teams"})
_WORDED = frozenset({"basements", "child", "shooter", "name"})


def public_text(
    cue: str, args: Mapping[str, object], lang: str = "ru", rules: Ruleset | None = None
) -> str:
    """A public announcement as the protocol writes it."""
    return _line(PUBLIC, cue, args, lang, rules)


def note_text(
    cue: str, args: Mapping[str, object], lang: str = "ru", rules: Ruleset | None = None
) -> str:
    """A private note as the protocol and the host log write it."""
    return _line(NOTES, cue, args, lang, rules)


def forum_fields(kind: str, data: dict[str, object], lang: str, rules: Ruleset | None) -> None:
    """Word the fields of a forum record (``data``, changed in place) for the
    protocol's template of ``kind``; other kinds are left as they are."""
    words = WORDS[lang]
    if kind == "public":
        cue, args = str(data["cue"]), _args(data, ("phase", "cue"))
        data["cue"] = public_text(cue, args, lang, rules)
    elif kind == "private":
        cue, args = str(data["cue"]), _args(data, ("to", "cue"))
        data["cue"] = note_text(cue, args, lang, rules)
    elif kind == "choice":
        action = str(data["action"])
        gun = _gun(str(data.get("gun", "")), lang, rules)
        data["action"] = words.get(action, action).format(gun=gun)
        data["target"] = _seat(data["target"], lang)
    elif kind in ("vote", "second_vote"):
        data["target"] = _seat(data["target"], lang)
        data["edit"] = words["edited"] if data.get("edit") else ""
    elif kind in ("deadline", "late"):
        for key in ("name", "post"):
            if key in data:
                data[key] = words.get(str(data[key]), data[key])
        for key in ("at", "deadline"):
            if key in data:
                data[key] = str(data[key]).replace("T", " ")
    elif kind == "block":
        data["hit"] = words["hit"] if data["hit"] else words["missed"]
    elif kind == "night_clauses":
        clauses = [clause_text(c, lang, rules) for c in str(data["clauses"]).split(",") if c]
        data["clauses"] = "; ".join(clauses) or "—"
    elif kind in ("role_changed", "win_declared"):
        for key, value in list(data.items()):
            data[key] = _value(key, value, lang, rules)


def _line(
    table: dict[str, dict[str, str]],
    cue: str,
    args: Mapping[str, object],
    lang: str,
    rules: Ruleset | None,
) -> str:
    template = table[lang].get(cue)
    shown = {name: _value(name, value, lang, rules) for name, value in args.items()}
    if template is not None:
        try:
            return template.format(**shown)
        except (KeyError, IndexError, ValueError):  # a cue newer than its words
            pass
    listed = "; ".join(f"{name}: {value}" for name, value in shown.items())
    return f"{cue} ({listed})" if listed else cue


def _args(data: dict[str, object], drop: tuple[str, ...]) -> dict[str, object]:
    return {name: value for name, value in data.items() if name not in drop}


def _value(name: str, value: object, lang: str, rules: Ruleset | None) -> object:
    words = WORDS[lang]
    text = str(value)
    if name in _ROLES:
        return _role(text, lang, rules)
    if name in _TEAMS:
        return ", ".join(_team(team, lang, rules) for team in text.split(",") if team)
    if name in _WORDED:
        return words.get(text, text)
    if name == "tally":
        pairs = [pair.split(":") for pair in text.split(",") if ":" in pair]
        return ", ".join(f"№{seat} — {votes}" for seat, votes in pairs) or words["no_votes"]
    if name == "at":
        return text.replace("T", " ")
    if name == "gun":
        return _gun(text, lang, rules)
    if name == "seats":
        return text.replace(",", ", ")
    return value


def _seat(value: object, lang: str) -> str:
    words = WORDS[lang]
    return words["seat"].format(seat=value) if value else words["nobody"]


def _gun(gun: str, lang: str, rules: Ruleset | None) -> str:
    """A gun's owner: a seat's number, or a team."""
    if not gun:
        return ""
    return WORDS[lang]["seat"].format(seat=gun) if gun.isdigit() else _team(gun, lang, rules)


def _role(role: str, lang: str, rules: Ruleset | None) -> str:
    return role_name(role, lang, rules)


def _team(team: str, lang: str, rules: Ruleset | None) -> str:
    return team_name(team, lang, rules)
