"""The input codec: each input event and its JSON line, both ways.

One table maps every input of a table script (``nominate``, ``shot``,
``press`` ...) to its engine event and back. The script reader, the journal,
the replay driver and the live loop all go through it, so an input reads
and writes the same way wherever it comes from, and messages name inputs
the way scripts do (``nominate``), never by their class (``Nominated``).

Every value is bounded here, before it reaches the engine: a seat number, an
index or a seed far beyond any table, a string longer than any id, or a
non-finite number is refused with a one-line message that shows at most a
few dozen characters of what it got.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..core.events import (
    MAX_NAME,
    MAX_WORDS_HEARD,
    WORD_KIND,
    BadEvent,
    BestMoveMade,
    Event,
    GameSetUp,
    GameStopped,
    HostAdvanced,
    NightChoiceMade,
    Nominated,
    OffenceCancelled,
    OffenceGiven,
    ProposalDismissed,
    SeatPressed,
    SeatReleased,
    SpeechFlagged,
    SpeechPassed,
    TeamSurrendered,
    TimeAdjusted,
    TimerExpired,
    TimersPaused,
    TimersResumed,
    Undone,
    WinDeclared,
)
from ..core.forum.events import (
    DeadlineMoved,
    DeadlineNear,
    DeadlinePassed,
    ForumChoiceMade,
    ForumVoted,
)
from ..core.rules import Ruleset

RulesetLoader = Callable[[str], Ruleset]

# Bounds. A table has a few dozen seats at most (the forum game: 26+); the
# numbers below are far beyond any real game and small enough that nothing
# downstream (floats, lists, the voice) can choke on them.
MAX_SEAT = 1000
MAX_INDEX = 100_000
MAX_GENERATION = 2**53  # counts timers; exact in a float
MAX_SEED = 2**64 - 1
MAX_ID = 200  # characters in an id: offence, team, timer, ruleset name or path
MAX_SECONDS = 10_000_000.0  # ~116 days: longer than any game, forum deadlines included
MAX_TIMERS = 100  # pairs in "remaining"
#: a game clock's speed (game seconds per real second): a practice game's, a script's pace
SPEEDS = (0.01, 10_000.0)

_NIGHT_ACTIONS = {
    "shot": "shoot",
    "kill": "kill",
    "check": "check",
    "heal": "heal",
    "block": "block",
}
_NIGHT_INPUTS = {action: name for name, action in _NIGHT_ACTIONS.items()}

#: input name -> (required keys, optional keys)
SHAPES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "setup": (
        ("ruleset",),
        (
            "seats",
            "roles",
            "names",
            "seed",
            "first_speaker",
            "journal",
            "ruleset_sha256",
            "start",
            "options",
            "host_closes_votes",
            "speed",
        ),
    ),
    "next": ((), ()),
    "press": (("seat",), ()),
    "release": (("seat",), ()),
    "pass": (("seat",), ()),
    "nominate": (("by", "target"), ()),
    "offence": (("seat", "offence"), ()),
    "cancel_offence": (("seat", "offence"), ()),
    "stop": (("reason",), ()),
    "dismiss": (("index",), ()),
    "heard": (("kind",), ("seat", "confidence", "phrase", "words")),
    "choice": (("seat", "target"), ()),
    **{name: (("seat", "target"), ()) for name in _NIGHT_ACTIONS},
    "best_move": (("seat", "suspects"), ()),
    "surrender": (("team",), ()),
    "undo": ((), ("remaining",)),
    "wait": ((), ()),
    # a practice game's clock speed from here on: not an input to the engine
    "speed": (("factor",), ()),
    "timer": (("name", "generation"), ()),
    "pause": ((), ("remaining",)),
    "resume": ((), ()),
    "adjust": (("seconds",), ("remaining",)),
    # the forum game (docs/table-script.md, "The forum game")
    "post": (("seat", "action", "target"), ("time", "gun")),
    "vote": (("voter", "target"), ("time", "edit")),
    "deadline": (("name",), ()),
    "deadline_near": (("name",), ()),
    "move_deadline": (("name", "to"), ()),
    "declare_win": (("teams",), ()),
}

#: keys any line may carry besides its input's own: its time, the script line
#: a journal record came from, and a journal line's checksum
COMMON_KEYS = frozenset({"input", "at", "after", "line", "sum"})

#: every key a line of each input may carry
ALLOWED = {
    name: COMMON_KEYS | frozenset(required) | frozenset(optional)
    for name, (required, optional) in SHAPES.items()
}


def shown(value: object, limit: int = 40) -> str:
    """``repr(value)``, cut to ``limit`` characters: a message never echoes
    a huge value whole."""
    if isinstance(value, str | int) and not isinstance(value, bool):
        # repr() of a 50 MB string or a 4000-digit integer costs its size
        # first; cut before formatting.
        if isinstance(value, str) and len(value) > limit:
            return repr(value[:limit]) + f"... ({len(value)} characters)"
        if isinstance(value, int) and value.bit_length() > 64:
            return f"a {value.bit_length()}-bit number"
    text = repr(value) if not isinstance(value, list | dict) else _shallow(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _shallow(value: list[Any] | dict[str, Any]) -> str:
    """A short picture of a container without walking all of it (it may be
    huge or deeply nested)."""
    if isinstance(value, dict):
        return f"an object of {len(value)} keys"
    return f"a list of {len(value)} items"


def input_name(event: Event) -> str:
    """The script's name for an event: ``nominate``, ``shot``, ``timer`` ..."""
    if isinstance(event, NightChoiceMade):
        return _NIGHT_INPUTS.get(event.action or "", "choice")
    if isinstance(event, GameSetUp):
        return "setup"
    return _FIELDS_OF[type(event)][0]


