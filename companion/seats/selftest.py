"""The self-test: light each seat's LED in turn and ask for its button, then
ask for each host button and sound the buzzer (``companion selftest``:
``seats/selftest_command.py``).

Reports every seat and host button that did not answer, a button that
answered for another seat's light or another host button (crossed wires),
and buttons already held when the test began (stuck, or wired for the
other pull). What the test says to the person under the table comes out as
:class:`Prompt` values, cues of the phrase catalogue
(``core.vocabulary.SELFTEST_CUES``): the caller speaks or shows them.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from .port import ButtonEvent, Seats

#: The longest ``--timeout`` per button: ten minutes is already no test.
MAX_TIMEOUT_S = 600.0

WORDS = {
    "ru": {
        "ok": "Все места ответили: {seats}.",
        "answered": "Ответили: {seats}.",
        "silent": "Не ответили: {seats} — проверьте кнопку, лампу и провод.",
        "crossed": "Место {lit} горело, а нажата кнопка места {pressed} — перепутаны провода?",
        "held": "Кнопка места {seat} была нажата уже в начале — залипла или не та подтяжка?",
        "hosts_ok": "Кнопки ведущего ответили: {names}.",
        "hosts_silent": "Кнопки ведущего не ответили: {names} — проверьте кнопку и провод.",
        "host_crossed": "Ждали кнопку ведущего «{asked}», а нажата «{pressed}» — перепутаны провода?",
        "host_held": "Кнопка ведущего «{name}» была нажата уже в начале — залипла?",
        "no_hosts": "Кнопок ведущего в схеме выводов нет: ведущий работает с клавиатуры.",
        "buzzer": "Зуммер (GPIO {pin}) прозвучал трижды; если его не было слышно — проверьте зуммер и транзистор.",
        "no_buzzer": "Зуммера в схеме выводов нет.",
        "next": "дальше",
        "pause": "пауза",
        "offence": "нарушение",
    },
    "en": {
        "ok": "Every seat answered: {seats}.",
        "answered": "Answered: {seats}.",
        "silent": "No answer from: {seats}; check the button, the LED and the cable.",
        "crossed": "Seat {lit} was lit but seat {pressed}'s button was pressed: crossed wires?",
        "held": "Seat {seat}'s button was already held at the start: stuck, or the wrong pull?",
        "hosts_ok": "The host buttons answered: {names}.",
        "hosts_silent": "No answer from the host buttons: {names}; check the button and the cable.",
        "host_crossed": "The host's {asked} button was asked for but {pressed} was pressed: crossed wires?",
        "host_held": "The host's {name} button was already held at the start: stuck?",
        "no_hosts": "The pin map has no host buttons: the host uses the keyboard.",
        "buzzer": "The buzzer (GPIO {pin}) sounded three times; if it was not heard, check it and its transistor.",
        "no_buzzer": "The pin map has no buzzer.",
        "next": "next",
        "pause": "pause",
        "offence": "offence",
    },
}


@dataclass(frozen=True, slots=True)
class Prompt:
    """What the test says: a cue of ``SELFTEST_CUES`` with its arguments."""

    cue: str
    args: tuple[tuple[str, int | str], ...] = ()
    #: cuts in over the prompt still sounding: the voice keeps up with the
    #: lights when the buttons answer quickly
    urgent: bool = False
    #: the test goes on only once it has been heard (before the first light,
    #: before the buzzer sounds over it)
    heard_first: bool = False


Say = Callable[[Prompt], None]


@dataclass
class SelfTestReport:
    seats: int
    answered: list[int] = field(default_factory=list)
    silent: list[int] = field(default_factory=list)
    crossed: list[tuple[int, int]] = field(default_factory=list)  # (lit, pressed)
    held: list[int] = field(default_factory=list)
    hosts: list[str] = field(default_factory=list)  # the host buttons asked for, in order
    hosts_answered: list[str] = field(default_factory=list)
    hosts_silent: list[str] = field(default_factory=list)
    hosts_crossed: list[tuple[str, str]] = field(default_factory=list)  # (asked, pressed)
    hosts_held: list[str] = field(default_factory=list)
    buzzer: int | None = None  # the buzzer's GPIO, once it has sounded

    @property
    def ok(self) -> bool:
        return not (
            self.silent
            or self.crossed
            or self.held
            or self.hosts_silent
            or self.hosts_crossed
            or self.hosts_held
        )

    def lines(self, lang: str = "ru") -> list[str]:
        words = WORDS.get(lang, WORDS["ru"])
        out = [words["held"].format(seat=seat) for seat in self.held]
        out += [words["crossed"].format(lit=lit, pressed=p) for lit, p in self.crossed]
        listed = ", ".join(map(str, self.answered)) or "—"
        if not (self.silent or self.crossed or self.held):
            out.append(words["ok"].format(seats=listed))
        else:
            out.append(words["answered"].format(seats=listed))
        if self.silent:
            out.append(words["silent"].format(seats=", ".join(map(str, self.silent))))
        out += self._host_lines(words)
        if self.buzzer is not None:
            out.append(words["buzzer"].format(pin=self.buzzer))
        else:
            out.append(words["no_buzzer"])
        return out

    def _host_lines(self, words: dict[str, str]) -> list[str]:
        if not self.hosts:
            return [words["no_hosts"]]

        def named(names: Sequence[str]) -> str:
            return ", ".join(words.get(name, name) for name in names) or "—"

        out = [words["host_held"].format(name=named([n])) for n in self.hosts_held]
        out += [
            words["host_crossed"].format(asked=named([a]), pressed=named([p]))
            for a, p in self.hosts_crossed
        ]
        out.append(words["hosts_ok"].format(names=named(self.hosts_answered)))
        if self.hosts_silent:
            out.append(words["hosts_silent"].format(names=named(self.hosts_silent)))
        return out


def run_selftest(
    seats: Seats,
    say: Say,
    *,
    timeout: float = 10.0,
    held_now: Callable[[int], bool] | None = None,
    hosts: Sequence[str] = (),
    host_held: Callable[[str], bool] | None = None,
    buzzer: tuple[int, Callable[[], None]] | None = None,
) -> SelfTestReport:
    """Light each seat alone and wait up to ``timeout`` s for its press;
    then ask for each of ``hosts`` (host buttons, by name) the same way,
    and sound the buzzer, ``(its GPIO, beep)``.

    ``say(prompt)`` is called once the seat's light is on (speak it, show
    it); ``held_now(seat)`` and ``host_held(name)`` read a button's level
    at the start.
    """
    report = SelfTestReport(seats.count, hosts=list(hosts))
    presses: queue.Queue[ButtonEvent] = queue.Queue()
    seats.start(presses.put)
    seats.show((n, "off") for n in range(1, seats.count + 1))
    if held_now is not None:
        report.held = [n for n in range(1, seats.count + 1) if held_now(n)]
    if host_held is not None:
        report.hosts_held = [name for name in hosts if host_held(name)]
    say(Prompt("selftest_begins", heard_first=True))
    for seat in range(1, seats.count + 1):
        seats.show([(seat, "steady")])
        say(Prompt("selftest_seat", (("seat", seat),), urgent=True))
        # A press of a seat that has answered already is that player pressing
        # again, not a crossed wire.
        if _wait_for(seat, _seat_of, presses, timeout, report.crossed, report.answered):
            report.answered.append(seat)
        else:
            report.silent.append(seat)
        seats.show([(seat, "off")])
    for name in hosts:
        say(Prompt("selftest_host", (("button", name),), urgent=True))
        crossed = report.hosts_crossed
        if _wait_for(name, _host_of, presses, timeout, crossed, report.hosts_answered):
            report.hosts_answered.append(name)
        else:
            report.hosts_silent.append(name)
    if buzzer is not None:
        pin, beep = buzzer
        say(Prompt("selftest_buzzer", heard_first=True))
        beep()
        report.buzzer = pin
    for prompt in outcome_prompts(report):
        say(prompt)
    return report


def outcome_prompts(report: SelfTestReport) -> list[Prompt]:
    """What the test says at its end: all is well, or which seats were
    silent and that the screen has the rest."""
    if report.ok:
        return [Prompt("selftest_ok")]
    silent = [Prompt("selftest_silent", (("seats", ",".join(map(str, report.silent))),))]
    return [*(silent if report.silent else []), Prompt("selftest_failed")]


Key = TypeVar("Key", int, str)


def _seat_of(event: ButtonEvent) -> int | None:
    return event.seat


def _host_of(event: ButtonEvent) -> str | None:
    return event.host


def _wait_for(
    asked: Key,
    key: Callable[[ButtonEvent], Key | None],
    presses: queue.Queue[ButtonEvent],
    timeout: float,
    crossed: list[tuple[Key, Key]],
    answered: Sequence[Key],
) -> bool:
    """Wait for a press of ``asked``; a press of another button of its kind
    (not one that answered already) is a crossed pair."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        try:
            event = presses.get(timeout=left) if left > 0 else presses.get_nowait()
        except queue.Empty:
            return False
        pressed = key(event)
        if not event.pressed or pressed is None:
            continue
        if pressed == asked:
            return True
        if pressed not in answered and (asked, pressed) not in crossed:
            crossed.append((asked, pressed))
