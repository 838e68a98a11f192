"""The forum game's refusals in the host's words (core/forum: its windows,
posts, deadlines and outcome), its inputs' keys and the words of its
actions, windows and options (``forum/words.py``); registered in
``console/refusals/procedures.py``."""

from __future__ import annotations

from ..refusals.core_words import Entry, ProcedureWords
from . import words

REFUSALS: dict[str, Entry] = {
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

#: input name (runner/codec.py) -> its key in ``forum/words.py``
INPUTS = {
    "post": "key.choice",
    "vote": "key.vote",
    "deadline": "key.close",
    "move_deadline": "key.move",
    "declare_win": "key.declare",
}

WORDS = ProcedureWords(REFUSALS, INPUTS, {"ru": words.RU, "en": words.EN})
