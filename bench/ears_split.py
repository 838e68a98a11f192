"""The ears on the split corpus of issue 26 (``testkit/hard_corpus.py``):
the issue-10 detector, ``silero-whisper-strict`` (the whisper channel as
it was before the half-believed word rule, ``detect.WORD_CONFIDENCE``, the
voiced end, ``Segmenter.voiced_end``, and the fresh look, ``ears/fresh.py``)
and ``silero-whisper`` as it is now, side by side in the same run.

``python bench/ears.py --part tuning|tuning2|tuning3|test|test2|test3|test4|test5|test6``
runs it (``--part old``: the issue-10 corpus as before). Each clip goes
through the listening process's own code (``hearing.Hearing``, fed 128 ms
blocks, ``LISTEN_BLOCK``, as the card gives them).
The running Silero hears each clip once (its CPU is counted once) and
every detector is fed its verdicts, so they differ only in what issue 26
added: the whisper channel, the floor per band, the short-word rules and
(``silero-whisper`` only) the fresh look's second Silero, which runs on
the clip itself.

Printed, for each part:

- recall of voiced utterances (lines and words) of at least 0.5 s at SNR
  >= 10 dB; of whispered lines at >= 10 dB (against the whisper's own
  level); of one-word interjections (0.3-0.7 s) at >= 15 dB; and each by
  bed and SNR;
- false segments per 30 minutes of room sound (the bed and its knocks,
  scrapes, clatter, chairs and paper, nobody speaking), per bed, counted
  after ``WARM_UP_S``;
- median onset error (a segment's start less its utterance's) and the
  live flag latency (from the utterance's first sample to the block on
  which the listening process said "open"), p50 and p99;
- CPU: process CPU seconds per second of audio (Silero's pass plus the
  rest of ``Hearing``), with the load average beside it.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

import numpy as np

from bench.naive import pct
from companion.ears.capture import Block
from companion.ears.detect import CHUNK, DetectorName, SileroJudge, Voicing, segmenter_for
from companion.ears.hearing import LISTEN_BLOCK, EarsSettings, Hearing
from testkit.hard_corpus import PARTS, SNRS, HardClip, Said, cached
from testkit.hard_sounds import BEDS

RATE = 16_000
WARM_UP_S = 10.0
OLD: DetectorName = "silero"
NEW: DetectorName = "silero-whisper"
#: minutes of each part's clips: speech clips a bed, room clips a bed
MINUTES = {
    "tuning": (3.0, 10.0),
    "tuning2": (6.0, 40.0),
    "test": (4.0, 30.0),
    "test2": (4.0, 30.0),
    "test3": (4.0, 30.0),
    "test4": (4.0, 30.0),
    "test5": (4.0, 30.0),
    "test6": (6.0, 30.0),
    "tuning3": (8.0, 60.0),
}
TARGETS = "voiced >= 0.97, whispered >= 0.8, words >= 0.9, <= 1 false per 30 min a bed"


class Replay:
    """Silero's verdicts on a clip, heard once, given again chunk by chunk."""

    def __init__(self, verdicts: np.ndarray) -> None:
        self._verdicts, self._next = verdicts, 0

    def __call__(self, chunk: object) -> float:
        self._next += 1
        return float(self._verdicts[self._next - 1])


def silero(clip: HardClip) -> tuple[np.ndarray, float]:
    """Silero's verdict on each chunk of the clip, and its CPU seconds."""
    judge = SileroJudge()
    started = time.process_time()
    usable = len(clip.samples) - len(clip.samples) % CHUNK
    out = np.array([judge(c) for c in clip.samples[:usable].reshape(-1, CHUNK)])
    return out, time.process_time() - started


@dataclass
class Found:
    start: float
    end: float
    told: float  # when the listening process said "open" (the block's arrival)


