"""The core's refusals in the host's words, Russian and English.

Each key is a message template as the core writes it (``require``,
``IllegalInput``, ``BadEvent`` in companion/core), with every ``{}`` of
an f-string or ``str.format`` written as ``{}`` and every repr as
``{!r}``. Its value says what each placeholder holds (a kind that
``refusals`` turns into words: a role id into the ruleset's name, a phase
id into a phase, a list into "2, 3, 6") and the line in each language,
its ``{0}``, ``{1}`` ... the placeholders in the core's order. Here the
refusals of a game (``IllegalInput``) the shared core raises; a
procedure's own are in its folder under ``console/`` (``sports/refusals.py``),
registered in ``refusals/procedures.py``; a malformed input's (``BadEvent``)
are in ``refusals/inputs.py``. tests/test_refusals.py walks the core's
source and fails on a template that is in none, so a new refusal is worded
before it ships.

A Russian line names no id and quotes no English: the clauses the core
cites («roles.tramp.3») are in the words ``protocol.names.clause_text``
gives them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

#: the kinds of placeholder (refusals/wording.py words each):
#: seat, num: a number as it stands; what: which seat of the input
#: ("seat", "target" ...); role, team, step, phase, timer, timers, action,
#: cost, offence, ruleset, window, deadline, deadlines, options, option,
#: kind, kinds, phrase, gun, clause: ids in words; key: an id the input gave
#: that the ruleset does not know; value: a value the input gave; seconds;
#: index (a proposal's, not shown)
Entry = tuple[tuple[str, ...], str, str]


@dataclass(frozen=True, slots=True, eq=False)  # hashed as itself: wording.py caches by it
class ProcedureWords:
    """A procedure's own refusal words, registered by its name in
    ``refusals/procedures.py``: the refusals its core raises (templates as
    in ``REFUSALS``), the console's key for each of its inputs (input name
    -> a key of ``words``, else of the console's words: the name a refusal
    line begins with) and ``words``, its own word table by language (a
    ``action.``/``window.``/``option.`` key names an id of its core)."""

    refusals: Mapping[str, Entry]
    inputs: Mapping[str, str] = field(default_factory=dict)
    words: Mapping[str, Mapping[str, str]] = field(default_factory=dict)


#: the refusals of the shared core (the engine, offences, the clock, the
#: seats); each procedure's own are its ``ProcedureWords``
REFUSALS: dict[str, Entry] = {
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
}
