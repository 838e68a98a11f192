"""Pictures of the console's screens (issues 9 and 23), kept in the repo
(tests/__snapshots__/test_console_snapshots/) and shown in docs/console.md:
the set-up screen, the table in a day speech, in a vote and at night, the
forum screen and the protocol, each at the four sizes the console is laid
out for (80x24, the Pi's console at a low resolution; 100x30, the official
7" screen; 160x48; 200x60), and the dialogs at 80x24.

A change to what the host sees shows up here as a failed comparison (the
report, snapshot_report.html, shows both pictures). After a look at the
new pictures, one command takes them all::

    .venv/bin/python -m pytest tests/test_console_snapshots.py --snapshot-update

Deterministic: a fixed deal seed, the fake table clock, a fixed date and
forum clock, relative paths for the protocol's files."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from console_driver import Host, config, console
from textual.pilot import Pilot

from companion.config.values import Config, TableConfig
from companion.console.app import ConsoleApp
from companion.console.dialogs import AskYesNo
from companion.runner.clock import Clock, FakeClock

#: the sizes the console is laid out for (console.tcss), by the names the
#: pictures carry
SIZES = {"80x24": (80, 24), "100x30": (100, 30), "160x48": (160, 48), "200x60": (200, 60)}
#: the forum clock of the forum's pictures
MORNING = datetime(2026, 12, 1, 10, 0)

Scene = Callable[[Pilot[Any]], Awaitable[None]]
sizes = pytest.mark.parametrize("size", list(SIZES))


def host_of(pilot: Pilot[Any]) -> Host:
    return Host(pilot.app, pilot)  # type: ignore[arg-type]


async def to_day_one(pilot: Pilot[Any]) -> Host:
    host = host_of(pilot)
    await host.keys("ctrl+s", "enter")  # the set-up asks once
    await host.until("speech")
    return host


def forum_console(cfg: Config) -> ConsoleApp:
    """The forum game's console, its forum clock stopped at ``MORNING``."""
    cfg = dataclasses.replace(cfg, table=TableConfig(ruleset="forum", seats=20))

    def clock(start: float) -> Clock:
        return FakeClock(start)

    return ConsoleApp(cfg, clock=clock, threaded=False, now=lambda: MORNING, seed=7)


# --- the scenes ---------------------------------------------------------------------


async def setup_names(pilot: Pilot[Any]) -> None:
    await host_of(pilot).keys(*"Аня", "tab", "tab", *"Boris")


async def day_speech(pilot: Pilot[Any]) -> None:
    """Day 1, seat 1 speaking with 9 s left; 4 nominated, 6 on two fouls."""
    host = await to_day_one(pilot)
    await host.nominate(4)
    await host.offence(6, "речь")
    await host.offence(6, "речь")
    await host.wait(51)  # the warning: 9 s left


async def vote(pilot: Pilot[Any]) -> None:
    """The vote on seat 4 of 4 and 9, three hands down."""
    host = await to_day_one(pilot)
    await host.nominate(4)
    await host.next()
    await host.nominate(9)
    await host.until("vote")
    await host.seat(1, 2, 5)


async def night(pilot: Pilot[Any]) -> None:
    """Night 1 after a day without nominations, the roles shown."""
    host = await to_day_one(pilot)
    await host.offence(3, "речь")
    await host.until("night")
    await host.keys("r")


async def proposal(pilot: Pilot[Any]) -> None:
    host = await to_day_one(pilot)
    await host.nominate(4)
    await host.next()
    await host.nominate(9)
    await host.until("vote")
    await host.seat(1, 2)
    await host.seat(2)  # lifted before «Спасибо»: the table proposes a foul (4.6.4)


async def forum_day(pilot: Pilot[Any]) -> None:
    host = host_of(pilot)
    await host.keys("ctrl+s", "enter")


async def stopped(pilot: Pilot[Any]) -> None:
    """The protocol of a game stopped on day 1 after a foul."""
    host = await to_day_one(pilot)
    await host.offence(3, "речь")
    await host.keys("e")
    await host.type("пожарная тревога")
    if isinstance(pilot.app.screen, AskYesNo):  # a game-ending key may ask first
        await pilot.click("#yes")
    await pilot.pause()


def snap(snap_compare: Any, app: ConsoleApp, size: str, scene: Scene | None) -> bool:
    result: bool = snap_compare(app, terminal_size=SIZES[size], run_before=_undrawn(scene))
    return result


def _undrawn(scene: Scene | None) -> Scene | None:
    """The scene played with the screen's drawing held (Textual's
    ``batch_update``): the picture is of where the keys lead, drawn once at
    the end; drawing after each of a scene's hundred-odd keys was most of
    its time (every key's drawing is in the whole games by keys)."""
    if scene is None:
        return None

    async def played(pilot: Pilot[Any]) -> None:
        with pilot.app.batch_update():
            await scene(pilot)
        await pilot.pause()

    return played


# --- every screen at every size ---------------------------------------------------------


@sizes
def test_setup_screen(snap_compare: Any, tmp_path: Path, size: str) -> None:
    assert snap(snap_compare, console(config(tmp_path)), size, setup_names)


@sizes
def test_table_in_a_speech(snap_compare: Any, tmp_path: Path, size: str) -> None:
    assert snap(snap_compare, console(config(tmp_path)), size, day_speech)


@sizes
def test_table_in_a_vote(snap_compare: Any, tmp_path: Path, size: str) -> None:
    assert snap(snap_compare, console(config(tmp_path)), size, vote)


@sizes
def test_table_at_night(snap_compare: Any, tmp_path: Path, size: str) -> None:
    assert snap(snap_compare, console(config(tmp_path)), size, night)


@sizes
def test_forum_screen(snap_compare: Any, tmp_path: Path, size: str) -> None:
    assert snap(snap_compare, forum_console(config(tmp_path)), size, forum_day)


@sizes
def test_protocol_screen(
    snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: str
) -> None:
    monkeypatch.chdir(tmp_path)  # the files saved are named as the same relative paths
    assert snap(snap_compare, console(config(Path("."))), size, stopped)


def test_table_with_a_proposal_waiting(snap_compare: Any, tmp_path: Path) -> None:
    assert snap(snap_compare, console(config(tmp_path)), "100x30", proposal)


# --- the dialogs on the smallest screen ------------------------------------------------


def test_keys_map(snap_compare: Any, tmp_path: Path) -> None:
    async def keys_map(pilot: Pilot[Any]) -> None:
        host = await to_day_one(pilot)
        await host.keys("question_mark")

    assert snap(snap_compare, console(config(tmp_path)), "80x24", keys_map)


def test_offence_list(snap_compare: Any, tmp_path: Path) -> None:
    async def offences(pilot: Pilot[Any]) -> None:
        host = await to_day_one(pilot)
        await host.keys("o")
        await host.type("3")

    assert snap(snap_compare, console(config(tmp_path)), "80x24", offences)


def test_ask_text(snap_compare: Any, tmp_path: Path) -> None:
    async def nominate(pilot: Pilot[Any]) -> None:
        host = await to_day_one(pilot)
        await host.keys("n")

    assert snap(snap_compare, console(config(tmp_path)), "80x24", nominate)


def test_resume_question(snap_compare: Any, tmp_path: Path) -> None:
    async def quit_in_a_speech() -> None:
        app = console(config(tmp_path))
        async with app.run_test(size=SIZES["80x24"]) as pilot:
            await pilot.pause()
            await to_day_one(pilot)

    asyncio.run(quit_in_a_speech())  # the game left unfinished in its journal
    assert snap(snap_compare, console(config(tmp_path)), "80x24", None)
