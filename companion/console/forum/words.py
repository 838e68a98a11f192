"""The forum screen's words (Russian by default, English by the config's
``lang``), and the one place a forum cue becomes text for the host to post
or pass on (``phrase``).

A cue's text is the protocol's written one (``protocol.forum_text``), not
the voice's spoken phrase: the host posts it in a forum topic. A cue that
has no words there yet is written out readably, its id and its arguments
with roles and teams named, so nothing the host must post is ever hidden.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...core.rules import Ruleset
from ...protocol.forum_text import note_text, public_text
from ..words import Words

RU: dict[str, str] = {
    "forum_title": "Форумная игра",
    "phase.setup": "Раздача",
    "phase.day_choices": "День {day}: выборы дня и голосование",
    "phase.vote": "День {day}: голосование",
    "phase.night": "Ночь {day}",
    "phase.ended": "Игра окончена",
    "window.day_choices": "выборы дня",
    "window.vote": "голосование",
    "window.night": "ночные выборы",
    "open_window": "• {window}: срок {at}, осталось {left}",
    "passed_window": "• {window}: срок {at} прошёл {ago} назад",
    "no_windows": "Открытых окон нет",
    "next_deadline": "До срока «{window}»:",
    "no_deadline": "Сроков нет",
    "clock_now": "Часы форума: {now}",
    "seats_title": "Игроки",
    "vote_mark": "голос → {target}",
    "vote_nobody": "голос: ни за кого",
    "tally_title": "Голоса сейчас",
    "tally_line": "за {seat}: {votes} ({voters})",
    "tally_nobody": "ни за кого: {votes} ({voters})",
    "no_votes": "Голосов пока нет",
    "not_voted": "Не голосовали: {seats}",
    "public_title": "Опубликовать",
    "private_title": "Сообщить лично",
    "batch.start": "Начало игры",
    "batch.day_choices": "День {day}: выборы дня закрыты",
    "batch.vote": "День {day}: итоги голосования",
    "batch.night": "Ночь {day}: итоги",
    "batch_of": "{title}  ({n} из {total}; [ и ] — другие)",
    "nothing_to_post": "Публиковать нечего",
    "nothing_to_tell": "Сообщать некому",
    "to_seat": "Игроку {seat}{name}:",
    "host_notes": "Ведущему",
    "action.shoot": "выстрел",
    "action.heal": "лечение",
    "action.block": "блок",
    "action.bite": "укус",
    "action.mark": "метка",
    "action.protect": "защита",
    "action.annul": "аннулирование голоса",
    "action.order": "приказ Бомжу",
    "action.hide": "подвал",
    "action.fire": "выстрел из взятой пушки ({gun})",
    "posted": "{action} → {target}",
    "withdrawn": "{action}: снят",
    "key.choice": "Выбор роли",
    "key.vote": "Голос",
    "key.edit_vote": "Правка голоса",
    "key.close": "Закрыть окно",
    "key.move": "Перенести срок",
    "key.earlier": "Итоги раньше",
    "key.later": "Итоги позже",
    "key.declare": "Объявить победу",
    "ask_actor": "Чей выбор? Наберите номер, роль или действие",
    "ask_target": "Игрок {seat} ({role}), {action}: номер цели (0 — снять выбор), "
    "можно время поста ЧЧ:ММ:СС",
    "ask_vote": "Голос: кто и за кого (0 — ни за кого), можно время поста; несколько через «;»",
    "ask_edit": "Правка голоса: кто и за кого теперь, можно время поста",
    "ask_close": "Закрыть окно «{window}» сейчас (срок {at})?",
    "close": "Закрыть",
    "keep_open": "Нет",
    "close_leaving": "Уйдут из игры: {count}, из них автокилл: {autokills}.",
    "close_ends": "Игра на этом закончится.",
    "ask_declare_ends": "Объявить победу: {teams}? Игра на этом закончится.",
    "declare": "Объявить",
    "ask_which_window": "Какое окно закрыть?",
    "ask_which_deadline": "Какой срок перенести?",
    "ask_move_to": "Новый срок «{window}» (сейчас {at}): ЧЧ:ММ:СС или ГГГГ-ММ-ДДTЧЧ:ММ:СС",
    "ask_declare": "Чья победа? (решение ведущего: паритет, договорённость)",
    "no_actor": "Сейчас никто не выбирает",
    "no_window": "Открытых окон нет",
    "no_vote": "Голосование не открыто",
    "bad_entry": "Не понял «{text}»",
    "no_movable": "Переносить нечего",
    "start_date": "Первый игровой день",
    "option.two_sided": "Двусторонняя (без манов)",
    "option.no_basements": "Без подвалов",
    "option.multi_child": "Многофункциональный ДМ",
    "bad_date": "Первый игровой день: дата ГГГГ-ММ-ДД",
}

EN: dict[str, str] = {
    "forum_title": "Forum game",
    "phase.setup": "The deal",
    "phase.day_choices": "Day {day}: the day's choices and the vote",
    "phase.vote": "Day {day}: the vote",
    "phase.night": "Night {day}",
    "phase.ended": "The game is over",
    "window.day_choices": "day choices",
    "window.vote": "vote",
    "window.night": "night choices",
    "open_window": "• {window}: deadline {at}, {left} left",
    "passed_window": "• {window}: deadline {at} passed {ago} ago",
    "no_windows": "No window is open",
    "next_deadline": "Until the {window} deadline:",
    "no_deadline": "No deadlines",
    "clock_now": "Forum clock: {now}",
    "seats_title": "Players",
    "vote_mark": "vote → {target}",
    "vote_nobody": "vote: nobody",
    "tally_title": "Votes so far",
    "tally_line": "for {seat}: {votes} ({voters})",
    "tally_nobody": "for nobody: {votes} ({voters})",
    "no_votes": "No votes yet",
    "not_voted": "Not voted: {seats}",
    "public_title": "Post publicly",
    "private_title": "Tell privately",
    "batch.start": "The game begins",
    "batch.day_choices": "Day {day}: the day's choices closed",
    "batch.vote": "Day {day}: the vote's results",
    "batch.night": "Night {day}: the results",
    "batch_of": "{title}  ({n} of {total}; [ and ] for others)",
    "nothing_to_post": "Nothing to post",
    "nothing_to_tell": "Nobody to tell",
    "to_seat": "To seat {seat}{name}:",
    "host_notes": "For the host",
    "action.shoot": "shot",
    "action.heal": "heal",
    "action.block": "block",
    "action.bite": "bite",
    "action.mark": "mark",
    "action.protect": "protection",
    "action.annul": "vote annulled",
    "action.order": "order to the Bomzh",
    "action.hide": "basement",
    "action.fire": "shot with a taken gun ({gun})",
    "posted": "{action} → {target}",
    "withdrawn": "{action}: withdrawn",
    "key.choice": "Role's choice",
    "key.vote": "Vote",
    "key.edit_vote": "Edit a vote",
    "key.close": "Close a window",
    "key.move": "Move a deadline",
    "key.earlier": "Earlier results",
    "key.later": "Later results",
    "key.declare": "Declare a win",
    "ask_actor": "Whose choice? Type a number, a role or an action",
    "ask_target": "Seat {seat} ({role}), {action}: the target's number (0 withdraws), "
    "the post's time HH:MM:SS if you like",
    "ask_vote": "Vote: who and for whom (0: nobody), the post's time if you like; "
    "several separated by ';'",
    "ask_edit": "Edited vote: who and for whom now, the post's time if you like",
    "ask_close": "Close the {window} window now (deadline {at})?",
    "close": "Close",
    "keep_open": "No",
    "close_leaving": "Leaving the game: {count}, of them autokilled: {autokills}.",
    "close_ends": "The game ends with it.",
    "ask_declare_ends": "Declare the win: {teams}? The game ends with it.",
    "declare": "Declare",
    "ask_which_window": "Which window to close?",
    "ask_which_deadline": "Which deadline to move?",
    "ask_move_to": "New {window} deadline (now {at}): HH:MM:SS or YYYY-MM-DDTHH:MM:SS",
    "ask_declare": "Whose win? (the host's call: parity, an agreement)",
    "no_actor": "Nobody chooses now",
    "no_window": "No window is open",
    "no_vote": "The vote is not open",
    "bad_entry": "Could not read '{text}'",
    "no_movable": "Nothing to move",
    "start_date": "First game day",
    "option.two_sided": "Two-sided (no maniacs' team)",
    "option.no_basements": "No basements",
    "option.multi_child": "Multi-function Mafia's Child",
    "bad_date": "First game day: a date YYYY-MM-DD",
}


class ForumWords:
    """The forum screen's words; any other key is the console's (``Words``)."""

    def __init__(self, words: Words) -> None:
        self.words = words
        self.lang = words.lang
        self._table = RU if self.lang == "ru" else EN

    def __call__(self, key: str, **args: object) -> str:
        template = self._table.get(key)
        if template is None:
            return self.words(key, **args)
        return template.format(**args) if args else template

    def role(self, rules: Ruleset, role: str) -> str:
        """A role's name in Russian (the ruleset's), its id in English."""
        if self.lang != "ru":
            return role
        return next((r.name for r in rules.roles if r.id == role), role)

    def team(self, rules: Ruleset, team: str) -> str:
        if self.lang != "ru":
            return team
        found = next((t for t in rules.teams if t.id == team), None)
        return found.name if found is not None else team


def phrase(kind: str, cue: str, args: Mapping[str, int | str], rules: Ruleset, lang: str) -> str:
    """The text of one ``public`` announcement or ``private`` note as the
    host posts it or passes it on: the protocol's written words
    (``protocol.forum_text``: a tally stays "№5 — 4, №3 — 2"), the cue and
    its arguments written out where a cue has no words yet."""
    if kind == "private":
        return note_text(cue, args, lang, rules)
    return public_text(cue, args, lang, rules)
