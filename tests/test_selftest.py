"""``companion selftest`` (issue 4): each LED lit in turn, each seat asked to
press; silent seats, crossed wires and held buttons reported. On gpiozero's
mock pins a simulated player answers each light by driving the button pin.

Issue 8: run the way a user runs it (a process of its own, gpiozero chosen
by the environment), it ends in one line and a status, never a traceback:
without GPIO it says so and how to use simulated pins; on simulated pins,
with or without PWM, it runs to its report.

Issue 12: the host buttons are asked for and pressed pin by pin, the
buzzer's pin is driven after its prompt, and every prompt is a cue the
voice speaks (tests/test_selftest_voice.py; the record kept for the
console: tests/test_seats_silent.py)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory
from seat_table import SeatTable
from selftest_player import HOSTS, Listener, answering_factory

from companion import cli
from companion.seats.buzzer import GpioBuzzer
from companion.seats.fake import FakeSeats
from companion.seats.gpio import GpioUnavailable, pin_factory
from companion.seats.pinmap import load_pinmap
from companion.seats.selftest import Prompt, run_selftest


@pytest.fixture
def default_factory() -> Iterator[None]:
    yield
    if Device.pin_factory is not None:
        Device.pin_factory.close()
    Device.pin_factory = None


def test_every_seat_answers_its_own_light() -> None:
    pinmap = load_pinmap("default")
    table = SeatTable(pinmap, answering_factory(pinmap, lambda seat: seat))
    heard = Listener(table)
    try:
        report = run_selftest(table.seats, heard, timeout=0)
    finally:
        table.close()
    seat_prompts = [p for p in heard.prompts if p.cue == "selftest_seat"]
    assert [dict(p.args)["seat"] for p in seat_prompts] == list(range(1, 11))
    assert all(p.urgent for p in seat_prompts)  # the voice keeps up with the lights
    assert heard.cues == ["selftest_begins", *["selftest_seat"] * 10, "selftest_ok"]
    assert heard.prompts[0].heard_first  # the first light waits for the words before it
    assert report.ok and report.answered == list(range(1, 11))
    assert report.lines("en") == [
        "Every seat answered: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10.",
        "The pin map has no host buttons: the host uses the keyboard.",
        "The pin map has no buzzer.",
    ]


def test_silent_and_crossed_seats_are_reported() -> None:
    pinmap = load_pinmap("default")
    wiring = {4: None, 7: 8, 8: 7}  # seat 4 is dead; 7 and 8 are swapped
    table = SeatTable(pinmap, answering_factory(pinmap, lambda seat: wiring.get(seat, seat)))
    heard = Listener(table)
    try:
        report = run_selftest(table.seats, heard, timeout=0)
    finally:
        table.close()
    # Each LED alone, in turn, lit when its seat is asked for.
    lit = [
        leds for p, leds in zip(heard.prompts, heard.lit, strict=True) if p.cue == "selftest_seat"
    ]
    assert lit == [[1.0 if n == seat else 0.0 for n in range(1, 11)] for seat in range(1, 11)]
    assert report.silent == [4, 7, 8]
    assert report.crossed == [(7, 8), (8, 7)]
    assert report.lines("ru")[:4] == [
        "Место 7 горело, а нажата кнопка места 8 — перепутаны провода?",
        "Место 8 горело, а нажата кнопка места 7 — перепутаны провода?",
        "Ответили: 1, 2, 3, 5, 6, 9, 10.",
        "Не ответили: 4, 7, 8 — проверьте кнопку, лампу и провод.",
    ]
    # The end, said: the silent seats, then "see the screen".
    assert heard.prompts[-2:] == [
        Prompt("selftest_silent", (("seats", "4,7,8"),)),
        Prompt("selftest_failed"),
    ]


def test_a_second_press_of_a_seat_that_answered_is_not_a_crossed_wire() -> None:
    pinmap = load_pinmap("default")
    table = SeatTable(pinmap, answering_factory(pinmap, lambda seat: seat))

    def again(prompt: Prompt) -> None:  # seat 3's player presses once more when 4 is asked
        if prompt.args == (("seat", 4),):
            table.button_pin(3).drive_low()
            table.button_pin(3).drive_high()

    try:
        report = run_selftest(table.seats, again, timeout=0)
    finally:
        table.close()
    assert report.ok and report.crossed == []


def test_a_button_held_at_the_start_is_reported() -> None:
    pinmap = load_pinmap("default")
    table = SeatTable(pinmap, answering_factory(pinmap, lambda seat: seat))
    table.button_pin(5).drive_low()
    table.factory.pin(pinmap.host["pause"].pin).drive_low()
    try:
        report = run_selftest(
            table.seats,
            Listener(table),
            timeout=0,
            held_now=table.seats.held_now,
            hosts=HOSTS,
            host_held=table.seats.host_held_now,
        )
    finally:
        table.close()
    assert report.held == [5] and report.hosts_held == ["pause"] and not report.ok
    lines = report.lines("en")
    assert lines[0] == "Seat 5's button was already held at the start: stuck, or the wrong pull?"
    assert "The host's pause button was already held at the start: stuck?" in lines


def test_the_simulated_table_runs_the_same_test_from_its_keys() -> None:
    seats = FakeSeats(3)

    def keys(prompt: Prompt) -> None:
        seat = dict(prompt.args).get("seat")
        if prompt.cue == "selftest_seat" and seat != 2:
            seats.toggle(int(seat or 0))

    report = run_selftest(seats, keys, timeout=0)
    assert report.answered == [1, 3] and report.silent == [2]


def test_the_host_buttons_are_asked_for_and_pressed_pin_by_pin() -> None:
    """next answers; the pause button's wire goes to the offence button's
    pin (a crossed pair); nothing answers for offence."""
    pinmap = load_pinmap("default")
    assert tuple(pinmap.host) == HOSTS
    table = SeatTable(pinmap, answering_factory(pinmap, lambda seat: seat))
    heard = Listener(table, {"next": "next", "pause": "offence"}.get)
    try:
        report = run_selftest(table.seats, heard, timeout=0, hosts=HOSTS)
    finally:
        table.close()
    asked = [dict(p.args)["button"] for p in heard.prompts if p.cue == "selftest_host"]
    assert asked == list(HOSTS)
    assert heard.cues.index("selftest_host") > max(
        i for i, cue in enumerate(heard.cues) if cue == "selftest_seat"
    )  # after the seats, with every seat light off
    assert all(
        leds == [0.0] * 10
        for p, leds in zip(heard.prompts, heard.lit, strict=True)
        if p.cue == "selftest_host"
    )
    assert report.answered == list(range(1, 11)) and not report.silent
    assert report.hosts_answered == ["next"]
    assert report.hosts_silent == ["pause", "offence"]
    assert report.hosts_crossed == [("pause", "offence")]
    assert not report.ok
    assert report.lines("ru")[1:] == [
        "Ждали кнопку ведущего «пауза», а нажата «нарушение» — перепутаны провода?",
        "Кнопки ведущего ответили: дальше.",
        "Кнопки ведущего не ответили: пауза, нарушение — проверьте кнопку и провод.",
        "Зуммера в схеме выводов нет.",
    ]
    # No seat was silent: the end says only "see the screen".
    assert heard.prompts[-1] == Prompt("selftest_failed") and "selftest_silent" not in heard.cues


def test_every_host_button_answering_is_all_well() -> None:
    pinmap = load_pinmap("default")
    table = SeatTable(pinmap, answering_factory(pinmap, lambda seat: seat))
    heard = Listener(table)
    try:
        report = run_selftest(table.seats, heard, timeout=0, hosts=HOSTS)
    finally:
        table.close()
    assert report.ok and report.hosts_answered == list(HOSTS)
    assert "Кнопки ведущего ответили: дальше, пауза, нарушение." in report.lines("ru")
    assert heard.cues[-1] == "selftest_ok"


def test_the_buzzer_sounds_after_its_prompt() -> None:
    pinmap = load_pinmap("default")
    assert pinmap.buzzer == 18
    table = SeatTable(pinmap, answering_factory(pinmap, lambda seat: seat))
    pin = table.factory.pin(18)
    waits: list[tuple[float, bool]] = []  # each pause of the pattern, with the pin's level
    buzzer = GpioBuzzer(18, pin_factory=table.factory, sleep=lambda s: waits.append((s, pin.state)))
    heard = Listener(table)
    states_when_said: dict[str, int] = {}

    def say(prompt: Prompt) -> None:
        heard(prompt)
        states_when_said[prompt.cue] = len(pin.states)

    try:
        report = run_selftest(table.seats, say, timeout=0, buzzer=(18, buzzer.beep))
    finally:
        buzzer.close()
        table.close()
    assert [s.state for s in pin.states] == [False, True, False, True, False, True, False]
    assert waits == [(0.2, True), (0.2, False), (0.2, True), (0.2, False), (0.2, True)]
    assert states_when_said["selftest_buzzer"] == 1  # said while the pin was still quiet
    assert heard.prompts[heard.cues.index("selftest_buzzer")].heard_first
    assert report.buzzer == 18 and report.ok
    assert report.lines("ru")[-1] == (
        "Зуммер (GPIO 18) прозвучал трижды; если его не было слышно — проверьте зуммер и транзистор."
    )


def test_selftest_end_to_end_on_the_mock_factory(
    default_factory: None,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """The command, with gpiozero's default pin factory set to mock pins
    that a simulated player answers (seat 9 never presses)."""
    monkeypatch.setenv("COMPANION_CONFIG", str(tmp_path / "none.toml"))  # all defaults
    pinmap = load_pinmap("default")
    Device.pin_factory = answering_factory(pinmap, lambda seat: None if seat == 9 else seat)
    status = cli.main(["selftest", "--captions", "--timeout", "0"])
    out = capsys.readouterr().out.splitlines()
    assert status == 1
    assert out[0].startswith("selftest: simulated pins (MockFactory with PlayerPin), no GPIO")
    assert "» Место три, нажмите кнопку." in out
    assert "» Нет ответа: место девять." in out
    assert out[-6:] == [
        "Ответили: 1, 2, 3, 4, 5, 6, 7, 8, 10.",
        "Не ответили: 9 — проверьте кнопку, лампу и провод.",
        "Кнопки ведущего ответили: —.",
        "Кнопки ведущего не ответили: дальше, пауза, нарушение — проверьте кнопку и провод.",
        "Зуммер (GPIO 18) прозвучал трижды; если его не было слышно — проверьте зуммер и транзистор.",
        "selftest: simulated pins: the result is not kept for the console",
    ]
    assert not (tmp_path / "selftest.json").exists()


# --- as a user runs it ----------------------------------------------------------

ROOT = Path(__file__).resolve().parent.parent
SILENT_RU = "Не ответили: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 — проверьте кнопку, лампу и провод."
SPOKEN_SEATS = [
    f"» Место {n}, нажмите кнопку."
    for n in ("один", "два", "три", "четыре", "пять", "шесть", "семь", "восемь", "девять", "десять")
]
EN_NUMBERS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")  # fmt: skip
#: Any of these makes gpiozero find a pin factory: real GPIO, not this test's case.
HAS_GPIO = any(importlib.util.find_spec(m) for m in ("lgpio", "RPi", "pigpio")) or (
    Path("/proc/device-tree/model").exists()
)


@pytest.fixture
def selftest(tmp_path: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """``python -m companion.cli [--lang ..] selftest ...`` with the user's
    environment minus any gpiozero settings, a club config of the test's
    own (all defaults but the data folder), no sound server, plus ``env``."""
    config = tmp_path / "config.toml"
    config.write_text(f'[paths]\njournals = "{tmp_path / "data" / "journals"}"\n')

    def run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
        clean = {k: v for k, v in os.environ.items() if not k.startswith("GPIOZERO_")}
        own = {
            "COMPANION_CONFIG": str(config),
            "XDG_CACHE_HOME": str(tmp_path / "cache"),
            "PULSE_SERVER": f"unix:{tmp_path}/no-pulse",
        }
        command = [sys.executable, "-m", "companion.cli", *args]
        return subprocess.run(
            command,
            cwd=ROOT,
            env={**clean, **own, **env},
            capture_output=True,
            text=True,
            timeout=120,
        )

    return run


@pytest.mark.skipif(HAS_GPIO, reason="this machine has GPIO (or a GPIO library)")
def test_without_gpio_it_says_so_in_one_line_and_how_to_simulate(
    selftest: Callable[..., subprocess.CompletedProcess[str]],
) -> None:
    done = selftest("selftest")
    assert done.returncode == 2
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith("companion: selftest: no GPIO here (lgpio: ")
    assert line.endswith(
        "; to try it on simulated pins:"
        " GPIOZERO_PIN_FACTORY=mock GPIOZERO_MOCK_PIN_CLASS=mockpwmpin companion selftest"
    )


def test_as_the_user_runs_it_with_captions(
    selftest: Callable[..., subprocess.CompletedProcess[str]], tmp_path: Path
) -> None:
    """``GPIOZERO_PIN_FACTORY=mock companion selftest --captions --timeout 0.1``:
    every prompt printed as the voice would say it, then the report."""
    done = selftest("selftest", "--captions", "--timeout", "0.1", GPIOZERO_PIN_FACTORY="mock")
    assert (done.returncode, done.stderr) == (1, "")
    out = done.stdout.splitlines()
    assert out[0].startswith("selftest: simulated pins (MockFactory with MockPin), no GPIO: ")
    assert out[1].startswith("selftest: seats 1, 2, 3, 4, 5, 6, 7, 8, 9, 10: these pins cannot dim")
    assert out[2].endswith("hardware/default.toml, 10 seats, 0 s per button")  # nobody to wait for
    assert out[3:] == [
        "» Проверка кнопок. Нажимайте кнопку того места, где горит лампа.",
        *SPOKEN_SEATS,
        "» Кнопка ведущего «Дальше», нажмите её.",
        "» Кнопка ведущего «Пауза», нажмите её.",
        "» Кнопка ведущего «Нарушение», нажмите её.",
        "» Сейчас прозвучит зуммер.",
        "» Нет ответа: места один, два, три, четыре, пять, шесть, семь, восемь, девять и десять.",
        "» Проверка окончена, есть ошибки. Смотрите экран.",
        "Ответили: —.",
        SILENT_RU,
        "Кнопки ведущего ответили: —.",
        "Кнопки ведущего не ответили: дальше, пауза, нарушение — проверьте кнопку и провод.",
        "Зуммер (GPIO 18) прозвучал трижды; если его не было слышно — проверьте зуммер и транзистор.",
        "selftest: simulated pins: the result is not kept for the console",
    ]
    assert not (tmp_path / "data").exists()  # nothing kept from simulated pins


@pytest.mark.parametrize(
    ("pin_class", "dims"), [({}, False), ({"GPIOZERO_MOCK_PIN_CLASS": "mockpwmpin"}, True)]
)
def test_on_simulated_pins_it_runs_to_its_report(
    selftest: Callable[..., subprocess.CompletedProcess[str]],
    pin_class: dict[str, str],
    dims: bool,
) -> None:
    """Plain mock pins cannot dim: the PWM LEDs of the map are lit on/off,
    said in one line. Nobody can press, so every seat is silent. The twelve
    seat map has no host buttons and no buzzer, and says so in English
    too; without a sound device the prompts are shown, and one line says so."""
    done = selftest(
        "--lang", "en", "selftest", "--pins", "twelve", "--timeout", "5",
        "--device", "no-such-sound-device", GPIOZERO_PIN_FACTORY="mock", **pin_class,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (1, "")
    out = done.stdout.splitlines()
    pins = "MockPWMPin" if dims else "MockPin"
    assert out[0].startswith(f"selftest: simulated pins (MockFactory with {pins}), no GPIO: ")
    no_dim = "selftest: seats 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12: these pins cannot dim:"
    assert any(line.startswith(no_dim) for line in out) is not dims
    no_sound = [line for line in out if line.startswith("selftest: no sound device (")]
    assert len(no_sound) == 1 and no_sound[0].endswith("the prompts are shown, not spoken")
    begins = next(i for i, line in enumerate(out) if line.startswith("» "))
    assert out[begins - 1].endswith("twelve.toml, 12 seats, 0 s per button")  # nobody to wait for
    assert out[begins:] == [
        "» Button check. Press the button of the seat whose light is on.",
        *(f"» Seat {n}, press your button." for n in EN_NUMBERS),
        "» No answer from seats one, two, three, four, five, six, seven, eight, nine, ten, eleven and twelve.",
        "» The check is over, with faults. See the screen.",
        "Answered: —.",
        "No answer from: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12; check the button, the LED and the cable.",
        "The pin map has no host buttons: the host uses the keyboard.",
        "The pin map has no buzzer.",
        "selftest: simulated pins: the result is not kept for the console",
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
        (["selftest", "--timeout", "inf"], {}, "--timeout inf: give 0..600 seconds per button"),
        (["selftest", "--timeout", "nan"], {}, "--timeout nan: give 0..600 seconds per button"),
        (["selftest", "--pins", "no-such-map"], {}, "no-such-map.toml: cannot be read"),
        (["selftest"], {"COMPANION_CONFIG": "BAD"}, "bad.toml:1: seats: expected a table"),
    ],
)
def test_a_selftest_that_cannot_run_says_why_in_one_line(
    selftest: Callable[..., subprocess.CompletedProcess[str]],
    tmp_path: Path,
    args: list[str],
    env: dict[str, str],
    message: str,
) -> None:
    if env.get("COMPANION_CONFIG") == "BAD":  # a club config the command cannot use
        (tmp_path / "bad.toml").write_text('seats = "gpio"\n')
        env = {"COMPANION_CONFIG": str(tmp_path / "bad.toml")}
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
