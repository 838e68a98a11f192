"""What an input is called and how it can be malformed, in the host's
words, Russian and English (the core's refusals of a game are in
``refusals/wording.py``).

``MALFORMED``: companion/core/events.py's ``BadEvent`` messages, an input
that no state of the game could take (a seat number that is no number);
``JOURNAL_REFUSALS``: an input the journal could not keep; ``INPUT_KEYS``
and ``INPUT_WORDS``: the name a refusal line begins with, the console's
key for the input where it has one (a procedure's own inputs' keys are in
its ``ProcedureWords``, refusals/procedures.py).
"""

from __future__ import annotations

from .core_words import Entry

MALFORMED: dict[str, Entry] = {
    "{} must be a seat number (1, 2, ...), got {!r}": (
        ("what", "value"),
        "{0}нужен номер места (1, 2, …), а введено {1}",
        "{0}a seat number is needed (1, 2, …), got {1}",
    ),
    '{} must be a time "HH:MM:SS" or "YYYY-MM-DDTHH:MM:SS", got {!r}': (
        ("what", "value"),
        "{0}нужно время ЧЧ:ММ:СС или ГГГГ-ММ-ДДTЧЧ:ММ:СС, а введено {1}",
        "{0}a time HH:MM:SS or YYYY-MM-DDTHH:MM:SS is needed, got {1}",
    ),
    "seats must be a whole number of at least 2, got {!r}": (
        ("value",),
        "мест должно быть целое число от 2, а введено {0}",
        "the seats must be a whole number of at least 2, got {0}",
    ),
    "roles lists {} seats, the table has {}": (
        ("num", "num"),
        "ролей {0}, а мест за столом {1}",
        "{0} roles given for a table of {1} seats",
    ),
    "names lists {} seats, the table has {}": (
        ("num", "num"),
        "имён {0}, а мест за столом {1}",
        "{0} names given for a table of {1} seats",
    ),
    "a seat's name is printable text of at most {} characters": (
        ("num",),
        "имя игрока — обычный текст не длиннее {0} знаков",
        "a player's name is printable text of at most {0} characters",
    ),
    'start must be a date "YYYY-MM-DD", got {!r}': (
        ("value",),
        "первый игровой день — дата ГГГГ-ММ-ДД, а введено {0}",
        "the first game day must be a date YYYY-MM-DD, got {0}",
    ),
    "no option {!r} (known: {})": (
        ("option", "options"),
        "нет настройки «{0}» (есть: {1})",
        "no option «{0}» (known: {1})",
    ),
    "host_closes_votes must be true or false, got {!r}": (
        ("value",),
        "«голосование закрывает ведущий» — да или нет, а получено {0}",
        "«the host closes the votes» must be yes or no, got {0}",
    ),
    "offence must name an offence id or clause": (
        (),
        "не сказано, какое нарушение",
        "the offence is not named",
    ),
    "a best move names one to three different seats": (
        (),
        "в лучшем ходе от одного до трёх разных номеров",
        "a best move names one to three different seats",
    ),
    "the reason must be text of 1 to 200 characters": (
        (),
        "причина — текст от 1 до 200 знаков",
        "the reason must be text of 1 to 200 characters",
    ),
    "remaining must be (timer, seconds) pairs, got {!r}": (
        ("value",),
        "время, оставшееся у таймеров, указано неверно",
        "the time left of the timers is not given as (timer, seconds) pairs",
    ),
    "seconds must be a number, got {!r}": (
        ("value",),
        "секунды — это число, а введено {0}",
        "the seconds must be a number, got {0}",
    ),
    "seconds must be a non-zero number of seconds, got {!r}": (
        ("seconds",),
        "секунд должно быть не ноль и не больше часа, а введено {0}",
        "the seconds must be more than none and at most an hour, got {0}",
    ),
    "past_flags must be true or false, got {!r}": (
        ("value",),
        "отмена мимо отметок микрофона — да или нет, а получено {0}",
        "undo past the microphone's flags is yes or no, got {0}",
    ),
    "kind must be one of {}, got {!r}": (
        ("kinds", "value"),
        "микрофон отметил неизвестное (бывает: {0})",
        "the microphone flagged something unknown (known: {0})",
    ),
    "confidence must be 0 to 1, got {!r}": (
        ("value",),
        "уверенность микрофона — от 0 до 1, а получено {0}",
        "the microphone's confidence must be 0 to 1, got {0}",
    ),
    "only a {!r} flag names a phrase and the words heard": (
        ("kind",),
        "фразу и услышанные слова называет только отметка «{0}»",
        "only a «{0}» flag names a phrase and the words heard",
    ),
    "phrase must be a [listening.words] id, got {!r}": (
        ("value",),
        "этих запрещённых слов нет в правилах",
        "those forbidden words are not in the ruleset",
    ),
    "words must be the words heard, 1 to {} characters": (
        ("num",),
        "услышанные слова — от 1 до {0} знаков",
        "the words heard must be 1 to {0} characters",
    ),
    "words must be printable text": (
        (),
        "услышанные слова — обычный текст",
        "the words heard must be printable text",
    ),
    "no forum action {!r}": (
        ("action",),
        "нет такого хода: {0}",
        "no such move: {0}",
    ),
    "target must be a seat number or 0 (none), got {!r}": (
        ("value",),
        "цель — номер места или 0 (снять выбор), а введено {0}",
        "the target must be a seat number or 0 (none), got {0}",
    ),
    "a gun is named by the Tin Man's 'fire' and only by it": (
        (),
        "пушку называет только выстрел Железного Дровосека из взятой пушки",
        "a gun is named by the Tin Man's shot with a taken gun and only by it",
    ),
    "target must be a seat number or 0 (nobody), got {!r}": (
        ("value",),
        "голос — номер места или 0 (ни за кого), а введено {0}",
        "the vote must be a seat number or 0 (nobody), got {0}",
    ),
    "no deadline {!r} (known: {})": (
        ("deadline", "deadlines"),
        "нет срока «{0}» (есть: {1})",
        "no deadline «{0}» (known: {1})",
    ),
    "teams must name one or more team ids": (
        (),
        "не названо ни одной команды",
        "no team is named",
    ),
}

