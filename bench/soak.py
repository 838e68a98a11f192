"""A game night on the assembled table, faster than real time (issue 12).

Run ``python bench/soak.py`` (``--hours 4``; ``--hours 0.25`` for a quick
look). Games of ten seats, club and tournament in turn, are played back to
back by ``testkit/bots.py``'s bot through the console, as a host runs a
night: the console (``ConsoleApp``, headless under ``App.run_test``, drawing
as it goes) builds each game's table in a process of its own from the spare
it spawned at the set-up screen (``live/table_process.py``); the table writes its
journal to disk, speaks through the sound device (a private PulseAudio null
sink that the bench starts; captions with ``--captions`` or when no sound
device works) and has the console's simulated seats, which the bot presses
with the console's keys. When a game ends, the console saves its protocol
and shows it; the bot presses «n» and sets up the next game. The table's
clock runs ``--speed`` times as fast (``TableSpec.speed``), so hours of
game time pass in minutes; every timer, cue and journal line is real.

It prints, for the console's process and the game's table process,
resident memory (VmRSS), open file descriptors (``/proc/PID/fd``) and
threads (``/proc/PID/task``) when each game is set up and when it is over
(and the table's every ``--every`` game minutes in play), and the growth
from the end of the first game (the warm-up: it imports the table's
modules, loads the voice and fills Textual's caches) to the end of the
last; what grew among the console's live objects (by type; ``--trace``:
tracemalloc's sites). Targets: resident memory growth <= 10 MB, open files
and threads not growing. It asserts nothing.

What a faster clock cannot show: work done per second of the wall clock
(the console's redraws, the audio callbacks) happens ``--speed`` times less
per game hour; ``--speed 5`` is closer to the table's own pace.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import ctypes
import gc
import logging
import os
import sys
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a file: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from textual.screen import Screen
from textual.widget import Widget

from bench.console import null_sink
from bench.soak_parts import Child, Figures, Hands, LiveBot, SoakConsole, children, figures
from companion.config.values import Config, PathsConfig, SeatsConfig, VoiceConfig
from companion.console.protocol_screen import ProtocolScreen

#: odd games club, even games tournament
RULESETS = ("tournament", "club")
#: wall seconds allowed for a table to be set up, and for a protocol to show
WAIT_S = 60.0


@dataclass(frozen=True, slots=True)
class Mark:
    """Both processes at one moment of the night."""

    label: str
    game_hours: float  # game time played by then, every game
    console: Figures
    table: Figures | None
    children: tuple[Child, ...]


@dataclass
class Report:
    marks: list[Mark] = field(default_factory=list)
    games: list[tuple[str, int, float]] = field(default_factory=list)  # ruleset, inputs, seconds
    sound: bool = False
    unanswered: int = 0  # inputs the console heard nothing back about within the bot's wait
    keys: int = 0  # inputs given with the console's keys
    dialogs: int = 0  # inputs given as the console's dialogs end
    updates: int = 0  # updates the console heard from its tables
    refusals: int = 0  # refusals it heard
    objects: list[tuple[str, int]] = field(default_factory=list)  # console: type, growth
    #: the console's Textual widgets and screens alive after the warm-up and at the end
    widgets: dict[str, tuple[int, int]] = field(default_factory=dict)
    every: float = 600.0  # game seconds between samples
    #: game number -> (game seconds, the table's figures, the console's) in play
    samples: dict[int, list[tuple[float, Figures, Figures]]] = field(default_factory=dict)
    traced: list[str] = field(default_factory=list)


class Night:
    """Plays the night on its own thread; the app runs on the event loop."""

    def __init__(self, app: SoakConsole, hands: Hands, args: argparse.Namespace) -> None:
        """``args``: the command's (hours, every, trace, trim)."""
        self.app, self.hands, self.hours = app, hands, args.hours
        self.trace, self.trim = args.trace, args.trim
        self.every = args.every * 60  # game seconds between samples of both processes
        self.report = Report(every=self.every)
        self._playing: int | None = None  # the number of the game in play
        self._done = threading.Event()
        self.error: BaseException | None = None
        self._counts: collections.Counter[str] = collections.Counter()
        self._snapshot: tracemalloc.Snapshot | None = None
        self._used: set[int] = set()  # table processes seen so far
        self.table_pid: int | None = None  # the current game's

    def run(self) -> None:
        sampler = threading.Thread(target=self._sample, name="soak samples", daemon=True)
        sampler.start()
        try:
            self._play()
        except BaseException as error:  # said by the main thread
            self.error = error
        finally:
            self._done.set()
            sampler.join()

    def _sample(self) -> None:
        """Both processes every ``every`` game seconds of each game in play
        (no collection first: as they are)."""
        due, game = self.every, None
        while not self._done.wait(0.25):
            number, pid = self._playing, self.table_pid
            if number != game:
                due, game = self.every, number
            if number is None or pid is None or self._game_time() < due:
                continue
            table = figures(pid)
            if table is not None:
                taken = (self._game_time(), table, figures_now(None))
                self.report.samples.setdefault(number, []).append(taken)
            due += self.every

    def _play(self) -> None:
        app, news = self.app, self.app.news
        played = 0.0
        number = 0
        while number < 2 or played < self.hours * 3600:
            number += 1
            ruleset = RULESETS[number % 2]
            if number > 1:
                self.hands.key("n")  # the protocol screen's key: the set-up screen
            # The host looks at the set-up screen while the spare table process starts.
            _until(lambda: self._spare() is not None, WAIT_S, "the spare table process")
            self.table_pid = self._spare()
            self._used.add(self.table_pid or 0)
            bot = LiveBot(number, ruleset, self.hands, news, self._game_time, app.speed)
            news.reset()
            app.call_from_thread(app.start_game, bot.setup, None)
            if not news.wait(lambda n: n.update is not None and n.update.game is not None, WAIT_S):
                raise RuntimeError(f"game {number}: the table was not set up")
            self.report.sound = bool(getattr(app.table, "sound", False))
            self.mark(f"game {number} set up", played)
            self._playing = number
            bot.play()
            self._playing = None
            self.report.unanswered += bot.unanswered
            _until(lambda: isinstance(app.screen, ProtocolScreen), WAIT_S, "the protocol")
            seconds = news.latest_at
            played += seconds
            self.report.games.append((ruleset, bot.sent, seconds))
            self.mark(f"game {number} over", played)
            if number == 1:  # the warm-up is over: what grows from here on is counted
                self._counts = _object_counts()
                if self.trace:
                    tracemalloc.start()
                    self._snapshot = tracemalloc.take_snapshot()
        now = _object_counts()
        for kind in ("<widgets>", "<screens>"):
            self.report.widgets[kind] = (self._counts[kind], now[kind])
        grown = now.copy()
        grown.subtract(self._counts)
        self.report.objects = [(name, n) for name, n in grown.most_common(8) if n > 0]
        if self._snapshot is not None:
            end = tracemalloc.take_snapshot()
            for group in ("filename", "lineno"):  # by module, then by line
                stats = end.compare_to(self._snapshot, group)
                self.report.traced += [_traced(stat) for stat in stats[:8]]
            tracemalloc.stop()

    def _spare(self) -> int | None:
        """The spare table process, once the console has spawned it (it
        loads its parts while the host sets up the game): the next table."""
        for child in children():
            if child.what == "table" and child.pid not in self._used and child.state != "Z":
                return child.pid
        return None

    def _game_time(self) -> float:
        table = self.app.table
        return table.now() if table is not None else 0.0

    def mark(self, label: str, played: float) -> None:
        gc.collect()  # the console's own garbage; the table's process collects its own
        if self.trim:  # what the C heap holds freed goes back to the system
            ctypes.CDLL("libc.so.6").malloc_trim(0)
        pid = self.table_pid
        self.report.marks.append(
            Mark(
                label,
                played / 3600,
                figures_now(None),
                figures(pid) if pid is not None else None,
                tuple(children()),
            )
        )
        print(_row(self.report.marks[-1]), flush=True)