# --- reading ------------------------------------------------------------------


def decode(name: str, obj: dict[str, Any], load_ruleset: RulesetLoader) -> Event | None:
    """The event of one script object (``name`` is its ``input``, already
    known to be in SHAPES; the keys already checked). None for ``wait``.
    Raises BadEvent with a one-line message naming the key."""
    if "line" in obj:
        number(obj, "line", 1, 10**9)
    if name == "setup":
        return _setup(obj, load_ruleset)
    return _BUILD[name](obj)


def number(obj: dict[str, Any], key: str, low: int, high: int) -> int:
    """A whole number in ``low..high``."""
    value = obj[key]
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise BadEvent(f"{key!r} must be a whole number from {low} to {high}, got {shown(value)}")
    return value


def seat(obj: dict[str, Any], key: str) -> int:
    value = obj[key]
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_SEAT:
        raise BadEvent(f"{key!r} must be a seat number (1, 2, ...), got {shown(value)}")
    return value


def text(obj: dict[str, Any], key: str) -> str:
    value = obj[key]
    if not isinstance(value, str) or not value:
        raise BadEvent(f"{key!r} must be a non-empty string, got {shown(value)}")
    if len(value) > MAX_ID:
        raise BadEvent(f"{key!r} is {len(value)} characters long (at most {MAX_ID})")
    return value


def _words(obj: dict[str, Any], key: str, limit: int) -> str:
    """Free text a person typed (a name, a reason): printable, bounded; may be empty."""
    value = obj[key]
    if not isinstance(value, str) or len(value) > limit or not value.isprintable():
        raise BadEvent(
            f"{key!r} must be printable text of at most {limit} characters, got {shown(value)}"
        )
    return value


