"""The simulated table's seats: keys stand in for the buttons, and the
lights are text the console shows (the same modes and patterns as LEDs)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from .port import ButtonEvent, LightBoard, OnButton

# Brightness as one character: out / faint / dim / lit.
GLYPHS = ((0.0, "·"), (0.1, "○"), (0.5, "◐"), (1.01, "●"))


def glyph(level: float) -> str:
    for limit, char in GLYPHS:
        if level <= limit:
            return char
    return GLYPHS[-1][1]


class FakeSeats:
    def __init__(self, count: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.count = count
        self._clock = clock
        self.board = LightBoard(["pwm"] * count, clock)
        self._on_button: OnButton | None = None
        self.held: set[int] = set()

    def start(self, on_button: OnButton) -> None:
        self._on_button = on_button

    def show(self, changes: Iterable[tuple[int, str]]) -> None:
        with self.board.lock:
            self.board.set(changes)

    def sweep(self) -> None:
        with self.board.lock:
            self.board.start_sweep()

    def close(self) -> None:
        pass

    # --- the console's keys ----------------------------------------------------
    def press(self, seat: int) -> None:
        if seat not in self.held:
            self.held.add(seat)
            self._send(ButtonEvent(True, self._clock(), seat=seat))

    def release(self, seat: int) -> None:
        if seat in self.held:
            self.held.discard(seat)
            self._send(ButtonEvent(False, self._clock(), seat=seat))

    def toggle(self, seat: int) -> None:
        """One key for a seat: press, and press again to release (a hold)."""
        (self.release if seat in self.held else self.press)(seat)

    def lift_all(self, _: int = 0) -> None:
        """The keys' holds forgotten once «Принято» has counted them: the next
        key for a seat puts its hand down again. No release is sent: the
        table needs none (a hand lifted after its count changes nothing), and
        the host's undo must not meet inputs the host never saw."""
        self.held.clear()

    def _send(self, event: ButtonEvent) -> None:
        if self._on_button is not None:
            self._on_button(event)

    # --- what the console draws ------------------------------------------------
    def render(self, now: float | None = None) -> str:
        """``1● 2○ 3◐ ...``: each seat's light at ``now``."""
        now = self._clock() if now is None else now
        with self.board.lock:
            return " ".join(
                f"{n}{glyph(self.board.level(n, now))}" for n in range(1, self.count + 1)
            )

    def modes(self) -> list[str]:
        return list(self.board.modes)
