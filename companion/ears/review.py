"""Offline review: ``companion listen AUDIO.wav [--layout single|channels|array]
[--calibration FILE] [--journal J] --json`` (docs/listening.md).

The recording's segments, and with the game's journal the flags: the
recording is taken to start at the game's setup (time 0 of the journal),
as the table records it. Who spoke: ``attribution.ChannelSegments`` with a
microphone per seat, ``array.ArraySeats`` with the array (one seat per
segment, from the calibration); with either, a segment no seat claims is
sound from beyond the table and gives no flag, as live.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from ..core.rules import Ruleset
from ..core.state import Game
from .attribution import ChannelSegments, SeatTracker, claimed
from .capture import RATE, Samples, read_wav
from .detect import LIFT_DB, ChunkJudge, DetectorName, Segment, judge, segments
from .flags import flags_for

Layout = Literal["single", "channels", "array"]
LAYOUTS: tuple[Layout, ...] = ("single", "channels", "array")


def review(
    audio: Path,
    *,
    layout: Layout = "single",
    journal: Path | None = None,
    load_ruleset: Callable[[str], Ruleset] | None = None,
    detector: DetectorName = "both",
    calibration: Path | None = None,
    above_room_db: float = LIFT_DB,
) -> dict[str, Any]:
    """``{"segments": [...], "flags": [...]}`` (flags only with a journal).
    ``calibration``: the array's (default: ``calibration.default_path()``);
    ``above_room_db``: how far a voice must stand above the room's floor."""
    if layout == "array":  # a missing or bad calibration is told before any work
        from .calibration import default_path, load

        calibrated = load(calibration or default_path())
    samples, rate = read_wav(audio)
    if rate != RATE:
        raise OSError(f"{audio}: {rate} Hz; the ears take {RATE} Hz (resample it first)")
    if layout == "single":
        mono = samples.mean(axis=1) if samples.shape[1] > 1 else samples[:, 0]
        found = segments(mono, detector, above_room_db)
    elif layout == "channels":
        found = by_channels(samples, detector, above_room_db)
    else:
        from .array import ArraySeats, mic_columns

        mics = mic_columns(samples, calibrated.shape, str(audio))
        found = one_seat_each(
            mics.mean(axis=1), mics, detector, ArraySeats(calibrated), above_room_db
        )
    out: dict[str, Any] = {
        "segments": [
            # to the millisecond: sums of chunk lengths are not exact (5.5040000000000004)
            {
                "start": round(s.start, 3),
                "end": round(s.end, 3),
                "seat": s.seat,
                "confidence": s.confidence,
            }
            for s in found
        ]
    }
    if journal is not None:
        assert load_ruleset is not None
        timeline = game_timeline(journal, load_ruleset)
        # A segment no seat claims (the next table, the room) is not the table's.
        flags = flags_for(found, timeline, needs_seat=layout != "single")
        out["flags"] = [
            {
                "at": f.at,
                "kind": f.kind,
                "seat": f.seat,
                "confidence": f.confidence,
                "phase": f.phase,
            }
            for f in flags
        ]
    return out


def by_channels(
    samples: Samples, detector: DetectorName | ChunkJudge, above_room_db: float = LIFT_DB
) -> list[Segment]:
    """Channel n is seat n + 1 (``attribution.ChannelSegments``): a segment
    per seat, two when two seats talk over each other; one whose channel
    did not speak for long is no seat's (``attribution.claimed``)."""
    seats = ChannelSegments(samples.shape[1], judge(detector), lift_db=above_room_db)
    found = claimed(seats.feed(samples) + seats.flush(), samples)
    return sorted(found, key=lambda s: (s.start, s.seat or 0))


def one_seat_each(
    mono: Samples,
    samples: Samples,
    detector: DetectorName | ChunkJudge,
    tracker: SeatTracker,
    above_room_db: float = LIFT_DB,
) -> list[Segment]:
    """The utterances heard in ``mono`` (the array's mean), each given the
    seat that ``tracker`` finds in its span of ``samples``; the confidence
    is the detector's times the seat's."""
    found = []
    for segment in segments(mono, detector, above_room_db):
        tracker.reset()
        tracker.feed(samples[round(segment.start * RATE) : round(segment.end * RATE)])
        seat, sure = tracker.verdict()
        found.append(Segment(segment.start, segment.end, round(segment.confidence * sure, 3), seat))
    return found


def game_timeline(
    journal: Path, load_ruleset: Callable[[str], Ruleset]
) -> list[tuple[float, Game]]:
    """The game's states in time order, from its journal (read, not taken)."""
    from ..runner.journal import read
    from ..runner.replay import ScriptReplay
    from ..runner.script import parse_lines
    from ..runner.session import GameSession

    states: list[tuple[float, Game]] = []
    session = GameSession()
    session.on_changed = lambda before, after: states.append((session.now, after))
    text = read(journal)
    ScriptReplay(auto_timers=False, source=str(journal), session=session).run(
        parse_lines(text.lines, str(journal), load_ruleset)
    )
    return states
