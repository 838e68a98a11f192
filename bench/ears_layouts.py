"""Whispers per layout (issue 26): does a microphone per seat catch the
whispers one microphone misses?

Run ``python bench/ears_layouts.py`` (``--minutes 3 --rooms 2``). Each
room of ``bench/ears_room.py`` (its size, RT60, 10-12 seats, the array's
place drawn from the seed) plays a game of normal and whispered lines from
seats at random (nobody talking over anyone), over the room's babble from
two other tables, ventilation, knocks, chairs and hum, at each of
``SNRS``: normal speech against the room at the array, so a whisper
(16 dB under normal speech) stands ``SNR - 16`` dB over the room there;
at its own seat's microphone it is far louder. Heard by:

- ``single``: one microphone in the middle (the array's mean), as
  ``companion listen`` hears a mono file;
- ``channels``: a cardioid gooseneck per seat (``ChannelSegments``, as
  ``companion listen --layout channels`` and the live table hear them);
- ``array``: the ReSpeaker 6-mic calibrated by ``companion calibrate``'s
  own code on a pass where each seat speaks (``SeatedSegments``).

For each, today's detector (``silero``) and the whisper channel
(``silero-whisper``): the share of whispered lines a segment overlaps,
and of those, the share a segment with the whisperer's seat holds (the
seat a flag needs with these layouts); the normal lines' recall beside.
It asserts nothing.

``--speech recorded``: the talkers are not espeak-ng but a real
speaker's recordings (``testkit/recorded.py``, the blind part test6's
voices): her sentences for the normal lines and our whispers of them
(``hard_corpus.whispered``) for the whispered ones, at the same levels.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.ears_seats import GEOMETRY, _calibrate
from companion.ears.array import ArraySeats, geometry
from companion.ears.attribution import ChannelSegments
from companion.ears.calibration import calibration_of
from companion.ears.detect import DetectorName, MonoSegments, Segment
from companion.ears.seated import SeatedSegments
from testkit import recorded
from testkit.corpus import LEVELS, Audio, pick_utterance
from testkit.hard_corpus import PARTS, whispered
from testkit.room import Pass, calibration_pass, game_pass, make_table

SNRS = (26.0, 20.0)
DETECTORS: tuple[DetectorName, ...] = ("silero", "silero-whisper")
LAYOUTS = ("single", "channels", "array")


def her_line(rng: np.random.Generator) -> tuple[Audio, str]:
    """A normal or whispered line (``LEVELS``' weights) of test6's speaker."""
    kinds = ("normal", "whisper")
    weights = np.array([LEVELS[kind][1] for kind in kinds])
    kind = kinds[int(rng.choice(len(kinds), p=weights / weights.sum()))]
    voices = PARTS["test6"].voices
    line = recorded.line(voices[int(rng.integers(len(voices)))], rng)
    return (whispered(line, rng) if kind == "whisper" else line), kind


def heard(sound: Pass, layout: str, detector: DetectorName, calibration: Any) -> list[Segment]:
    if layout == "single":
        mono = MonoSegments(detector)
        return mono.feed(sound.array.mean(axis=1)) + mono.flush()
    if layout == "channels":
        seats = ChannelSegments(sound.channels.shape[1], detector)
        return seats.feed(sound.channels) + seats.flush()
    seated = SeatedSegments(ArraySeats(calibration), detector)
    return seated.feed(sound.array) + seated.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--rooms", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--speech", choices=("espeak", "recorded"), default="espeak")
    args = parser.parse_args()
    pick = her_line if args.speech == "recorded" else pick_utterance
    # (detector, layout, snr) -> [whispers, found, with their seat, normal, normal found]
    tally: dict[tuple[str, str, float], list[int]] = {}
    for n in range(args.rooms):
        seed = 100 * args.seed + n
        table = make_table(seed)
        calibration = calibration_pass(table, seed * 10 + 1, snr_db=20.0)
        result = None
        for snr in SNRS:
            game = game_pass(
                table, seed * 10 + 2 + int(snr), args.minutes, snr_db=snr, overlap=0.0,
                levels=("normal", "whisper"), pick=pick,
            )  # fmt: skip
            for detector in DETECTORS:
                if result is None:
                    found = _calibrate(calibration, GEOMETRY, table.seats, "silero")
                    result = calibration_of(found, geometry(GEOMETRY)) if len(found) >= 2 else None
                for layout in LAYOUTS:
                    if layout == "array" and result is None:
                        continue
                    segments = heard(game, layout, detector, result)
                    row = tally.setdefault((detector, layout, snr), [0, 0, 0, 0, 0])
                    for u in game.truth:
                        hits = [s for s in segments if s.start < u.end_s and s.end > u.start_s]
                        if u.kind == "whisper":
                            row[0] += 1
                            row[1] += bool(hits)
                            row[2] += any(s.seat == u.seat for s in hits)
                        else:
                            row[3] += 1
                            row[4] += bool(hits)
        print(
            f"room {seed}: {table.seats} seats, RT60 {table.rt60:.2f} s, calibrated: {result is not None}"
        )
    print(
        f"whispered lines per layout ({args.rooms} rooms x {args.minutes:g} min a SNR, seed"
        f" {args.seed}, {args.speech} speech):"
    )
    for (name, layout, snr), (w, hit, seated, normal, heard_normal) in sorted(tally.items()):
        seat = (
            f", with its seat {seated / max(1, w):.3f} ({seated}/{w})" if layout != "single" else ""
        )
        print(
            f"  {name:15} {layout:9} normal at {snr:g} dB, whispers at {snr - 16:+g} dB at the array:"
            f" whispers found {hit / max(1, w):.3f} ({hit}/{w}){seat};"
            f" normal lines {heard_normal / max(1, normal):.3f} ({heard_normal}/{normal})"
        )


if __name__ == "__main__":
    main()