def hear(
    clip: HardClip, verdicts: np.ndarray, detector: DetectorName, words: bool = True
) -> tuple[list[Found], float]:
    """The clip through ``Hearing`` with Silero's verdicts replayed; its
    segments and CPU. ``words``: False, the segmenter without the
    half-believed word rule and the voiced end (``silero-whisper`` before them)."""
    messages: list[tuple[float, tuple[object, ...]]] = []
    now = [0.0]
    hearing = Hearing(EarsSettings(detector=OLD), lambda m: messages.append((now[0], m)))
    # The replayed Silero instead of a second run of it; the rest is the detector's own.
    hearing._voicing = Voicing(Replay(verdicts), whisper=detector == NEW, fresh=words)
    before = detector == NEW and not words  # the third round's: the strict detector
    hearing._segmenter = segmenter_for("silero-whisper-strict" if before else detector)
    started = time.process_time()
    for first in range(0, len(clip.samples), LISTEN_BLOCK):  # as the card gives them
        now[0] = (first + LISTEN_BLOCK) / RATE
        hearing.block(Block(clip.samples[first : first + LISTEN_BLOCK, None], first / RATE))
    hearing.finish()
    cpu = time.process_time() - started
    found: list[Found] = []
    told = 0.0
    for at, message in messages:
        if message[0] == "open":
            told = at
        elif message[0] == "close" and message[2] > message[1]:  # type: ignore[operator]
            found.append(Found(float(message[1]), float(message[2]), told))  # type: ignore[arg-type]
    return found, cpu


@dataclass
class Tally:
    hit: int = 0
    total: int = 0

    def add(self, hit: bool) -> None:
        self.hit += hit
        self.total += 1

    def __str__(self) -> str:
        return f"{self.hit / max(1, self.total):.3f} ({self.hit}/{self.total})"


@dataclass
class Score:
    voiced: Tally = field(default_factory=Tally)
    whispered: Tally = field(default_factory=Tally)
    words: Tally = field(default_factory=Tally)
    by: dict[tuple[str, str, float], Tally] = field(default_factory=dict)  # (kind, bed, snr)
    onsets: list[float] = field(default_factory=list)
    whisper_onsets: list[float] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    false: dict[str, int] = field(default_factory=dict)
    room_s: dict[str, float] = field(default_factory=dict)
    stray: int = 0  # segments in speech clips overlapping no utterance
    cpu_s: float = 0.0
    audio_s: float = 0.0
    missed: list[tuple[str, Said]] = field(default_factory=list)

    def speech(self, clip: HardClip, found: list[Found]) -> None:
        for said in clip.truth:
            hits = [f for f in found if f.start < said.end_s and f.end > said.start_s]
            seconds = said.end_s - said.start_s
            self.by.setdefault((said.kind, clip.bed, said.snr_db), Tally()).add(bool(hits))
            if said.kind == "whisper" and said.snr_db >= 10:
                self.whispered.add(bool(hits))
                if hits:
                    self.whisper_onsets.append(hits[0].start - said.start_s)
            elif said.kind != "whisper" and seconds >= 0.5 and said.snr_db >= 10:
                self.voiced.add(bool(hits))
                if hits:
                    self.onsets.append(hits[0].start - said.start_s)
                    self.latencies.append(hits[0].told - said.start_s)
            if said.kind == "word" and said.snr_db >= 15:
                self.words.add(bool(hits))
            if not hits and said.snr_db >= 10:
                self.missed.append((clip.bed, said))
        self.stray += sum(
            not any(f.start < s.end_s + 0.5 and f.end > s.start_s - 0.5 for s in clip.truth)
            for f in found
        )

    def room(self, clip: HardClip, found: list[Found]) -> None:
        self.false[clip.bed] = self.false.get(clip.bed, 0) + sum(f.end > WARM_UP_S for f in found)
        self.room_s[clip.bed] = self.room_s.get(clip.bed, 0.0) + clip.seconds - WARM_UP_S

    def lines(self, name: str) -> list[str]:
        out = [
            f"{name}:",
            f"  recall: voiced >= 0.5 s at >= 10 dB {self.voiced}; whispered at >= 10 dB"
            f" {self.whispered}; words at >= 15 dB {self.words}",
        ]
        for kind in ("line", "word", "whisper"):
            cells = []
            for bed in BEDS:
                per = [self.by.get((kind, bed, snr), Tally()) for snr in SNRS]
                cells.append(f"{bed} " + "/".join(f"{t.hit}:{t.total}" for t in per))
            out.append(f"    {kind} by bed, hit:all at {'/'.join(f'{s:g}' for s in SNRS)} dB: " + "; ".join(cells))  # fmt: skip
        per_bed = [
            f"{bed} {self.false.get(bed, 0)} in {self.room_s.get(bed, 0) / 60:.0f} min"
            f" = {self.false.get(bed, 0) / max(1.0, self.room_s.get(bed, 0)) * 1800:.2f}"
            for bed in BEDS
        ]
        out.append("  false segments per 30 min of room sound: " + "; ".join(per_bed))
        out.append(f"  segments in the speech clips overlapping no utterance: {self.stray}")
        if self.onsets:
            out.append(
                f"  onset error median {np.median(self.onsets):+.3f} s (voiced),"
                f" {np.median(self.whisper_onsets or [0.0]):+.3f} s (whispered);"
                f" flag latency p50 {pct(self.latencies, 0.5):.0f} ms"
                f" p99 {pct(self.latencies, 0.99):.0f} ms"
            )
        out.append(f"  CPU {self.cpu_s / max(1.0, self.audio_s):.4f} s per second of audio")
        return out


