"""The core's refusals in the host's words, Russian and English.

Each key is a message template as the core writes it (``require``,
``IllegalInput``, ``BadEvent`` in companion/core), with every ``{}`` of
an f-string or ``str.format`` written as ``{}`` and every repr as
``{!r}``. Its value says what each placeholder holds (a kind that
``refusals`` turns into words: a role id into the ruleset's name, a phase
id into a phase, a list into "2, 3, 6") and the line in each language,
its ``{0}``, ``{1}`` ... the placeholders in the core's order. Here the
refusals of a game (``IllegalInput``); a malformed input's (``BadEvent``)
are in ``refusals/inputs.py``. tests/test_refusals.py walks the core's source
and fails on a template that is in neither, so a new refusal is worded
before it ships.

A Russian line names no id and quotes no English: the clauses the core
cites («roles.tramp.3») are in the words ``protocol.names.clause_text``
gives them.
"""

from __future__ import annotations

#: the kinds of placeholder (refusals/wording.py words each):
#: seat, num: a number as it stands; what: which seat of the input
#: ("seat", "target" ...); role, team, step, phase, timer, timers, action,
#: cost, offence, ruleset, window, deadline, deadlines, options, option,
#: kind, kinds, phrase, gun, clause: ids in words; key: an id the input gave
#: that the ruleset does not know; value: a value the input gave; seconds;
#: index (a proposal's, not shown)
Entry = tuple[tuple[str, ...], str, str]

