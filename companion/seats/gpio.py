"""Seats on real GPIO through gpiozero (or its mock pin factory in tests).

Buttons: gpiozero's ``when_pressed``/``when_released`` feed a
:class:`ButtonFilter` per button (our own debounce and stuck check on top of
gpiozero's ``bounce_time``). LEDs: a :class:`LightBoard` says what each
should show; a change of mode is written at once from the caller's thread,
and one ticker thread plays the blink patterns (25 ms steps) for all seats
together, so that blinking seats blink in step.

:func:`pin_factory` finds gpiozero's pin factory the way gpiozero would,
but says in one line why none loads (a machine without GPIO) instead of
four fallback warnings and a BadPinFactory traceback. An LED the map wants
dimmable on a pin that cannot do PWM (gpiozero's plain mock pins, its native
factory) is driven on/off with the on/off light language, and the seat is
listed in :attr:`GpioSeats.no_pwm`.

A seat whose button did not answer the self-test can be ``muted``: its
button is not opened, so a stuck or noisy button cannot play; its LED still
lights, and the host's key stands in for the button (seats/silent.py).
"""

from __future__ import annotations

import logging
import os
import threading
import time
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from .buttons import ButtonFilter, Later, LaterThread
from .pinmap import ButtonPin, PinMap, SeatPins
from .port import ButtonEvent, LightBoard, OnButton

log = logging.getLogger(__name__)

TICK = 0.025

#: What ``companion selftest`` and the docs tell a user without GPIO to set.
SIMULATED_PINS = "GPIOZERO_PIN_FACTORY=mock GPIOZERO_MOCK_PIN_CLASS=mockpwmpin"


class GpioUnavailable(OSError):
    """No GPIO pins can be used here; ``str()`` is one line saying why."""


def pin_factory() -> Any:
    """gpiozero's pin factory: ``Device.pin_factory`` if set, else the one
    ``GPIOZERO_PIN_FACTORY`` names, else the first that loads (lgpio,
    rpigpio, pigpio, native). Raises :class:`GpioUnavailable` naming each
    factory's reason when none loads, or the variable when its factory
    cannot be made."""
    from gpiozero import Device
    from gpiozero.exc import PinFactoryFallback

    if Device.pin_factory is not None:
        return Device.pin_factory
    # gpiozero warns once per factory it falls back from: collected here and
    # said in one line (or logged, when a later factory loads).
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            Device.ensure_pin_factory()
            error: Exception | None = None
        except Exception as failure:  # BadPinFactory, a bad mock pin class, a busy chip ...
            error = failure
    fallbacks = [str(w.message) for w in caught if issubclass(w.category, PinFactoryFallback)]
    for w in caught:
        if not issubclass(w.category, PinFactoryFallback):
            log.warning("%s", w.message)
    if error is None:
        for message in fallbacks:
            log.info("%s", message)
        return Device.pin_factory
    chosen = os.environ.get("GPIOZERO_PIN_FACTORY")
    if chosen is None:
        why = "; ".join(m.removeprefix("Falling back from ") for m in fallbacks) or str(error)
        raise GpioUnavailable(f"no GPIO here ({why})")
    mock_class = os.environ.get("GPIOZERO_MOCK_PIN_CLASS")
    if isinstance(error, KeyError) and mock_class is not None:  # gpiozero's entry-point lookup
        raise GpioUnavailable(
            f"GPIOZERO_MOCK_PIN_CLASS={mock_class}: no such mock pin class (mockpin, mockpwmpin)"
        )
    raise GpioUnavailable(f"GPIOZERO_PIN_FACTORY={chosen}: {error or type(error).__name__}")


