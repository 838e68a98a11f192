"""Table scripts: timed inputs as JSON Lines (docs/table-script.md).

One JSON object a line, ``#`` comments and blank lines allowed. A journal is
a table script too (its setup line carries ``"journal": true`` and its timer
expiries are written out), so one parser serves both.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .core.events import (
    BadEvent,
    BestMoveMade,
    Event,
    GameSetUp,
    HostAdvanced,
    NightChoiceMade,
    Nominated,
    OffenceGiven,
    ProposalDismissed,
    SeatPressed,
    SeatReleased,
    SpeechPassed,
    TeamSurrendered,
    TimeAdjusted,
    TimerExpired,
    TimersPaused,
    TimersResumed,
    Undone,
)
from .core.rules import Ruleset


class ScriptError(ValueError):
    """A script line that cannot be run; ``str()`` is one line naming it."""

    def __init__(self, source: str, line: int, text: str, message: str) -> None:
        shown = text if len(text) <= 80 else text[:77] + "..."
        super().__init__(f"{source}:{line}: {shown}: {message}")
        self.source, self.line, self.message = source, line, message


@dataclass(frozen=True, slots=True)
class ScriptLine:
    number: int  # 1-based line in the file
    at: float  # seconds since the start of the game
    fields: dict[str, Any]  # the object as written (minus time keys)
    text: str
    event: Event | None  # None for "wait"


_TIME_KEYS = {"at", "after"}
_NIGHT_ALIASES = {
    "shot": "shoot",
    "kill": "kill",
    "check": "check",
    "heal": "heal",
    "block": "block",
}

# input name -> (required keys, optional keys)
_SHAPES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "setup": (
        ("ruleset",),
        ("seats", "roles", "seed", "first_speaker", "journal", "ruleset_sha256"),
    ),
    "next": ((), ()),
    "press": (("seat",), ()),
    "release": (("seat",), ()),
    "pass": (("seat",), ()),
    "nominate": (("by", "target"), ()),
    "offence": (("seat", "offence"), ()),
    "dismiss": (("index",), ()),
    "choice": (("seat", "target"), ()),
    **{alias: (("seat", "target"), ()) for alias in _NIGHT_ALIASES},
    "best_move": (("seat", "suspects"), ()),
    "surrender": (("team",), ()),
    "undo": ((), ()),
    "wait": ((), ()),
    "timer": (("name", "generation"), ()),
    "pause": ((), ("remaining",)),
    "resume": ((), ()),
    "adjust": (("seconds",), ("remaining",)),
}

#: every key an input may carry ("line": the script line a journal record came from)
_ALLOWED = {
    name: frozenset({"input", *_TIME_KEYS, "line", *required, *optional})
    for name, (required, optional) in _SHAPES.items()
}

RulesetLoader = Callable[[str], Ruleset]


def parse_lines(
    lines: Iterable[str], source: str, load_ruleset: RulesetLoader, start_at: float = 0.0
) -> list[ScriptLine]:
    """Parse every line first, so that a broken line is found before anything runs."""
    parsed: list[ScriptLine] = []
    now = start_at
    for number, raw in enumerate(lines, 1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        line = parse_line(text, number, source, now, load_ruleset)
        now = line.at
        parsed.append(line)
    return parsed


def parse_line(
    text: str, number: int, source: str, now: float, load_ruleset: RulesetLoader
) -> ScriptLine:
    def fail(message: str) -> ScriptError:
        return ScriptError(source, number, text, message)

    try:
        obj = json.loads(text)
    except json.JSONDecodeError as error:
        raise fail(f"not JSON ({error.msg} at column {error.colno})") from None
    if not isinstance(obj, dict):
        raise fail("a line must be a JSON object")
    name = obj.get("input")
    if name not in _SHAPES:
        raise fail(f"'input' must be one of {', '.join(sorted(_SHAPES))}")
    at = _time(obj, now, fail)
    if not obj.keys() <= _ALLOWED[name]:
        unknown = sorted(obj.keys() - _ALLOWED[name])
        raise fail(f"unknown key {unknown[0]!r} for input {name!r}")
    for key in _SHAPES[name][0]:
        if key not in obj:
            raise fail(f"input {name!r} needs {key!r}")
    fields = {k: v for k, v in obj.items() if k not in _TIME_KEYS}
    try:
        if "line" in obj and _int(obj, "line") < 1:
            raise BadEvent("'line' must be a line number (1, 2, ...)")
        event = _event(name, obj, load_ruleset)
    except (BadEvent, TypeError, ValueError, KeyError) as error:
        # str(KeyError) is the key's repr; every other error is its message.
        message = error.args[0] if isinstance(error, KeyError) and error.args else error
        raise fail(str(message)) from None
    return ScriptLine(number, at, fields, text, event)


def _time(obj: dict[str, Any], now: float, fail: Callable[[str], ScriptError]) -> float:
    if "at" in obj and "after" in obj:
        raise fail("give either 'at' or 'after', not both")
    if "at" in obj:
        at = obj["at"]
        if not _is_number(at) or not at >= now or not math.isfinite(at):
            raise fail(f"'at' must be a number of seconds not before {now:g}")
        return float(at)
    if "after" in obj:
        after = obj["after"]
        if not _is_number(after) or not after >= 0 or not math.isfinite(after):
            raise fail("'after' must be a number of seconds, 0 or more")
        return now + float(after)
    return now


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _int(obj: dict[str, Any], key: str) -> int:
    value = obj[key]
    if not isinstance(value, int) or isinstance(value, bool):
        raise BadEvent(f"{key!r} must be a whole number, got {value!r}")
    return value


def _str(obj: dict[str, Any], key: str) -> str:
    value = obj[key]
    if not isinstance(value, str):
        raise BadEvent(f"{key!r} must be a string, got {value!r}")
    return value


def _ints(obj: dict[str, Any], key: str) -> tuple[int, ...]:
    value = obj[key]
    if not isinstance(value, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        raise BadEvent(f"{key!r} must be a list of seat numbers")
    return tuple(value)


def _setup(obj: dict[str, Any], load_ruleset: RulesetLoader) -> GameSetUp:
    roles = obj.get("roles")
    if roles is not None and (
        not isinstance(roles, list) or not all(isinstance(r, str) for r in roles)
    ):
        raise BadEvent("'roles' must be a list of role ids, one per seat")
    if "journal" in obj and not isinstance(obj["journal"], bool):
        raise BadEvent("'journal' must be true or false")
    if "ruleset_sha256" in obj:
        _str(obj, "ruleset_sha256")
    seats = _int(obj, "seats") if "seats" in obj else len(roles) if roles else 10
    return GameSetUp(
        ruleset=load_ruleset(_str(obj, "ruleset")),
        seats=seats,
        roles=tuple(roles) if roles is not None else None,
        seed=_int(obj, "seed") if "seed" in obj else 0,
        first_speaker=_int(obj, "first_speaker") if "first_speaker" in obj else 1,
    )


def _remaining(obj: dict[str, Any]) -> tuple[tuple[str, float], ...]:
    """``remaining``: [[timer, seconds], ...] as a journal writes it; absent in
    a script, where the replay fills in what its clock shows."""
    value = obj.get("remaining", [])
    if not isinstance(value, list) or not all(
        isinstance(pair, list)
        and len(pair) == 2
        and isinstance(pair[0], str)
        and _is_number(pair[1])
        for pair in value
    ):
        raise BadEvent("'remaining' must be a list of [timer, seconds] pairs")
    return tuple((name, float(seconds)) for name, seconds in value)


def _seconds(obj: dict[str, Any]) -> float:
    value = obj["seconds"]
    if not _is_number(value):
        raise BadEvent(f"'seconds' must be a number, got {value!r}")
    return float(value)


def _night_choice(action: str | None) -> Callable[[dict[str, Any]], Event]:
    return lambda obj: NightChoiceMade(_int(obj, "seat"), _int(obj, "target"), action)


#: input name -> the event it stands for (setup, which loads a ruleset, apart)
_BUILD: dict[str, Callable[[dict[str, Any]], Event | None]] = {
    "next": lambda obj: HostAdvanced(),
    "undo": lambda obj: Undone(),
    "wait": lambda obj: None,
    "press": lambda obj: SeatPressed(_int(obj, "seat")),
    "release": lambda obj: SeatReleased(_int(obj, "seat")),
    "pass": lambda obj: SpeechPassed(_int(obj, "seat")),
    "nominate": lambda obj: Nominated(_int(obj, "by"), _int(obj, "target")),
    "offence": lambda obj: OffenceGiven(_int(obj, "seat"), _str(obj, "offence")),
    "dismiss": lambda obj: ProposalDismissed(_int(obj, "index")),
    "best_move": lambda obj: BestMoveMade(_int(obj, "seat"), _ints(obj, "suspects")),
    "surrender": lambda obj: TeamSurrendered(_str(obj, "team")),
    "timer": lambda obj: TimerExpired(_str(obj, "name"), _int(obj, "generation")),
    "pause": lambda obj: TimersPaused(_remaining(obj)),
    "resume": lambda obj: TimersResumed(),
    "adjust": lambda obj: TimeAdjusted(_seconds(obj), _remaining(obj)),
    "choice": _night_choice(None),
    **{alias: _night_choice(action) for alias, action in _NIGHT_ALIASES.items()},
}


def _event(name: str, obj: dict[str, Any], load_ruleset: RulesetLoader) -> Event | None:
    if name == "setup":
        return _setup(obj, load_ruleset)
    return _BUILD[name](obj)


def event_fields(event: Event) -> dict[str, Any]:
    """The script fields of an event that did not come from a script line (a
    timer's expiry, a button, a console key): what the journal writes."""
    if isinstance(event, GameSetUp):
        fields: dict[str, Any] = {"input": "setup", "ruleset": event.ruleset.name}
        fields["seats"] = event.seats
        if event.roles is not None:
            fields["roles"] = list(event.roles)
        return {**fields, "seed": event.seed, "first_speaker": event.first_speaker}
    if isinstance(event, NightChoiceMade):
        name = {v: k for k, v in _NIGHT_ALIASES.items()}.get(event.action or "", "choice")
        return {"input": name, "seat": event.seat, "target": event.target}
    if isinstance(event, TimersPaused | TimeAdjusted):
        fields = (
            {"input": "pause"}
            if isinstance(event, TimersPaused)
            else {
                "input": "adjust",
                "seconds": event.seconds,
            }
        )
        return {**fields, "remaining": [[name, seconds] for name, seconds in event.remaining]}
    name, attributes = _FIELDS_OF[type(event)]
    return {"input": name, **{key: _plain(getattr(event, key)) for key in attributes}}


def _plain(value: object) -> object:
    return list(value) if isinstance(value, tuple) else value


#: event type -> (input name, the fields it is written with)
_FIELDS_OF: dict[type, tuple[str, tuple[str, ...]]] = {
    HostAdvanced: ("next", ()),
    Undone: ("undo", ()),
    TimersResumed: ("resume", ()),
    SeatPressed: ("press", ("seat",)),
    SeatReleased: ("release", ("seat",)),
    SpeechPassed: ("pass", ("seat",)),
    Nominated: ("nominate", ("by", "target")),
    OffenceGiven: ("offence", ("seat", "offence")),
    ProposalDismissed: ("dismiss", ("index",)),
    BestMoveMade: ("best_move", ("seat", "suspects")),
    TeamSurrendered: ("surrender", ("team",)),
    TimerExpired: ("timer", ("name", "generation")),
}
