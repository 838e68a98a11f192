"""``companion selftest`` (issue 4): each LED lit in turn, each seat asked to
press; silent seats, crossed wires and held buttons reported. On gpiozero's
mock pins a simulated player answers each light by driving the button pin."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin
from seat_table import SeatTable

from companion import cli
from companion.seats.fake import FakeSeats
from companion.seats.pinmap import PinMap, load_pinmap
from companion.seats.selftest import run_selftest


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


@pytest.fixture
def default_factory() -> Iterator[None]:
    yield
    if Device.pin_factory is not None:
        Device.pin_factory.close()
    Device.pin_factory = None


def test_every_seat_answers_its_own_light() -> None:
    pinmap = load_pinmap("default")
    table = SeatTable(pinmap, answering_factory(pinmap, lambda seat: seat))
    asked: list[int] = []
    try:
        report = run_selftest(table.seats, lambda seat, text: asked.append(seat), timeout=0)
    finally:
        table.close()
    assert asked == list(range(1, 11))
    assert report.ok and report.answered == list(range(1, 11))
    assert report.lines("en") == ["Every seat answered: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10."]


def test_silent_and_crossed_seats_are_reported() -> None:
    pinmap = load_pinmap("default")
    wiring = {4: None, 7: 8, 8: 7}  # seat 4 is dead; 7 and 8 are swapped
    table = SeatTable(pinmap, answering_factory(pinmap, lambda seat: wiring.get(seat, seat)))
    lit: list[list[float]] = []
    try:
        report = run_selftest(table.seats, lambda seat, text: lit.append(table.leds()), timeout=0)
    finally:
        table.close()
    # Each LED alone, in turn.
    assert lit == [[1.0 if n == seat else 0.0 for n in range(1, 11)] for seat in range(1, 11)]
    assert report.silent == [4, 7, 8]
    assert report.crossed == [(7, 8), (8, 7)]
    assert report.lines("ru") == [
        "Место 7 горело, а нажата кнопка места 8 — перепутаны провода?",
        "Место 8 горело, а нажата кнопка места 7 — перепутаны провода?",
        "Ответили: 1, 2, 3, 5, 6, 9, 10.",
        "Не ответили: 4, 7, 8 — проверьте кнопку, лампу и провод.",
    ]


def test_a_button_held_at_the_start_is_reported() -> None:
    pinmap = load_pinmap("default")
    table = SeatTable(pinmap, answering_factory(pinmap, lambda seat: seat))
    table.button_pin(5).drive_low()
    try:
        report = run_selftest(
            table.seats, lambda *_: None, timeout=0, held_now=table.seats.held_now
        )
    finally:
        table.close()
    assert report.held == [5] and not report.ok
    assert report.lines("en")[0] == (
        "Seat 5's button was already held at the start: stuck, or the wrong pull?"
    )


def test_the_simulated_table_runs_the_same_test_from_its_keys() -> None:
    seats = FakeSeats(3)
    report = run_selftest(
        seats, lambda seat, text: seats.toggle(seat) if seat != 2 else None, timeout=0
    )
    assert report.answered == [1, 3] and report.silent == [2]


def test_selftest_end_to_end_on_the_mock_factory(
    default_factory: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command, with gpiozero's default pin factory set to mock pins
    that a simulated player answers (seat 9 never presses)."""
    pinmap = load_pinmap("default")
    Device.pin_factory = answering_factory(pinmap, lambda seat: None if seat == 9 else seat)
    status = cli.main(["selftest", "--timeout", "0"])
    out = capsys.readouterr().out.splitlines()
    assert status == 1
    assert out[0].startswith("selftest: no GPIO here (MockFactory)")
    assert "Место 1: горит лампа — нажмите кнопку." in out
    assert out[-2:] == [
        "Ответили: 1, 2, 3, 4, 5, 6, 7, 8, 10.",
        "Не ответили: 9 — проверьте кнопку, лампу и провод.",
    ]
