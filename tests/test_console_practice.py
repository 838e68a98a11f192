"""Practice speed at the console (issue 23, must-hold 10): ``companion
console --speed N`` and the simulated table's key ``t``. The pilot on a
fake clock (the key, the parts line, the journal, a resume at the journal's
speed), then the real command in a pseudo-terminal, where a practice game's
night runs out on its own in seconds: the test waits on the screen's text,
never on a clock."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

from console_driver import Host, config, console, hosting
from textual.widgets import Static

from companion import cli
from companion.console.app import ConsoleApp
from companion.console.sports.screen import TableScreen
from companion.console.table_host import PRACTICE_SPEED
from companion.runner import journal
from testkit.terminal import Terminal, console_env


def records(folder: Path) -> list[dict[str, Any]]:
    (path,) = (folder / "journals").glob("*.jsonl")
    return [json.loads(line) for line in journal.read(path).lines]


def parts(app: ConsoleApp) -> str:
    return str(app.screen.query_one("#parts", Static).render())


async def start(host: Host) -> None:
    await host.keys("ctrl+s")
    if not isinstance(host.app.screen, TableScreen):
        await host.keys("enter")  # «Начать?»: asked once
    assert isinstance(host.app.screen, TableScreen)


async def test_the_key_switches_the_practice_speed_and_the_journal_says_so(
    tmp_path: Path,
) -> None:
    app = console(config(tmp_path))
    async with hosting(app) as host:
        await start(host)
        assert "Тренировка" not in parts(app) and app.table is not None
        await host.keys("t")
        assert app.table.speed == PRACTICE_SPEED == 10.0
        assert parts(app).startswith("Тренировка ×10 · Кнопки: симуляция")
        await host.until("speech")  # the game goes on as ever: speed is not an input
        await host.keys("u")  # an undo takes back the last input, not the speed
        assert app.table.speed == 10.0
        await host.keys("t")
        assert app.table.speed == 1.0 and "Тренировка" not in parts(app)
    lines = records(tmp_path)
    assert "speed" not in lines[0]  # begun at real speed
    assert [r["factor"] for r in lines if r["input"] == "speed"] == [10.0, 1.0]
    assert lines[-1]["input"] == "speed"


def practice_options(*argv: str) -> dict[str, Any]:
    args = argparse.Namespace(service=False, inputs=None, speed=None)
    for name, value in zip(argv[::2], argv[1::2], strict=True):
        setattr(args, name.lstrip("-"), float(value))
    return cli._service_options(args)


def test_speed_without_inputs_is_a_practice_game() -> None:
    assert practice_options() == {"service": False}
    assert practice_options("--speed", "20") == {"service": False, "speed": 20.0, "practice": 20.0}
    assert practice_options("--speed", "1") == {
        "service": False,
        "speed": 1.0,
        "practice": PRACTICE_SPEED,
    }


async def test_a_practice_game_begins_at_its_speed_and_resumes_at_it(tmp_path: Path) -> None:
    cfg = config(tmp_path)
    options = practice_options("--speed", "20")
    options.pop("service")
    first = console(cfg)
    first.host.speed, first.host.practice = options["speed"], options["practice"]
    async with hosting(first) as host:
        await start(host)
        assert first.table is not None and first.table.speed == 20.0
        assert parts(first).startswith("Тренировка ×20")
        await host.until("speech")
    assert records(tmp_path)[0]["speed"] == 20.0  # journaled as such
    second = console(cfg)  # a plain console: the journal's speed wins
    async with hosting(second) as host:
        await host.keys("enter")  # «Продолжить»
        assert isinstance(second.screen, TableScreen) and second.table is not None
        assert second.table.speed == 20.0 and parts(second).startswith("Тренировка ×20")
        await host.keys("t")
        assert second.table.speed == 1.0
        await host.keys("t")  # back to the journal's practice speed
        assert second.table.speed == 20.0
    assert [r["factor"] for r in records(tmp_path) if r["input"] == "speed"] == [1.0, 20.0]


def until_new(terminal: Terminal, mark: int, *patterns: str, reads: int = 1200) -> str:
    """The first of ``patterns`` (regular expressions) the screen shows
    after ``mark`` (what it had shown by then): waits on the screen, at
    most ``reads`` short reads."""
    for _ in range(reads):
        seen = terminal.seen[mark:].replace("\r", "").replace("\n", "")
        for pattern in patterns:
            if re.search(pattern, seen):
                return pattern
        if terminal.process.poll() is not None:
            break
        terminal.read(0.05)
    raise AssertionError(f"none of {patterns} appeared:\n{terminal.seen[-2000:]}")


def start_in(terminal: Terminal) -> None:
    """F5, and «Начать» if the set-up asks before it starts."""
    mark = len(terminal.seen)
    terminal.keys("\x1b[15~")
    if until_new(terminal, mark, r"Начать игру\?", "Кнопки:") != "Кнопки:":
        terminal.keys("\r")


def test_a_practice_game_in_a_terminal(tmp_path: Path) -> None:
    """``companion console --speed 20``: night 0's 80 game-seconds pass in
    four, with no key; a plain ``companion`` resumes the game at ×20, and
    ``t`` brings it back to real time."""
    env = console_env(tmp_path)
    first = Terminal(env, ["console", "--speed", "20"])
    try:
        first.until("Новая игра")
        start_in(first)
        first.until("Тренировка ×20")
        first.until("речь игрока 1")  # the night's two steps ran out by themselves
        assert first.quit() == 0
    finally:
        first.kill()
    lines = records(tmp_path)
    assert lines[0]["speed"] == 20.0
    assert [r["input"] for r in lines[1:3]] == ["timer", "timer"]  # no key moved the night on
    second = Terminal(env)
    try:
        second.until("Есть незаконченная игра")
        second.keys("\r")  # «Продолжить»
        second.until("Тренировка ×20")
        mark = len(second.seen)
        second.keys("t")
        # The parts line written anew, without the practice speed.
        until_new(second, mark, "(?<!×20 · )Кнопки: симуляция")
        assert second.quit() == 0
    finally:
        second.kill()
    assert [r["factor"] for r in records(tmp_path) if r["input"] == "speed"] == [1.0]
    for seen in (first.seen, second.seen):
        assert "Traceback" not in seen
    assert "Traceback" not in (tmp_path / "companion.log").read_text(encoding="utf-8")