def seconds(value: object, key: str, low: float = -MAX_SECONDS) -> float:
    """A finite number of seconds within the bounds (NaN, infinities and
    integers too large for a float are refused, not converted)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadEvent(f"{key!r} must be a number of seconds, got {shown(value)}")
    if isinstance(value, int) and abs(value) > MAX_SECONDS:
        raise BadEvent(f"{key!r} must be at most {MAX_SECONDS:g} seconds, got {shown(value)}")
    if not math.isfinite(value) or not low <= value <= MAX_SECONDS:
        raise BadEvent(
            f"{key!r} must be a number of seconds from {low:g} to {MAX_SECONDS:g}, got {shown(value)}"
        )
    return float(value)


def speed_factor(value: object, key: str) -> float:
    """A game clock's speed within ``SPEEDS``, as a float."""
    low, high = SPEEDS
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise BadEvent(f"{key!r} must be a speed from {low:g} to {high:g}, got {shown(value)}")
    return float(value)


def _speed_line(obj: dict[str, Any]) -> None:
    """A ``speed`` line is checked here and has no event: the session
    journals it (GameSession.speed_changed), the engine never sees it."""
    speed_factor(obj["factor"], "factor")


def _seats(obj: dict[str, Any], key: str) -> tuple[int, ...]:
    value = obj[key]
    if not isinstance(value, list) or len(value) > MAX_SEAT:
        raise BadEvent(f"{key!r} must be a list of seat numbers, got {shown(value)}")
    for item in value:
        if not isinstance(item, int) or isinstance(item, bool) or not 1 <= item <= MAX_SEAT:
            raise BadEvent(f"{key!r} must be a list of seat numbers, got {shown(item)} in it")
    return tuple(value)


def _setup(obj: dict[str, Any], load_ruleset: RulesetLoader) -> GameSetUp:
    roles = obj.get("roles")
    if roles is not None:
        if not isinstance(roles, list) or len(roles) > MAX_SEAT:
            raise BadEvent(f"'roles' must be a list of role ids, one per seat, got {shown(roles)}")
        for role in roles:
            if not isinstance(role, str) or not role or len(role) > MAX_ID:
                raise BadEvent(f"'roles' must be a list of role ids, got {shown(role)} in it")
    if "journal" in obj and not isinstance(obj["journal"], bool):
        raise BadEvent(f"'journal' must be true or false, got {shown(obj['journal'])}")
    if "ruleset_sha256" in obj:
        text(obj, "ruleset_sha256")
    if "speed" in obj:
        speed_factor(obj["speed"], "speed")
    names = obj.get("names", [])
    if not isinstance(names, list) or len(names) > MAX_SEAT:
        raise BadEvent(f"'names' must be a list of names, one per seat, got {shown(names)}")
    for name in names:
        _words({"names": name}, "names", MAX_NAME)
    count = number(obj, "seats", 2, MAX_SEAT) if "seats" in obj else len(roles) if roles else 10
    options = obj.get("options", [])
    if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
        raise BadEvent(f"'options' must be a list of option names, got {shown(options)}")
    return GameSetUp(
        ruleset=load_ruleset(text(obj, "ruleset")),
        seats=count,
        roles=tuple(roles) if roles is not None else None,
        seed=number(obj, "seed", 0, MAX_SEED) if "seed" in obj else 0,
        names=tuple(names),
        first_speaker=seat(obj, "first_speaker") if "first_speaker" in obj else 1,
        start=text(obj, "start") if "start" in obj else "",
        options=tuple(options),
        host_closes_votes=_flag(obj, "host_closes_votes"),
    )


def _remaining(obj: dict[str, Any]) -> tuple[tuple[str, float], ...]:
    """``remaining``: [[timer, seconds], ...] as a journal writes it; absent in
    a script, where the driver fills in what its clock shows."""
    value = obj.get("remaining", [])
    problem = f"'remaining' must be a list of [timer, seconds] pairs, got {shown(value)}"
    if not isinstance(value, list) or len(value) > MAX_TIMERS:
        raise BadEvent(problem)
    pairs = []
    for pair in value:
        if not isinstance(pair, list) or len(pair) != 2:
            raise BadEvent(problem)
        name = text({"timer": pair[0]}, "timer")
        pairs.append((name, seconds(pair[1], "remaining", low=0.0)))
    return tuple(pairs)


