"""The ears' figures (issue 10): each voice-activity detector on the same
generated corpus (``testkit/corpus.py``).

Run ``python bench/ears.py`` (``--minutes 2``; ``--room-minutes 10`` for
longer room-only clips). For each detector it prints:

- utterance recall: of the utterances at least 0.5 s long in clips at SNR
  >= 10 dB (speech at its normal level; quiet and whispered ones counted
  apart), the share that a segment overlaps;
- false flags per 30 minutes of speech-free room sound (white, pink and
  brown noise, babble, the room's mix, at the level of normal speech);
  each room clip is heard for ``WARM_UP_S`` before the count starts, as
  the ears hear the room from the console's start, minutes before a game's
  first phase can flag anything (the room's floor is learned by then); an
  utterance taken up then and still open after counts all the same;
- onset -> flag latency p50/p99: from an utterance's first sample to the
  moment the segmenter has seen enough to open a segment (the end of the
  chunk that decided it);
- CPU seconds per second of audio;
- seat attribution for a microphone per seat and for the calibrated array,
  on the simulated club table, and those layouts' false flags on its room
  alone (``bench/ears_seats.py``; ``--no-seats`` leaves it out).

Targets: recall >= 0.95 and <= 1 false flag per 30 minutes, latency p50
<= 300 ms, CPU <= 0.02 s per second of audio. It asserts nothing.

``--part tuning`` (``tuning2``, ``tuning3``, ``test`` ... ``test6``) runs issue
26's split corpus instead (``testkit/hard_corpus.py``, scored by
``bench/ears_split.py``): the issue-10 detector, ``silero-whisper`` as the
third round left it and as it is now, side by side; the blind part decides. ``--detectors`` names the detectors of the old corpus's run.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.naive import pct
from companion.ears.capture import Block
from companion.ears.detect import DEFAULT_DETECTOR, DETECTORS, DetectorName
from companion.ears.hearing import LISTEN_BLOCK, EarsSettings, Hearing
from companion.ears.watch import LevelGate
from testkit.corpus import Clip, make_corpus, room_only
from testkit.hard_corpus import PARTS

RATE = 16_000
MIN_UTTERANCE_S = 0.5
SNRS = (20.0, 10.0)
NOISES = ("room", "pink", "brown", "babble", "hum", "knocks", "scrapes", "clatter")
ROOM_ONLY = ("white", "pink", "brown", "babble", "room")
#: the room sounds that hold speech from beyond the table (the rest hold none)
TALK = ("babble", "room")
#: room sound against a normal player at the microphone: as loud (the worst
#: case), and 10 and 20 dB quieter (other tables across a club's room)
ROOM_LEVELS = (0.0, -10.0, -20.0)
GATES = (8.0, 10.0, 12.0, 15.0)
#: the room heard before the count of false flags starts (the module's docstring)
WARM_UP_S = 10.0


@dataclass
class Said:
    """One utterance as the table's end hears of it."""

    start: float
    end: float
    level: float  # its loudness at the end (what the gate learns from)
    louder: list[tuple[float, float]]  # (when told, loudness so far): the open and level messages


@dataclass
class Heard:
    segments: list[Said]
    cpu_s: float


def listen(clip: Clip, detector: DetectorName) -> Heard:
    """The clip through the listening process's own code (``Hearing``), fed
    in 30 ms blocks as a sound card gives them."""
    messages: list[tuple[float, tuple[object, ...]]] = []
    now = [0.0]
    hearing = Hearing(EarsSettings(detector=detector), lambda m: messages.append((now[0], m)))
    started = time.process_time()
    for first in range(0, len(clip.samples), LISTEN_BLOCK):  # as the card gives them
        now[0] = (first + LISTEN_BLOCK) / RATE  # the block is whole when it arrives
        hearing.block(Block(clip.samples[first : first + LISTEN_BLOCK, None], first / RATE))
    hearing.finish()
    cpu = time.process_time() - started
    found: list[Said] = []
    louder: list[tuple[float, float]] = []
    for at, message in messages:
        if message[0] == "open":
            louder = [(at, float(message[4]))]  # type: ignore[arg-type]
        elif message[0] == "level":
            louder.append((at, float(message[1])))  # type: ignore[arg-type]
        elif message[0] == "close" and message[2] > message[1]:  # type: ignore[operator]
            start, end, level = (float(message[i]) for i in (1, 2, 5))  # type: ignore[arg-type]
            found.append(Said(start, end, level, louder))
    return Heard(found, cpu)


