"""Test audio for voice-activity detectors written to a folder
(``testkit/corpus.py`` makes it): ``python -m bench.ears_corpus --out DIR``
writes room clips at several SNRs, each noise at 10 dB and each noise
alone, a 16 kHz mono WAV and its truth as JSON each."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a file: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from testkit.corpus import NOISES, make_corpus, room_only, save


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, required=True, help="folder for the WAV and JSON files")
    parser.add_argument("--minutes", type=float, default=1.0, help="length of each clip")
    parser.add_argument("--seed", type=int, default=10)
    args = parser.parse_args(argv)
    # (name, noise, SNR in dB; None: the room alone)
    jobs: list[tuple[str, str, float | None]] = [(f"room-{s}db", "room", s) for s in (20, 10, 5, 0)]
    jobs += [(f"{noise}-10db", noise, 10) for noise in NOISES if noise != "room"]
    jobs += [
        (f"only-{noise}", noise, None) for noise in ("white", "pink", "brown", "babble", "room")
    ]
    for i, (name, noise, snr) in enumerate(jobs):
        started = time.perf_counter()
        seed = args.seed + i
        clip = (
            room_only(seed, args.minutes, noise)
            if snr is None
            else make_corpus(seed, args.minutes, snr, noise)
        )
        wav, _ = save(clip, args.out / f"{name}.wav")
        spoken = sum(u.end_s - u.start_s for u in clip.truth)
        print(
            f"{wav}: {clip.seconds:.1f} s, {len(clip.truth)} utterances"
            f" ({spoken:.1f} s of speech), {time.perf_counter() - started:.2f} s to make"
        )


if __name__ == "__main__":
    main()
