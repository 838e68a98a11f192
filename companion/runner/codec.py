"""The input codec: each input event and its JSON line, both ways.

One table maps every input of a table script (``nominate``, ``shot``,
``press`` ...) to its engine event and back. The script reader, the journal,
the replay driver and the live loop all go through it, so an input reads
and writes the same way wherever it comes from, and messages name inputs
the way scripts do (``nominate``), never by their class (``Nominated``).

The engine's own inputs are named here; a procedure's own inputs (the forum
game's posts and deadlines) are found through the procedure registry
(``core.procedures``): each procedure lists its ``ProcedureEvent`` classes,
and each class names its input and its line's keys, so a new procedure
brings its inputs without a change here. The values are checked and bounded
in ``runner.fields``.
"""

from __future__ import annotations

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
    ProcedureEvent,
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
from ..core.procedures import PROCEDURES
from ..core.rules import Ruleset
from .fields import (
    KINDS,
    MAX_GENERATION,
    MAX_ID,
    MAX_INDEX,
    MAX_SEAT,
    MAX_SEED,
    confidence,
    flag,
    number,
    remaining,
    seat,
    seats,
    seconds,
    shown,
    speed_factor,
    teams,
    text,
    words,
)

RulesetLoader = Callable[[str], Ruleset]
Shape = tuple[tuple[str, ...], tuple[str, ...]]

_NIGHT_ACTIONS = {
    "shot": "shoot",
    "kill": "kill",
    "check": "check",
    "heal": "heal",
    "block": "block",
}
_NIGHT_INPUTS = {action: name for name, action in _NIGHT_ACTIONS.items()}

#: the engine's own inputs: input name -> (required keys, optional keys)
_CORE_SHAPES: dict[str, Shape] = {
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
    # without "seat": every seat that acts in the step chose the target
    "choice": (("target",), ("seat",)),
    **{name: (("target",), ("seat",)) for name in _NIGHT_ACTIONS},
    "best_move": (("seat", "suspects"), ()),
    "surrender": (("team",), ()),
    "undo": ((), ("remaining", "past_flags")),
    "wait": ((), ()),
    # a practice game's clock speed from here on: not an input to the engine
    "speed": (("factor",), ()),
    "timer": (("name", "generation"), ()),
    "pause": ((), ("remaining",)),
    "resume": ((), ()),
    "adjust": (("seconds",), ("remaining",)),
    "declare_win": (("teams",), ()),
}

#: keys any line may carry besides its input's own: its time, the script line
#: a journal record came from, and a journal line's checksum
COMMON_KEYS = frozenset({"input", "at", "after", "line", "sum"})


class _Inputs:
    """Every input by name: the engine's and the registered procedures'.
    Built again when the registry changes (a test registers its toy game)."""

    def __init__(self) -> None:
        self.key: tuple[tuple[str, tuple[type[ProcedureEvent], ...]], ...] = ()
        self.events: dict[str, type[ProcedureEvent]] = {}
        self.shapes: dict[str, Shape] = dict(_CORE_SHAPES)
        self.allowed: dict[str, frozenset[str]] = {}

    def fresh(self) -> _Inputs:
        # what the table is built from, not the procedures' ids: an id may
        # come back for another object once a test's procedure is gone
        key = tuple((procedure.name, procedure.events) for procedure in PROCEDURES.values())
        if key != self.key:
            self.events = _procedure_events()
            self.shapes = {**_CORE_SHAPES, **{n: _shape(e) for n, e in self.events.items()}}
            self.allowed = {
                name: COMMON_KEYS | frozenset(required) | frozenset(optional)
                for name, (required, optional) in self.shapes.items()
            }
            self.key = key
        return self


def _procedure_events() -> dict[str, type[ProcedureEvent]]:
    """Each registered procedure's own inputs by name; a name taken twice
    (by the engine or another procedure) is the procedure's mistake."""
    found: dict[str, type[ProcedureEvent]] = {}
    for procedure in PROCEDURES.values():
        for event in procedure.events:
            name = event.INPUT
            if name in _CORE_SHAPES or found.get(name, event) is not event:
                raise ValueError(f"procedure {procedure.name!r}: input {name!r} is taken")
            found[name] = event
    return found


def _shape(event: type[ProcedureEvent]) -> Shape:
    keys = [(field.key or field.attribute, field.optional) for field in event.LINE]
    return tuple(k for k, opt in keys if not opt), tuple(k for k, opt in keys if opt)


_INPUTS = _Inputs()


def shapes() -> dict[str, Shape]:
    """Every input's (required keys, optional keys), by input name."""
    return _INPUTS.fresh().shapes


def allowed(name: str) -> frozenset[str]:
    """Every key a line of input ``name`` may carry."""
    return _INPUTS.fresh().allowed[name]


def input_name(event: Event) -> str:
    """The script's name for an event: ``nominate``, ``shot``, ``timer`` ..."""
    if isinstance(event, NightChoiceMade):
        return _NIGHT_INPUTS.get(event.action or "", "choice")
    if isinstance(event, GameSetUp):
        return "setup"
    if isinstance(event, ProcedureEvent):
        return event.INPUT
    return _FIELDS_OF[type(event)][0]


