"""Seats on real GPIO through gpiozero (or its mock pin factory in tests).

Buttons: gpiozero's ``when_pressed``/``when_released`` feed a
:class:`ButtonFilter` per button (our own debounce and stuck check on top of
gpiozero's ``bounce_time``). LEDs: a :class:`LightBoard` says what each
should show; a change of mode is written at once from the caller's thread,
and one ticker thread plays the blink patterns (25 ms steps) for all seats
together, so that blinking seats blink in step.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from .buttons import ButtonFilter, Later, LaterThread
from .pinmap import ButtonPin, PinMap
from .port import ButtonEvent, LightBoard, OnButton

log = logging.getLogger(__name__)

TICK = 0.025


class GpioSeats:
    def __init__(
        self,
        pinmap: PinMap,
        *,
        clock: Callable[[], float] = time.monotonic,
        later: Later | None = None,
        pin_factory: Any = None,
        ticker: bool = True,
    ) -> None:
        """``pin_factory``: gpiozero's (None: its default, or
        ``GPIOZERO_PIN_FACTORY``). ``ticker`` False: blink patterns move only
        when ``tick`` is called (tests on a fake clock)."""
        from gpiozero import LED, PWMLED, Button  # lazily: the simulated table needs none

        self.pinmap = pinmap
        self.count = len(pinmap.seats)
        self._clock = clock
        self._later = later or LaterThread(clock)  # one thread for every button's checks
        self._on_button: OnButton | None = None
        self.stuck_reports: list[str] = []
        self.buttons: dict[str, Any] = {}  # "seat 3" / "host next" -> gpiozero Button
        self.filters: dict[str, ButtonFilter] = {}
        self.leds: list[Any] = []
        self._written: list[float | None] = []
        self.board = LightBoard((s.led_kind for s in pinmap.seats), clock)
        self._devices: list[Any] = []
        try:
            for seat in pinmap.seats:
                self._button(Button, f"seat {seat.seat}", seat.button, pin_factory, seat=seat.seat)
                led = None
                if seat.led is not None:
                    kind = PWMLED if seat.led_kind == "pwm" else LED
                    led = kind(seat.led, pin_factory=pin_factory)
                    self._devices.append(led)
                self.leds.append(led)
                self._written.append(None)
            for name, pins in pinmap.host.items():
                self._button(Button, f"host {name}", pins, pin_factory, host=name)
        except Exception:
            self.close()
            raise
        self._stop = threading.Event()
        self.show((n, "off") for n in range(1, self.count + 1))
        self._write_all()
        if ticker:
            threading.Thread(target=self._tick_forever, name="seat lights", daemon=True).start()

    def _button(self, cls: Any, name: str, pins: ButtonPin, factory: Any, **who: Any) -> None:
        device = cls(
            pins.pin, pull_up=pins.pull_up, bounce_time=pins.bounce_s or None, pin_factory=factory
        )
        self._devices.append(device)
        self.buttons[name] = device

        def emit(pressed: bool, at: float) -> None:
            if self._on_button is not None:
                self._on_button(ButtonEvent(pressed, at, **who))

        flt = ButtonFilter(
            name,
            lambda: bool(device.is_pressed),
            emit,
            self._clock,
            self._later,
            pins.bounce_s,
            self.pinmap.stuck_s,
            self.stuck_reports.append,
        )
        self.filters[name] = flt
        device.when_pressed = lambda: flt.edge(True)
        device.when_released = lambda: flt.edge(False)

    @property
    def factory(self) -> Any:
        """The gpiozero pin factory in use."""
        first = next(iter(self.buttons.values()))
        return first.pin_factory

    def held_now(self, seat: int) -> bool:
        """Is seat ``seat``'s button pressed right now (its pin's level)?"""
        return bool(self.buttons[f"seat {seat}"].is_pressed)

    # --- the port --------------------------------------------------------------
    def start(self, on_button: OnButton) -> None:
        self._on_button = on_button

    def show(self, changes: Iterable[tuple[int, str]]) -> None:
        with self.board.lock:
            changed = self.board.set(changes)
            now = self._clock()
            for seat in changed:
                self._write(seat, now)

    def sweep(self) -> None:
        with self.board.lock:
            self.board.start_sweep()
            self._write_all()

    def tick(self) -> None:
        """Move the blink patterns on to now."""
        with self.board.lock:
            self._write_all()

    def close(self) -> None:
        stop = getattr(self, "_stop", None)
        if stop is not None:
            stop.set()
        for device in self._devices:
            try:
                device.close()
            except Exception as error:  # closing must not stop the others closing
                log.warning("closing %s: %s", device, error)
        self._devices.clear()

    # --- LEDs ------------------------------------------------------------------
    def _write_all(self) -> None:
        now = self._clock()
        for seat in range(1, self.count + 1):
            self._write(seat, now)

    def _write(self, seat: int, now: float) -> None:
        led = self.leds[seat - 1]
        if led is None:
            return
        level = self.board.level(seat, now)
        if self._written[seat - 1] == level:
            return
        self._written[seat - 1] = level
        try:
            led.value = level if self.pinmap.seat(seat).led_kind == "pwm" else int(level >= 0.5)
        except Exception as error:  # a broken LED must not stop the game
            log.warning("seat %d LED: %s", seat, error)

    def _tick_forever(self) -> None:
        next_at = time.monotonic()
        while not self._stop.is_set():
            next_at += TICK
            if self._stop.wait(max(0.0, next_at - time.monotonic())):
                return
            self.tick()
