"""``companion selftest``: light each seat's LED in turn, ask for its button.

Reports every seat that did not answer, a button that answered for another
seat's light (crossed wires), and buttons already held when the test began
(stuck, or wired for the other pull). The console runs the same
:func:`run_selftest` with its own ``ask``.
"""

from __future__ import annotations

import queue
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .port import ButtonEvent, Seats

#: The longest ``--timeout`` per seat: ten minutes is already no test.
MAX_TIMEOUT_S = 600.0

WORDS = {
    "ru": {
        "ask": "Место {seat}: горит лампа — нажмите кнопку.",
        "ok": "Все места ответили: {seats}.",
        "answered": "Ответили: {seats}.",
        "silent": "Не ответили: {seats} — проверьте кнопку, лампу и провод.",
        "crossed": "Место {lit} горело, а нажата кнопка места {pressed} — перепутаны провода?",
        "held": "Кнопка места {seat} была нажата уже в начале — залипла или не та подтяжка?",
    },
    "en": {
        "ask": "Seat {seat}: its light is on, press its button.",
        "ok": "Every seat answered: {seats}.",
        "answered": "Answered: {seats}.",
        "silent": "No answer from: {seats}; check the button, the LED and the cable.",
        "crossed": "Seat {lit} was lit but seat {pressed}'s button was pressed: crossed wires?",
        "held": "Seat {seat}'s button was already held at the start: stuck, or the wrong pull?",
    },
}


@dataclass
class SelfTestReport:
    seats: int
    answered: list[int] = field(default_factory=list)
    silent: list[int] = field(default_factory=list)
    crossed: list[tuple[int, int]] = field(default_factory=list)  # (lit, pressed)
    held: list[int] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.silent or self.crossed or self.held)

    def lines(self, lang: str = "ru") -> list[str]:
        words = WORDS.get(lang, WORDS["ru"])
        out = [words["held"].format(seat=seat) for seat in self.held]
        out += [words["crossed"].format(lit=lit, pressed=p) for lit, p in self.crossed]
        listed = ", ".join(map(str, self.answered)) or "—"
        if self.ok:
            return [*out, words["ok"].format(seats=listed)]
        out.append(words["answered"].format(seats=listed))
        if self.silent:
            out.append(words["silent"].format(seats=", ".join(map(str, self.silent))))
        return out


def run_selftest(
    seats: Seats,
    ask: Callable[[int, str], None],
    *,
    timeout: float = 10.0,
    lang: str = "ru",
    held_now: Callable[[int], bool] | None = None,
) -> SelfTestReport:
    """Light each seat alone and wait up to ``timeout`` s for its press.

    ``ask(seat, text)`` is called once the seat's light is on (print it,
    speak it); ``held_now(seat)`` reads a button's level at the start.
    """
    report = SelfTestReport(seats.count)
    presses: queue.Queue[ButtonEvent] = queue.Queue()
    seats.start(presses.put)
    seats.show((n, "off") for n in range(1, seats.count + 1))
    if held_now is not None:
        report.held = [n for n in range(1, seats.count + 1) if held_now(n)]
    words = WORDS.get(lang, WORDS["ru"])
    for seat in range(1, seats.count + 1):
        seats.show([(seat, "steady")])
        ask(seat, words["ask"].format(seat=seat))
        if _wait_for(seat, presses, timeout, report):
            report.answered.append(seat)
        else:
            report.silent.append(seat)
        seats.show([(seat, "off")])
    return report


def _wait_for(
    seat: int, presses: queue.Queue[ButtonEvent], timeout: float, report: SelfTestReport
) -> bool:
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        try:
            event = presses.get(timeout=left) if left > 0 else presses.get_nowait()
        except queue.Empty:
            return False
        if not event.pressed or event.seat is None:
            continue
        if event.seat == seat:
            return True
        if (seat, event.seat) not in report.crossed:
            report.crossed.append((seat, event.seat))


def selftest_command(pins: str, timeout: float, lang: str) -> int:
    """The command line's self-test; exit status 0 when every seat answered,
    1 when one did not, 2 when it cannot run (a bad pin map, no GPIO: said
    in one line on standard error, with how to use simulated pins).

    On gpiozero's mock pins (``GPIOZERO_PIN_FACTORY=mock``) nobody can press
    a button, so no seat is waited for: the run shows the lights in turn and
    a report in which every seat is silent, and says so first.
    """
    from .gpio import SIMULATED_PINS, GpioSeats, GpioUnavailable, describe_factory, pin_factory
    from .pinmap import PinMapError, load_pinmap

    if not 0 <= timeout <= MAX_TIMEOUT_S:  # also NaN; inf would overflow queue.get
        _fail(f"--timeout {timeout:g}: give 0..{MAX_TIMEOUT_S:g} seconds per seat")
        return 2
    try:
        pinmap = load_pinmap(pins)
    except PinMapError as error:
        _fail(str(error))
        return 2
    try:
        factory = pin_factory()
        seats = GpioSeats(pinmap, pin_factory=factory)
    except GpioUnavailable as error:
        _fail(f"{error}; to try it on simulated pins: {SIMULATED_PINS} companion selftest")
        return 2
    except Exception as error:  # gpiozero or its GPIO library refusing a pin
        reason = (str(error).splitlines() or [""])[0] or type(error).__name__
        _fail(f"{pinmap.source}: the pins cannot be opened: {reason}")
        return 2
    try:
        if _simulated(factory):
            timeout = 0.0
            print(
                f"selftest: simulated pins ({describe_factory(factory)}), no GPIO:"
                " nobody can press their buttons, so no seat is waited for"
                " and a seat whose button was not pressed at once is reported silent"
            )
        if seats.no_pwm:
            print(
                f"selftest: seats {', '.join(map(str, seats.no_pwm))}: these pins cannot dim:"
                " the LEDs are lit on/off instead"
            )
        print(f"selftest: {pinmap.source}, {seats.count} seats, {timeout:g} s per seat")
        report = run_selftest(
            seats,
            lambda seat, text: print(text, flush=True),
            timeout=timeout,
            lang=lang,
            held_now=seats.held_now,
        )
    except KeyboardInterrupt:  # Ctrl-C at the table: stop, no traceback
        print("selftest: stopped", file=sys.stderr)
        return 130
    finally:
        seats.close()
    for line in report.lines(lang):
        print(line)
    return 0 if report.ok else 1


def _simulated(factory: object) -> bool:
    from gpiozero.pins.mock import MockFactory

    return isinstance(factory, MockFactory)


def _fail(message: str) -> None:
    print(f"companion: selftest: {message}", file=sys.stderr)
