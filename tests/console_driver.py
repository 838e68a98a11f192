"""Plays the console through Textual's pilot: keys only, as a host would,
on simulated seats and a fake clock the test moves (time passing is the
only thing not done by a key)."""

from __future__ import annotations

import asyncio
import unicodedata
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path

from textual import events
from textual.keys import REPLACED_KEYS, _character_to_key, _get_unicode_name_from_key
from textual.pilot import Pilot

from companion.config.values import Config, PathsConfig, SeatsConfig, TableConfig, VoiceConfig
from companion.console.app import ConsoleApp
from companion.console.sports.screen import SEAT_KEYS
from companion.core.state import Game
from companion.runner.clock import Clock, FakeClock

KEY_OF = {n: key for key, n in SEAT_KEYS.items()}
SIZE = (150, 45)
WHEN = datetime(2026, 12, 1, 20, 0)


def config(tmp: Path, ruleset: str = "tournament", lang: str = "ru") -> Config:
    return Config(
        lang=lang,  # type: ignore[arg-type]
        table=TableConfig(ruleset=ruleset, seats=10),
        seats=SeatsConfig(mode="simulated"),
        voice=VoiceConfig(captions_only=True),
        paths=PathsConfig(
            journals=tmp / "journals", games=tmp / "games", roster=tmp / "roster.toml"
        ),
    )


def console(cfg: Config, seed: int = 7) -> ConsoleApp:
    """The app on a fake clock, its loop run on the app's own thread."""

    def clock(start: float) -> Clock:
        return FakeClock(start)

    return ConsoleApp(cfg, clock=clock, threaded=False, now=lambda: WHEN, seed=seed)


class Host:
    def __init__(self, app: ConsoleApp, pilot: Pilot[None]) -> None:
        self.app = app
        self.pilot = pilot

    @property
    def game(self) -> Game:
        assert self.app.table is not None and self.app.table.game is not None
        return self.app.table.game

    async def keys(self, *keys: str) -> None:
        """Each key as the terminal sends it, and then the app settled."""
        for key in keys:
            await press(self.pilot, key)

    async def settle(self) -> None:
        """After what a test did to the app itself (a click, a value set)."""
        await settle(self.pilot)

    async def type(self, text: str) -> None:
        """A line typed into the field that has the focus, then Enter: the
        characters arrive together, as a quick hand's do (one drawing for
        them all), and Enter after the field has taken them."""
        await press(self.pilot, *text)  # a space as "space" and so on: press names them
        await self.keys("enter")

    async def next(self, times: int = 1) -> None:
        for _ in range(times):
            await self.keys("space")

    async def seat(self, *numbers: int) -> None:
        for n in numbers:
            await self.keys(KEY_OF[n])

    async def wait(self, seconds: float) -> None:
        """Time passes (the only thing a key does not do)."""
        assert self.app.table is not None
        self.app.table.advance(seconds)
        await settle(self.pilot)

    async def nominate(self, target: int, by: int | None = None) -> None:
        await self.keys("n")
        await self.type(f"{by} {target}" if by else str(target))

    async def offence(self, seat: int, search: str) -> None:
        await self.keys("o")
        await self.type(str(seat))
        await self.type(search)

    async def cancel_offence(self, seat: int, search: str) -> None:
        await self.keys("x")
        await self.type(str(seat))
        await self.type(search)

    async def choice(self, target: int, actor: int | None = None) -> None:
        await self.keys("c")
        await self.type(f"{actor} {target}" if actor else str(target))

    async def best_move(self, *suspects: int) -> None:
        await self.keys("b")
        await self.type(" ".join(map(str, suspects)))

    async def until(self, phase: str, limit: int = 40) -> None:
        """The host moves on (space) until the game is in ``phase``."""
        from companion.core.views import phase_name

        for _ in range(limit):
            if phase_name(self.game) == phase or self.game.phase == phase:
                return
            await self.next()
        raise AssertionError(f"never reached {phase}: {phase_name(self.game)}")

    async def vote(self, hands: list[int]) -> None:
        """One candidate's window: the hands go down, the host closes the
        window («Спасибо»: on simulated seats it waits for the host), the
        count ends («Принято») and the console lifts the hands."""
        await self.seat(*hands)
        await self.close_window()
        await self.wait(self.game.rules.timings.count_s)

    async def close_window(self) -> None:
        """«Спасибо»: the host's key on simulated seats (the window waits
        for it), the window's time on real ones."""
        from companion.core.sports.state import table

        if table(self.game).host_closes_votes:
            await self.next()
        else:
            await self.wait(self.game.rules.timings.vote_window_s)

    def seats_of(self, *roles: str) -> list[int]:
        return [s.number for s in self.game.seats if s.role in roles and s.out is None]


async def press(pilot: Pilot[None], *keys: str) -> None:
    """Keys sent the way the pilot sends them, then :func:`settle` instead of
    the pilot's own wait (twice a key it sleeps in slices until the
    process's CPU clock stops: on a busy machine longer, and a worker
    starved of its core looks idle with work still queued)."""
    app = pilot.app
    assert app._driver is not None
    for key in keys:  # Textual's App._press_keys, but for its waits
        if len(key) == 1 and not key.isalnum():
            key = _character_to_key(key)
        try:
            char: str | None = unicodedata.lookup(
                _get_unicode_name_from_key(REPLACED_KEYS.get(key, key))
            )
        except KeyError:
            char = key if len(key) == 1 else None
        event = events.Key(key, char)
        event.set_sender(app)
        app._driver.send_message(event)
    await settle(pilot)


async def settle(pilot: Pilot[None], rounds: int = 200) -> None:
    """Until the app has nothing left to do: every message queued to the
    app, its screen and their widgets handled, the screen's pending layout
    and repaint done now (as the pilot's pause does) and the callbacks
    waiting for that refresh run; again, until a round finds nothing. The
    console's table runs on this loop with a fake clock (``threaded=False``),
    so nothing else is due until the test moves the clock: a wait on the
    app's own work, never on the wall clock."""
    app = pilot.app
    for _ in range(rounds):
        if app._closing or app._closed:  # the host quit
            return
        # a round trip through every queue: what was queued before is handled
        await pilot._wait_for_screen()
        if not _queues_empty(app):
            continue
        if app._batch_count:  # drawing held (a snapshot's scene): drawn at its end
            return
        # what one refresh of the screen does, drawn once for all of it
        app.screen._on_timer_update()
        await asyncio.sleep(0)
        if _queues_empty(app) and _drawn(app):
            return
    raise AssertionError(f"the console never settled in {rounds} rounds")


def _drawn(app: ConsoleApp) -> bool:
    screen = app.screen
    return not (
        screen._callbacks
        or screen._layout_required
        or screen._repaint_required
        or screen._recompose_required
        or screen._dirty_widgets
        or app._animator._animations
    )


def _queues_empty(app: ConsoleApp) -> bool:
    pumps = [app, *app.screen.walk_children(with_self=True)]
    return all(
        pump.message_queue_size == 0 and pump._pending_message is None and not pump._next_callbacks
        for pump in pumps
        if not (pump._closing or pump._closed)
    )


async def started(pilot: Pilot[None]) -> None:
    """An app just started by ``run_test``: its first screen mounted (the
    pilot's wait lets the mounting begin), then settled."""
    await pilot.pause()
    await settle(pilot)


@asynccontextmanager
async def hosting(app: ConsoleApp) -> AsyncIterator[Host]:
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        yield Host(app, pilot)