# --- reading ------------------------------------------------------------------


def decode(name: str, obj: dict[str, Any], load_ruleset: RulesetLoader) -> Event | None:
    """The event of one script object (``name`` is its ``input``, already
    known to be an input; the keys already checked). None for ``wait``.
    Raises BadEvent with a one-line message naming the key."""
    if "line" in obj:
        number(obj, "line", 1, 10**9)
    if name == "setup":
        return _setup(obj, load_ruleset)
    build = _BUILD.get(name)
    if build is not None:
        return build(obj)
    event = _INPUTS.fresh().events[name]
    values = {
        field.attribute: KINDS[field.kind](obj, field.key or field.attribute)
        for field in event.LINE
        if (field.key or field.attribute) in obj
    }
    return event(**values)


def _speed_line(obj: dict[str, Any]) -> None:
    """A ``speed`` line is checked here and has no event: the session
    journals it (GameSession.speed_changed), the engine never sees it."""
    speed_factor(obj["factor"], "factor")


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
        words({"names": name}, "names", MAX_NAME)
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
        host_closes_votes=flag(obj, "host_closes_votes"),
    )


def _night_choice(action: str | None) -> Callable[[dict[str, Any]], Event]:
    return lambda obj: NightChoiceMade(
        seat(obj, "seat") if "seat" in obj else 0, seat(obj, "target"), action
    )


#: the engine's input name -> the event it stands for (setup, which loads a
#: ruleset, apart)
_BUILD: dict[str, Callable[[dict[str, Any]], Event | None]] = {
    "next": lambda obj: HostAdvanced(),
    # without "remaining": a script (the driver fills it) or an old journal;
    # "past_flags": the host's own undo (the console's), which passes over
    # the microphone's flags
    "undo": lambda obj: Undone(
        remaining(obj) if "remaining" in obj else None, past_flags=flag(obj, "past_flags")
    ),
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
        confidence(obj),
        text(obj, "phrase") if "phrase" in obj else "",
        words(obj, "words", MAX_WORDS_HEARD) if "words" in obj else "",
    ),
    "best_move": lambda obj: BestMoveMade(seat(obj, "seat"), seats(obj, "suspects")),
    "surrender": lambda obj: TeamSurrendered(text(obj, "team")),
    "cancel_offence": lambda obj: OffenceCancelled(seat(obj, "seat"), text(obj, "offence")),
    "stop": lambda obj: GameStopped(words(obj, "reason", MAX_ID)),
    "timer": lambda obj: TimerExpired(
        text(obj, "name"), number(obj, "generation", 1, MAX_GENERATION)
    ),
    "pause": lambda obj: TimersPaused(remaining(obj)),
    "resume": lambda obj: TimersResumed(),
    "adjust": lambda obj: TimeAdjusted(seconds(obj["seconds"], "seconds"), remaining(obj)),
    "choice": _night_choice(None),
    **{name: _night_choice(action) for name, action in _NIGHT_ACTIONS.items()},
    "declare_win": lambda obj: WinDeclared(teams(obj)),
}


# --- writing ------------------------------------------------------------------


def encode(event: Event) -> dict[str, Any]:
    """The script fields of an event: what the journal writes for it, and
    what ``decode`` reads back as the same event."""
    if isinstance(event, GameSetUp):
        return _setup_line(event)
    if isinstance(event, ProcedureEvent):
        line: dict[str, Any] = {"input": event.INPUT}
        for field in event.LINE:
            value = getattr(event, field.attribute)
            if value or not field.optional:
                line[field.key or field.attribute] = _plain(value)
        return line
    if isinstance(event, NightChoiceMade):
        whose = {"seat": event.seat} if event.seat else {}
        return {"input": input_name(event), **whose, "target": event.target}
    if isinstance(event, TimersPaused):
        return {"input": "pause", "remaining": _pairs(event.remaining)}
    if isinstance(event, Undone):
        undo: dict[str, Any] = {"input": "undo"}
        if event.remaining is not None:
            undo["remaining"] = _pairs(event.remaining)
        if event.past_flags:
            undo["past_flags"] = True
        return undo
    if isinstance(event, TimeAdjusted):
        return {"input": "adjust", "seconds": event.seconds, "remaining": _pairs(event.remaining)}
    name, attributes = _FIELDS_OF[type(event)]
    line = {"input": name, **{key: _plain(getattr(event, key)) for key in attributes}}
    if isinstance(event, SpeechFlagged) and event.kind == WORD_KIND:
        # only a forbidden phrase has these: the other flags' lines stay as they were
        line.update(phrase=event.phrase, words=event.words)
    return line


def _setup_line(event: GameSetUp) -> dict[str, Any]:
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


def _pairs(remaining: tuple[tuple[str, float], ...]) -> list[list[Any]]:
    return [[name, left] for name, left in remaining]


def _plain(value: object) -> object:
    return list(value) if isinstance(value, tuple) else value


#: the engine's event type -> (input name, the fields it is written with)
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
    WinDeclared: ("declare_win", ("teams",)),
}
