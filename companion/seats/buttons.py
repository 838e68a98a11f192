"""One seat button's edges made into presses and releases.

gpiozero reports every edge the pin sees (and its mock factory applies no
bounce time at all), so the seat shell filters them once more here:

- **Debounce.** The first edge after a quiet spell counts at once (no added
  latency); edges within ``bounce_s`` of it are contact chatter and are
  ignored. When the quiet spell ends, the pin's real level is read once
  more, so a tap shorter than the bounce time still ends in a release.
- **Stuck.** A button held ``stuck_s`` (far longer than any vote) is
  reported once and its seat is ignored until it is released.

Time comes from a clock and follow-ups run through ``later``, so tests
drive both by hand.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable
from typing import Protocol

log = logging.getLogger(__name__)


class Later(Protocol):
    def __call__(self, delay: float, action: Callable[[], None]) -> None:
        """Run ``action`` about ``delay`` seconds from now, on some thread."""


class LaterThread:
    """``Later`` on the real clock: one daemon thread and a heap of due
    actions, so a press costs no thread of its own (every press schedules a
    settle check and a stuck check)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._due: list[tuple[float, int, Callable[[], None]]] = []
        self._order = itertools.count()
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None

    def __call__(self, delay: float, action: Callable[[], None]) -> None:
        with self._wake:
            heapq.heappush(self._due, (self._clock() + delay, next(self._order), action))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="buttons", daemon=True)
                self._thread.start()
            self._wake.notify()

    def _run(self) -> None:
        while True:
            with self._wake:
                while not self._due or self._due[0][0] > self._clock():
                    self._wake.wait(self._due[0][0] - self._clock() if self._due else None)
                action = heapq.heappop(self._due)[2]
            try:
                action()
            except Exception:  # a failing check must not stop the others
                log.exception("a button follow-up failed")


Edge = Callable[[bool, float], None]  # (pressed, when)


class ButtonFilter:
    """Turns raw edges of one button into clean (pressed, when) changes."""

    def __init__(
        self,
        name: str,
        level: Callable[[], bool],
        emit: Edge,
        clock: Callable[[], float],
        later: Later | None = None,
        bounce_s: float = 0.02,
        stuck_s: float = 30.0,
        on_stuck: Callable[[str], None] | None = None,
    ) -> None:
        self.name = name
        self._level = level  # is the button pressed now (the pin's real state)
        self._emit = emit
        self._clock = clock
        self._later = later or LaterThread(clock)
        self.bounce_s = bounce_s
        self.stuck_s = stuck_s
        self._on_stuck = on_stuck
        self._lock = threading.Lock()  # edges and follow-ups come from several threads
        self.pressed = False  # the state last passed on
        self._quiet_from = float("-inf")  # edges before this are chatter
        self._changes = 0  # which change a settle or stuck check belongs to
        self.stuck = False
        self.chatter = 0  # edges ignored as bounce (for the self-test and the log)

    def edge(self, pressed: bool) -> None:
        """The pin changed (gpiozero's when_pressed / when_released)."""
        now = self._clock()
        with self._lock:
            if now < self._quiet_from:
                self.chatter += 1
                return
            if pressed == self.pressed:
                return
            self._change(pressed, now)

    def _change(self, pressed: bool, now: float) -> None:
        self.pressed = pressed
        self._quiet_from = now + self.bounce_s
        self._changes += 1
        change = self._changes
        if pressed:
            self._later(self.stuck_s, lambda: self._check_stuck(change))
        if self.stuck and not pressed:
            self.stuck = False
            log.warning("%s: released again after being stuck", self.name)
        if not self.stuck:
            self._emit(pressed, now)
        self._later(self.bounce_s, lambda: self._settle(change))

    def _settle(self, change: int) -> None:
        """The bounce time after ``change`` is over: if the pin now reads
        otherwise than what was passed on (a tap shorter than the bounce
        time), pass that on. A timer may fire a hair early by the clock, so
        the check goes by which change it belongs to, not by the time."""
        with self._lock:
            if change != self._changes:  # a newer change has its own check
                return
            self._quiet_from = float("-inf")
            level = self._level()
            if level != self.pressed:
                self._change(level, self._clock())

    def _check_stuck(self, change: int) -> None:
        with self._lock:  # still the same press: nothing has changed since
            if change == self._changes and not self.stuck:
                self.stuck = True
                message = (
                    f"{self.name}: held for {self.stuck_s:g} s, stuck? Ignored until it is released"
                )
                log.warning(message)
                if self._on_stuck is not None:
                    self._on_stuck(message)
