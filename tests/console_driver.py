"""Plays the console through Textual's pilot: keys only, as a host would,
on simulated seats and a fake clock the test moves (time passing is the
only thing not done by a key)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path

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
        await self.pilot.press(*keys)
        await self.pilot.pause()

    async def until_true(self, condition: Callable[[], bool], what: str, turns: int = 500) -> None:
        """Wait, turn by turn of the app, until ``condition`` holds: the
        pilot's own wait ends when the process looks idle, and a worker
        starved of its core looks idle with a widget still opening."""
        for _ in range(turns):
            if condition():
                return
            await self.pilot.pause(0.01)
        raise AssertionError(f"never happened: {what}")

    async def type(self, text: str) -> None:
        await self.keys(*[_key(c) for c in text], "enter")

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
        await self.pilot.pause()

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


def _key(char: str) -> str:
    return {
        " ": "space",
        "-": "minus",
        "=": "equals_sign",
        ".": "full_stop",
        "_": "underscore",
    }.get(char, char)


@asynccontextmanager
async def hosting(app: ConsoleApp) -> AsyncIterator[Host]:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        yield Host(app, pilot)