def run(
    part_name: str, minutes: tuple[float, float] | None = None, show_missed: bool = False
) -> None:
    part = PARTS[part_name]
    speech_min, room_min = minutes or MINUTES[part_name]
    made = time.perf_counter()
    clips = [cached("speech", part, bed, 0, speech_min) for bed in BEDS]
    rooms = [cached("room", part, bed, 0, room_min + WARM_UP_S / 60) for bed in BEDS]
    theirs = ", ".join(part.whispers) or "none of a synthesizer's"
    print(
        f"{part_name} part (seed {part.seed}; voices {', '.join(part.voices)}; whispers"
        f" {theirs} and ours of {', '.join(part.own_whispers)}; rates"
        f" {part.rates}): {len(clips)} speech clips of {speech_min:g} min and {len(rooms)} room"
        f" clips of {room_min:g} min (+{WARM_UP_S:g} s), beds {', '.join(BEDS)};"
        f" made or read in {time.perf_counter() - made:.0f} s"
    )
    scores = {(OLD, True): Score(), (NEW, False): Score(), (NEW, True): Score()}
    for clip in clips + rooms:
        verdicts, silero_cpu = silero(clip)
        for (detector, words), score in scores.items():
            found, cpu = hear(clip, verdicts, detector, words)
            score.cpu_s += cpu + silero_cpu
            score.audio_s += clip.seconds
            (score.speech if clip.truth else score.room)(clip, found)
    load = os.getloadavg()
    for (detector, words), score in scores.items():
        name = {
            (OLD, True): "the issue-10 detector (silero)",
            (NEW, False): "silero-whisper-strict (the third round)",
            (NEW, True): "silero-whisper now",
        }[(detector, words)]
        print("\n".join(score.lines(f"{part_name}, {name}")))
        if show_missed:
            for bed, said in score.missed:
                print(f"    missed: {bed} {said.kind} {said.snr_db:g} dB {said.end_s - said.start_s:.2f} s {said.voice} at {said.start_s:.1f}")  # fmt: skip
    print(f"  (load average while measured: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f})")
    print(
        f"targets ({part_name} part): {TARGETS}; onset within -0.3..+0.2 s; latency p50 <= 300 ms"
    )