class GpioSeats:
    def __init__(
        self,
        pinmap: PinMap,
        *,
        clock: Callable[[], float] = time.monotonic,
        later: Later | None = None,
        pin_factory: Any = None,
        ticker: bool = True,
        muted: Iterable[int] = (),
    ) -> None:
        """``pin_factory``: gpiozero's (None: its default, or
        ``GPIOZERO_PIN_FACTORY``). ``ticker`` False: blink patterns move only
        when ``tick`` is called (tests on a fake clock). ``muted``: seats
        whose button is not listened to."""
        from gpiozero import Button  # lazily: the simulated table needs none

        self.pinmap = pinmap
        self.count = len(pinmap.seats)
        self.muted = frozenset(n for n in muted if 1 <= n <= self.count)
        self._clock = clock
        self._later = later or LaterThread(clock)  # one thread for every button's checks
        self._on_button: OnButton | None = None
        self.stuck_reports: list[str] = []
        self.buttons: dict[str, Any] = {}  # "seat 3" / "host next" -> gpiozero Button
        self.filters: dict[str, ButtonFilter] = {}
        self.leds: list[Any] = []
        self._written: list[float | None] = []
        self.led_kinds: list[str] = []  # as driven: "onoff" where the pin has no PWM
        self.no_pwm: list[int] = []  # seats whose "pwm" LED is driven on/off instead
        self._devices: list[Any] = []
        try:
            for seat in pinmap.seats:
                if seat.seat not in self.muted:
                    name = f"seat {seat.seat}"
                    self._button(Button, name, seat.button, pin_factory, seat=seat.seat)
                led, kind = self._led(seat, pin_factory) if seat.led is not None else (None, "")
                self.leds.append(led)
                self.led_kinds.append(kind or seat.led_kind)
                self._written.append(None)
            for name, pins in pinmap.host.items():
                self._button(Button, f"host {name}", pins, pin_factory, host=name)
        except Exception:
            self.close()
            raise
        if self.no_pwm:  # the caller says so its own way (selftest: one line)
            log.info(
                "seats %s: their LED pins cannot dim here (%s): lit on/off instead",
                ", ".join(map(str, self.no_pwm)),
                describe_factory(self.factory),
            )
        self.board = LightBoard(self.led_kinds, clock)
        self._stop = threading.Event()
        self.show((n, "off") for n in range(1, self.count + 1))
        self._write_all()
        if ticker:
            threading.Thread(target=self._tick_forever, name="seat lights", daemon=True).start()

    def _led(self, seat: SeatPins, factory: Any) -> tuple[Any, str]:
        """The seat's LED device and how it is driven ("pwm" or "onoff")."""
        from gpiozero import LED, PWMLED
        from gpiozero.exc import PinPWMUnsupported

        if seat.led_kind == "pwm":
            try:
                led = PWMLED(seat.led, pin_factory=factory)
            except PinPWMUnsupported:  # PWMLED has closed itself: the pin is free again
                self.no_pwm.append(seat.seat)
            else:
                self._devices.append(led)
                return led, "pwm"
        led = LED(seat.led, pin_factory=factory)
        self._devices.append(led)
        return led, "onoff"

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
        devices = [*self.buttons.values(), *self.leds]  # every button may be muted
        return next((d.pin_factory for d in devices if d is not None), None)

    def held_now(self, seat: int) -> bool:
        """Is seat ``seat``'s button pressed right now (its pin's level)?"""
        button = self.buttons.get(f"seat {seat}")  # none for a muted seat
        return button is not None and bool(button.is_pressed)

    def host_held_now(self, name: str) -> bool:
        """Is the host button ``name`` (next, pause, offence) pressed right now?"""
        return bool(self.buttons[f"host {name}"].is_pressed)

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
            led.value = level if self.led_kinds[seat - 1] == "pwm" else int(level >= 0.5)
        except Exception as error:  # a broken LED must not stop the game
            log.warning("seat %d LED: %s", seat, error)

    def _tick_forever(self) -> None:
        next_at = time.monotonic()
        while not self._stop.is_set():
            next_at += TICK
            if self._stop.wait(max(0.0, next_at - time.monotonic())):
                return
            self.tick()


def describe_factory(factory: Any) -> str:
    """``MockFactory with MockPin``, ``LGPIOFactory``: for messages."""
    name = type(factory).__name__
    pin_class = getattr(factory, "pin_class", None)
    return f"{name} with {pin_class.__name__}" if isinstance(pin_class, type) else name
