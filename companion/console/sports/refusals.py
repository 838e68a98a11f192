"""The sports table's refusals in the host's words (core/sports: the day,
the night), and the console's keys for its inputs; registered in
``console/refusals/procedures.py``. Its key words are the console's own
(``console/words.py``)."""

from __future__ import annotations

from ..refusals.core_words import Entry, ProcedureWords

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
    "nobody living acts in night step {!r}": (
        ("step",),
        "в шаге ночи «{0}» не действует ни один живой игрок",
        "nobody living acts in the night step «{0}»",
    ),
    "seat {} ({}) does not act in night step {!r}": (
        ("seat", "role", "step"),
        "игрок {0} ({1}) не действует в шаге ночи «{2}»",
        "seat {0} ({1}) does not act in the night step «{2}»",
    ),
}

#: input name (runner/codec.py) -> the console's key for it
INPUTS = {
    "nominate": "key.nominate",
    "offence": "key.offence",
    "cancel_offence": "key.cancel_offence",
    "dismiss": "key.dismiss",
    "choice": "key.choice",
    "shot": "key.choice",
    "kill": "key.choice",
    "check": "key.choice",
    "heal": "key.choice",
    "block": "key.choice",
    "best_move": "key.best_move",
}

WORDS = ProcedureWords(REFUSALS, INPUTS)