def flagged_at(said: Said, gate: LevelGate | None) -> float | None:
    """When the table's end would take the utterance up (None: never)."""
    for at, level in said.louder:
        if gate is None or gate.passes(level):
            return at
    return None


@dataclass
class Figures:
    hit: int = 0
    missed: int = 0
    hit_soft: int = 0
    missed_soft: int = 0
    latencies: list[float] = field(default_factory=list)
    false: dict[float, int] = field(default_factory=dict)  # room level -> false flags
    quiet_s: dict[float, float] = field(default_factory=dict)
    #: the same by sound: (room level, talk or not) -> false flags, seconds.
    #: Talk (babble, the room's mix, which holds babble) is speech from
    #: beyond the table; the rest is noise with no speech in it at all.
    false_by: dict[tuple[float, bool], int] = field(default_factory=dict)
    quiet_by: dict[tuple[float, bool], float] = field(default_factory=dict)

    def lines(self, name: str) -> list[str]:
        recall = self.hit / max(1, self.hit + self.missed)
        soft = self.hit_soft / max(1, self.hit_soft + self.missed_soft)
        out = [
            f"{name}:",
            f"  recall {recall:.3f} ({self.hit}/{self.hit + self.missed} utterances >= 0.5 s,"
            f" normal and loud); quiet and whispered {soft:.3f}"
            f" ({self.hit_soft}/{self.hit_soft + self.missed_soft})",
        ]
        per_level = [
            f"{level:+.0f} dB: {self.false[level]} in {self.quiet_s[level] / 60:.1f} min"
            f" = {self.false[level] / self.quiet_s[level] * 1800:.1f} per 30 min"
            for level in sorted(self.false, reverse=True)
        ]
        out.append("  false flags, room sound at (against a player): " + "; ".join(per_level))
        for talk, what in ((False, "noise alone (white, pink, brown)"), (True, "talk (babble, the room's mix)")):  # fmt: skip
            levels = sorted((lv for lv, t in self.false_by if t == talk), reverse=True)
            figures = [
                f"{lv:+.0f} dB {self.false_by[lv, talk] / self.quiet_by[lv, talk] * 1800:.1f}"
                for lv in levels
            ]
            out.append(f"    of which {what}, per 30 min: " + "; ".join(figures))
        if self.latencies:
            out.append(
                f"  onset -> flag: p50 {pct(self.latencies, 0.5):.0f} ms"
                f"  p99 {pct(self.latencies, 0.99):.0f} ms"
            )
        return out


def score(
    speech: list[tuple[str, float, Clip, Heard]],
    quiet: list[tuple[str, float, Clip, Heard]],
    gate: LevelGate | None,
) -> Figures:
    """Recall, false flags and latency, with the level gate (as the table
    side applies it at each onset) or without."""
    figures = Figures()
    for _, _, clip, heard in speech:
        taken = [(s, flagged_at(s, gate)) for s in heard.segments]
        kept = [(s, at) for s, at in taken if at is not None]
        for utterance in clip.truth:
            if utterance.end_s - utterance.start_s < MIN_UTTERANCE_S:
                continue
            hits = [
                (s, at) for s, at in kept if s.start < utterance.end_s and s.end > utterance.start_s
            ]
            # An utterance that began while a segment was already open (a
            # noise heard as speech just before) has no onset of its own.
            open_before = any(s.start < utterance.start_s < s.end for s in heard.segments)
            if utterance.kind in ("normal", "loud"):
                figures.hit, figures.missed = figures.hit + bool(hits), figures.missed + (not hits)
                if hits and not open_before:
                    figures.latencies.append(hits[0][1] - utterance.start_s)
            else:
                figures.hit_soft += bool(hits)
                figures.missed_soft += not hits
    for noise, level, clip, heard in quiet:
        # An utterance taken up in the warm-up and still open after it counts:
        # live, it is flagged at the first phase in which nobody may speak.
        false = [s for s in heard.segments if flagged_at(s, gate) is not None and s.end > WARM_UP_S]
        seconds = len(clip.samples) / RATE - WARM_UP_S
        figures.false[level] = figures.false.get(level, 0) + len(false)
        figures.quiet_s[level] = figures.quiet_s.get(level, 0.0) + seconds
        key = (level, noise in TALK)
        figures.false_by[key] = figures.false_by.get(key, 0) + len(false)
        figures.quiet_by[key] = figures.quiet_by.get(key, 0.0) + seconds
    return figures


