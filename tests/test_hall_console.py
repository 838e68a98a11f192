"""The hall's line in the console's parts line: «Зал: нет связи, N событий
ждут» while the broker is away, «Зал: всё доставлено» once it has
everything (a real publisher process, a real Mosquitto started late)."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

from console_driver import config, console, hosting
from hall_broker import make_hall, needs_mosquitto
from textual.widgets import Static

from companion.config.values import HallConfig
from companion.console.app import ConsoleApp
from companion.console.sports.screen import TableScreen
from companion.hall.broker import credentials, start_broker, stop_broker

pytestmark = needs_mosquitto


def parts(app: ConsoleApp) -> str:
    return str(app.screen.query_one("#parts", Static).render())


async def _until(app: ConsoleApp, pilot_pause: object, text: str, seconds: float = 20) -> str:
    for _ in range(int(seconds / 0.1)):
        line = parts(app)
        if text in line:
            return line
        await asyncio.sleep(0.1)
        await pilot_pause()  # type: ignore[operator]
    raise AssertionError(f"{text!r} never shown: {parts(app)!r}")


async def test_the_parts_line_says_what_the_hall_has(tmp_path: Path) -> None:
    hall = make_hall(tmp_path / "hall", tables=(2,))
    cfg = dataclasses.replace(
        config(tmp_path),
        hall=HallConfig(
            host="127.0.0.1",
            port=hall.port,
            user="table2",
            password=credentials(hall.folder)["table2"],
            event="cup",
            table=2,
        ),
    )
    app = console(cfg)
    broker = None
    try:
        async with hosting(app) as host:
            await host.keys("ctrl+s")
            if not isinstance(app.screen, TableScreen):
                await host.keys("enter")
            assert isinstance(app.screen, TableScreen)
            line = await _until(app, host.pilot.pause, "Зал: нет связи, ")
            assert "ждут" in line or "ждёт" in line
            broker = start_broker(hall)
            await _until(app, host.pilot.pause, "Зал: всё доставлено")
    finally:
        if broker is not None:
            stop_broker(broker)
