"""The person under the table in the self-test's tests: mock pins that
press a seat's button when its LED lights, and a listener that hears each
prompt and presses the host buttons asked for, pin by pin."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpiozero.pins.mock import MockFactory, MockPWMPin
from seat_table import SeatTable

from companion.seats.pinmap import PinMap
from companion.seats.selftest import Prompt

HOSTS = ("next", "pause", "offence")


def answering_factory(pinmap: PinMap, answer: Callable[[int], int | None]) -> MockFactory:
    """Mock pins where, when seat N's LED lights, the button of seat
    ``answer(N)`` is pressed and let go (None: nobody presses)."""
    led_seat = {s.led: s.seat for s in pinmap.seats}
    button_pin = {s.seat: s.button.pin for s in pinmap.seats}
    factory: MockFactory

    class PlayerPin(MockPWMPin):  # type: ignore[misc]
        def _change_state(self, value: Any) -> bool:
            changed: bool = super()._change_state(value)
            seat = led_seat.get(self.info.name and int(self.info.name.removeprefix("GPIO")))
            if changed and seat is not None and value == 1.0:
                pressed = answer(seat)
                if pressed is not None:
                    pin = factory.pin(button_pin[pressed])
                    pin.drive_low()
                    pin.drive_high()
            return changed

    factory = MockFactory(pin_class=PlayerPin)
    return factory


class Listener:
    """The person under the table: hears each prompt (kept, with the LEDs
    lit at that moment) and, asked for a host button, presses the one
    ``host_answer`` names by driving its pin (None: nobody presses)."""

    def __init__(
        self, table: SeatTable, host_answer: Callable[[str], str | None] = lambda name: name
    ) -> None:
        self.table = table
        self.host_answer = host_answer
        self.prompts: list[Prompt] = []
        self.lit: list[list[float]] = []

    def __call__(self, prompt: Prompt) -> None:
        self.prompts.append(prompt)
        self.lit.append(self.table.leds())
        if prompt.cue == "selftest_host":
            pressed = self.host_answer(str(dict(prompt.args)["button"]))
            if pressed is not None:
                pin = self.table.factory.pin(self.table.pinmap.host[pressed].pin)
                pin.drive_low()  # host buttons close to ground too
                pin.drive_high()

    @property
    def cues(self) -> list[str]:
        return [p.cue for p in self.prompts]
