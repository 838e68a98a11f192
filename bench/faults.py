"""SIGKILL the console the service runs, then start it again as systemd would
(issue 12).

Run ``python bench/faults.py`` (200 moments; ``--moments 20`` for a quick
look). Each moment starts, in a pseudo-terminal, exactly the command of the
service's unit::

    python -m companion.cli console --service --inputs SCRIPT --speed N

with a club's config of its own (``COMPANION_CONFIG`` in a folder of the
moment: journals, games, roster, ``companion.log``; no sound card:
captions), and with ``NOTIFY_SOCKET`` pointing at a socket of the bench, as
systemd's would. ``--inputs`` feeds a short game's script into the live
table as its host and seats would (console/script_inputs.py: the game
starts from the script's setup line; after a restart the script goes on
after the inputs its journal holds). After a random delay, drawn uniformly
over the length of an uninterrupted run (start-up included: measured first,
with as many runs side by side as the bench runs), the bench kills the
whole process group with SIGKILL — the console and its table's process
together, as a power cut would — waits until every process of it is gone,
and starts the same command again, until the script is done: the service
has said ``READY=1`` and the journal holds as many lines as the
uninterrupted run's. A start that never gets there (the console exits, a
traceback, no progress within the time limit) is a failed restart; the
bench kills it and starts again (at most three times).

Then it compares, for each moment, the final journal with the one ``companion
replay SCRIPT --journal`` writes (byte for byte, and clean by
``companion.runner.journal.read``), what ``companion resume J --json``
prints with ``companion replay SCRIPT --json``, and counts lost inputs (a
script line the uninterrupted journal holds and the final one does not) and
duplicated ones (a script line journaled twice). A game begun again after
the script was played (a second journal newer than the game's) is a fault
too. It prints: runs identical / total, lost, duplicated, failed restarts,
and the kills' spread. A moment that went wrong keeps its folder (config,
journals, the crashed journal, ``companion.log``, the screens' text,
``moment.json``); the bench names it.

**Time.** The live table keeps time by the real clock, yet the final state
must be the fake-clock replay's. The script is ``testkit/crash_game.py``'s
(every input at least 2 game-seconds before every pending deadline), and
the scripted source hands each line to the table ``LAG_S`` (2 s) of the wall
clock before the table's clock reaches it, stamped with its script time: an
input can only be taken after a timer due later if it reaches the table
more than ``LAG_S`` late (docs/console.md, ``--inputs``). Such a swap is
reported as such (an input journaled later than its script time), not as a
fault of the restart.

**Cost.** One run is a console's start-up (Textual, the table's process and
its imports) and a game of 86 inputs and ~110 game-seconds at ``--speed
50`` (~2.5 s): a moment costs two start-ups and a game. On the project's
2-core machine with other work running (load 2 to 7), an uninterrupted run
took 8 to 10 s from the command to the game's end, and 200 moments 24 to 32
minutes with ``--workers 2``. The start-up is then about two thirds of a
run, so about two thirds of the kills land before the journal exists; a
lower ``--speed`` puts more of them mid-game.
"""

from __future__ import annotations

import argparse
import json
import random
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
from bench.service_start import TRACEBACK, Service, complete, final_journal, journals, lines_in
from testkit.crash_game import clearance, crash_game

#: starts of the service after a kill before the bench gives up on a moment
MAX_STARTS = 3


# --- one moment ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Moment:
    index: int
    delay: float = 0.0  # seconds after the start (the bench's kills)
    line: int = 0  # or: once the journal holds this many lines (the test's)

    def label(self) -> str:
        when = f"at journal line {self.line}" if self.line else f"at {self.delay:.3f} s"
        return f"#{self.index} (SIGKILL {when})"


@dataclass
class Outcome:
    moment: Moment
    identical: bool = False  # resume printed the uninterrupted run's state
    same_journal: bool = False  # the final journal is the uninterrupted one, byte for byte
    journal_ok: bool = False  # companion.runner.journal.read takes it, with no warning
    lost: int = 0
    duplicated: int = 0
    late: int = 0  # inputs the real clock took after a timer due later (not the kill)
    starts: int = 0  # starts after the kill
    failed_starts: int = 0  # ... that did not bring the game to its end
    done_before_kill: bool = False  # the script was played when the kill came
    lines_at_kill: int = -1  # whole lines of the game's journal when killed; -1: none yet
    torn: bool = False  # the kill left a torn last line
    leftover: int = 0  # empty journals a kill during a start left behind
    problems: list[str] = field(default_factory=list)

    @property
    def good(self) -> bool:
        return not self.problems


