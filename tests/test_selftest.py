"""``companion selftest`` (issue 4): each LED lit in turn, each seat asked to
press; silent seats, crossed wires and held buttons reported. On gpiozero's
mock pins a simulated player answers each light by driving the button pin.

Issue 8: run the way a user runs it (a process of its own, gpiozero chosen
by the environment), it ends in one line and a status, never a traceback:
without GPIO it says so and how to use simulated pins; on simulated pins,
with or without PWM, it runs to its report."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin
from seat_table import SeatTable

from companion import cli
from companion.seats.fake import FakeSeats
from companion.seats.gpio import GpioUnavailable, pin_factory
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
    assert out[0].startswith("selftest: simulated pins (MockFactory with PlayerPin), no GPIO")
    assert "Место 1: горит лампа — нажмите кнопку." in out
    assert out[-2:] == [
        "Ответили: 1, 2, 3, 4, 5, 6, 7, 8, 10.",
        "Не ответили: 9 — проверьте кнопку, лампу и провод.",
    ]


# --- as a user runs it ----------------------------------------------------------

ROOT = Path(__file__).resolve().parent.parent
SILENT_RU = "Не ответили: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 — проверьте кнопку, лампу и провод."
#: Any of these makes gpiozero find a pin factory: real GPIO, not this test's case.
HAS_GPIO = any(importlib.util.find_spec(m) for m in ("lgpio", "RPi", "pigpio")) or (
    Path("/proc/device-tree/model").exists()
)


def selftest(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``python -m companion.cli [--lang ..] selftest ...`` with the user's
    environment minus any gpiozero settings, plus ``env``."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GPIOZERO_")}
    command = [sys.executable, "-m", "companion.cli", *args]
    return subprocess.run(
        command, cwd=ROOT, env={**clean, **env}, capture_output=True, text=True, timeout=120
    )


@pytest.mark.skipif(HAS_GPIO, reason="this machine has GPIO (or a GPIO library)")
def test_without_gpio_it_says_so_in_one_line_and_how_to_simulate() -> None:
    done = selftest("selftest")
    assert done.returncode == 2
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith("companion: selftest: no GPIO here (lgpio: ")
    assert line.endswith(
        "; to try it on simulated pins:"
        " GPIOZERO_PIN_FACTORY=mock GPIOZERO_MOCK_PIN_CLASS=mockpwmpin companion selftest"
    )


@pytest.mark.parametrize(
    ("pin_class", "dims"), [({}, False), ({"GPIOZERO_MOCK_PIN_CLASS": "mockpwmpin"}, True)]
)
def test_on_simulated_pins_it_runs_to_its_report(pin_class: dict[str, str], dims: bool) -> None:
    """Plain mock pins cannot dim: the PWM LEDs of the default map are lit
    on/off, said in one line. Nobody can press, so every seat is silent."""
    done = selftest("selftest", "--timeout", "5", GPIOZERO_PIN_FACTORY="mock", **pin_class)
    assert (done.returncode, done.stderr) == (1, "")
    out = done.stdout.splitlines()
    pins = "MockPWMPin" if dims else "MockPin"
    assert out[0].startswith(f"selftest: simulated pins (MockFactory with {pins}), no GPIO: ")
    no_dim = "selftest: seats 1, 2, 3, 4, 5, 6, 7, 8, 9, 10: these pins cannot dim:"
    assert any(line.startswith(no_dim) for line in out) is not dims
    assert out[-13].endswith("default.toml, 10 seats, 0 s per seat")  # no waiting for nobody
    assert out[-12:] == [
        *(f"Место {n}: горит лампа — нажмите кнопку." for n in range(1, 11)),
        "Ответили: —.",
        SILENT_RU,
    ]


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (
            ["selftest"],
            {"GPIOZERO_PIN_FACTORY": "bogus"},
            "GPIOZERO_PIN_FACTORY=bogus: Unable to find pin factory 'bogus'; to try it on",
        ),
        (
            ["selftest"],
            {"GPIOZERO_PIN_FACTORY": "mock", "GPIOZERO_MOCK_PIN_CLASS": "nope"},
            "GPIOZERO_MOCK_PIN_CLASS=nope: no such mock pin class (mockpin, mockpwmpin); ",
        ),
        (["selftest", "--timeout", "inf"], {}, "--timeout inf: give 0..600 seconds per seat"),
        (["selftest", "--timeout", "nan"], {}, "--timeout nan: give 0..600 seconds per seat"),
        (["selftest", "--pins", "no-such-map"], {}, "no-such-map.toml: cannot be read"),
    ],
)
def test_a_selftest_that_cannot_run_says_why_in_one_line(
    args: list[str], env: dict[str, str], message: str
) -> None:
    done = selftest(*args, **env)
    assert (done.returncode, done.stdout) == (2, "")
    (line,) = done.stderr.splitlines()
    assert line.startswith("companion: selftest: ") and message in line


def test_the_factory_lookup_names_the_variable_in_one_line(
    default_factory: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    Device.pin_factory = None
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "bogus")
    with pytest.raises(GpioUnavailable) as caught:
        pin_factory()
    assert str(caught.value) == "GPIOZERO_PIN_FACTORY=bogus: Unable to find pin factory 'bogus'"
    assert Device.pin_factory is None


def test_the_factory_lookup_keeps_a_factory_already_set(default_factory: None) -> None:
    factory = MockFactory()
    Device.pin_factory = factory
    assert pin_factory() is factory