def learned_gate(seed: int, minutes: float, below_db: float) -> LevelGate:
    """The gate as a game teaches it: the onsets of the table's own speakers
    (a clip of speech over the room at 20 dB, none of the measured clips)."""
    gate = LevelGate(below_db=below_db, keep=1000)
    clip = make_corpus(seed, minutes, 20.0, "room")
    heard = listen(clip, DEFAULT_DETECTOR)
    for said in heard.segments:
        if said.end - said.start >= gate.learn_from_s and any(
            u.start_s < said.end and u.end_s > said.start and u.kind == "normal" for u in clip.truth
        ):
            gate.learn(said.level)
    return gate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=2.0, help="minutes per clip (2)")
    parser.add_argument(
        "--room-minutes", type=float, help="minutes per room-only clip (default: --minutes)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--no-seats", action="store_true", help="leave out seat attribution (bench/ears_seats.py)"
    )
    parser.add_argument(
        "--part", choices=("old", *PARTS), default="old",
        help="old: this corpus (issue 10); the others: issue 26's split corpus",
    )  # fmt: skip
    parser.add_argument(
        "--detectors", default=",".join(DETECTORS), help="the old corpus's, comma-separated"
    )
    parser.add_argument(
        "--show-missed", action="store_true", help="list what the split corpus's run missed"
    )
    args = parser.parse_args()
    if args.part != "old":
        from bench.ears_split import run

        run(args.part, show_missed=args.show_missed)
        return
    clips = [
        (noise, snr, make_corpus(args.seed + n, args.minutes, snr, noise))
        for n, (noise, snr) in enumerate((nz, s) for nz in NOISES for s in SNRS)
    ]
    room_minutes = args.room_minutes or args.minutes
    rooms = [
        (noise, level, room_only(args.seed + 100 + n, room_minutes + WARM_UP_S / 60, noise, level))
        for n, (noise, level) in enumerate((nz, lv) for nz in ROOM_ONLY for lv in ROOM_LEVELS)
    ]
    total_s = sum(len(c.samples) for _, _, c in clips + rooms) / RATE
    print(
        f"corpus: {len(clips)} speech clips ({', '.join(NOISES)} at {SNRS} dB) and "
        f"{len(rooms)} room-only clips ({', '.join(ROOM_ONLY)} at {ROOM_LEVELS} dB against"
        f" a player), {args.minutes:g} and {room_minutes:g} min each, seed {args.seed}"
    )
    heard_by: dict[str, tuple[list[tuple[str, float, Clip, Heard]], ...]] = {}
    for detector in args.detectors.split(","):
        speech = [(n, s, c, listen(c, detector)) for n, s, c in clips]
        quiet = [(n, lv, c, listen(c, detector)) for n, lv, c in rooms]
        heard_by[detector] = (speech, quiet)
        cpu = sum(h.cpu_s for *_, h in speech + quiet)
        print("\n".join(score(speech, quiet, None).lines(f"{detector} alone")))
        print(f"  CPU {cpu / total_s:.4f} s per second of audio")
    speech, quiet = heard_by.get(DEFAULT_DETECTOR) or next(iter(heard_by.values()))
    print(f"the level gate on {DEFAULT_DETECTOR} (learned from the table's own speakers):")
    for below in GATES:
        gate = learned_gate(args.seed + 500, args.minutes, below)
        assert gate.reference is not None
        name = f"  gate {below:g} dB below the speakers' onsets ({gate.reference:.1f} dBFS)"
        if below == LevelGate().below_db:
            name += " = the default"
        print("\n".join("  " + line for line in score(speech, quiet, gate).lines(name)))
    print(
        "targets: recall >= 0.95 and <= 1 false flag per 30 min; latency p50 <= 300 ms; CPU <= 0.02 s/s"
    )
    if not args.no_seats:
        from bench.ears_seats import attribution_figures, print_figures  # pyroomacoustics

        print("seat attribution on the simulated club table (bench/ears_seats.py):")
        print_figures(attribution_figures(seed=args.seed))


if __name__ == "__main__":
    main()
