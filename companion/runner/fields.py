"""A script line's values, each checked and bounded: the codec's reading half.

Every value is bounded here, before it reaches the engine: a seat number, an
index or a seed far beyond any table, a string longer than any id, or a
non-finite number is refused with a one-line message that shows at most a
few dozen characters of what it got. ``KINDS`` reads the field kinds a
procedure's own inputs name (``core.events.LineField``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..core.events import BadEvent

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


def words(obj: dict[str, Any], key: str, limit: int) -> str:
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


def seats(obj: dict[str, Any], key: str) -> tuple[int, ...]:
    value = obj[key]
    if not isinstance(value, list) or len(value) > MAX_SEAT:
        raise BadEvent(f"{key!r} must be a list of seat numbers, got {shown(value)}")
    for item in value:
        if not isinstance(item, int) or isinstance(item, bool) or not 1 <= item <= MAX_SEAT:
            raise BadEvent(f"{key!r} must be a list of seat numbers, got {shown(item)} in it")
    return tuple(value)


def remaining(obj: dict[str, Any]) -> tuple[tuple[str, float], ...]:
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


def confidence(obj: dict[str, Any]) -> float:
    value = obj.get("confidence", 0.0)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise BadEvent(f"'confidence' must be a number from 0 to 1, got {shown(value)}")
    return float(value)


def flag(obj: dict[str, Any], key: str) -> bool:
    value = obj.get(key, False)
    if not isinstance(value, bool):
        raise BadEvent(f"{key!r} must be true or false, got {shown(value)}")
    return value


def teams(obj: dict[str, Any]) -> tuple[str, ...]:
    value = obj["teams"]
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_TIMERS:
        raise BadEvent(f"'teams' must be a list of team ids, got {shown(value)}")
    return tuple(text({"teams": team}, "teams") for team in value)


#: a procedure input's field kind (``LineField.kind``) -> its reader
KINDS: dict[str, Callable[[dict[str, Any], str], object]] = {
    "seat": seat,
    "seat_or_none": lambda obj, key: number(obj, key, 0, MAX_SEAT),
    "text": text,
    "flag": flag,
}