def _confidence(obj: dict[str, Any]) -> float:
    value = obj.get("confidence", 0.0)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise BadEvent(f"'confidence' must be a number from 0 to 1, got {shown(value)}")
    return float(value)


def _flag(obj: dict[str, Any], key: str) -> bool:
    value = obj.get(key, False)
    if not isinstance(value, bool):
        raise BadEvent(f"{key!r} must be true or false, got {shown(value)}")
    return value


def _teams(obj: dict[str, Any]) -> tuple[str, ...]:
    value = obj["teams"]
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_TIMERS:
        raise BadEvent(f"'teams' must be a list of team ids, got {shown(value)}")
    return tuple(text({"teams": team}, "teams") for team in value)


def _night_choice(action: str | None) -> Callable[[dict[str, Any]], Event]:
    return lambda obj: NightChoiceMade(seat(obj, "seat"), seat(obj, "target"), action)


#: input name -> the event it stands for (setup, which loads a ruleset, apart)
_BUILD: dict[str, Callable[[dict[str, Any]], Event | None]] = {
    "next": lambda obj: HostAdvanced(),
    # without "remaining": a script (the driver fills it) or an old journal
    "undo": lambda obj: Undone(_remaining(obj) if "remaining" in obj else None),
    "wait": lambda obj: None,
    "speed": _speed_line,
    "press": lambda obj: SeatPressed(seat(obj, "seat")),
    "release": lambda obj: SeatReleased(seat(obj, "seat")),
    "pass": lambda obj: SpeechPassed(seat(obj, "seat")),
    "nominate": lambda obj: Nominated(seat(obj, "by"), seat(obj, "target")),
    "offence": lambda obj: OffenceGiven(seat(obj, "seat"), text(obj, "offence")),
    "dismiss": lambda obj: ProposalDismissed(number(obj, "index", 0, MAX_INDEX)),
    "heard": lambda obj: SpeechFlagged(
        text(obj, "kind"),
        number(obj, "seat", 0, MAX_SEAT) if "seat" in obj else 0,
        _confidence(obj),
        text(obj, "phrase") if "phrase" in obj else "",
        _words(obj, "words", MAX_WORDS_HEARD) if "words" in obj else "",
    ),
    "best_move": lambda obj: BestMoveMade(seat(obj, "seat"), _seats(obj, "suspects")),
    "surrender": lambda obj: TeamSurrendered(text(obj, "team")),
    "cancel_offence": lambda obj: OffenceCancelled(seat(obj, "seat"), text(obj, "offence")),
    "stop": lambda obj: GameStopped(_words(obj, "reason", MAX_ID)),
    "timer": lambda obj: TimerExpired(
        text(obj, "name"), number(obj, "generation", 1, MAX_GENERATION)
    ),
    "pause": lambda obj: TimersPaused(_remaining(obj)),
    "resume": lambda obj: TimersResumed(),
    "adjust": lambda obj: TimeAdjusted(seconds(obj["seconds"], "seconds"), _remaining(obj)),
    "choice": _night_choice(None),
    **{name: _night_choice(action) for name, action in _NIGHT_ACTIONS.items()},
    "post": lambda obj: ForumChoiceMade(
        seat(obj, "seat"),
        text(obj, "action"),
        number(obj, "target", 0, MAX_SEAT),
        text(obj, "time") if "time" in obj else "",
        text(obj, "gun") if "gun" in obj else "",
    ),
    "vote": lambda obj: ForumVoted(
        seat(obj, "voter"),
        number(obj, "target", 0, MAX_SEAT),
        text(obj, "time") if "time" in obj else "",
        _flag(obj, "edit"),
    ),
    "deadline": lambda obj: DeadlinePassed(text(obj, "name")),
    "deadline_near": lambda obj: DeadlineNear(text(obj, "name")),
    "move_deadline": lambda obj: DeadlineMoved(text(obj, "name"), text(obj, "to")),
    "declare_win": lambda obj: WinDeclared(_teams(obj)),
}


