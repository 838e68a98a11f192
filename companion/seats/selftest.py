"""``companion selftest``: light each seat's LED in turn, ask for its button.

Reports every seat that did not answer, a button that answered for another
seat's light (crossed wires), and buttons already held when the test began
(stuck, or wired for the other pull). The console runs the same
:func:`run_selftest` with its own ``ask``.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .port import ButtonEvent, Seats

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
    """The command line's self-test on real GPIO (or gpiozero's mock pins,
    said plainly); exit status 0 when every seat answered, else 1."""
    from .gpio import GpioSeats
    from .pinmap import load_pinmap

    pinmap = load_pinmap(pins)
    seats = GpioSeats(pinmap)
    try:
        factory = type(seats.factory).__name__
        if "Mock" in factory:
            print(f"selftest: no GPIO here ({factory}): nobody can press, every seat will fail")
        print(f"selftest: {pinmap.source}, {seats.count} seats, {timeout:g} s per seat")
        report = run_selftest(
            seats,
            lambda seat, text: print(text, flush=True),
            timeout=timeout,
            lang=lang,
            held_now=seats.held_now,
        )
    finally:
        seats.close()
    for line in report.lines(lang):
        print(line)
    return 0 if report.ok else 1
