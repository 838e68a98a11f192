"""``companion listen``'s memory on an evening's recording (issue 24, item 7).

Writes real (not sparse) 16 kHz WAV files of the table: 10 minutes, 1 hour
and 4 hours from one microphone, an hour from a microphone per seat (10
channels) and an hour from the array (6 channels, with a calibration that
fits its seats); a room's noise (the corpus's room, looped with its phase
moved, and each microphone's own hiss) with a few utterances a minute
(espeak-ng's phrases: a seat's own channel loudest, or each of the array's
microphones a few samples apart). Each file is written a minute at a time,
so making it takes no more memory than reading it should.

Then it runs ``companion listen FILE --json`` on each as a user runs it,
in its own process, and prints that process's peak resident memory and
wall time (GNU time's ``%M`` and ``%e``); the 4-hour one again with a CPU-bound
neighbour process on the machine. The files are deleted at the end (the
4-hour one is 460 MB, the hour of ten channels 1.15 GB).

    python -m bench.listen_memory [--tree DIR] [--only 10min,1h] [--keep DIR]

``--tree``: run another version's ``companion`` (``git archive COMMIT | tar
-x -C DIR``): main's read the file whole, as float32.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import wave
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.ears.array import Calibration, geometry
from companion.ears.calibration import save
from testkit.corpus import PHRASES, SPEECH_RMS, noise_track, render

ROOT = Path(__file__).resolve().parent.parent
RATE = 16_000
Audio = npt.NDArray[np.float32]
#: the room's bed, looped (rendering the corpus's room takes a while a minute)
BED_S = 40
SEATS = 10
UTTERANCES_PER_MINUTE = 3


@dataclass(frozen=True, slots=True)
class Recording:
    name: str
    minutes: int
    layout: str  # single, channels, array
    neighbour: bool = False  # a CPU-bound process beside it


RECORDINGS = (
    Recording("10min", 10, "single"),
    Recording("1h", 60, "single"),
    Recording("4h", 240, "single"),
    Recording("1h-10ch", 60, "channels"),
    Recording("1h-array", 60, "array"),
    Recording("4h-loaded", 240, "single", neighbour=True),
)


def minutes_of(layout: str, minutes: int, seed: int) -> Iterator[Audio]:
    """The recording a minute at a time: (frames, channels) float32."""
    rng = np.random.default_rng(seed)
    bed = noise_track(rng, BED_S * RATE, "room", SPEECH_RMS * 10 ** (-25 / 20))
    phrases = [render(text, "ru", 165) * SPEECH_RMS for text in PHRASES[:6]]
    mics = {"single": 1, "channels": SEATS, "array": geometry("respeaker-6mic").mics}[layout]
    n = 60 * RATE
    for _ in range(minutes):
        frames = np.empty((n, mics), dtype=np.float32)
        for m in range(mics):
            start = int(rng.integers(len(bed)))
            looped = np.resize(np.roll(bed, -start), n)
            frames[:, m] = looped * 0.7 + rng.standard_normal(n).astype(np.float32) * 3e-4
        for _ in range(UTTERANCES_PER_MINUTE):
            words = phrases[int(rng.integers(len(phrases)))]
            at = int(rng.integers(0, n - len(words) - 8))
            seat = int(rng.integers(SEATS))
            if layout == "single":
                frames[at : at + len(words), 0] += words
            elif layout == "channels":
                for offset, share in ((0, 1.0), (-1, 0.4), (1, 0.4)):
                    frames[at : at + len(words), (seat + offset) % SEATS] += share * words
            else:
                for m, delay in enumerate(_delays(seat)):
                    frames[at + delay : at + delay + len(words), m] += words
        yield np.clip(frames, -1.0, 1.0)


def _delays(seat: int) -> tuple[int, ...]:
    """Where seat ``seat`` (0-based) sits as the array hears it: each
    microphone's delay in samples."""
    mics = geometry("respeaker-6mic").mics
    return tuple(
        int(np.rint(3 + 2 * np.cos(2 * np.pi * (seat / SEATS - m / mics)))) for m in range(mics)
    )


