"""How soon a killed listening process listens again (issue 24: within 5 s).

``python bench/ears_restart.py [--kills N]``: the table's end of the ears
(``EarsLink``) spawns the listening process as the table does, on a WAV
file of silence played at its own pace; the bench kills it with SIGKILL as
soon as it listens, N times, and times each from the kill to the notice
that a new one was started (``ears_restarted``: the death seen, the
policy's wait, the spawn) and to the new one saying it listens
(``ears_started``: its imports, the detector loaded, the source open).

Two runs: kills a minute apart as far as the policy knows (each the first
of its run: the 0.5 s wait), and kills one after another (the waits grow,
0.5, 1, 1.5, 2 s, and the fifth quick death is given up on: the worst a
restart takes before that).
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import statistics
import sys
import tempfile
import threading
import time
import wave
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.ears.capture import RATE
from companion.ears.hearing import EarsSettings
from companion.ears.link import EarsLink
from companion.ears.restarts import RestartPolicy

PATIENCE_S = 60.0


def silence(path: Path, seconds: float) -> Path:
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes(b"\0\0" * int(RATE * seconds))
    return path


def kills(wav: Path, count: int, policy: RestartPolicy) -> list[tuple[float, float] | str]:
    """(kill -> restarted, kill -> listening) seconds per kill, or what ended it."""
    told: list[tuple[float, str, str]] = []
    changed = threading.Condition()

    def notice(what: str, line: str) -> None:
        with changed:
            told.append((time.monotonic(), what, line))
            changed.notify_all()

    def next_of(kind: str, after: int) -> tuple[int, tuple[float, str, str]] | None:
        def found() -> bool:
            return any(what in (kind, "ears_gave_up") for _, what, _ in told[after:])

        with changed:
            if not changed.wait_for(found, PATIENCE_S):
                raise TimeoutError(f"no {kind} in {PATIENCE_S:.0f} s")
            for index in range(after, len(told)):
                if told[index][1] == "ears_gave_up":
                    return None
                if told[index][1] == kind:
                    return index, told[index]
        return None

    link = EarsLink(
        EarsSettings(device=f"file:{wav}"),
        lambda event: None,
        lambda: None,
        time.monotonic,
        on_notice=notice,
        restarts=policy,
    )
    figures: list[tuple[float, float] | str] = []
    link.start()
    try:
        seen = next_of("ears_started", 0)
        for _ in range(count):
            if seen is None:
                figures.append("given up")
                break
            index, (_, _, pid) = seen
            killed = time.monotonic()
            os.kill(int(pid), signal.SIGKILL)
            restarted = next_of("ears_restarted", index + 1)
            if restarted is None:
                figures.append("given up")
                break
            seen = next_of("ears_started", restarted[0] + 1)
            if seen is None:
                figures.append("given up")
                break
            figures.append((restarted[1][0] - killed, seen[1][0] - killed))
    finally:
        link.close()
    return figures


def show(title: str, figures: list[tuple[float, float] | str]) -> None:
    print(title)
    for number, figure in enumerate(figures, 1):
        if isinstance(figure, str):
            print(f"  kill {number}: {figure}")
        else:
            print(f"  kill {number}: restarted {figure[0]:.2f} s, listening {figure[1]:.2f} s")
    listening = [f[1] for f in figures if not isinstance(f, str)]
    if listening:
        print(
            f"  kill -> listening again: median {statistics.median(listening):.2f} s, "
            f"max {max(listening):.2f} s (limit 5 s)"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=10)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)  # each death's warning: the figures say it
    with tempfile.TemporaryDirectory(prefix="ears-restart-") as folder:
        wav = silence(Path(folder) / "room.wav", 600)
        show(
            f"{args.kills} kills, each the first of its run (0.5 s wait):",
            kills(wav, args.kills, RestartPolicy(steady_s=0.0)),
        )
        show(
            "kills one after another (the waits grow, then given up):",
            kills(wav, 6, RestartPolicy()),
        )


if __name__ == "__main__":
    main()
