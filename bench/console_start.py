"""The console's first screen on a busy machine (issue 23, must-hold 11;
part of ``bench/console.py``, or on its own: ``python bench/console_start.py``).

``companion`` is started as a host starts it (``./run`` execs the
virtualenv's ``companion`` script with no arguments) in a pseudo-terminal,
a fresh process each start, while CPU-bound processes the bench starts
itself keep the cores busy. A start is timed from just before the fork and
exec to the moment the first screen's text is on the terminal: the set-up
screen's title, or, with an unfinished game in the journals folder, the
question whether to resume it. The console then quits (ctrl+q) and the
next start begins. The config, the journals, the roster and every XDG
folder are in a temporary HOME, so nothing of the machine's own is read.

The OS page cache is warm: the bench's first start (reported on its own)
reads the files, the measured starts find them cached; the caches are not
dropped (a machine shared with others' test runs). Python's bytecode is
cached as on a host's machine (``--bytecode cached``: a cache of the
bench's own in the temporary folder, written by the warm-up start) or
taken as this checkout has it (``--bytecode checkout``: with
PYTHONDONTWRITEBYTECODE set, as in the shells here, the project's modules
are compiled from source at every start).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from testkit.command import VIA, host_command, unfinished_game
from testkit.terminal import BYTECODE, Terminal, hermetic_env

#: what the screen says when the first screen is up (words.py, Russian)
SETUP_TEXT = "Новая игра"
RESUME_TEXT = "Есть незаконченная игра"
#: the target (issue 23): the first screen within this many seconds, p99
TARGET_S = 1.5


def neighbours(count: int) -> list[subprocess.Popen[bytes]]:
    """CPU-bound processes: the machine is busy."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process so far (its threads, not its
    children)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one_start(env: dict[str, str], text: str, via: str = "companion") -> tuple[float, float]:
    """Seconds from the exec to ``text`` on the terminal, and the CPU
    seconds the console's process had used by then (through ``./run``,
    with the shell's own that execs it, not its checks' processes)."""
    terminal = Terminal(env, command=host_command(via))
    try:
        seconds = terminal.until(text, timeout=60.0)
        cpu = cpu_seconds(terminal.process.pid)
        if terminal.quit() != 0:
            raise RuntimeError(f"the console exited with an error:\n{terminal.seen[-2000:]}")
    finally:
        kill_group(terminal)
    if "Traceback" in terminal.seen:
        raise RuntimeError(f"a traceback on the terminal:\n{terminal.seen[-2000:]}")
    return seconds, cpu


def kill_group(terminal: Terminal) -> None:
    """Nothing of a start outlives it (its spare table process included):
    the next start must not find the table's console lock taken."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(terminal.process.pid, signal.SIGKILL)
    terminal.process.wait(10)


def quantile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile, interpolated between the nearest ranks (with
    20 starts, p99 lies between the two slowest)."""
    ordered = sorted(values)
    at = q * (len(ordered) - 1)
    low = int(at)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (at - low)


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} / {five:.2f} / {fifteen:.2f}"


def first_screens(
    starts: int = 20,
    busy: int = 2,
    resume_starts: int | None = None,
    bytecode: str = "cached",
    against: Path | None = None,
    via: str = "companion",
) -> list[str]:
    """Lines of figures: ``starts`` starts to the set-up screen and
    ``resume_starts`` (default: as many) to the resume question, with
    ``busy`` CPU-bound neighbours; ``bytecode``: one of ``BYTECODE``;
    ``against``: another copy of the project (a folder holding its
    ``companion`` package, e.g. before a change), started in turn with this
    one under the same load, so that the two compare; ``via``: one of ``VIA``."""
    resume_starts = starts if resume_starts is None else resume_starts
    lines = [
        f"first screen: {host_command(via)[-1]} in a 160x48 pseudo-terminal, {busy} CPU-bound "
        f"neighbours, {os.cpu_count()} cores; load average before them (1/5/15 min): {load()}",
        f"  bytecode: {BYTECODE[bytecode]}",
    ]
    procs = neighbours(busy)
    worst = 0.0
    try:
        with tempfile.TemporaryDirectory(prefix="companion-first-") as folder:
            ours = hermetic_env(Path(folder), bytecode)
            mine = "" if against is None else "this checkout: "  # a label when compared
            envs = {mine: ours}
            if against is not None:
                envs[f"{against}: "] = {**ours, "PYTHONPATH": str(against)}  # its package first
            for label, env in envs.items():
                cold, _ = one_start(env, SETUP_TEXT, via)
                lines.append(
                    f"  {label}the bench's first start (warm-up, not counted; page cache as "
                    f"the machine had it): {cold:.2f} s"
                )
            series = [("set-up screen", SETUP_TEXT, starts)]
            if resume_starts:
                series.append(("resume question", RESUME_TEXT, resume_starts))
            for name, text, count in series:
                if text == RESUME_TEXT:
                    unfinished_game(ours, Path(folder) / "journals")
                runs: dict[str, list[tuple[float, float]]] = {label: [] for label in envs}
                for n in range(count):  # in turn, each first every other time
                    for label in list(envs)[:: 1 if n % 2 == 0 else -1]:
                        runs[label].append(one_start(envs[label], text, via))
                for label, measured in runs.items():
                    seconds = [wall for wall, _ in measured]
                    cpu = [used for _, used in measured]
                    slowest = max(measured)  # waiting for the CPU, or more to do?
                    if label == mine:
                        worst = max(worst, quantile(seconds, 0.99))
                    lines.append(
                        f"  {label}{name} ({count} starts, page cache warm): p50"
                        f" {quantile(seconds, 0.5):.2f} s  p99 {quantile(seconds, 0.99):.2f} s"
                        f"  worst {slowest[0]:.2f} s (CPU {slowest[1]:.2f} s)  best"
                        f" {min(seconds):.2f} s; the console's CPU time by then p50"
                        f" {quantile(cpu, 0.5):.2f} s; load average now {load()}"
                    )
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()
    lines.append(f"target: the first screen <= {TARGET_S} s p99: {worst:.2f} s")
    return lines


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=20, help="starts per first screen (20)")
    parser.add_argument("--busy", type=int, default=2, help="CPU-bound neighbours (2)")
    parser.add_argument(
        "--resume-starts", type=int, help="starts to the resume question (as --starts; 0: none)"
    )
    parser.add_argument("--bytecode", choices=tuple(BYTECODE), default="cached", help="(cached)")
    parser.add_argument(
        "--against", type=Path, help="another copy of the project, started in turn with this one"
    )
    parser.add_argument("--via", choices=VIA, default="companion", help="(companion)")
    args = parser.parse_args()
    started = time.perf_counter()
    figures = first_screens(
        args.starts, args.busy, args.resume_starts, args.bytecode, args.against, args.via
    )
    print("\n".join(figures))
    print(f"({time.perf_counter() - started:.0f} s)")