#: Refused inputs that are not the core's: the journal could not write
#: them (runner/journal.py), and the table takes no input it cannot keep.
JOURNAL_REFUSALS: dict[str, Entry] = {
    "{}: {}: the input was not taken (the journal still ends at its line {})": (
        ("text", "disk", "num"),
        "журнал не записан ({1}): ввод не принят (журнал кончается строкой {2})",
        "the journal was not written ({1}): the input was not taken (it ends at its line {2})",
    ),
    "{}: cannot write {}": (
        ("text", "text"),
        "журнал не записан: ввод не принят",
        "the journal was not written ({1}): the input was not taken",
    ),
}

#: input name (runner/codec.py) -> the console's key for it (words.py), for
#: the inputs every procedure's table takes; a procedure's own are in its
#: ``ProcedureWords`` (refusals/procedures.py)
INPUT_KEYS: dict[str, str] = {
    "next": "key.next",
    "undo": "key.undo",
    "stop": "key.stop",
    "pause": "key.pause",
    "resume": "key.pause",
}

#: inputs no key of the console names (a seat's button, the microphone,
#: the clock), and the words of every input should a key word go missing
INPUT_WORDS: dict[str, tuple[str, str]] = {
    "setup": ("Новая игра", "New game"),
    "next": ("Дальше", "Next"),
    "press": ("Кнопка места", "Seat button"),
    "release": ("Кнопка места", "Seat button"),
    "pass": ("Пас", "Pass"),
    "nominate": ("Выставить", "Nominate"),
    "offence": ("Нарушение", "Offence"),
    "cancel_offence": ("Снять нарушение", "Cancel offence"),
    "stop": ("Остановить игру", "Stop the game"),
    "dismiss": ("Отклонить предложение", "Dismiss proposal"),
    "heard": ("Микрофон", "Microphone"),
    "choice": ("Ночной выбор", "Night choice"),
    "shot": ("Ночной выбор", "Night choice"),
    "kill": ("Ночной выбор", "Night choice"),
    "check": ("Ночной выбор", "Night choice"),
    "heal": ("Ночной выбор", "Night choice"),
    "block": ("Ночной выбор", "Night choice"),
    "best_move": ("Лучший ход", "Best move"),
    "surrender": ("Сдача команды", "Surrender"),
    "undo": ("Отменить ввод", "Undo"),
    "wait": ("Ожидание", "Wait"),
    "timer": ("Таймер", "Timer"),
    "pause": ("Пауза", "Pause"),
    "resume": ("Пауза", "Pause"),
    "adjust": ("Время", "Time"),
    "speed": ("Скорость тренировки", "Practice speed"),
    "post": ("Выбор роли", "Role's choice"),
    "vote": ("Голос", "Vote"),
    "deadline": ("Закрыть окно", "Close a window"),
    "deadline_near": ("Срок близко", "Deadline near"),
    "move_deadline": ("Перенести срок", "Move a deadline"),
    "declare_win": ("Объявить победу", "Declare a win"),
}
