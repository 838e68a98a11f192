"""A disk whose every fsync takes 300 ms: do the timers keep time? (issue 24)

Run ``python bench/journal_stall.py`` (about 4 minutes; ``--seconds 15``
for a quick look). It prints its figures and asserts nothing.

The journal's file layer is injected (``SlowDisk``): each fsync is the real
one, then asleep for the rest of ``--fsync-ms`` (300), as an SD card under
load takes it; nothing loads the machine's real disk. On it a tournament
game runs in the real ``LiveLoop`` on the real clock, as the live table
runs it (real-time priority where granted, the quiet collector), its
timings scaled down so that timers come often (a 1.5 s speech, its warning
0.75 s before the end, 0.5 s night steps). The bench's thread stands in
for the people at the table: when a speaker's time is up, or a vote or the
morning waits, the host presses "next" (``HostAdvanced``), once per state
of the game; and at random moments (``--presses``: one every 1.5 s on
average, a fixed seed) a player who is not speaking presses a seat button
(refused by the rules as out of turn, but journaled: it happened), so
that lines come at moments that have nothing to do with the timers. In
all some 2.5 lines a second, three quarters of what a 300-ms disk takes.
A game that ends is followed by a new one, each with its own journal,
until ``--seconds`` have passed.

Each run is one path and one load:

- ``writer``: the journal on its writer's thread (runner/journal_writer.py),
  the live table's way since issue 24;
- ``inline``: each line appended and fsynced on the loop's thread before it
  goes on (before issue 24);
- with 0 and with ``--neighbours`` (2) CPU-bound processes running.

Figures per run: the timer firing error (deadline -> the loop steps the
engine) p50/p99/max; each line on disk after its input (a timer's: its
deadline) -> its effects carried out p50/p99/max, which is when the table
sees it; the lines written and the longest backlog; every journal read
back (checksum chain and head).
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.naive import ROLES, pct
from companion.config.rulesets import load_ruleset
from companion.core.effects import Effect
from companion.core.events import GameSetUp, HostAdvanced, SeatPressed
from companion.core.rules import Ruleset
from companion.core.sports.state import current_turn, table
from companion.runner.clock import GameClock
from companion.runner.journal import Journal, read
from companion.runner.journal_writer import JournalWriter
from companion.runner.loop import LiveLoop


class SlowDisk:
    """The journal's system calls; every fsync takes ``seconds``: the real
    one, then asleep for the rest (the interpreter let go, as in fsync)."""

    write = staticmethod(os.write)
    ftruncate = staticmethod(os.ftruncate)

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def fsync(self, fd: int) -> None:
        start = time.monotonic()
        os.fsync(fd)
        time.sleep(max(0.0, start + self.seconds - time.monotonic()))


def bench_rules() -> Ruleset:
    tournament = load_ruleset("tournament")
    timings = replace(
        tournament.timings,
        speech_s=1.5,
        warning_s=0.75,
        last_word_s=1.5,
        tie_speech_s=1.5,
        night_step_s=0.5,
    )
    night0 = tuple(replace(s, seconds=0.5) for s in tournament.night0)
    night = tuple(replace(s, seconds=0.5) for s in tournament.night)
    return replace(tournament, timings=timings, night0=night0, night=night)


@dataclass
class Figures:
    lateness: list[float] = field(default_factory=list)
    durable: list[float] = field(default_factory=list)
    lines: int = 0
    games: int = 0
    backlog: int = 0  # the most lines held at once (writing behind)
    checked: int = 0  # journals read back whole
    priority: str = ""


@dataclass(frozen=True, slots=True)
class Run:
    rules: Ruleset
    folder: Path
    disk: SlowDisk
    behind: bool  # the journal's writer thread (False: inline)
    until: float  # time.monotonic()
    press_every: float  # seconds on average between seat presses
    rng: random.Random


def one_game(run: Run, figures: Figures) -> None:
    rules, folder, disk, behind, until, rng = (
        run.rules, run.folder, run.disk, run.behind, run.until, run.rng
    )  # fmt: skip
    path = folder / f"game-{figures.games}.jsonl"
    journal = Journal.create(path, files=disk)
    clock = GameClock()
    durable = figures.durable

    def shown(at: float, _effects: tuple[Effect, ...]) -> None:
        durable.append(max(0.0, clock.now() - at))

    loop = LiveLoop(
        clock,
        shown,
        journal=journal,
        realtime=True,
        writer=JournalWriter(journal) if behind else None,
    )
    loop.submit(GameSetUp(rules, 10, ROLES))
    runner = threading.Thread(target=loop.run, name="timer loop", daemon=True)
    runner.start()
    asked = None  # the state the host last pressed "next" in
    press_at = time.monotonic() + rng.expovariate(1 / run.press_every)
    while runner.is_alive():
        time.sleep(0.01)
        figures.backlog = max(figures.backlog, len(loop.session.held))
        game = loop.game
        if game is None:
            continue
        now = time.monotonic()
        if game.phase == "ended" or now > until:
            break
        if now >= press_at:
            press_at = now + rng.expovariate(1 / run.press_every)
            turn = current_turn(game)
            speaking = turn.seat if turn is not None else 0
            if game.phase in ("night", "speeches"):
                loop.submit(SeatPressed(rng.choice([s for s in range(1, 11) if s != speaking])))
        if game is asked:
            continue
        state = table(game)
        waits = game.phase != "night" and (game.phase != "speeches" or state.turn_over)
        if waits:
            asked = game
            loop.submit(HostAdvanced())
    loop.stop()
    runner.join(60)
    figures.lateness += loop.stats.lateness
    figures.lines += journal.lines
    figures.priority = loop.priority
    journal.close()
    if len(read(path).lines) == journal.lines:  # the chain and the head hold
        figures.checked += 1
    figures.games += 1


def run(path: str, neighbours: int, args: argparse.Namespace) -> Figures:
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(neighbours)]
    figures = Figures()
    try:
        with tempfile.TemporaryDirectory(prefix="journal-stall-") as folder:
            until = time.monotonic() + args.seconds
            plan = Run(
                bench_rules(),
                Path(folder),
                SlowDisk(args.fsync_ms / 1000),
                path == "writer",
                until,
                args.presses,
                random.Random(args.seed),
            )
            while time.monotonic() < until:
                one_game(plan, figures)
    finally:
        for process in busy:
            process.kill()
            process.wait()
    return figures


def ms(values: list[float]) -> str:
    top = max(values, default=float("nan")) * 1000
    return f"p50 {pct(values, 0.5):7.3f} ms  p99 {pct(values, 0.99):7.3f} ms  max {top:7.3f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="per run (60)")
    parser.add_argument("--fsync-ms", type=float, default=300.0, help="every fsync (300)")
    parser.add_argument("--paths", default="writer,inline", help="writer,inline (both)")
    parser.add_argument("--neighbours", type=int, default=2, help="CPU-bound processes (2)")
    parser.add_argument("--presses", type=float, default=1.5, help="seconds between presses (1.5)")
    parser.add_argument("--seed", type=int, default=1, help="the presses' random seed (1)")
    args = parser.parse_args()
    print(
        f"Python {sys.version.split()[0]}, {os.cpu_count()} cores, every fsync {args.fsync_ms:.0f} ms,"
        f" {args.seconds:.0f} s per run; load average {os.getloadavg()[0]:.2f} at the start"
    )
    for load in sorted({0, args.neighbours}):
        for path in args.paths.split(","):
            figures = run(path, load, args)
            print(
                f"{path:6} with {load} neighbour(s): {figures.games} game(s), {figures.lines} lines,"
                f" {figures.checked}/{figures.games} journals whole; loop priority {figures.priority}"
                + (f"; backlog at most {figures.backlog} lines" if path == "writer" else "")
            )
            print(f"  timer firing error ({len(figures.lateness)} timers):  {ms(figures.lateness)}")
            print(f"  input -> on disk and shown ({len(figures.durable)}): {ms(figures.durable)}")
            sys.stdout.flush()
    print(f"load average {os.getloadavg()[0]:.2f} at the end; target: timer error p99 <= 2 ms")


if __name__ == "__main__":
    main()