def calibration() -> Calibration:
    shape = geometry("respeaker-6mic")
    pairs = [(i, j) for i in range(shape.mics) for j in range(i + 1, shape.mics)]
    seats = {}
    for seat in range(SEATS):
        d = _delays(seat)
        seats[seat + 1] = tuple((d[j] - d[i]) / RATE for i, j in pairs)
    return Calibration(shape.name, RATE, seats)


def write(path: Path, recording: Recording, seed: int) -> None:
    with wave.open(str(path), "wb") as out:
        first = True
        for frames in minutes_of(recording.layout, recording.minutes, seed):
            if first:
                out.setnchannels(frames.shape[1])
                out.setsampwidth(2)
                out.setframerate(RATE)
                first = False
            out.writeframes(np.round(frames * 32767).astype("<i2").tobytes())


def listen(
    tree: Path, path: Path, layout: str, options: list[str]
) -> tuple[int, float, list[dict[str, object]], str]:
    """(peak RSS in kB, wall seconds, the segments, error) of one run, measured
    by GNU time: this process's own ``wait4`` would count the memory of the
    bench itself, which the child shares between its fork and its exec."""
    with tempfile.TemporaryDirectory(prefix="listen-run-") as name:
        measured = Path(name) / "time"
        run = subprocess.run(
            ["/usr/bin/time", "-f", "%M %e", "-o", str(measured), sys.executable, "-m",
             "companion.cli", "listen", str(path), "--layout", layout, "--json", "--lang", "en",
             *options],
            cwd=tree, capture_output=True, text=True,
        )  # fmt: skip
        peak, wall = measured.read_text().split()[-2:]
    found = json.loads(run.stdout)["segments"] if run.returncode == 0 else []
    return int(peak), float(wall), found, run.stderr.strip()[-200:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tree", type=Path, default=ROOT, help="the companion to run")
    parser.add_argument("--only", help="these recordings (by name, comma-separated)")
    parser.add_argument("--keep", type=Path, help="write the files here and keep them")
    args = parser.parse_args(argv)
    chosen = [r for r in RECORDINGS if not args.only or r.name in args.only.split(",")]
    with contextlib.ExitStack() as stack:
        if args.keep is None:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="listen-memory-")))
        else:
            folder = args.keep
            folder.mkdir(parents=True, exist_ok=True)
        calibrated = folder / "array-calibration.json"
        save(calibration(), calibrated)
        print(f"companion: {args.tree}; {os.cpu_count()} CPUs; load {os.getloadavg()[0]:.2f}")
        print(f"{'recording':12} {'channels':>8} {'file MB':>8} {'peak RSS MB':>11} {'wall s':>7} {'segments':>8} {'seated':>6}")  # fmt: skip
        written: dict[tuple[int, str], Path] = {}
        for n, recording in enumerate(chosen):
            key = (recording.minutes, recording.layout)
            if key not in written:
                path = folder / f"{recording.name}.wav"
                if not path.exists():
                    write(path, recording, seed=n)
                written[key] = path
            path = written[key]
            options = ["--calibration", str(calibrated)] if recording.layout == "array" else []
            neighbour = None
            if recording.neighbour:
                neighbour = subprocess.Popen([sys.executable, "-c", "while True: pass"])
            try:
                peak, wall, found, error = listen(args.tree, path, recording.layout, options)
            finally:
                if neighbour is not None:
                    neighbour.kill()
                    neighbour.wait()
            with wave.open(str(path)) as wav:
                channels = wav.getnchannels()
            print(
                f"{recording.name:12} {channels:8} {path.stat().st_size / 1e6:8.0f}"
                f" {peak / 1024:11.0f} {wall:7.1f} {len(found):8}"
                f" {sum(s['seat'] is not None for s in found):6}" + (f"  {error}" if error else ""),
                flush=True,
            )
        if args.keep is None:
            for path in written.values():
                path.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
