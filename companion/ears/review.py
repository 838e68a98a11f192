"""Offline review: ``companion listen AUDIO.wav [--layout single|channels]
[--journal J] --json`` (docs/listening.md).

The recording's segments, and with the game's journal the flags: the
recording is taken to start at the game's setup (time 0 of the journal),
as the table records it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import numpy as np

from ..core.rules import Ruleset
from ..core.state import Game
from .capture import RATE, Samples, read_wav
from .detect import CHUNK, DetectorName, Segment, segments
from .flags import flags_for

Layout = Literal["single", "channels"]
LAYOUTS: tuple[Layout, ...] = ("single", "channels")
#: with a microphone per seat, a channel speaks only if it is this much
#: louder than the next loudest (a neighbour's voice reaches every mic)
CROSSTALK_DB = 6.0


def review(
    audio: Path,
    *,
    layout: Layout = "single",
    journal: Path | None = None,
    load_ruleset: Callable[[str], Ruleset] | None = None,
    detector: DetectorName = "both",
) -> dict[str, Any]:
    """``{"segments": [...], "flags": [...]}`` (flags only with a journal)."""
    samples, rate = read_wav(audio)
    if rate != RATE:
        raise OSError(f"{audio}: {rate} Hz; the ears take {RATE} Hz (resample it first)")
    found = _single(samples, detector) if layout == "single" else _channels(samples, detector)
    out: dict[str, Any] = {
        "segments": [
            {"start": s.start, "end": s.end, "seat": s.seat, "confidence": s.confidence}
            for s in found
        ]
    }
    if journal is not None:
        assert load_ruleset is not None
        flags = flags_for(found, game_timeline(journal, load_ruleset))
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


def _single(samples: Samples, detector: DetectorName) -> list[Segment]:
    mono = samples.mean(axis=1) if samples.shape[1] > 1 else samples[:, 0]
    return _segments(mono, detector, None)


def _channels(samples: Samples, detector: DetectorName) -> list[Segment]:
    """Channel n is seat n + 1. A chunk counts on a channel only where that
    channel is the loudest by ``CROSSTALK_DB``: elsewhere it is silence."""
    frames = len(samples) - len(samples) % CHUNK
    power = (samples[:frames] ** 2).reshape(-1, CHUNK, samples.shape[1]).mean(axis=1) + 1e-12
    loudest = power.argmax(axis=1)
    ordered = np.sort(power, axis=1)
    margin = 10 * np.log10(ordered[:, -1] / ordered[:, -2]) if samples.shape[1] > 1 else None
    found: list[Segment] = []
    for channel in range(samples.shape[1]):
        keep = loudest == channel
        if margin is not None:
            keep &= margin >= CROSSTALK_DB
        mask = np.repeat(keep, CHUNK).astype(np.float32)
        mono = samples[:frames, channel] * mask
        found += _segments(mono, detector, channel + 1)
    return sorted(found, key=lambda s: s.start)


def _segments(mono: Samples, detector: DetectorName, seat: int | None) -> list[Segment]:
    return [Segment(s.start, s.end, s.confidence, seat) for s in segments(mono, detector)]


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
