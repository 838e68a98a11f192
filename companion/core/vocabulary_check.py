"""Whether what the engine said, told the host or recorded is in its
vocabulary (core/vocabulary.py): the argument names and the value of
each argument's kind (:data:`~.vocabulary.KINDS`).

The tests replay whole games and hold every ``Say``, ``TellHost`` and
protocol record to the declaration through :func:`check_said`,
:func:`check_told` and :func:`check_record`; protocol/played.py holds a
protocol read back to it. Kept apart from the declaration so that the
words a shell is written against read as one list, not broken up by the
checks. Standard library only; nothing here imports the engine.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence

from .vocabulary import CUES, KINDS, NOTES, RECORDS, TELLS, Args, Kind

__all__ = ["check_record", "check_said", "check_told"]

#: Record kinds and host messages that carry a cue: their fields beside
#: the declared ones are the arguments of the cue they name, declared in
#: :data:`CUES` (a public announcement) or :data:`NOTES` (a private note).
_CARRIED_RECORDS: dict[str, Mapping[str, Args]] = {"public": CUES, "private": NOTES}
_CARRIED_TELLS: dict[str, Mapping[str, Args]] = {"private": NOTES}


def check_said(
    cue: str,
    args: Iterable[tuple[str, object]],
    ruleset: Mapping[str, Args] | None = None,
    table: int | None = None,
) -> str | None:
    """What is wrong with saying `cue` with `args` (``Say.args``), or None.
    `ruleset`: the cues the game's ruleset names (:func:`ruleset_cues`);
    `table`: the number of seats, to bound seat numbers."""
    declared = CUES.get(cue)
    if declared is None and ruleset is not None:
        declared = ruleset.get(cue)
    if declared is None:
        return f"cue {cue!r} is not in the vocabulary"
    return _check(f"cue {cue!r}", "argument", declared, (), args, table)


def check_told(
    what: str, args: Iterable[tuple[str, object]], table: int | None = None
) -> str | None:
    """What is wrong with telling the host `what` with `args`, or None."""
    declared = TELLS.get(what)
    if declared is None:
        return f"host message {what!r} is not in the vocabulary"
    where = f"host message {what!r}"
    given = tuple(args)
    carried = _carried(where, _CARRIED_TELLS.get(what), given)
    if isinstance(carried, str):
        return carried
    return _check(where, "argument", declared + carried, (), given, table)


def check_record(
    kind: str, data: Iterable[tuple[str, object]], table: int | None = None
) -> str | None:
    """What is wrong with a protocol record of `kind` holding `data`, or None."""
    fields = RECORDS.get(kind)
    if fields is None:
        return f"record {kind!r} is not in the vocabulary"
    where = f"record {kind!r}"
    given = tuple(data)
    carried = _carried(where, _CARRIED_RECORDS.get(kind), given)
    if isinstance(carried, str):
        return carried
    return _check(where, "field", fields.required + carried, fields.optional, given, table)


def _carried(
    where: str, cues: Mapping[str, Args] | None, given: Sequence[tuple[str, object]]
) -> Args | str:
    """The arguments of the cue a carrier names (none when `where` carries
    no cue), or what is wrong with the cue."""
    if cues is None:
        return ()
    cue = dict(given).get("cue")
    if not isinstance(cue, str):
        return ()  # the check of the carrier's own fields says so
    if cue not in cues:
        return f"{where}: cue {cue!r} is not in the vocabulary"
    return cues[cue]


def _check(
    where: str,
    noun: str,
    required: Args,
    optional: Args,
    given: Iterable[tuple[str, object]],
    table: int | None,
) -> str | None:
    kinds = dict(required + optional)
    seen: set[str] = set()
    for name, value in given:
        if name in seen:
            return f"{where}: {name!r} is given twice"
        seen.add(name)
        kind = kinds.get(name)
        if kind is None:
            return f"{where}: no {noun} {name!r} (it has {', '.join(kinds) or 'none'})"
        if not _fits(value, kind, table):
            return f"{where}: {name}={value!r} is not {KINDS[kind]}"
    missing = [name for name, _ in required if name not in seen]
    if missing:
        return f"{where}: {', '.join(missing)} missing"
    return None


_WORD = re.compile(r"[^\s,]+\Z")


def _fits(value: object, kind: Kind, table: int | None) -> bool:
    if kind in ("seat", "maybe_seat"):
        if not isinstance(value, int) or isinstance(value, bool):
            return False
        return (1 if kind == "seat" else 0) <= value and (table is None or value <= table)
    if kind == "seats":
        items = value.split(",") if isinstance(value, str) else []
        seats = [int(i) if i.isascii() and i.isdigit() and len(i) < 10 else 0 for i in items]
        return bool(seats) and all(_fits(s, "seat", table) for s in seats) and _distinct(seats)
    if kind == "seat_list":
        if not isinstance(value, list | tuple):
            return False
        return all(_fits(s, "seat", table) for s in value) and _distinct(value)
    if kind == "int":
        return _is_int(value)
    if kind == "number":
        return _is_int(value) or (isinstance(value, float) and math.isfinite(value))
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "word":
        return isinstance(value, str) and bool(_WORD.match(value))
    if kind in ("words", "team"):
        if not isinstance(value, str):
            return False
        items = value.split(",") if value else []
        return all(_WORD.match(i) for i in items) and (kind == "words" or bool(items))
    if kind == "tally":
        return _is_tally(value, table)
    return isinstance(value, str)  # text


_PAIR = re.compile(r"(\d{1,9}):(\d{1,9})\Z")


def _is_tally(value: object, table: int | None) -> bool:
    if value == "-":
        return True
    pairs = [_PAIR.match(item) for item in value.split(",")] if isinstance(value, str) else []
    if not pairs or not all(pairs):
        return False
    seats = [int(p.group(1)) for p in pairs if p]
    votes = [int(p.group(2)) for p in pairs if p]
    return (
        all(_fits(s, "seat", table) for s in seats)
        and _distinct(seats)
        and all(v > 0 for v in votes)
        and votes == sorted(votes, reverse=True)
    )


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _distinct(items: Sequence[object]) -> bool:
    return len(set(map(repr, items))) == len(items)
