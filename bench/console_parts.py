"""Pieces of ``bench/console.py``: the console in a pseudo-terminal (start-up
as a host sees it) and a game night played through the console headless
(resident memory and its growth)."""

from __future__ import annotations

import codecs
import fcntl
import gc
import os
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ANSI = re.compile(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[()][A-Z0-9]|\x1b[=>]|\x1b\][^\x07]*\x07")
#: an escape sequence that a read ended in (the rest comes with the next)
UNFINISHED = re.compile(r"\x1b(\[[0-9;?<>=]*[ -/]*|[()]|\][^\x07]*)?\Z")


class Terminal:
    """``companion`` on a pseudo-terminal of 160x48: keys in, text out;
    ``args``: the command's (none: the console as a host starts it);
    ``command``: what is run (``python -m companion.cli``; the start-up
    bench runs the virtualenv's ``companion`` script, as ``./run`` does)."""

    def __init__(
        self, env: dict[str, str], args: Sequence[str] = (), command: Sequence[str] = ()
    ) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 48, 160, 0, 0))
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            [*(command or (sys.executable, "-m", "companion.cli")), *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            cwd=ROOT,
            start_new_session=True,
        )
        os.close(slave)
        self.seen = ""
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending = ""

    def until(self, text: str, timeout: float = 60.0) -> float:
        """Seconds since the process started when ``text`` was on screen."""
        end = time.perf_counter() + timeout
        while text not in self.seen.replace("\r", "").replace("\n", ""):
            left = end - time.perf_counter()
            if left <= 0 or self.process.poll() is not None:
                raise RuntimeError(f"{text!r} never appeared:\n{self.seen[-2000:]}")
            self.read(min(left, 0.05))
        return time.perf_counter() - self.started

    def key(self, text: str) -> float:
        os.write(self.master, text.encode())
        return time.perf_counter() - self.started

    def keys(self, *keys: str, settle: float = 0.15) -> None:
        """Each key answered before the next, as a host types."""
        for key in keys:
            self.key(key)
            self.read(settle)

    def read(self, seconds: float) -> None:
        """What the screen shows for ``seconds``."""
        end = time.perf_counter() + seconds
        while (left := end - time.perf_counter()) > 0:
            ready, _, _ = select.select([self.master], [], [], left)
            if not ready:
                return
            try:
                data = os.read(self.master, 65536)
            except OSError:  # the process has gone
                return
            if not data:
                return
            self.seen += self._text(data)

    def _text(self, data: bytes) -> str:
        """The text of what was read, without escape sequences. A read may
        end inside a character or an escape sequence (the terminal hands
        over a frame in pieces): that part waits for the next read, so a
        word split there is still found whole."""
        text = self._pending + self._decoder.decode(data)
        cut = UNFINISHED.search(text, max(0, len(text) - 256))
        self._pending = text[cut.start() :] if cut else ""
        return ANSI.sub("", text[: cut.start()] if cut else text)

    def kill(self) -> None:
        """Kill what is left of the process's group (a test that failed)."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)

    def quit(self) -> int:
        """ctrl+q, then the exit status."""
        self.key("\x11")
        end = time.perf_counter() + 30
        try:
            while self.process.poll() is None:  # read on: a full terminal would block it
                if time.perf_counter() > end:
                    self.process.kill()
                    raise RuntimeError("the console did not quit")
                ready, _, _ = select.select([self.master], [], [], 0.05)
                if ready:
                    try:
                        os.read(self.master, 65536)
                    except OSError:
                        break
            return self.process.wait(5)
        finally:
            os.close(self.master)


def console_env(folder: Path) -> dict[str, str]:
    """A club's config in ``folder``; no PulseAudio: captions (the start-up
    of the console itself, not of a sound card)."""
    config = folder / "config.toml"
    config.write_text(
        f'[paths]\njournals = "{folder / "journals"}"\ngames = "{folder / "games"}"\n'
        f'roster = "{folder / "roster.toml"}"\n',
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PULSE", "GPIOZERO"))}
    env.update(
        COMPANION_CONFIG=str(config),
        TERM="xterm-256color",
        HOME=str(folder),
        XDG_RUNTIME_DIR=str(folder),  # no PulseAudio server there: no sound device at all
    )
    return env


def start_up(folder: Path) -> dict[str, float]:
    """Seconds from the command to the set-up screen, to the table screen
    after F5 and Enter (the set-up asks once: «Начать игру?»), and (a
    second start) to the table of the resumed game."""
    env = console_env(folder)
    first = Terminal(env)
    figures = {"setup screen": first.until("Новая игра")}
    first.key("\x1b[15~")  # F5
    first.until("Начать игру?")
    pressed = first.key("\r")
    figures["table after F5, Enter"] = first.until("Кнопки:") - pressed
    first.until("Наступает ночь")
    first.quit()
    second = Terminal(env)
    second.until("Есть незаконченная игра")
    asked = second.key("\r")
    figures["resume offered"] = asked
    figures["to the resumed table"] = second.until("Кнопки:")
    second.quit()
    return figures


def rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def open_files() -> int:
    return len(os.listdir("/proc/self/fd"))


async def game_night(
    folder: Path, hours: float, games: Callable[[int], list[Any]], render_every: int = 10
) -> dict[str, float]:
    """Bot games through the console, headless, on a fake clock, back to back
    until ``hours`` of game time: resident memory after the first game is set
    up, at the end, and the largest in between."""
    sys.path.insert(0, str(ROOT / "tests"))
    from companion.config.values import Config, PathsConfig, SeatsConfig, VoiceConfig
    from companion.console.app import ConsoleApp
    from companion.core.events import GameSetUp
    from companion.live.assembly import LiveTable
    from companion.runner.clock import FakeClock

    config = Config(
        seats=SeatsConfig(mode="simulated"),
        voice=VoiceConfig(captions_only=True),
        paths=PathsConfig(folder / "journals", folder / "games", folder / "roster.toml"),
    )
    clocks: list[FakeClock] = []

    def clock(start: float) -> FakeClock:
        clocks.append(FakeClock(start))
        return clocks[-1]

    app = ConsoleApp(config, clock=clock, threaded=False, now=datetime.now)
    played = 0.0
    figures: dict[str, float] = {}
    inputs = 0
    async with app.run_test(size=(150, 45)) as pilot:
        await pilot.pause()
        number = 0
        while played < hours * 3600:
            number += 1
            lines = games(number)
            setup = lines[0].event
            assert isinstance(setup, GameSetUp)
            app.start_game(setup, None)
            await pilot.pause()
            if number == 1:
                gc.collect()
                figures["rss at start (MB)"] = figures["rss max (MB)"] = rss_mb()
                figures["open files at start"] = open_files()
            table = app.table
            assert isinstance(table, LiveTable)  # on the fake clock: in the app's process
            for i, line in enumerate(lines[1:], 1):
                clock_now = clocks[-1].now()
                if line.at > clock_now:
                    table.advance(line.at - clock_now)
                if line.event is not None:
                    table.submit(line.event, at=line.at)
                    inputs += 1
                if i % render_every == 0:
                    await pilot.pause()  # the console draws what happened
                    figures["rss max (MB)"] = max(figures["rss max (MB)"], rss_mb())
            table.advance(600)  # the game's last timers run out
            await pilot.pause()
            played += clocks[-1].now()
            gc.collect()
            figures[f"rss after game {number} (MB)"] = rss_mb()
        await pilot.pause()
        gc.collect()
        figures["rss at end (MB)"] = rss_mb()
        figures["open files at end"] = open_files()
        figures["games"] = number
        figures["game hours"] = played / 3600
        figures["inputs"] = inputs
    return figures
