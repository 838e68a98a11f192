"""Replay throughput and journal resume time.

Run ``python bench/engine.py``. It prints figures and asserts nothing about
time (targets: at least 50 000 inputs/s replay, under 0.5 s to resume a
10 000-input journal).

The input streams are played by the seeded bot of ``testkit/bots.py``,
which writes only inputs the engine accepts, as a host and ten players
would.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import os
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a file: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.commands import play
from companion.config.rulesets import load_ruleset
from companion.core.effects import Effect
from companion.core.engine import new_game, step
from companion.core.events import Event, GameSetUp
from companion.runner import journal
from companion.runner.replay import ScriptReplay
from companion.runner.script import ScriptLine, parse_lines
from companion.runner.session import GameSession
from testkit.bots import games, long_game, parsed

# --- the figures ------------------------------------------------------------


def best_of(repeat: int, run: Callable[[], int]) -> tuple[float, int]:
    """The fastest of ``repeat`` runs: (seconds, inputs)."""
    times, inputs = [], 0
    for _ in range(repeat):
        start = time.perf_counter()
        inputs = run()
        times.append(time.perf_counter() - start)
    return min(times), inputs


def table_inputs(lines: list[ScriptLine]) -> int:
    """Replay one game; the inputs it took (script lines and timer expiries)."""
    table = ScriptReplay()
    table.run(lines)
    return table.inputs


class Recorder(GameSession):
    """A session that keeps every event it steps the engine with, timers included."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[Event] = []

    def take(self, event: Event, at: float, **where: Any) -> tuple[Effect, ...]:
        self.events.append(event)
        return super().take(event, at, **where)


def engine_only(pre: list[list[ScriptLine]]) -> Callable[[], int]:
    """The engine's own share: ``new_game`` and ``step`` over the events a
    replay fed it, with no ScriptReplay, clock or parsing around them."""
    games = []
    for lines in pre:
        recorder = Recorder()
        ScriptReplay(session=recorder).run(lines)
        setup, *rest = recorder.events
        assert isinstance(setup, GameSetUp)
        games.append((setup, rest))

    def run() -> int:
        for setup, events in games:
            game, _ = new_game(setup)
            for event in events:
                game, _ = step(game, event)
        return sum(1 + len(events) for _, events in games)

    return run


def replay_figures(label: str, scripts: list[list[str]], repeat: int) -> float:
    pre = [parsed(s) for s in scripts]
    seconds, inputs = best_of(repeat, engine_only(pre))
    engine_rate = inputs / seconds
    seconds, inputs = best_of(repeat, lambda: sum(table_inputs(lines) for lines in pre))
    rate = inputs / seconds
    print(
        f"{label}: {len(scripts)} game(s), {sum(map(len, scripts))} script lines, {inputs} inputs (timer expiries included)"
    )
    print(f"  replay, pre-parsed lines:   {rate:10,.0f} inputs/s  ({seconds * 1000:.1f} ms)")
    print(f"  engine.step alone:          {engine_rate:10,.0f} inputs/s  (no ScriptReplay, clock or parsing)")  # fmt: skip
    seconds, inputs = best_of(repeat, lambda: sum(table_inputs(parsed(s)) for s in scripts))
    print(f"  replay incl. JSON parsing:  {inputs / seconds:10,.0f} inputs/s  ({seconds * 1000:.1f} ms)")  # fmt: skip
    return rate


def resume_figures(inputs: int, repeat: int) -> float:
    script = long_game(inputs + 200)
    folder = Path(tempfile.mkdtemp(prefix="companion-bench-"))
    path = folder / "journal.jsonl"
    os.environ.pop("COMPANION_CRASH_AT", None)  # the test hook must stay off here
    sink = journal.Journal.create(path)
    table = ScriptReplay(sink)
    start = time.perf_counter()
    table.run(parsed(script))
    written = time.perf_counter() - start
    sink.close()
    # Keep exactly ``inputs`` lines: a prefix of a journal is a journal (a crash leaves one).
    kept = path.read_bytes().splitlines(keepends=True)[:inputs]
    path.write_bytes(b"".join(kept))
    # The lock file's head counts every line written: it would (rightly) call
    # the cut journal damaged. A journal without it resumes with a warning.
    journal.lock_path(path).unlink()
    inputs = len(kept)
    print(f"journal: {table.inputs} inputs written with write+fsync each in {written:.2f} s "
          f"({table.inputs / written:,.0f} inputs/s); kept the first {inputs} lines "
          f"({path.stat().st_size / 1024:.0f} KiB)")  # fmt: skip

    def resume() -> int:
        with contextlib.redirect_stderr(io.StringIO()):  # the warning about the lock file
            table = play.resume(path, None, None)
        assert table.game is not None
        return table.game.day

    seconds, _ = best_of(repeat, resume)
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        text = journal.read(path)
        t1 = time.perf_counter()
        lines = parse_lines(text.lines, str(path), load_ruleset)
        t2 = time.perf_counter()
        ScriptReplay(auto_timers=False).run(lines)
        t3 = time.perf_counter()
        runs.append((t1 - t0, t2 - t1, t3 - t2))
    read_s, parse_s, replay_s = (statistics.median(x) for x in zip(*runs, strict=True))
    print(f"  resume (play.resume, best of {repeat}): {seconds * 1000:.0f} ms  "
          f"[median read {read_s * 1000:.0f} ms + parse {parse_s * 1000:.0f} ms "
          f"+ replay {replay_s * 1000:.0f} ms]")  # fmt: skip
    for leftover in folder.iterdir():
        leftover.unlink()
    folder.rmdir()
    return seconds


def profile(scripts: list[list[str]], top: int) -> None:
    pre = [parsed(s) for s in scripts]
    profiler = cProfile.Profile()
    profiler.enable()
    for lines in pre:
        ScriptReplay().run(lines)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(top)
    print(out.getvalue())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="whole games to replay")
    parser.add_argument("--long", type=int, default=20_000, help="inputs in the long game")
    parser.add_argument("--journal", type=int, default=10_000, help="inputs in the journal")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--profile", action="store_true", help="print a cProfile of the replay")
    args = parser.parse_args(argv)
    print(f"Python {sys.version.split()[0]} on {sys.platform}")
    many = games(args.games)
    rate_games = replay_figures("whole games", many, args.repeat)
    long = [long_game(args.long)]
    rate_long = replay_figures("one long game", long, args.repeat)
    resume_s = resume_figures(args.journal, args.repeat)
    print(f"targets: replay >= 50,000 inputs/s: {min(rate_games, rate_long):,.0f}; "
          f"resume of {args.journal} inputs < 0.5 s: {resume_s:.3f} s")  # fmt: skip
    if args.profile or min(rate_games, rate_long) < 50_000:
        print("\nwhere the replay's time goes (cProfile of the whole games, by own time):")
        profile(many, 30 if args.profile else 15)


if __name__ == "__main__":
    main()
