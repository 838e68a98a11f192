"""The console's figures (issue 9), in one run.

Run ``python bench/console.py`` (``--hours 3``). It prints, and asserts
nothing:

- start-up: ``companion`` started in a pseudo-terminal as a host starts it
  (the club's config, no sound card: captions), seconds until the set-up
  screen shows, from F5 to the table screen, and a second start that
  resumes the unfinished game: until the table is back (target: a ready
  table screen within 1.5 s);
- memory: bot games played through the console back to back, headless on a
  fake clock, the console drawing as they go, until ``--hours`` of game
  time: resident memory after the first game is set up, at the end and the
  largest in between, open files (targets: at most 120 MB, growth at most
  10 MB).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.console_parts import game_night, start_up
from bench.engine import Bot, parsed


def bot_game(number: int) -> list[Any]:
    """A whole game by the bench's bot; odd games club, even tournament."""
    ruleset = "club" if number % 2 else "tournament"
    return parsed(Bot(number, ruleset).play(until_inputs=3_000))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hours", type=float, default=3.0, help="game time played (3)")
    parser.add_argument("--starts", type=int, default=3, help="start-ups measured (3)")
    parser.add_argument("--skip-startup", action="store_true")
    args = parser.parse_args()
    if not args.skip_startup:
        runs = []
        for _ in range(args.starts):
            with tempfile.TemporaryDirectory(prefix="companion-console-") as folder:
                runs.append(start_up(Path(folder)))
        print(f"start-up ({args.starts} runs, best / worst):")
        for key in runs[0]:
            values = [run[key] for run in runs]
            print(f"  {key:24s} {min(values):6.2f} s / {max(values):6.2f} s")
        ready = max(run["table after F5"] + run["setup screen"] for run in runs)
        print(f"target: a ready table screen <= 1.5 s: worst {ready:.2f} s to the set-up screen and F5")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="companion-night-") as folder:
        night = asyncio.run(game_night(Path(folder), args.hours, bot_game))
    print(
        f"game night: {night['games']:.0f} games, {night['game hours']:.1f} game hours, "
        f"{night['inputs']:.0f} inputs through the console"
    )
    start, end, peak = night["rss at start (MB)"], night["rss at end (MB)"], night["rss max (MB)"]
    print(f"  resident memory: {start:.1f} MB at the first game, {end:.1f} MB at the end, {peak:.1f} MB at most")  # fmt: skip
    print(f"  open files: {night['open files at start']:.0f} -> {night['open files at end']:.0f}")
    print(f"targets: <= 120 MB: {peak:.1f} MB; growth <= 10 MB: {end - start:+.1f} MB")


if __name__ == "__main__":
    main()
