"""The console's figures (issue 9), in one run.

Run ``python bench/console.py`` (``--hours 3``; ``--only-first-screen``
for the first part alone). It prints, and asserts nothing:

- the first screen (issue 23; ``bench/console_start.py``): ``companion``
  started 20 times as ``./run`` starts it, in a pseudo-terminal, with two
  CPU-bound neighbours the bench starts: seconds from the exec to the
  set-up screen, and to the question whether to resume an unfinished
  game, p50, p99 and the worst, the load average (target: p99 <= 1.5 s);
- start-up: ``companion`` started in a pseudo-terminal as a host starts it
  (the club's config, no sound card: captions), seconds until the set-up
  screen shows, from F5 and Enter to the table screen, and a second start that
  resumes the unfinished game: until the table is back (target: a ready
  table screen within 1.5 s);
- memory: bot games played through the console back to back, headless on a
  fake clock, the console drawing as they go, until ``--hours`` of game
  time: resident memory after the first game is set up, at the end and the
  largest in between, open files (targets: at most 120 MB, growth at most
  10 MB);
- timing under load (and once more with the ears listening to a live
  stream in their own process): cue deadline -> the first sample handed to the device
  and -> its time at the device's output clock (p50/p99), underruns and
  timer firing error, while the console draws a game in progress and
  CPU-bound processes keep every core busy (``bench/console_timing.py``;
  without a sound device the bench starts the PulseAudio null sink that
  ``run-tests`` uses), once with each ``[voice] latency`` (the device
  buffer). Targets: cue p99 <= 10 ms, timer p99 <= 2 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.console_parts import game_night, start_up
from bench.console_start import first_screens
from bench.console_timing import timing
from testkit.bots import Bot, parsed
from testkit.command import VIA
from testkit.terminal import BYTECODE

ROOT = Path(__file__).resolve().parent.parent


def bot_game(number: int) -> list[Any]:
    """A whole game by the bench's bot; odd games club, even tournament."""
    ruleset = "club" if number % 2 else "tournament"
    return parsed(Bot(number, ruleset).play(until_inputs=3_000))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hours", type=float, default=3.0, help="game time played (3)")
    parser.add_argument("--starts", type=int, default=3, help="start-ups measured (3)")
    parser.add_argument("--skip-startup", action="store_true")
    parser.add_argument("--cues", type=int, default=300, help="cues timed under load (300)")
    parser.add_argument("--busy", type=int, default=os.cpu_count() or 2, help="CPU-bound processes")
    parser.add_argument(
        "--first-screens", type=int, default=20, help="starts to each first screen (20; 0: none)"
    )
    parser.add_argument(
        "--first-screen-busy", type=int, default=2, help="CPU-bound neighbours meanwhile (2)"
    )
    parser.add_argument("--bytecode", choices=tuple(BYTECODE), default="cached", help="(cached)")
    parser.add_argument("--via", choices=VIA, default="companion", help="how it starts")
    parser.add_argument("--only-first-screen", action="store_true", help="that part alone")
    args = parser.parse_args()
    if args.first_screens:
        busy = args.first_screen_busy
        figures = first_screens(args.first_screens, busy, bytecode=args.bytecode, via=args.via)
        print("\n".join(figures))
    if args.only_first_screen:
        return
    if not args.skip_startup:
        runs = []
        for _ in range(args.starts):
            with tempfile.TemporaryDirectory(prefix="companion-console-") as folder:
                runs.append(start_up(Path(folder)))
        print(f"start-up ({args.starts} runs, best / worst):")
        for key in runs[0]:
            values = [run[key] for run in runs]
            print(f"  {key:24s} {min(values):6.2f} s / {max(values):6.2f} s")
        ready = max(run["table after F5, Enter"] + run["setup screen"] for run in runs)
        print(f"target: a ready table screen <= 1.5 s: worst {ready:.2f} s to the set-up screen and F5, Enter")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="companion-night-") as folder:
        night = asyncio.run(game_night(Path(folder), args.hours, bot_game))
    print(
        f"game night: {night['games']:.0f} games, {night['game hours']:.1f} game hours, "
        f"{night['inputs']:.0f} inputs through the console"
    )
    start, end, peak = night["rss at start (MB)"], night["rss at end (MB)"], night["rss max (MB)"]
    print(f"  resident memory: {start:.1f} MB at the first game, {end:.1f} MB at the end, {peak:.1f} MB at most")  # fmt: skip
    print(f"  open files: {night['open files at start']:.0f} -> {night['open files at end']:.0f}")
    games = int(night["games"])
    after = [night[f"rss after game {n} (MB)"] for n in range(1, games + 1)]
    print("  after each game: " + ", ".join(f"{mb:.1f}" for mb in after) + " MB")
    # Textual's bounded caches (strips, styles, colours) fill over the first
    # games; the table's own state goes with each game (its own process live).
    print(f"  growth from the end of the first game to the end: {after[-1] - after[0]:+.1f} MB")
    print(
        f"targets: <= 120 MB: {peak:.1f} MB; growth <= 10 MB: {end - start:+.1f} MB from the first game's start"
    )
    with null_sink():
        for latency in ("normal", "low"):  # the [voice] latency choices
            print("\n".join(timing(args.cues, args.busy, latency)))
        # The same, with the ears listening to a live stream in their own process.
        print("\n".join(timing(args.cues, args.busy, "normal", ears=True)))
    print("targets: cue p99 <= 10 ms (at the device's clock), timer p99 <= 2 ms")


@contextlib.contextmanager
def null_sink() -> Iterator[None]:
    """run-tests' private PulseAudio null sink, unless a server is given."""
    if os.environ.get("PULSE_SERVER"):
        yield
        return
    script = ROOT / "scripts" / "pulse-null-sink.sh"
    started = subprocess.run([str(script), "start"], capture_output=True, text=True)
    exports = dict(
        item.split("=", 1) for item in started.stdout.removeprefix("export ").split() if "=" in item
    )
    if started.returncode or "PULSE_SERVER" not in exports:
        print(f"no PulseAudio null sink ({started.stderr.strip()}): the default device")
        yield
        return
    os.environ.update(exports)
    try:
        yield
    finally:
        subprocess.run([str(script), "stop", exports.get("COMPANION_PULSE_DIR", "")], check=False)
        for key in exports:
            os.environ.pop(key, None)


if __name__ == "__main__":
    main()
