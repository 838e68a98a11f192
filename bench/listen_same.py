"""Does ``companion listen`` print the same as another version of it?

Writes simulated recordings of the table (``testkit/corpus.py``'s mono
clips over every noise, ``testkit/room.py``'s rooms through a microphone
per seat and through the array, a long monologue, 8-bit, 24-bit and float
copies, files whose length is no whole chunk), runs ``companion listen
--json`` on each, with the demo game's journal, in this tree and in
``--old`` (a tree of another commit: ``git archive COMMIT | tar -x -C
DIR``), and compares the two outputs byte for byte: the segments' times,
seats and confidences, and the flags.

    python -m bench.listen_same --old /tmp/listen_old

Issue 24 (item 7) used it to show that streaming the recording changed
nothing: main's whole-file ``listen`` against the streamed one.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
import wave
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
import numpy.typing as npt

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.ears_seats import _calibrate
from companion.ears.array import geometry
from companion.ears.calibration import calibration_of, save
from testkit.corpus import NOISES, make_corpus, render, room_only
from testkit.room import calibration_pass, game_pass, make_table, room_passes, save_wav

ROOT = Path(__file__).resolve().parent.parent
RATE = 16_000
Audio = npt.NDArray[np.float32]
#: (name, layout, extra options, the recording's writer)
Case = tuple[str, str, list[str], Callable[[Path], object]]


def _pcm(path: Path, samples: Audio, bits: int = 16, kind: str = "pcm") -> None:
    """``samples`` (frames,) or (frames, channels) as a WAV of ``bits``
    (``kind`` "float": IEEE float, written by hand: ``wave`` writes PCM only)."""
    frames = samples.reshape(len(samples), -1)
    channels = frames.shape[1]
    if kind == "float":
        data = frames.astype("<f4").tobytes()
        fmt = (3, channels, RATE, RATE * channels * 4, channels * 4, 32)
        header = b"fmt " + (16).to_bytes(4, "little") + np.array(fmt[:2], "<u2").tobytes()
        header += np.array(fmt[2:4], "<u4").tobytes() + np.array(fmt[4:], "<u2").tobytes()
        body = b"WAVE" + header + b"data" + len(data).to_bytes(4, "little") + data
        path.write_bytes(b"RIFF" + len(body).to_bytes(4, "little") + body)
        return
    if bits == 8:
        raw = (np.clip(np.round(frames * 127), -128, 127) + 128).astype(np.uint8).tobytes()
    elif bits == 24:
        values = np.clip(np.round(frames * 8388607), -8388608, 8388607).astype("<i4")
        raw = values.view(np.uint8).reshape(-1, 4)[:, :3].tobytes()
    else:
        raw = np.clip(np.round(frames * 32767), -32768, 32767).astype("<i2").tobytes()
    with wave.open(str(path), "wb") as out:
        out.setnchannels(channels)
        out.setsampwidth(bits // 8)
        out.setframerate(RATE)
        out.writeframes(raw)


def _monologue(seed: int, seconds: float) -> Audio:
    """One speaker going on for ``seconds`` without a pause long enough to
    end the utterance, over a quiet room."""
    rng = np.random.default_rng(seed)
    phrases = [render(t, "ru", 165) for t in ("Я мирный житель", "Голосую за третьего")]
    speech: list[Audio] = []
    while sum(map(len, speech)) < seconds * RATE:
        speech += [phrases[int(rng.integers(2))] * 0.05, np.zeros(int(0.15 * RATE), np.float32)]
    track = np.concatenate([np.zeros(RATE, np.float32), *speech, np.zeros(3 * RATE, np.float32)])
    noisy: Audio = (track + rng.standard_normal(len(track)) * 0.001).astype(np.float32)
    return noisy


def cases(folder: Path, rooms: int = 3) -> list[Case]:
    out: list[Case] = []
    # One microphone: the corpus's noises at 10 dB, some lengths no whole chunk.
    for i, noise in enumerate(NOISES):
        clip = make_corpus(40 + i, 1.0 + 0.013 * i, 10.0, noise)
        out.append((f"mono-{noise}", "single", [], partial(_pcm, samples=clip.samples)))
    quiet = make_corpus(60, 1.5, 20.0, "room").samples
    room = room_only(61, 1.0, "room").samples
    talk = _monologue(62, 45.0)
    out += [
        ("mono-room-silero", "single", ["--detector", "silero"], partial(_pcm, samples=quiet)),
        ("mono-room-webrtc", "single", ["--detector", "webrtc"], partial(_pcm, samples=quiet)),
        ("mono-room-6db", "single", ["--above-room", "6"], partial(_pcm, samples=quiet)),
        ("mono-room-alone", "single", [], partial(_pcm, samples=room)),
        ("mono-8bit", "single", [], partial(_pcm, samples=quiet, bits=8)),
        ("mono-24bit", "single", [], partial(_pcm, samples=quiet, bits=24)),
        ("mono-float", "single", [], partial(_pcm, samples=quiet, kind="float")),
        ("mono-monologue-45s", "single", [], partial(_pcm, samples=talk)),
    ]
    # The simulated club: a microphone per seat and the array, a room's game and the room alone.
    shape = geometry("respeaker-6mic")
    for n in range(rooms):
        seed = 9100 + n
        table = make_table(seed)
        game = game_pass(table, seed * 10 + 2, 1.0 + 0.007 * n, snr_db=(15.0, 10.0, 5.0)[n % 3])
        alone = room_passes(table, seed * 10 + 3, 0.5, levels=(0.0,))[0.0]
        heard = _calibrate(
            calibration_pass(table, seed * 10 + 1), shape.name, table.seats, "silero"
        )
        calibration = folder / f"room{n}-calibration.json"
        save(calibration_of(heard, shape), calibration)
        array = ["--calibration", str(calibration)]
        out += [
            (f"room{n}-channels", "channels", [], partial(save_wav, samples=game.channels)),
            (f"room{n}-channels-alone", "channels", [], partial(save_wav, samples=alone.channels)),
            (f"room{n}-array", "array", array, partial(save_wav, samples=game.array)),
            (f"room{n}-array-alone", "array", array, partial(save_wav, samples=alone.array)),
        ]
        if n == 0:
            # The card's 8 channels (6 mics, 2 of playback); the seats' channels mixed to one;
            # the monologue at one seat, its neighbours hearing it, and through the array.
            card = np.column_stack([game.array, game.array[:, :2] * 0.5])
            many = np.column_stack([talk * g for g in np.linspace(0.2, 1.0, table.seats)])
            out += [
                ("room0-array-card", "array", array, partial(save_wav, samples=card)),
                ("room0-single-of-channels", "single", [], partial(save_wav, samples=game.channels)),
                ("room0-channels-monologue", "channels", [], partial(save_wav, samples=many)),
                ("room0-array-monologue", "array", array, partial(save_wav, samples=np.column_stack([talk] * 6))),
            ]  # fmt: skip
    return out


def listen(tree: Path, wav: Path, layout: str, options: list[str], journal: Path) -> bytes:
    run = subprocess.run(
        [sys.executable, "-m", "companion.cli", "listen", str(wav), "--layout", layout,
         "--journal", str(journal), "--json", "--lang", "en", *options],
        cwd=tree, capture_output=True, timeout=1800,
    )  # fmt: skip
    if run.returncode != 0:
        return b"rc %d: %s" % (run.returncode, run.stderr.strip()[-300:])
    return run.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--old", type=Path, required=True, help="the other version's tree")
    parser.add_argument("--rooms", type=int, default=3, help="simulated rooms (4 or 5 cases each)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="listen-same-") as name:
        folder = Path(name)
        journal = folder / "demo.jsonl"
        subprocess.run(
            [sys.executable, "-m", "companion.cli", "replay", "examples/demo.jsonl", "--journal", str(journal)],
            cwd=ROOT, check=True, capture_output=True,
        )  # fmt: skip
        made = cases(folder, args.rooms)
        differ = 0
        print(
            f"{'case':30} {'layout':9} {'segments':>8} {'flags':>5} {'new s':>6} {'old s':>6}  same"
        )
        for name, layout, options, write in made:
            wav = folder / f"{name}.wav"
            write(wav)
            started = time.perf_counter()
            new = listen(ROOT, wav, layout, options, journal)
            middle = time.perf_counter()
            old = listen(args.old, wav, layout, options, journal)
            ended = time.perf_counter()
            same = new == old
            differ += not same
            counts = (new.count(b'"start"'), new.count(b'"kind"'))
            print(
                f"{name:30} {layout:9} {counts[0]:8} {counts[1]:5} {middle - started:6.1f}"
                f" {ended - middle:6.1f}  {'yes' if same else 'NO'}"
            )
            if not same:
                print(f"  new: {new[:300]!r}\n  old: {old[:300]!r}")
            wav.unlink()
        print(f"{len(made)} cases, {len(made) - differ} the same, {differ} different")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
