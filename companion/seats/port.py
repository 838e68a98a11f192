"""The ``Seats`` port: buttons in, lights out.

Implementations: ``GpioSeats`` (gpiozero, real or mock pins) and
``FakeSeats`` (the simulated table: keys stand in for buttons, the lights
are text on the console). Both share :class:`LightBoard`, which knows what
each LED should show at any moment.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from .lights import Pattern, patterns, sweep_level


@dataclass(frozen=True, slots=True)
class ButtonEvent:
    """A clean press or release: of a seat's button (``seat``) or of a host
    button (``host``: next, pause, offence)."""

    pressed: bool
    at: float
    seat: int | None = None
    host: str | None = None


OnButton = Callable[[ButtonEvent], None]


class Seats(Protocol):
    count: int

    def start(self, on_button: OnButton) -> None:
        """Begin passing button events on (from any thread)."""

    def show(self, changes: Iterable[tuple[int, str]]) -> None:
        """Put seats into light modes (``core.views.light_changes``)."""

    def sweep(self) -> None:
        """The run round the table at the start and end of a game."""

    def close(self) -> None: ...


class LightBoard:
    """Each seat's mode and since when; the brightness it means right now."""

    def __init__(self, kinds: Iterable[str], clock: Callable[[], float]) -> None:
        self._patterns: list[dict[str, Pattern]] = [patterns(kind) for kind in kinds]
        self._clock = clock
        self.count = len(self._patterns)
        self.modes = ["off"] * self.count
        self._since = [clock()] * self.count
        self._sweep_from: float | None = None
        self.lock = threading.Lock()

    def set(self, changes: Iterable[tuple[int, str]]) -> list[int]:
        """Record new modes; the seats (1-based) whose mode changed."""
        now = self._clock()
        changed = []
        for seat, mode in changes:
            if 1 <= seat <= self.count and self.modes[seat - 1] != mode:
                self.modes[seat - 1] = mode
                self._since[seat - 1] = now
                changed.append(seat)
        return changed

    def start_sweep(self) -> None:
        self._sweep_from = self._clock()

    def level(self, seat: int, now: float | None = None) -> float:
        now = self._clock() if now is None else now
        index = seat - 1
        # A seat whose mode changed after the sweep began shows its mode at once.
        if self._sweep_from is not None and self._since[index] <= self._sweep_from:
            during = sweep_level(seat, now - self._sweep_from)
            if during is not None:
                return during
            if seat == self.count:
                self._sweep_from = None  # the sweep has gone round
        return self._patterns[index][self.modes[index]].level(now - self._since[index])
