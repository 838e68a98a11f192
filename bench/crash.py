"""SIGKILL a long game at random moments, then resume it (issue 8).

Run ``python bench/crash.py`` (1 000 moments on each path; ``--moments 20``
for a quick look). For each moment it starts the game as a user would
(``python -m companion.cli replay SCRIPT --journal J``, on the fake clock or
``--realtime``), kills it with SIGKILL, runs ``companion resume J --script
SCRIPT --json`` and compares what that prints with the uninterrupted
``companion replay SCRIPT --json``. The kills are of two kinds, half each:

- external: ``SIGKILL`` from this process after a random delay, drawn
  uniformly over the whole length of an uninterrupted run (measured first,
  with as many runs side by side as the bench runs), start-up included: a
  kill may land before the journal exists or before its first line;
- the journal's own test hook (``COMPANION_CRASH_AT``, docs/journal.md) at a
  random journal line N, ``after`` it is on disk or ``mid`` way through it.

``--seed`` fixes the plan (which kind, which delay or line), so a run can be
repeated; where an external kill lands still depends on the machine. A kill
before the journal exists leaves nothing to resume: ``resume`` must say so
in one line (``companion: J: такого журнала нет…``, status 2) and the bench then
starts the game again (``replay SCRIPT --journal J``), as a user would. A
kill after the journal was made but before its first line leaves it empty:
``resume`` then plays the whole script.

Per path it prints: resumes identical to the uninterrupted run / total;
lost inputs (a script line the uninterrupted journal holds and the final
journal does not) and duplicated ones (a script line journaled twice);
resumes that failed; final journals that ``companion.runner.journal.read`` refuses
or that differ from the uninterrupted journal byte for byte. A moment that
goes wrong keeps its folder (script, crashed journal, final journal, the
commands' output, ``moment.json``); the bench names the folder.

The game is one tournament game of ~450 script lines played by
``BriskBot`` (``testkit.bots.Bot``, briskly): nobody leaves for its first
300 inputs, then it plays to its end (``--game-seed`` picks another). It is
one script for both paths.

**Why inputs keep clear of timers.** On the realtime path a feeder thread
submits each line at its time while the runtime's loop fires timers by the
real clock. An input due shortly before a timer's deadline reaches the loop
after the timer whenever the feeder is late by more than the gap (a busy
core, another process starting): the two swap, the game goes another way,
and the run no longer matches the fake-clock reference for reasons that
have nothing to do with crashes. An input *at or after* a deadline cannot
swap: the loop fires every timer due by an input's time before the input.
So every input of the script is at least ``MARGIN`` (2) game-seconds before
every deadline pending when it is taken (``clearance`` checks the finished
script); in a vote, whose window and count last 2 s, the presses come at
the moment the window opens. On this 2-core machine, with other work
running, the feeder was seen up to 28 ms late, and a margin of 1
game-second reordered 5 of 12 uninterrupted runs at ``--speed 1000`` and 11
of 18 at ``--speed 300``. The default ``--speed 50`` gives 40 ms; the game
(~590 game-seconds) then takes about 12 s. Should the clock swap an input
and a timer all the same, the moment says so (its input is journaled later
than its script time) instead of passing for a resume that went wrong.
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

if __package__ in (None, ""):  # run as a file: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import kill_parts as parts
from bench.kill_parts import Setup
from testkit.command import companion
from testkit.crash_game import clearance, crash_game

PATHS = ("replay", "realtime")
#: how ``resume`` begins its one line for a journal that is not there, in
#: the user's language (Russian by default, English with ``--lang en``)
NO_JOURNAL = ("такого журнала нет", "no such journal")


# --- one moment ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Moment:
    path: str  # "replay" or "realtime"
    index: int
    kind: str  # "external" or "hook"
    delay: float = 0.0  # external: seconds after the start
    line: int = 0  # hook: the N-th journal line
    where: str = ""  # hook: "after" or "mid"

    def label(self) -> str:
        how = f"SIGKILL at {self.delay:.3f} s" if self.kind == "external" else f"COMPANION_CRASH_AT={self.line}:{self.where}"  # fmt: skip
        return f"{self.path} #{self.index} ({how})"


@dataclass
class Outcome:
    moment: Moment
    identical: bool = False  # resume printed the reference JSON
    same_journal: bool = False  # the final journal is the uninterrupted one, byte for byte
    journal_ok: bool = False  # companion.runner.journal.read takes it, with no warning
    resume_failed: bool = False
    lost: int = 0
    duplicated: int = 0
    late: int = 0  # inputs the real clock took after a timer due later (not the crash)
    killed: bool = False  # False: the run ended before an external kill
    lines_at_kill: int = -1  # whole journal lines when killed; -1: no journal yet
    torn: bool = False  # the kill left a torn last line
    problems: list[str] = field(default_factory=list)

    @property
    def good(self) -> bool:
        return not self.problems


def play_command(path: str, setup: Setup, folder: Path, journal_path: Path) -> list[str | Path]:
    """The uninterrupted command of a path; the realtime one's JSON goes to
    ``folder/host.json``."""
    args: list[str | Path] = ["replay", setup.script, "--journal", journal_path, "--json"]
    if path == "realtime":
        args += ["--realtime", "--speed", str(setup.speed), "--captions"]
        args += ["--captions-to", folder / "captions.txt", "--host-log", folder / "host.json"]
    return args


def crash_once(moment: Moment, setup: Setup) -> Outcome:
    """Start the game, kill it, resume it, check everything; keep the folder
    of a moment that went wrong."""
    out = Outcome(moment)
    folder = setup.work / f"{moment.path}-{moment.index:04d}"
    folder.mkdir(parents=True)
    path = folder / "journal.jsonl"
    _run_and_kill(moment, setup, folder, path, out)
    parts.crashed(path, folder, out)
    _resume(setup, folder, path, out)
    if path.exists():
        parts.check_journal(setup, path, out, LATE)
    else:
        out.problems.append("no journal after resume")
    parts.settle(folder, setup, out)
    return out


#: a final journal's input taken after a timer due later
LATE = (
    "the realtime run took script line {line} after a timer due later "
    "(the real clock swapped them; not the crash)"
)


def _run_and_kill(moment: Moment, setup: Setup, folder: Path, path: Path, out: Outcome) -> None:
    crash_at = f"{moment.line}:{moment.where}" if moment.kind == "hook" else None
    argv, env = companion(*play_command(moment.path, setup, folder, path), crash_at=crash_at)
    with open(folder / "run.out", "wb") as stdout, open(folder / "run.err", "wb") as stderr:
        process = subprocess.Popen(argv, env=env, stdout=stdout, stderr=stderr)
        try:
            process.wait(timeout=moment.delay if moment.kind == "external" else 600)
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGKILL)
            process.wait()
    out.killed = process.returncode == -signal.SIGKILL
    if not out.killed and (process.returncode != 0 or moment.kind == "hook"):
        error = (folder / "run.err").read_text(errors="replace").strip()[-300:]
        out.problems.append(f"the run exited with status {process.returncode}: {error}")


def _resume(setup: Setup, folder: Path, path: Path, out: Outcome) -> None:
    done = parts.run_logged(folder, "resume", path, "--script", setup.script, "--json")
    if out.lines_at_kill < 0:
        # Killed before the journal existed: there is nothing to resume,
        # which resume must say in one line; the user then starts again.
        said = done.stderr.removeprefix(f"companion: {path}: ")
        if done.returncode != 2 or said.count("\n") > 1 or not said.startswith(NO_JOURNAL):
            out.problems.append(f"resume of no journal: status {done.returncode}: {done.stderr!r}")
        argv, env = companion("replay", setup.script, "--journal", path, "--json")
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        out.resume_failed = True
        out.problems.append(f"resume: status {done.returncode}: {done.stderr.strip()[-300:]}")
        return
    try:
        out.identical = json.loads(done.stdout) == setup.reference
    except ValueError:
        out.identical = False
    if not out.identical:
        out.problems.append("resume printed another state than the uninterrupted run")


# --- many moments ----------------------------------------------------------------


def plan(path: str, count: int, seed: int, run_seconds: float, journal_lines: int) -> list[Moment]:
    """``count`` moments, about half external kills and half hook kills."""
    rng = random.Random(f"{seed}:{path}")
    moments = []
    for index in range(count):
        if rng.random() < 0.5:
            moments.append(Moment(path, index, "external", delay=rng.uniform(0, run_seconds)))
        else:
            line, where = rng.randint(1, journal_lines), rng.choice(("after", "mid"))
            moments.append(Moment(path, index, "hook", line=line, where=where))
    return moments


def uninterrupted(path: str, setup: Setup, runs: int) -> tuple[float, list[str]]:
    """``runs`` uninterrupted runs side by side: (mean seconds, what went
    wrong in any of them)."""

    def one(index: int) -> tuple[float, str]:
        folder = setup.work / f"{path}-whole-{index}"
        folder.mkdir(parents=True)
        path_j = folder / "journal.jsonl"
        argv, env = companion(*play_command(path, setup, folder, path_j))
        start = time.monotonic()
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
        seconds = time.monotonic() - start
        result = (folder / "host.json").read_text() if path == "realtime" else done.stdout
        problem = ""
        if done.returncode != 0:
            problem = f"status {done.returncode}: {done.stderr.strip()[-300:]}"
        elif json.loads(result) != setup.reference:
            problem = "the final state differs"
        elif path_j.read_bytes() != setup.journal:
            problem = "the journal differs"
        problem += parts.late_note(path_j.read_bytes(), setup)
        return parts.whole_run(folder, setup, seconds, problem, path)

    return parts.side_by_side(one, runs)


def run_path(
    moments: list[Moment], setup: Setup, workers: int, say: Callable[[str], None]
) -> list[Outcome]:
    """Every moment, ``workers`` at a time; progress every tenth."""
    once = partial(crash_once, setup=setup)
    return parts.run_all(moments, once, workers, say, tag=lambda moment: f"{moment.path}: ")


def figures(path: str, outcomes: list[Outcome], seconds: float) -> list[str]:
    def count(test: Callable[[Outcome], object]) -> int:
        return sum(1 for o in outcomes if test(o))

    kinds = Counter(o.moment.kind for o in outcomes)
    hooks = Counter(o.moment.where for o in outcomes if o.moment.kind == "hook")
    return [
        f"{path} path: {parts.counts_figure(outcomes)}"
        f"{count(lambda o: o.resume_failed)} resume failures "
        f"({kinds['external']} external kills, {kinds['hook']} hook kills; "
        f"{count(lambda o: o.lines_at_kill <= 0)} before the first line)",
        parts.journals_figure(outcomes),
        f"  kills: hooks {hooks['after']} after / {hooks['mid']} mid-line; "
        f"{count(lambda o: o.torn)} left a torn last line; "
        f"{count(lambda o: o.lines_at_kill < 0)} came before the journal existed; "
        f"{count(lambda o: not o.killed)} runs ended before their kill; {seconds:.0f} s",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parts.moments_option(parser, 1000, "kills per path")
    parser.add_argument("--paths", default=",".join(PATHS), help="replay,realtime (both)")
    parts.options(parser, game_seed=8, speed="realtime speed", workers=3)
    args = parser.parse_args(argv)
    paths = [p for p in args.paths.split(",") if p]
    if unknown := set(paths) - set(PATHS):
        parser.error(f"--paths: unknown {', '.join(sorted(unknown))}")
    parts.check_options(parser, args)
    started = time.monotonic()
    say = parts.say
    script = crash_game(args.game_seed)
    gap, phase, span = clearance(script)
    say(f"game: {len(script)} script lines, {span:.0f} game-seconds, {phase!r} at the end; "
        f"every input {gap:.2f} game-s or more before a pending deadline "
        f"({gap / args.speed * 1000:.0f} ms at --speed {args.speed:g})")  # fmt: skip
    setup = parts.prepare(script, gap, phase, args, prefix="companion-crash-")
    if setup is None:
        return 2
    failed = False
    for path in paths:
        seconds, problems = uninterrupted(path, setup, args.workers)
        say(f"{path} path: {args.workers} uninterrupted runs side by side, {seconds:.1f} s each, "
            f"{args.workers - len(problems)}/{args.workers} identical to the reference")  # fmt: skip
        for problem in problems:
            say(f"  {problem}")
        moments = plan(path, args.moments, args.seed, seconds, setup.journal_lines)
        start = time.monotonic()
        outcomes = run_path(moments, setup, args.workers, say)
        for line in figures(path, outcomes, time.monotonic() - start):
            say(line)
        failed |= bool(problems) or not all(o.good for o in outcomes)
    return parts.finish(setup, args, started, failed)


if __name__ == "__main__":
    sys.exit(main())