REFUSALS: dict[str, Entry] = {
    # --- the day (core/sports/day.py, procedure.py) -------------------------------------------
    "seat {} may nominate only in their own speech": (
        ("seat",),
        "игрок {0} выставляет только в свою минуту",
        "seat {0} may nominate only in their own speech",
    ),
    "seat {}'s time is up: the nomination comes too late": (
        ("seat",),
        "минута игрока {0} вышла: выставлять уже поздно",
        "seat {0}'s time is up: too late to nominate",
    ),
    "seat {} has already nominated today": (
        ("seat",),
        "игрок {0} сегодня уже выставлял",
        "seat {0} has already nominated today",
    ),
    "seat {} may not nominate today": (
        ("seat",),
        "игрок {0} сегодня лишён права выставлять",
        "seat {0} may not nominate today",
    ),
    "seat {} is already nominated": (
        ("seat",),
        "игрок {0} уже выставлен",
        "seat {0} is already nominated",
    ),
    "ruleset {!r} has no best move": (
        ("ruleset",),
        "в правилах «{0}» нет лучшего хода",
        "the ruleset «{0}» has no best move",
    ),
    "seat {} may make a best move only in their last word": (
        ("seat",),
        "лучший ход игрок {0} называет только в последнем слове",
        "seat {0} makes a best move only in their last word",
    ),
    "only the first night's victim makes a best move": (
        (),
        "лучший ход называет только убитый в первую ночь",
        "only the first night's victim makes a best move",
    ),
    "the best move has already been made": (
        (),
        "лучший ход уже назван",
        "the best move has already been made",
    ),
    "a best move names other seats": (
        (),
        "в лучшем ходе себя не называют",
        "a best move names other seats than one's own",
    ),
    "seat {} is not speaking": (
        ("seat",),
        "игрок {0} сейчас не говорит",
        "seat {0} is not speaking",
    ),
    # --- offences (discipline.py) ------------------------------------------------
    "no offences can be given in phase {}": (
        ("phase",),
        "нарушения сейчас не даются ({0})",
        "no offences can be given now ({0})",
    ),
    "no offences can be cancelled in phase {}": (
        ("phase",),
        "нарушения сейчас не снимаются ({0})",
        "no offences can be cancelled now ({0})",
    ),
    "seat {} has no offence {!r} to cancel": (
        ("seat", "offence"),
        "у игрока {0} нет нарушения {1}: снимать нечего",
        "seat {0} has no offence {1} to cancel",
    ),
    "seat {} has left the table: only an undo brings them back": (
        ("seat",),
        "игрок {0} уже покинул стол: вернуть его можно только отменой ввода",
        "seat {0} has left the table: only an undo brings them back",
    ),
    "offence {!r} costs {}: only an undo takes it back": (
        ("offence", "cost"),
        "нарушение {0} стоит {1}: снять его можно только отменой ввода",
        "offence {0} costs {1}: only an undo takes it back",
    ),
    "seat {} is out of the game; offence {!r} applies to players at the table": (
        ("seat", "offence"),
        "игрок {0} уже вне игры, а нарушение {1} даётся только игрокам за столом",
        "seat {0} is out of the game, and offence {1} is given only to players at the table",
    ),
    "no offence {!r} in ruleset {!r}": (
        ("key", "ruleset"),
        "в правилах «{1}» нет нарушения «{0}»",
        "the ruleset «{1}» has no offence «{0}»",
    ),
    # --- the engine (engine.py) --------------------------------------------------
    "ruleset {!r} plays with {}–{} seats, not {}": (
        ("ruleset", "num", "num", "num"),
        "по правилам «{0}» играют от {1} до {2} мест, а не {3}",
        "the ruleset «{0}» plays with {1} to {2} seats, not {3}",
    ),
    "first_speaker {} is not at the table": (
        ("seat",),
        "первого говорящего, места {0}, за столом нет",
        "the first speaker, seat {0}, is not at the table",
    ),
    "ruleset {!r} takes no options (the forum game's)": (
        ("ruleset",),
        "у правил «{0}» нет настроек форумной игры",
        "the ruleset «{0}» takes none of the forum game's options",
    ),
    "the first input must be a setup": (
        (),
        "сначала нужна новая игра",
        "the first input must set up a game",
    ),
    "there is no proposal #{}": (
        ("index",),
        "такого предложения нет",
        "there is no such proposal",
    ),
    "the game is over": (
        (),
        "игра окончена",
        "the game is over",
    ),
    "no team {!r} in ruleset {!r}": (
        ("key", "ruleset"),
        "в правилах «{1}» нет команды «{0}»",
        "the ruleset «{1}» has no team «{0}»",
    ),
    "team {!r} has no player at this table": (
        ("team",),
        "у команды «{0}» нет игроков за этим столом",
        "the team «{0}» has no player at this table",
    ),
    "the table is already set up": (
        (),
        "игра за этим столом уже идёт",
        "the table is already set up",
    ),
    "ruleset {!r} has no deal for {} seats: give the roles": (
        ("ruleset", "num"),
        "у правил «{0}» нет раздачи на {1} мест: введите роли с карт",
        "the ruleset «{0}» has no deal for {1} seats: give the roles",
    ),
    "seat {}: no role {!r} in ruleset {!r}": (
        ("seat", "key", "ruleset"),
        "место {0}: в правилах «{2}» нет роли «{1}»",
        "seat {0}: the ruleset «{2}» has no role «{1}»",
    ),
    "there is nothing to undo": (
        (),
        "отменять нечего",
        "there is nothing to undo",
    ),
    "not allowed in phase {}": (
        ("phase",),
        "не в эту фазу игры ({0})",
        "not in this phase of the game ({0})",
    ),
    "timer {!r} #{} is not running": (
        ("timer", "index"),
        "таймер «{0}» уже не идёт",
        "the {0} timer is not running",
    ),
    "ruleset {!r} lists no forbidden words {!r}": (
        ("ruleset", "phrase"),
        "в правилах «{0}» нет запрещённых слов {1}",
        "the ruleset «{0}» lists no forbidden words {1}",
    ),
    # --- the clock (timing.py) ---------------------------------------------------
    "the time left must be given for the running timers {}, got {}": (
        ("timers", "timers"),
        "не сказано, сколько осталось у идущих таймеров: {0} (сказано: {1})",
        "the time left of the running timers is not given: {0} (given: {1})",
    ),
    "the timers are already paused": (
        (),
        "пауза уже стоит",
        "the timers are already paused",
    ),
    "no timer is running": (
        (),
        "ни один таймер не идёт",
        "no timer is running",
    ),
    "the timers are not paused": (
        (),
        "паузы нет",
        "the timers are not paused",
    ),
    "there is no turn, vote window or night step to add time to": (
        (),
        "время добавить не к чему: нет ни речи, ни голосования, ни шага ночи",
        "there is no speech, vote or night step to add time to",
    ),
    # --- the night (night.py) ----------------------------------------------------
    "the night is over": (
        (),
        "ночь уже кончилась",
        "the night is over",
    ),
    "night step {!r} takes no choices": (
        ("step",),
        "в шаге ночи «{0}» выбора нет",
        "the night step «{0}» takes no choices",
    ),
    "night step {!r} takes a {}, not a {}": (
        ("step", "action", "action"),
        "в шаге ночи «{0}» ход — {1}, а не {2}",
        "the night step «{0}» takes a {1}, not a {2}",
    ),
    "seat {} ({}) does not act in night step {!r}": (
        ("seat", "role", "step"),
        "игрок {0} ({1}) не действует в шаге ночи «{2}»",
        "seat {0} ({1}) does not act in the night step «{2}»",
    ),
    # --- the seats (step.py): which seat of the input is in {what} ----------------
    "{} {} is not at this table (1–{})": (
        ("what", "seat", "num"),
        "{0}места {1} за этим столом нет (места 1–{2})",
        "{0}seat {1} is not at this table (seats 1–{2})",
    ),
    "{} {} is out of the game": (
        ("what", "seat"),
        "{0}игрок {1} уже вне игры",
        "{0}seat {1} is out of the game",
    ),
    # --- the forum game (core/forum/procedure.py, posts.py, outcome.py) -------------
    "the {} window is not open": (
        ("window",),
        "окно «{0}» не открыто",
        "the {0} window is not open",
    ),
    "no {} window is open now": (
        ("window",),
        "окно «{0}» сейчас не открыто",
        "the {0} window is not open now",
    ),
    "the game has no deadlines now": (
        (),
        "сейчас сроков нет",
        "the game has no deadlines now",
    ),
    "the {} deadline of this game day has passed": (
        ("deadline",),
        "срок «{0}» этого игрового дня уже прошёл",
        "the {0} deadline of this game day has passed",
    ),
    "the host declares only the Mafia's win at parity (end.two.3)"
    " or the two MM teams' joint win (end.three.4)": (
        (),
        "ведущий объявляет только победу Мафии при паритете (конец игры, двухсторонка, п. 3)"
        " или общую победу двух команд ММ (конец игры, трёхсторонка, п. 4)",
        "the host declares only the Mafia's win at parity (clause end.two.3)"
        " or the two MM teams' joint win (clause end.three.4)",
    ),
    "a {} does not {} (its move: {})": (
        ("role", "action", "action"),
        "у роли «{0}» нет хода «{1}» (её ход — {2})",
        "a {0} does not make a {1} (its move: {2})",
    ),
    "a {} has no choice of its own": (
        ("role",),
        "у роли «{0}» нет своего выбора",
        "a {0} has no choice of its own",
    ),
    "the vote is not open": (
        (),
        "голосование не открыто",
        "the vote is not open",
    ),
    "seat {} holds no Bomzh's vote (roles.tramp.3)": (
        ("seat",),
        "у игрока {0} нет голоса Бомжа (роли, Бомж, п. 3)",
        "seat {0} holds no Bomzh's vote (clause roles.tramp.3)",
    ),
    "the Bomzh may not be ordered to vote for himself (amb.29 f)": (
        (),
        "Бомжу нельзя приказать голосовать за себя (разъяснения, п. 29)",
        "the Bomzh may not be ordered to vote for himself (clause amb.29 f)",
    ),
    "only an MM team hides a member in its basement": (
        (),
        "прятать своего в подвал может только команда ММ",
        "only an MM team hides a member in its basement",
    ),
    "seat {} is not of team {}": (
        ("seat", "team"),
        "игрок {0} не из команды «{1}»",
        "seat {0} is not of the team «{1}»",
    ),
    "this game has no basements (roles.mafia.10)": (
        (),
        "в этой игре подвалов нет (роли, Мафия, п. 10)",
        "this game has no basements (clause roles.mafia.10)",
    ),
    "the team's basement is used (roles.mafia.6)": (
        (),
        "подвал команды уже использован (роли, Мафия, п. 6)",
        "the team's basement is used (clause roles.mafia.6)",
    ),
    "seat {} holds no gun {!r} tonight (roles.tin_woodman.5)": (
        ("seat", "gun"),
        "у игрока {0} сегодня нет пушки {1} (роли, Железный Дровосек, п. 5)",
        "seat {0} holds no gun of {1} tonight (clause roles.tin_woodman.5)",
    ),
    "an MM team shoots (roles.mafia.1), not {!r}": (
        ("action",),
        "ход команды ММ — выстрел, а не {0} (роли, Мафия, п. 1)",
        "an MM team shoots, it makes no {0} (clause roles.mafia.1)",
    ),
    "the {}'s one night is over (roles.vampire.1)": (
        ("role",),
        "единственная ночь роли «{0}» прошла (роли, Вампир, п. 1)",
        "the {0}'s one night is over (clause roles.vampire.1)",
    ),
    "the Tin Man's one block is spent (roles.tin_woodman.2)": (
        (),
        "свой единственный блок Железный Дровосек уже сделал (роли, Железный Дровосек, п. 2)",
        "the Tin Man's one block is spent (clause roles.tin_woodman.2)",
    ),
    "a {} may not choose himself (amb.54)": (
        ("role",),
        "роль «{0}» не выбирает себя (разъяснения, п. 54)",
        "a {0} may not choose himself (clause amb.54)",
    ),
    "seat {} chose seat {} last time: not twice running ({})": (
        ("seat", "seat", "clause"),
        "игрок {0} выбирал игрока {1} в прошлый раз: дважды подряд нельзя ({2})",
        "seat {0} chose seat {1} last time: not twice running ({2})",
    ),
}