def fault_once(moment: Moment, setup: Setup, limit: float) -> Outcome:
    """Start the service, kill it, start it again until the script is done,
    check everything; keep the folder of a moment that went wrong.
    ``limit``: seconds a start may take to finish the game."""
    out = Outcome(moment)
    folder = setup.work / f"moment-{moment.index:04d}"
    folder.mkdir(parents=True)
    first = Service(folder, setup)
    _until_kill(first, moment, setup, limit, out)
    first.kill()
    (folder / "screen-0.txt").write_text(first.screens)
    parts.crashed(next(iter(journals(folder)), None), folder, out)
    _restart(folder, setup, limit, out)
    if out.starts > out.failed_starts:
        _check(folder, setup, out)
    parts.settle(folder, setup, out)
    return out


def _until_kill(service: Service, moment: Moment, setup: Setup, limit: float, out: Outcome) -> None:
    end = service.started + (moment.delay if not moment.line else limit)
    while (left := end - time.monotonic()) > 0:
        service.pump(min(left, 0.02))
        if moment.line and lines_in(final_journal(service.folder)) >= moment.line:
            break
        if service.exited() is not None:
            out.problems.append(
                f"the service exited by itself ({service.exited()}) before its kill"
            )
            break
    out.done_before_kill = service.ready and complete(service.folder, setup)


def _restart(folder: Path, setup: Setup, limit: float, out: Outcome) -> None:
    """Start the service again until the script is done (at most ``MAX_STARTS``)."""
    for start in range(1, MAX_STARTS + 1):
        out.starts += 1
        service = Service(folder, setup)
        why = _until_done(service, setup, limit)
        if not why:
            status = service.quit()
            if status != 0:
                out.problems.append(f"start {start}: ctrl+q ended the service with status {status}")
        else:
            service.kill()
            out.failed_starts += 1
            out.problems.append(f"start {start}: {why}")
        (folder / f"screen-{start}.txt").write_text(service.screens)
        if service.traceback:
            out.problems.append(f"start {start}: a traceback on the screen")
        if not why:
            return


def _until_done(service: Service, setup: Setup, limit: float) -> str:
    """Until the service said READY=1 and the journal is whole: "" then,
    else what went wrong."""
    while time.monotonic() - service.started < limit:
        service.pump(0.05)
        if service.ready and complete(service.folder, setup):
            service.pump(0.3)  # a game begun again would show its journal now
            return ""
        if (status := service.exited()) is not None:
            return f"the service exited by itself (status {status})"
    if not service.ready:
        return f"no READY=1 in {limit:.0f} s"
    return f"the game did not reach its end in {limit:.0f} s"


def _check(folder: Path, setup: Setup, out: Outcome) -> None:
    path = final_journal(folder)
    if path is None:
        out.problems.append("no journal")
        return
    every = journals(folder)
    if every[0] != path:
        out.problems.append(f"{every[0].name}: a game begun after the script's was played")
    out.leftover = sum(1 for p in every if p != path and not p.stat().st_size)
    if len(every) - 1 - out.leftover:
        out.problems.append(f"{len(every) - 1 - out.leftover} more journals with lines")
    parts.check_journal(setup, path, out, LATE)
    done = parts.run_logged(folder, "resume", path, "--json")
    try:
        out.identical = done.returncode == 0 and json.loads(done.stdout) == setup.reference
    except ValueError:
        out.identical = False
    if not out.identical:
        out.problems.append(f"resume printed another state (status {done.returncode})")
    log = folder / "companion.log"
    if log.exists() and TRACEBACK in log.read_text(encoding="utf-8", errors="replace"):
        out.problems.append("a traceback in companion.log")


#: a final journal's input taken after a timer due later
LATE = (
    "script line {line} was taken after a timer due later "
    "(the real clock swapped them; not the kill)"
)


# --- many moments ----------------------------------------------------------------------