def figures_now(pid: int | None) -> Figures:
    found = figures(os.getpid() if pid is None else pid)
    assert found is not None
    return found


def _until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise RuntimeError(f"{what}: not there after {timeout:.0f} s")
        time.sleep(0.05)


def _object_counts() -> collections.Counter[str]:
    """Live objects by type; Textual's widgets and screens counted apart
    too (``<widgets>``, ``<screens>``): a screen kept after it has gone
    would hold its widgets and everything they drew."""
    gc.collect()
    counts: collections.Counter[str] = collections.Counter()
    for thing in gc.get_objects():
        counts[type(thing).__qualname__] += 1
        if isinstance(thing, Widget):
            counts["<screens>" if isinstance(thing, Screen) else "<widgets>"] += 1
    return counts


def _traced(stat: Any) -> str:
    frame = stat.traceback[0]
    return f"{stat.size_diff / 1024:+9.1f} KiB {stat.count_diff:+7d} blocks  {frame.filename}:{frame.lineno}"


def _row(mark: Mark) -> str:
    c, t = mark.console, mark.table
    table = f"{t.pid:>7d} {t.rss_mb:7.1f} {t.fds:4d} {t.threads:4d}" if t else " " * 25
    kids = ", ".join(
        f"{c.what} {c.pid}{' (zombie)' if c.state == 'Z' else ''}" for c in mark.children
    )
    return (
        f"  {mark.label:24s} {_hours(mark.game_hours):>8s}  {c.rss_mb:7.1f} {c.fds:4d} "
        f"{c.threads:4d} | {table} | {kids}"
    )


