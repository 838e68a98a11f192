"""The pin map's buzzer (``[buzzer] pin``): an active buzzer switched by a
transistor (docs/wiring.md). The self-test sounds it; no game uses it yet."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

#: The self-test's pattern: three short beeps, unmistakable under a table.
BEEPS = 3
ON_S = 0.2
OFF_S = 0.2


class GpioBuzzer:
    def __init__(
        self,
        pin: int,
        *,
        pin_factory: Any = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        """``sleep``: how the beeps wait (tests pass one that records, and
        gpiozero's ``beep`` is not used: it runs a thread on the wall clock)."""
        from gpiozero import Buzzer  # lazily, as the seats

        self.pin = pin
        self._sleep = sleep
        self._device = Buzzer(pin, pin_factory=pin_factory)

    def beep(self, times: int = BEEPS, on_s: float = ON_S, off_s: float = OFF_S) -> None:
        """Sound ``times`` beeps, then stay quiet (blocks for the pattern)."""
        for n in range(times):
            if n:
                self._sleep(off_s)
            self._device.on()
            try:
                self._sleep(on_s)
            finally:  # a Ctrl-C during a beep must not leave it sounding
                self._device.off()

    def close(self) -> None:
        self._device.close()