def uninterrupted(setup: Setup, runs: int, limit: float) -> tuple[float, list[str]]:
    """``runs`` uninterrupted runs side by side: (mean seconds from the
    command to the game's end, what went wrong in any of them)."""

    def one(index: int) -> tuple[float, str]:
        folder = setup.work / f"whole-{index}"
        folder.mkdir(parents=True)
        service = Service(folder, setup)
        why = _until_done(service, setup, limit)
        seconds = time.monotonic() - service.started
        if why:
            service.kill()
        else:
            service.quit()
        problem = why
        if not why and (final := final_journal(folder)) is not None:
            if final.read_bytes() != setup.journal:
                problem = "the journal differs from the replay's"
            problem += parts.late_note(final.read_bytes(), setup)
        if problem:
            (folder / "screen.txt").write_text(service.screens)
        return parts.whole_run(folder, setup, seconds, problem, index)

    return parts.side_by_side(one, runs)


def plan(count: int, seed: int, run_seconds: float) -> list[Moment]:
    """``count`` kills, uniform over an uninterrupted run."""
    rng = random.Random(seed)
    return [Moment(index, delay=rng.uniform(0, run_seconds)) for index in range(count)]


def run_moments(
    moments: list[Moment], setup: Setup, workers: int, limit: float, say: Callable[[str], None]
) -> list[Outcome]:
    """Every moment, ``workers`` at a time; progress every tenth."""
    return parts.run_all(moments, partial(fault_once, setup=setup, limit=limit), workers, say)


def figures(outcomes: list[Outcome], seconds: float, journal_lines: int) -> list[str]:
    def count(test: Callable[[Outcome], object]) -> int:
        return sum(1 for o in outcomes if test(o))

    at_kill = Counter(
        "before the journal" if o.lines_at_kill < 0
        else "before its first line" if o.lines_at_kill == 0
        else "after the script was played" if o.done_before_kill
        else "mid-game"
        for o in outcomes
    )  # fmt: skip
    return [
        f"faults: {parts.counts_figure(outcomes)}"
        f"{sum(o.failed_starts for o in outcomes)} failed restarts "
        f"(of {sum(o.starts for o in outcomes)} restarts)",
        parts.journals_figure(outcomes),
        f"  kills: {at_kill['before the journal']} before the journal existed, "
        f"{at_kill['before its first line']} before its first line, {at_kill['mid-game']} "
        f"mid-game (of {journal_lines} lines), {at_kill['after the script was played']} after "
        f"the script was played; {count(lambda o: o.torn)} left a torn last line, "
        f"{sum(o.leftover for o in outcomes)} an empty journal; {seconds:.0f} s",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parts.moments_option(parser, 200, "kills")
    parts.options(parser, game_seed=12, speed="the script's speed", workers=2)
    args = parser.parse_args(argv)
    parts.check_options(parser, args)
    started = time.monotonic()
    say = parts.say

    script = crash_game(args.game_seed, calm_inputs=0)
    gap, phase, span = clearance(script)
    say(f"game: {len(script)} script lines, {span:.0f} game-seconds, {phase!r} at the end, "
        f"every input {gap:.2f} game-s or more before a pending deadline; --speed {args.speed:g}")  # fmt: skip
    setup = parts.prepare(script, gap, phase, args, prefix="companion-faults-")
    if setup is None:
        return 2
    first_limit = 120 + 4 * span / args.speed
    seconds, problems = uninterrupted(setup, args.workers, first_limit)
    say(f"{args.workers} uninterrupted runs side by side: {seconds:.1f} s each from the command "
        f"to the game's end, {args.workers - len(problems)}/{args.workers} identical to the replay")  # fmt: skip
    for problem in problems:
        say(f"  {problem}")
    limit = max(120.0, 4 * seconds)  # a start on a loaded machine is slow, not failed
    moments = plan(args.moments, args.seed, seconds)
    start = time.monotonic()
    outcomes = run_moments(moments, setup, args.workers, limit, say)
    for line in figures(outcomes, time.monotonic() - start, setup.journal_lines):
        say(line)
    return parts.finish(setup, args, started, bool(problems) or not all(o.good for o in outcomes))


if __name__ == "__main__":
    sys.exit(main())
