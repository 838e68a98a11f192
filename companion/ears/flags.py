"""Flags: speech that the state of the game says nobody (or nobody there)
may utter. Pure functions of the game's state and what was heard; the
host confirms or dismisses every flag, nothing here gives an offence.

Who may speak when is the game's procedure's rule (``Procedure.microphone``:
the sports table's is core/sports/listening.py; the forum game's flags
nothing); this module adds the time: the moment of the flag and the
overrun's grace. The sports table's kinds:

- ``night``: speech at night, flagged at its onset: one word at night can
  remove a player (the club text), so the host decides at once;
- ``vote``: speech during a vote;
- ``between``: speech in the day while no speech turn runs (after a
  speaker's time, before the host gives the next the floor);
- ``overrun``: the speaker still talking ``OVERRUN_GRACE_S`` after their
  time is up; ``last_word_overrun`` when it was a last word (past the
  30-s final word the club text makes it a team loss);
- ``out_of_turn``: with a microphone per seat, speech from a seat whose
  minute it is not.

One continuous utterance gives one flag, the first rule it breaks. With a
layout that tells whose speech is whose (``needs_seat``), a segment no seat
claims is sound from beyond the table and gives none (``watch.FlagWatcher``
does the same live).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from ..core import procedures
from ..core.events import FLAG_KINDS
from ..core.state import Game
from ..core.step import Breach
from ..core.views import phase_name
from .detect import Segment

#: a speaker finishing a word after the bell is not running over
OVERRUN_GRACE_S = 0.5

__all__ = ["FLAG_KINDS", "Flag", "flags_for", "rule_broken"]


@dataclass(frozen=True, slots=True)
class Flag:
    at: float  # game seconds: when the rule was broken
    kind: str  # one of FLAG_KINDS
    seat: int | None  # who, when the layout can tell (or the speaker, for overrun)
    confidence: float
    phase: str  # the detailed phase (core.views.phase_name: night, speech, last_word, vote ...)


def rule_broken(game: Game, seat: int | None) -> Breach | None:
    """What speech heard now (from ``seat``, if known) breaks, and whose it
    is; None when it may be spoken: the game's procedure says."""
    return procedures.of(game).microphone.broken(game, seat)


def running_over(game: Game) -> tuple[int | str, ...] | None:
    """The turn whose time has run out now (a key), or None."""
    return procedures.of(game).microphone.running_over(game)


def flags_for(
    segments: Sequence[Segment],
    timeline: Sequence[tuple[float, Game]],
    *,
    needs_seat: bool = False,
) -> list[Flag]:
    """The flags for a recording's segments, given the game's states in
    time order (``(at, state after the input at that time)``, as a journal
    replay gives them; the recording's clock is the game's). ``needs_seat``:
    the layout tells seats apart (channels, array), and a segment whose seat
    is None is nobody's at the table: no flag."""
    times = [at for at, _ in timeline]
    flags = []
    for segment in segments:
        if needs_seat and segment.seat is None:
            continue
        flag = _first_broken(segment, timeline, times)
        if flag is not None:
            flags.append(flag)
    return flags


def _first_broken(
    segment: Segment, timeline: Sequence[tuple[float, Game]], times: list[float]
) -> Flag | None:
    """The first moment within the segment at which the state then makes
    its speech a breach: its start, or a later change of state (the
    speaker's time running out while they talk)."""
    first = max(0, bisect.bisect_right(times, segment.start) - 1)
    moments = [(segment.start, first)] + [
        (times[i], i) for i in range(first + 1, len(times)) if times[i] < segment.end
    ]
    for at, index in moments:
        if index >= len(timeline) or times[index] > at:
            continue  # no state yet at that moment (before the setup)
        game = timeline[index][1]
        broken = rule_broken(game, segment.seat)
        if broken is None:
            continue
        kind, seat = broken
        if kind in ("overrun", "last_word_overrun"):
            at = max(at, _turn_over_since(timeline, times, index)) + OVERRUN_GRACE_S
            if at >= segment.end:
                continue  # stopped within the grace
        return Flag(round(at, 3), kind, seat, segment.confidence, phase_name(game))
    return None


def _turn_over_since(
    timeline: Sequence[tuple[float, Game]], times: list[float], index: int
) -> float:
    """When the running turn's time ran out (the first state of it that
    the procedure says runs over)."""
    over = running_over(timeline[index][1])
    while index > 0 and running_over(timeline[index - 1][1]) == over:
        index -= 1
    return times[index]