# --- writing ------------------------------------------------------------------


def encode(event: Event) -> dict[str, Any]:
    """The script fields of an event: what the journal writes for it, and
    what ``decode`` reads back as the same event."""
    if isinstance(event, GameSetUp):
        fields: dict[str, Any] = {"input": "setup", "ruleset": event.ruleset.name}
        fields["seats"] = event.seats
        if event.roles is not None:
            fields["roles"] = list(event.roles)
        if event.names:
            fields["names"] = list(event.names)
        if event.start:
            fields["start"] = event.start
        if event.options:
            fields["options"] = list(event.options)
        if event.host_closes_votes:
            fields["host_closes_votes"] = True
        return {**fields, "seed": event.seed, "first_speaker": event.first_speaker}
    if isinstance(event, NightChoiceMade):
        return {"input": input_name(event), "seat": event.seat, "target": event.target}
    if isinstance(event, TimersPaused):
        return {"input": "pause", "remaining": _pairs(event.remaining)}
    if isinstance(event, Undone) and event.remaining is not None:
        return {"input": "undo", "remaining": _pairs(event.remaining)}
    if isinstance(event, ForumChoiceMade):
        line = {"input": "post", "seat": event.seat, "action": event.action, "target": event.target}
        return {
            **line,
            **({"time": event.at} if event.at else {}),
            **({"gun": event.gun} if event.gun else {}),
        }
    if isinstance(event, ForumVoted):
        line = {"input": "vote", "voter": event.voter, "target": event.target}
        return {
            **line,
            **({"time": event.at} if event.at else {}),
            **({"edit": True} if event.edit else {}),
        }
    if isinstance(event, DeadlineMoved):
        return {"input": "move_deadline", "name": event.name, "to": event.at}
    if isinstance(event, TimeAdjusted):
        return {"input": "adjust", "seconds": event.seconds, "remaining": _pairs(event.remaining)}
    name, attributes = _FIELDS_OF[type(event)]
    line = {"input": name, **{key: _plain(getattr(event, key)) for key in attributes}}
    if isinstance(event, SpeechFlagged) and event.kind == WORD_KIND:
        # only a forbidden phrase has these: the other flags' lines stay as they were
        line.update(phrase=event.phrase, words=event.words)
    return line


def _pairs(remaining: tuple[tuple[str, float], ...]) -> list[list[Any]]:
    return [[name, left] for name, left in remaining]


def _plain(value: object) -> object:
    return list(value) if isinstance(value, tuple) else value


#: event type -> (input name, the fields it is written with)
_FIELDS_OF: dict[type, tuple[str, tuple[str, ...]]] = {
    HostAdvanced: ("next", ()),
    Undone: ("undo", ()),
    TimersResumed: ("resume", ()),
    TimersPaused: ("pause", ()),
    TimeAdjusted: ("adjust", ()),
    SeatPressed: ("press", ("seat",)),
    SeatReleased: ("release", ("seat",)),
    SpeechPassed: ("pass", ("seat",)),
    Nominated: ("nominate", ("by", "target")),
    OffenceGiven: ("offence", ("seat", "offence")),
    ProposalDismissed: ("dismiss", ("index",)),
    SpeechFlagged: ("heard", ("kind", "seat", "confidence")),
    BestMoveMade: ("best_move", ("seat", "suspects")),
    TeamSurrendered: ("surrender", ("team",)),
    OffenceCancelled: ("cancel_offence", ("seat", "offence")),
    GameStopped: ("stop", ("reason",)),
    TimerExpired: ("timer", ("name", "generation")),
    DeadlinePassed: ("deadline", ("name",)),
    DeadlineNear: ("deadline_near", ("name",)),
    WinDeclared: ("declare_win", ("teams",)),
    # written by encode itself (optional fields); named here for input_name
    ForumChoiceMade: ("post", ()),
    ForumVoted: ("vote", ()),
    DeadlineMoved: ("move_deadline", ()),
}
