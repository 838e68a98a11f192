"""The words of a refusal's arguments, Russian and English: phases,
timers, night and forum actions, what an offence costs, which seat of an
input a message means (ids the ruleset names are worded by
``protocol.names``).
"""

from __future__ import annotations

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

#: night and forum actions -> words (a forum screen's own, forum_words.py,
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
