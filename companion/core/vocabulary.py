"""What the engine can say, tell the host and write to the protocol, as data.

The shells are written against these words: a voice catalogue has a phrase
for every cue in :data:`CUES`, the host log has words for every kind in
:data:`TELLS`, the protocol a line for every kind in :data:`RECORDS`. The
tests replay whole games and check every ``Say``, ``TellHost`` and protocol
record against this module (``check_said``, ``check_told``,
``check_record``), so the vocabulary cannot drift from the engine without a
test failing, and a shell never has to read the engine's source to learn it.

Each argument or field is a (name, kind) pair; :data:`KINDS` says what a
value of each kind looks like. Standard library only, like the rest of the
core; nothing here imports the engine.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "CUES",
    "KINDS",
    "RECORDS",
    "RULESET_CUES",
    "TELLS",
    "UNSHOWN_RECORDS",
    "Args",
    "Fields",
    "Kind",
    "check_record",
    "check_said",
    "check_told",
    "names",
    "ruleset_cues",
]

Kind = Literal[
    "seat", "maybe_seat", "seats", "seat_list", "int", "number", "bool", "word", "words", "team",
    "text",
]  # fmt: skip
Args = tuple[tuple[str, Kind], ...]

#: What a value of each kind is. Lists of seats and of teams travel as
#: comma-separated text in cues (a phrase argument is a number or a word);
#: records keep real lists.
KINDS: dict[Kind, str] = {
    "seat": "a seat number (an int from 1)",
    "maybe_seat": "a seat number, or 0 for none (not known; the all-leave vote)",
    "seats": 'seat numbers, comma-separated, at least one ("3,6")',
    "seat_list": "a list of seat numbers, maybe empty",
    "int": "a whole number",
    "number": "a whole or fractional number (seconds, a confidence)",
    "bool": "true or false",
    "word": "an id: one word without spaces or commas (a unit, a reason, a role)",
    "words": "ids, comma-separated, maybe none (teams of a result, roles dealt)",
    "team": 'team ids, comma-separated, at least one ("civilians")',
    "text": "any text, maybe empty (the host's reason, timers left)",
}

_SEAT: tuple[str, Kind] = ("seat", "seat")
_SECONDS: tuple[str, Kind] = ("seconds", "int")
_VOTES: tuple[str, Kind] = ("votes", "int")

#: Every cue the engine says (the runtime says none of its own), with its
#: arguments in the order the engine gives them.
CUES: dict[str, Args] = {
    "night_falls": (("night", "int"),),
    "city_wakes": (("day", "int"),),
    "speech_start": (_SEAT, _SECONDS),
    "last_word_start": (_SEAT, _SECONDS),
    "tie_speech_start": (_SEAT, _SECONDS),
    "time_warning": (_SECONDS,),
    "time_up": (_SEAT,),
    "speech_lost": (_SEAT,),
    "nomination_accepted": (_SEAT,),
    "voting_begins": (("nominees", "seats"),),
    "vote_question": (_SEAT,),
    "thanks": (),
    "votes_accepted": (_VOTES,),
    "rest_votes": (_SEAT, _VOTES),
    "tie": (("seats", "seats"),),
    "revote_begins": (("nominees", "seats"),),
    "all_leave_question": (("seats", "seats"),),
    "all_leave_accepted": (_VOTES,),
    "all_leave_rejected": (_VOTES,),
    "voted_out": (_SEAT,),
    "no_nominees": (),
    "single_nominee_no_vote": (_SEAT,),
    "warning": (_SEAT,),
    "offence_counted": (_SEAT, ("count", "int"), ("unit", "word")),
    # loss: the rights taken and when, "vote_nominate_next_day"
    "loses_rights": (_SEAT, ("loss", "word")),
    # reason: offence / count / morning
    "removed": (_SEAT, ("reason", "word")),
    "leaves_at_morning": (_SEAT,),
    "miss": (),
    "team_loses": (("team", "team"),),
    "game_won": (("team", "team"),),  # the winners share the win: "civilians,maniac"
    "game_drawn": (),
    "game_stopped": (),
    "undone": (),
    "offence_cancelled": (_SEAT,),
    "time_added": (_SECONDS,),  # negative when the host took time away
    "paused": (),
    "resumed": (),
}

#: Cues a ruleset names, by where it names them: a night step's ``cue`` and
#: ``end_cue`` take no arguments, an offence's ``exempt_cue`` takes the seat.
RULESET_CUES: dict[str, Args] = {"night": (), "exempt": (_SEAT,)}

#: Everything only the host may see (``TellHost``), with its arguments.
TELLS: dict[str, Args] = {
    "role": (_SEAT, ("role", "word")),  # dealt at setup
    # reveals: "role:<id>" or "color:<color>"; answer: yes / no
    "check": (_SEAT, ("target", "seat"), ("reveals", "word"), ("answer", "word")),
    "best_move": (_SEAT, ("black", "int")),
    # a flag the ruleset names no offence for; seat 0: the microphones could not tell
    "speech_flagged": (("kind", "word"), ("seat", "maybe_seat")),
}


@dataclass(frozen=True, slots=True)
class Fields:
    """A record kind's fields: those it always has, and those some records
    of the kind add."""

    required: Args
    optional: Args = ()


#: Every kind of protocol record (``Step.record``) with its fields.
RECORDS: dict[str, Fields] = {
    # roles: the dealt role ids in seat order
    "setup": Fields((("ruleset", "text"), ("seats", "int"), ("roles", "words"), ("seed", "int"))),
    "night": Fields((("number", "int"),)),
    "day": Fields((("number", "int"),)),
    "night_choice": Fields((("step", "word"), _SEAT, ("target", "seat"))),
    "check": Fields((_SEAT, ("target", "seat"), ("answer", "word"))),
    "miss": Fields((("step", "word"),)),
    "counts_reset": Fields((("clause", "text"),)),
    "nomination": Fields((("by", "seat"), ("target", "seat"))),
    "passed": Fields((_SEAT,)),
    "overrun": Fields((_SEAT,)),
    "speech_lost": Fields((_SEAT, ("kind", "word"))),
    "best_move": Fields((_SEAT, ("suspects", "seat_list"), ("black", "int"))),
    # nominee 0: the vote for all the tied leaving; rest: the votes nobody gave
    "votes": Fields(
        (("nominee", "maybe_seat"), _VOTES, ("voters", "seat_list")), (("rest", "bool"),)
    ),
    "tie": Fields((("seats", "seat_list"),)),
    "all_stay": Fields((_VOTES,)),
    # nominee: the single nominee of day 1, who is not voted on
    "no_vote": Fields((("reason", "word"),), (("nominee", "seat"),)),
    "voted_already_out": Fields((_SEAT,)),
    # how: killed / voted / removed; clause: why removed; last_word_s: a vote's last word
    "out": Fields((_SEAT, ("how", "word")), (("clause", "text"), ("last_word_s", "number"))),
    "offence": Fields((_SEAT, ("offence", "word"), ("clause", "text"))),
    "offence_cancelled": Fields((_SEAT, ("offence", "word"), ("clause", "text"))),
    "exempt": Fields((_SEAT, ("role", "word"), ("offence", "word"))),
    "ladder": Fields((_SEAT, ("at", "int"), ("clause", "text"))),
    "proposal_dismissed": Fields((("seat", "maybe_seat"), ("offence", "word"))),
    # phrase and words: a forbidden phrase heard (kind "word")
    "speech_flagged": Fields(
        (("kind", "word"), ("seat", "maybe_seat"), ("confidence", "number")),
        (("phrase", "word"), ("words", "text")),
    ),
    "surrender": Fields((("team", "word"),)),
    "stopped": Fields((("reason", "text"),)),
    "result": Fields((("winners", "words"), ("losers", "words"), ("reason", "word"))),
    # records: the kinds of the records taken back, oldest first
    "undone": Fields((("records", "words"),)),
    # left: each paused timer's seconds, "turn=42.5,night=10"
    "paused": Fields((("left", "text"),)),
    "resumed": Fields(()),
    "time_added": Fields((("seconds", "number"), ("left", "number"))),
}

#: Record kinds the protocol does not show, each with the reason. Every
#: other kind has a line in the protocol's templates (protocol/report.py).
UNSHOWN_RECORDS: dict[str, str] = {}


def names(args: Args) -> tuple[str, ...]:
    """The argument names alone, in order."""
    return tuple(name for name, _ in args)


def ruleset_cues(night: Iterable[str] = (), exempt: Iterable[str] = ()) -> dict[str, Args]:
    """The arguments of the cues a ruleset names: its night steps' cues and
    end cues (`night`) and its offences' exempt cues (`exempt`)."""
    cues = dict.fromkeys(night, RULESET_CUES["night"])
    cues.update(dict.fromkeys(exempt, RULESET_CUES["exempt"]))
    return cues


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
    return _check(f"host message {what!r}", "argument", declared, (), args, table)


def check_record(
    kind: str, data: Iterable[tuple[str, object]], table: int | None = None
) -> str | None:
    """What is wrong with a protocol record of `kind` holding `data`, or None."""
    fields = RECORDS.get(kind)
    if fields is None:
        return f"record {kind!r} is not in the vocabulary"
    return _check(f"record {kind!r}", "field", fields.required, fields.optional, data, table)


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
    return isinstance(value, str)  # text


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _distinct(items: Sequence[object]) -> bool:
    return len(set(map(repr, items))) == len(items)
