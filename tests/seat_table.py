"""A table on gpiozero's mock pins, a fake clock and the real live table
(``LiveTable``, as the console builds it): the test presses buttons pin by
pin and reads LED pins (issue 4)."""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Callable
from typing import Any

from gpiozero.pins.mock import MockFactory, MockPWMPin

from companion.config.rulesets import load_ruleset
from companion.core.effects import Say
from companion.core.events import Event, GameSetUp
from companion.core.state import Game
from companion.live.assembly import LiveTable, TableSpec, Update
from companion.runner.clock import FakeClock
from companion.seats.gpio import GpioSeats
from companion.seats.pinmap import PinMap, load_pinmap
from companion.voice.settings import VoiceSettings
from companion.voice.speaker import FakeSpeaker

ROLES = ("sheriff", "civilian", "civilian", "mafia", "civilian", "civilian", "don", "civilian", "civilian", "mafia")  # fmt: skip
PWM_LEVELS = {"off": 0.0, "idle": 0.04, "steady": 1.0, "may_vote": 0.25, "holding": 1.0}


class FakeLater:
    """``Later`` on the fake clock: actions run when ``run_due`` finds them due."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self._due: list[tuple[float, int, Callable[[], None]]] = []
        self._order = itertools.count()

    def __call__(self, delay: float, action: Callable[[], None]) -> None:
        heapq.heappush(self._due, (self.clock.now() + delay, next(self._order), action))

    def run_due(self) -> None:
        while self._due and self._due[0][0] <= self.clock.now():
            heapq.heappop(self._due)[2]()


class SeatTable:
    def __init__(
        self,
        pinmap: PinMap | None = None,
        factory: Any = None,
        silent: frozenset[int] = frozenset(),
    ) -> None:
        """``silent``: seats whose button the last self-test found silent
        (not listened to; the table's spec names them, as the console's)."""
        self.pinmap = pinmap or load_pinmap("default")
        self.clock = FakeClock(1000.0)
        self.later = FakeLater(self.clock)
        self.factory = factory or MockFactory(pin_class=MockPWMPin)
        self.seats = GpioSeats(
            self.pinmap,
            clock=self.clock.now,
            later=self.later,
            pin_factory=self.factory,
            ticker=False,
            muted=silent,
        )
        self.said: list[str] = []
        self.listeners: list[Callable[[Update], None]] = []  # e.g. a table screen's show_update
        self.table = LiveTable(
            TableSpec(
                voice=VoiceSettings(captions_only=True),
                seats="gpio",
                threaded=False,
                silent_seats=silent,
            ),
            load_ruleset("tournament"),
            len(self.pinmap.seats),
            clock=self.clock,
            seats=self.seats,
            speaker=FakeSpeaker(),
            on_update=self._update,
        )

    def _update(self, update: Update) -> None:
        self.said += [e.cue for e in update.effects if isinstance(e, Say)]
        for listener in self.listeners:
            listener(update)

    @property
    def game(self) -> Game:
        assert self.table.game is not None
        return self.table.game

    def start(self, roles: tuple[str, ...] = ROLES) -> None:
        self.submit(GameSetUp(load_ruleset("tournament"), len(roles), roles))

    def submit(self, event: Event) -> None:
        self.table.submit(event)
        self.settle()

    def settle(self) -> None:
        self.later.run_due()
        self.table.pump()
        self.seats.tick()

    def wait(self, seconds: float, step: float | None = None) -> None:
        """Let ``seconds`` pass on the fake clock in small steps."""
        start = self.clock.now()
        step = step or (0.005 if seconds < 1 else 0.05)
        for i in range(1, math.ceil(seconds / step) + 1):
            self.clock.set(min(start + i * step, start + seconds))
            self.settle()

    # --- pins ----------------------------------------------------------------
    def button_pin(self, seat: int) -> Any:
        return self.factory.pin(self.pinmap.seat(seat).button.pin)

    def press(self, seat: int) -> None:
        self.button_pin(seat).drive_low()  # the buttons close to ground (pull-up)
        self.settle()

    def release(self, seat: int) -> None:
        self.button_pin(seat).drive_high()
        self.settle()

    def led(self, seat: int) -> float:
        led = self.pinmap.seat(seat).led
        assert led is not None
        return float(self.factory.pin(led).state)

    def leds(self) -> list[float]:
        return [round(self.led(n), 2) for n in range(1, len(self.pinmap.seats) + 1)]

    def close(self) -> None:
        self.table.close()
