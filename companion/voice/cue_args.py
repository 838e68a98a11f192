"""Bounds on a cue's arguments given by hand (``companion say``), and on
the table size of ``companion voices list|build``.

The engine only ever says seats of its own table, so its cues need no
checking; a user trying voices can type anything. Each argument is held to
what a game of the ruleset can say (docs/voice.md, "Bounds"): seats within
the ruleset's largest table, lists no longer than that table, counts within
its ladder, seconds within an hour. A bad argument is a ValueError naming the
cue and the argument, in one line.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping

from ..core.rules import Ruleset
from .phrases import KNOWN_RULESET_CUES, Catalogue, needed_cues

#: Seconds a cue may name (a turn, a warning, time added): no timer of a
#: game is an hour long.
MAX_SECONDS = 3600
#: Days and nights a cue may name: no game lasts a hundred days.
MAX_DAYS = 99
#: A whole number as a user types it; more digits than this are no seat,
#: count or time (and ``int()`` of thousands of digits is slow).
_WHOLE = re.compile(r"[+-]?\d{1,9}\Z")


def check_cue_args(
    cue: str, args: Mapping[str, int | str], rules: Ruleset, catalogue: Catalogue
) -> dict[str, int | str]:
    """``args`` with numbers as ints, each within the ruleset's bounds;
    ValueError naming the cue and the argument otherwise."""
    takes = _cue_args(cue, rules, catalogue)
    checked: dict[str, int | str] = {}
    for name, value in args.items():
        if name not in takes:
            wanted = ", ".join(takes) or "no arguments"
            raise ValueError(f"say {cue}: no argument {_show(name)} (it takes {wanted})")
        checked[name] = _check(cue, name, value, rules)
    return checked


def check_seats(seats: int, rules: Ruleset) -> None:
    """A table size for ``voices list|build``: the ruleset's own range
    (every phrase is enumerated per seat, so an unbounded size never ends)."""
    if isinstance(seats, bool) or not isinstance(seats, int):
        raise ValueError(f"voices: --seats {_show(seats)}: give a whole number of seats")
    if not rules.min_seats <= seats <= rules.max_seats:
        raise ValueError(
            f"voices: --seats {_show(seats)}: ruleset {rules.name!r} plays with"
            f" {rules.min_seats}..{rules.max_seats} seats"
        )


def _cue_args(cue: str, rules: Ruleset, catalogue: Catalogue) -> tuple[str, ...]:
    known = {**KNOWN_RULESET_CUES, **needed_cues(rules)}
    if cue in known:
        return known[cue]
    if catalogue.has(cue):  # a cue of the club's own catalogue: the arguments it uses
        return catalogue.entries[cue].args
    close = difflib.get_close_matches(cue[:100], [*known, *catalogue.cues], n=1)
    hint = f"did you mean {close[0]}?" if close else "the cues are the keys of [cues] there"
    raise ValueError(f"say: no cue {_show(cue)} in {catalogue.source} ({hint})")


def _check(cue: str, name: str, value: int | str, rules: Ruleset) -> int | str:
    table = rules.max_seats
    where = f"say {cue}: {name}={_show(value)}"
    if name in ("nominees", "seats"):
        items = [item.strip() for item in str(value).split(",")]
        if len(items) > table:
            raise ValueError(
                f"say {cue}: {name} lists {len(items)} seats;"
                f" a table of ruleset {rules.name!r} has at most {table}"
            )
        message = f"{where}: give seats 1..{table} (ruleset {rules.name!r})"
        seats = [_whole(message, item, 1, table) for item in items]
        repeated = next((s for i, s in enumerate(seats) if s in seats[:i]), None)
        if repeated is not None:
            raise ValueError(f"{where}: seat {repeated} is listed twice")
        return ",".join(map(str, seats))
    if name == "team":
        teams = [team.id for team in rules.teams]
        items = [item.strip() for item in str(value).split(",")]
        unknown = next((item for item in items if item not in teams), None)
        if unknown is not None or len(set(items)) != len(items):
            raise ValueError(f"{where}: give teams of ruleset {rules.name!r}: {', '.join(teams)}")
        return ",".join(items)
    ruleset = f" (ruleset {rules.name!r})"
    bounds = {
        "seat": (1, table, "a seat", ruleset),
        "votes": (0, table, "votes", ruleset),
        "count": (1, max((s.at for s in rules.ladder.steps), default=5), "a count", ruleset),
        "day": (1, MAX_DAYS, "a day", ""),
        "night": (0, MAX_DAYS, "a night", ""),
        "seconds": (-MAX_SECONDS, MAX_SECONDS, "seconds", ""),
        "minutes": (0, 24 * 60, "minutes", ""),  # a forum deadline's warning: within a day
    }
    if name in bounds:
        low, high, what, whose = bounds[name]
        return _whole(f"{where}: give {what} {low}..{high}{whose}", value, low, high)
    return value  # a word (unit, loss, reason): the catalogue picks its phrase or says none


def _whole(message: str, value: int | str, low: int, high: int) -> int:
    if isinstance(value, str) and _WHOLE.match(value.strip()):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(message)
    return value


def _show(value: object) -> str:
    """A value as a message shows it: at most 40 characters."""
    if isinstance(value, int) and value.bit_length() > 64:  # str() of 5000 digits raises
        return f"a number of {value.bit_length()} bits"
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 40 else f"{text[:37]}..."
