"""What a game of a ruleset can say, as the engine declares it: every cue
and its arguments' names (the contract a catalogue is checked against),
the cues a game of one ruleset needs, and the values each argument can
take in it (``Catalogue.variants`` renders them ahead of time). A
procedure's own arguments take their values from its entry in
``voice/procedures.py``; here only the shared ones."""

from __future__ import annotations

import itertools

from ..core.rules import Ruleset
from ..core.vocabulary import (
    CUES,
    RULESET_CUES,
    SELFTEST_CUES,
    TABLE_CUES,
    names,
    procedure_cues,
)
from .procedures import ARGUMENT_VALUES

#: Arguments of every cue the engine says, by name. The engine declares
#: them with their kinds (``core.vocabulary``); a catalogue needs the names.
CUE_ARGS: dict[str, tuple[str, ...]] = {cue: names(args) for cue, args in CUES.items()}
#: Cues that rulesets name: a night step's ``cue`` and ``end_cue`` take no
#: arguments, an offence's ``exempt_cue`` takes the seat.
RULESET_CUE_ARGS: dict[str, tuple[str, ...]] = {
    where: names(args) for where, args in RULESET_CUES.items()
}
#: The seat self-test's cues (said outside a game), by name.
SELFTEST_CUE_ARGS: dict[str, tuple[str, ...]] = {
    cue: names(args) for cue, args in SELFTEST_CUES.items()
}
#: The live table's own cues (the journal's disk), by name.
TABLE_CUE_ARGS: dict[str, tuple[str, ...]] = {cue: names(args) for cue, args in TABLE_CUES.items()}
#: The ruleset cues of the shipped rulesets, so their templates are checked
#: too. Kept here rather than read from rulesets/ because a catalogue is
#: checked without loading any ruleset (and a club's ruleset may name other
#: cues); tests/test_vocabulary.py checks it against the shipped rulesets.
KNOWN_RULESET_CUES: dict[str, tuple[str, ...]] = {
    **{
        f"{role}_{when}": ()
        for role in ("don", "sheriff", "putana", "maniac", "doctor")
        for when in ("wakes", "sleeps")
    },
    **dict.fromkeys(("mafia_agree", "mafia_agree_ends", "mafia_hunts", "mafia_sleeps"), ()),
    **dict.fromkeys(("free_seating", "free_seating_ends"), ()),
    "maniac_left": ("seat",),
}


def needed_cues(rules: Ruleset) -> dict[str, tuple[str, ...]]:
    """Every cue a game of `rules` can say, with the arguments it is given:
    the engine's cues of the ruleset's procedure, the ruleset's own and the
    live table's (``TABLE_CUES``)."""
    cues = {cue: names(args) for cue, args in procedure_cues(rules.procedure).items()}
    cues.update(TABLE_CUE_ARGS)
    for step in (*rules.night0, *rules.night):
        for cue in (step.cue, step.end_cue):
            if cue:
                cues.setdefault(cue, RULESET_CUE_ARGS["night"])
    for offence in rules.offences:
        if offence.exempt_cue:
            cues.setdefault(offence.exempt_cue, RULESET_CUE_ARGS["exempt"])
    return cues


def argument_values(cue: str, arg: str, rules: Ruleset, seats: int) -> list[int | str]:
    """The values `arg` of `cue` can take in a game of `rules` with `seats` seats."""
    every_seat = range(1, seats + 1)
    if arg == "seat":
        return list(every_seat)
    if arg in ("nominees", "seats"):
        return [str(seat) for seat in every_seat]
    if arg == "votes":
        return list(range(seats + 1))
    if arg == "count":
        if not any(offence.cost == "count" for offence in rules.offences):
            return []  # nothing is counted (the forum game)
        return list(range(1, max((s.at for s in rules.ladder.steps), default=5) + 1))
    if arg == "day":
        return list(every_seat)
    if arg == "night":
        return list(range(seats + 1))
    if arg == "unit":
        return [rules.ladder.unit]
    if arg == "loss":  # the rights a ladder step takes, and when it bites
        steps = [s for s in rules.ladder.steps if s.loses]
        whens = ("today", "next_day")
        return list(dict.fromkeys("_".join((*s.loses, w)) for s in steps for w in whens))
    if arg == "reason":
        return ["offence", "count", "morning"]
    if arg == "team":
        ids = [team.id for team in rules.teams]
        if cue != "game_won":
            return list(ids)
        # one team wins, or the teams left at the table share a team's loss
        sizes = range(1, max(len(ids) - 1, 1) + 1)
        return [",".join(c) for r in sizes for c in itertools.combinations(ids, r)]
    if arg == "seconds":
        return list(_seconds(cue, rules))
    own = ARGUMENT_VALUES[rules.procedure](cue, arg, rules)
    if own is None:
        raise ValueError(f"cue {cue!r}: no known values for argument {arg!r}")
    return own


def _seconds(cue: str, rules: Ruleset) -> dict[int, None]:
    t = rules.timings
    by_cue = {
        "speech_start": (t.speech_s,),
        "last_word_start": (t.last_word_s, t.multi_leave_last_word_s),
        "tie_speech_start": (t.tie_speech_s, t.silenced_tie_speech_s),
        "time_warning": (t.warning_s,),
        "time_added": (10, -10),  # the host's ±10 s
    }
    values = by_cue.get(cue) or tuple(v for values in by_cue.values() for v in values)
    return dict.fromkeys(int(v) for v in values if int(v) != 0)  # ordered, no repeats