def _hours(hours: float) -> str:
    seconds = round(hours * 3600)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


async def night(folder: Path, args: argparse.Namespace) -> Report:
    log_file = folder / "companion.log"
    # As the console's command does: warnings go to a log file beside the
    # journals, and the table's process writes there too.
    logging.basicConfig(
        filename=log_file,
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        force=True,
    )
    config = Config(
        seats=SeatsConfig(mode="simulated"),
        voice=VoiceConfig(captions_only=args.captions),
        paths=PathsConfig(folder / "journals", folder / "games", folder / "roster.toml"),
    )
    app = SoakConsole(config, args.speed)
    async with app.run_test(size=(150, 45)):  # headless, as the pilot's tests run it
        hands = Hands(app)
        driver = Night(app, hands, args)
        thread = threading.Thread(target=driver.run, name="soak bot", daemon=True)
        thread.start()
        while thread.is_alive():
            await asyncio.sleep(0.05)  # the app runs meanwhile: it draws and takes keys
        if driver.error is not None:
            raise driver.error
    report = driver.report
    report.keys, report.dialogs = hands.keys, hands.submitted
    report.updates, report.refusals = app.news.updates, app.news.refusals
    return report


def summary(report: Report, log_file: Path) -> list[str]:
    marks = report.marks
    first, last = marks[1], marks[-1]  # the warm-up game's end, the night's end
    c0, c1 = first.console, last.console
    lines = [
        f"games: {len(report.games)} ("
        + ", ".join(f"{r} {s / 60:.0f} min {n} inputs" for r, n, s in report.games)
        + f"); {last.game_hours:.2f} game hours",
        f"inputs at the console: {report.keys} keys, {report.dialogs} as dialogs end; "
        f"{report.updates} updates and {report.refusals} refusals heard back; "
        f"{report.unanswered} inputs with no answer within the bot's wait",
        f"measured from the end of game 1 (the warm-up: the first game imports "
        f"and caches) to the end of game {len(report.games)}:",
        f"  console (pid {c1.pid}): resident memory {c0.rss_mb:.1f} -> {c1.rss_mb:.1f} MB "
        f"({c1.rss_mb - c0.rss_mb:+.1f} MB), open files {c0.fds} -> {c1.fds} "
        f"({c1.fds - c0.fds:+d}), threads {c0.threads} -> {c1.threads} ({c1.threads - c0.threads:+d})",
    ]
    tables = [m.table for m in marks[1:] if m.table is not None]
    if first.table is not None and last.table is not None:
        t0, t1 = first.table, last.table
        rss = [t.rss_mb for t in tables]
        lines.append(
            f"  table process (a new one each game): at game over {t0.rss_mb:.1f} -> "
            f"{t1.rss_mb:.1f} MB ({t1.rss_mb - t0.rss_mb:+.1f} MB; {min(rss):.1f}-{max(rss):.1f} MB "
            f"over the games), open files {t0.fds} -> {t1.fds} ({t1.fds - t0.fds:+d}), "
            f"threads {t0.threads} -> {t1.threads} ({t1.threads - t0.threads:+d})"
        )
    lines.append(
        f"  each game's table: resident memory (MB) at set-up | every {report.every / 60:g} "
        "game min | at game over; threads the same; the console's largest in the game:"
    )
    for number, taken in sorted(report.samples.items()):
        start = next(m for m in marks if m.label == f"game {number} set up")
        end = next(m for m in marks if m.label == f"game {number} over")
        if start.table is None or end.table is None:
            continue
        memory = " ".join(f"{t.rss_mb:.1f}" for _, t, _ in taken)
        threads = " ".join(str(t.threads) for _, t, _ in taken)
        console = max(c.rss_mb for _, _, c in taken)
        lines.append(
            f"    game {number}: {start.table.rss_mb:.1f} | {memory} | {end.table.rss_mb:.1f}; "
            f"threads {start.table.threads} | {threads} | {end.table.threads}; console {console:.1f}"
        )
    most = max(len(m.children) for m in marks)
    zombies = sum(c.state == "Z" for m in marks for c in m.children)
    lines.append(f"  child processes at any mark: at most {most}; zombies: {zombies}")
    if report.objects:
        grown = ", ".join(f"{name} {n:+d}" for name, n in report.objects)
        lines.append(f"  console objects that grew in number (gc): {grown}")
    alive = ", ".join(f"{kind[1:-1]} {a} -> {b}" for kind, (a, b) in report.widgets.items())
    lines.append(f"  console: Textual objects alive after the warm-up and at the end: {alive}")
    if report.traced:  # tracemalloc's own records are in the resident memory figures too
        lines.append("  traced in the console from the end of game 1 (by file, then by line):")
    lines += [f"    {line}" for line in report.traced]
    levels: collections.Counter[str] = collections.Counter()
    said: dict[str, int] = {}
    for line in log_file.read_text(encoding="utf-8", errors="replace").splitlines():
        parts = line.split(" ", 4)
        if len(parts) == 5 and parts[2] in ("WARNING", "ERROR", "CRITICAL"):
            levels[parts[2]] += 1
            said[parts[4][:120]] = said.get(parts[4][:120], 0) + 1
    lines.append(
        f"  log: {levels['WARNING']} warnings, {levels['ERROR'] + levels['CRITICAL']} errors"
    )
    lines += [f"    {n} x {text}" for text, n in sorted(said.items(), key=lambda kv: -kv[1])[:6]]
    ok_rss = c1.rss_mb - c0.rss_mb <= 10
    ok_files = c1.fds <= c0.fds and c1.threads <= c0.threads
    lines.append(
        f"targets: console resident memory growth <= 10 MB: {c1.rss_mb - c0.rss_mb:+.1f} MB "
        f"({'met' if ok_rss else 'NOT met'}); open files and threads not growing: "
        f"{c1.fds - c0.fds:+d} / {c1.threads - c0.threads:+d} ({'met' if ok_files else 'NOT met'})"
    )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hours", type=float, default=4.0, help="game time played (4)")
    parser.add_argument("--speed", type=float, default=30.0, help="game seconds per second (30)")
    parser.add_argument("--every", type=float, default=10, help="game minutes between samples (10)")
    parser.add_argument("--captions", action="store_true", help="no sound: captions only")
    parser.add_argument(
        "--trim", action="store_true", help="the console's malloc_trim(0) before each mark"
    )
    parser.add_argument(
        "--trace",
        action="store_true",
        help="tracemalloc in the console after game 1 (its own records then count in its memory)",
    )
    args = parser.parse_args()
    started = time.monotonic()
    print(f"load average at the start: {_load()}")
    with tempfile.TemporaryDirectory(prefix="companion-soak-") as name, null_sink():
        folder = Path(name)
        print(
            f"a game night: the console headless (Textual's run_test), each game's table in a "
            f"process of its own, its clock x{args.speed:g}; journals in {folder}"
            + ("; the console's malloc_trim(0) before each mark" if args.trim else "")
        )
        print(
            f"  {'mark':24s} {'game t':>8s}  console: MB  fds  thr | table pid:  MB  fds  thr | children"
        )
        report = asyncio.run(night(folder, args))
        print(
            f"the voice: {'sound, through the sound device' if report.sound else 'captions'}; "
            "the seats: simulated, pressed by the console's keys"
        )
        print("\n".join(summary(report, folder / "companion.log")))
    left = ", ".join(f"{c.what} {c.pid} ({c.state})" for c in children()) or "none"
    print(f"child processes left after the console quit: {left}")
    print(f"wall time {time.monotonic() - started:.0f} s; load average at the end: {_load()}")


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text(encoding="ascii").split()[:3])


if __name__ == "__main__":
    main()
