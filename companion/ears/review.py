"""Offline review: ``companion listen AUDIO.wav [--layout single|channels|array]
[--calibration FILE] [--journal J] --json`` (docs/listening.md).

The recording's segments, and with the game's journal the flags: the
recording is taken to start at the game's setup (time 0 of the journal),
as the table records it. Who spoke: ``attribution.ChannelSegments`` with a
microphone per seat, ``seated.SeatedSegments`` with ``array.ArraySeats``
for the array (one seat per segment, from the calibration); with either, a
segment no seat claims is sound from beyond the table and gives no flag,
as live.

The recording is read as it is heard (``wav_file.WavRecording``), a block
at a time, each layout's segmenter fed block by block: memory holds a
block and a few seconds of sound, whatever the recording's length (a
4-hour file is read as a 10-minute one; bench/listen_memory.py).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, Protocol

from ..core.rules import Ruleset
from ..core.state import Game
from .capture import RATE, Samples
from .detect import CHUNK, DEFAULT_DETECTOR, LIFT_DB, DetectorName, Segment
from .flags import flags_for
from .wav_file import WavRecording, WavRefused

Layout = Literal["single", "channels", "array"]
LAYOUTS: tuple[Layout, ...] = ("single", "channels", "array")
#: frames read at a time: 4 s at 16 kHz (a 12-channel block is 3 MB as float32)
BLOCK_FRAMES = 128 * CHUNK


class Segments(Protocol):
    """A layout's segmenter: blocks in, the utterances that ended out."""

    def feed(self, block: Samples) -> list[Segment]: ...

    def flush(self) -> list[Segment]: ...


def review(
    audio: Path,
    *,
    layout: Layout = "single",
    journal: Path | None = None,
    load_ruleset: Callable[[str], Ruleset] | None = None,
    detector: DetectorName = DEFAULT_DETECTOR,
    calibration: Path | None = None,
    above_room_db: float = LIFT_DB,
) -> dict[str, Any]:
    """``{"segments": [...], "flags": [...]}`` (flags only with a journal).
    ``calibration``: the array's (default: ``calibration.default_path()``);
    ``above_room_db``: how far a voice must stand above the room's floor."""
    calibrated = None
    if layout == "array":  # a missing or bad calibration is told before any work
        from .calibration import default_path, load

        calibrated = load(calibration or default_path())
    with WavRecording(audio) as recording:
        if recording.rate != RATE:
            raise WavRefused(audio, "wav_rate", rate=recording.rate, want=RATE)
        columns, heard = segmenter(recording, layout, detector, above_room_db, calibrated)
        found: list[Segment] = []
        for block in recording.blocks(BLOCK_FRAMES):
            found += heard.feed(columns(block))
        found += heard.flush()
    if layout == "channels":  # two seats' overlapping talk ends in either order
        found.sort(key=lambda s: (s.start, s.seat or 0))
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


def segmenter(
    recording: WavRecording,
    layout: Layout,
    detector: DetectorName,
    above_room_db: float,
    calibrated: Any = None,
) -> tuple[Callable[[Samples], Samples], Segments]:
    """What a block of ``recording`` goes through for ``layout``: the
    columns it keeps, and the segmenter that hears them."""
    channels = recording.channels
    if layout == "single":
        from .detect import MonoSegments

        def mono(block: Samples) -> Samples:
            if channels == 1:
                return block[:, 0]
            mixed: Samples = block.mean(axis=1)
            return mixed

        return mono, MonoSegments(detector, above_room_db)
    if layout == "channels":
        from .attribution import ChannelSegments

        return _same, ChannelSegments(channels, detector, lift_db=above_room_db)
    from .array import ArraySeats
    from .seated import SeatedSegments

    shape = calibrated.shape
    if channels not in (shape.mics, shape.device_channels):
        card = shape.device_channels != shape.mics
        raise WavRefused(
            recording.path, "wav_array_card" if card else "wav_array", channels=channels,
            array=shape.name, mics=shape.mics, card=shape.device_channels,
        )  # fmt: skip
    mics = shape.mics

    def microphones(block: Samples) -> Samples:
        return block if channels == mics else block[:, :mics]

    return microphones, SeatedSegments(ArraySeats(calibrated), detector, above_room_db)


def _same(block: Samples) -> Samples:
    return block


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
