"""Pieces of ``bench/console.py``: the console's start-up as a host sees it
(in ``testkit/terminal.py``'s pseudo-terminal) and a game night played
through the console headless (resident memory and its growth)."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from testkit.terminal import Terminal, console_env

ROOT = Path(__file__).resolve().parent.parent


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
