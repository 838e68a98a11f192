"""The ears' figures (issue 10): each voice-activity detector on the same
generated corpus (``bench/ears_corpus.py``).

Run ``python bench/ears.py`` (``--minutes 2``). For each detector it prints:

- utterance recall: of the utterances at least 0.5 s long in clips at SNR
  >= 10 dB (speech at its normal level; quiet and whispered ones counted
  apart), the share that a segment overlaps;
- false flags per 30 minutes of speech-free room sound (white, pink and
  brown noise, babble, the room's mix, at the level of normal speech);
- onset -> flag latency p50/p99: from an utterance's first sample to the
  moment the segmenter has seen enough to open a segment (the end of the
  chunk that decided it);
- CPU seconds per second of audio.

Targets: recall >= 0.95 and <= 1 false flag per 30 minutes, latency p50
<= 300 ms, CPU <= 0.02 s per second of audio. It asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.ears_corpus import Clip, make_corpus, room_only
from bench.naive import pct
from companion.ears.detect import CHUNK, DETECTORS, DetectorName, Segmenter, chunks, judge

RATE = 16_000
MIN_UTTERANCE_S = 0.5
SNRS = (20.0, 10.0)
NOISES = ("room", "pink", "brown", "babble", "hum", "knocks", "scrapes", "clatter")
ROOM_ONLY = ("white", "pink", "brown", "babble", "room")


@dataclass
class Heard:
    segments: list[tuple[float, float]]
    onsets: list[float]  # when each segment was decided (the end of its deciding chunk)
    cpu_s: float


def listen(clip: Clip, detector: DetectorName) -> Heard:
    judging, segmenter = judge(detector), Segmenter()
    found: list[tuple[float, float]] = []
    onsets: list[float] = []
    started = time.process_time()
    for at, chunk in chunks(clip.samples):
        was_open = segmenter.open_since is not None
        segment = segmenter.feed(at, judging(chunk))
        if not was_open and segmenter.open_since is not None:
            onsets.append(at + CHUNK / RATE)
        if segment is not None:
            found.append((segment.start, segment.end))
    last = segmenter.flush()
    if last is not None:
        found.append((last.start, last.end))
    return Heard(found, onsets, time.process_time() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=2.0, help="minutes per clip (2)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    speech = [
        (noise, snr, make_corpus(args.seed + n, args.minutes, snr, noise))
        for n, (noise, snr) in enumerate((nz, s) for nz in NOISES for s in SNRS)
    ]
    quiet = [
        (noise, room_only(args.seed + 100 + n, args.minutes, noise))
        for n, noise in enumerate(ROOM_ONLY)
    ]
    total_s = (
        sum(len(c.samples) for _, _, c in speech) / RATE
        + sum(len(c.samples) for _, c in quiet) / RATE
    )
    print(
        f"corpus: {len(speech)} speech clips ({', '.join(NOISES)} at {SNRS} dB) and "
        f"{len(quiet)} room-only clips ({', '.join(ROOM_ONLY)}), {args.minutes:g} min each"
    )
    for detector in DETECTORS:
        hit = missed = hit_soft = missed_soft = 0
        latencies: list[float] = []
        cpu = 0.0
        for _, _, clip in speech:
            heard = listen(clip, detector)
            cpu += heard.cpu_s
            for utterance in clip.truth:
                if utterance.end_s - utterance.start_s < MIN_UTTERANCE_S:
                    continue
                found = any(
                    s < utterance.end_s and e > utterance.start_s for s, e in heard.segments
                )
                decided = [
                    o for o in heard.onsets if utterance.start_s <= o <= utterance.end_s + 0.5
                ]
                # An utterance that began while a segment was already open (a
                # noise heard as speech just before) has no onset of its own.
                open_before = any(s < utterance.start_s < e for s, e in heard.segments)
                if utterance.kind in ("normal", "loud"):
                    hit, missed = hit + found, missed + (not found)
                    if decided and not open_before:
                        latencies.append(decided[0] - utterance.start_s)
                else:
                    hit_soft, missed_soft = hit_soft + found, missed_soft + (not found)
        false = 0
        quiet_s = 0.0
        per_noise = []
        for noise, clip in quiet:
            heard = listen(clip, detector)
            cpu += heard.cpu_s
            false += len(heard.segments)
            quiet_s += len(clip.samples) / RATE
            per_noise.append(f"{noise} {len(heard.segments)}")
        recall = hit / max(1, hit + missed)
        soft = hit_soft / max(1, hit_soft + missed_soft)
        per_30 = false / quiet_s * 1800
        lat = latencies  # seconds: pct gives ms
        print(f"{detector}:")
        print(f"  recall {recall:.3f} ({hit}/{hit + missed} utterances >= 0.5 s, normal and loud);"
              f" quiet and whispered {soft:.3f} ({hit_soft}/{hit_soft + missed_soft})")  # fmt: skip
        print(f"  false flags: {false} in {quiet_s / 60:.1f} min of room sound = {per_30:.1f} per 30 min ({', '.join(per_noise)})")  # fmt: skip
        if lat:
            print(f"  onset -> flag: p50 {pct(lat, 0.5):.0f} ms  p99 {pct(lat, 0.99):.0f} ms")
        print(f"  CPU {cpu / total_s:.4f} s per second of audio")
    print(
        "targets: recall >= 0.95 and <= 1 false flag per 30 min; latency p50 <= 300 ms; CPU <= 0.02 s/s"
    )


if __name__ == "__main__":
    main()
