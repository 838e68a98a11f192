"""Seat button to seat light: pin edge -> runtime input -> LED change.

Run ``python bench/seats.py``. gpiozero's mock pin factory (PWM pins) stands
in for the header; everything else is what runs at a table: the seat shell
(our debounce, the bridge), the live table as the console builds it
(``LiveTable``: the loop on the monotonic clock in its own thread), the engine, and the light board writing the LED pins.
Each press is the current speaker's «Пас»: the next speaker's LED must come
on. Times: the button pin driven low (the edge) -> ``LiveTable.submit`` called
-> the next speaker's LED pin written. Debounce adds no delay to a first
edge (it only ignores chatter after it), so nothing is excluded. Votes and
nights between the days are moved on by the host and not measured.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gpiozero.pins.mock import MockFactory, MockPWMPin

from bench.naive import ROLES, pct
from companion.config.rulesets import load_ruleset
from companion.core.engine import step
from companion.core.events import Event, GameSetUp, HostAdvanced, SeatPressed
from companion.core.sports.state import current_turn
from companion.live.assembly import LiveTable, TableSpec
from companion.runner.clock import MonotonicClock
from companion.seats.gpio import GpioSeats
from companion.seats.pinmap import load_pinmap
from companion.voice.settings import VoiceSettings
from companion.voice.speaker import FakeSpeaker

LIT: dict[int, tuple[float, threading.Event]] = {}  # LED pin -> (when it last went to full, event)


class TimedPin(MockPWMPin):  # type: ignore[misc]
    """A mock pin that notes when it is driven to full brightness."""

    def _change_state(self, value: Any) -> bool:
        changed: bool = super()._change_state(value)
        if changed and value == 1.0:
            now = time.monotonic()
            number = int(str(self.info.name).removeprefix("GPIO"))
            slot = LIT.get(number)
            if slot is not None:
                LIT[number] = (now, slot[1])
                slot[1].set()
        return changed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--presses", type=int, default=10_000)
    args = parser.parse_args()
    pinmap = load_pinmap("default")
    factory = MockFactory(pin_class=TimedPin)
    seats = GpioSeats(pinmap, pin_factory=factory)  # real clock, real timers, the ticker
    for seat in pinmap.seats:
        assert seat.led is not None
        LIT[seat.led] = (0.0, threading.Event())
    submitted: list[float] = []

    class TimedTable(LiveTable):
        def submit(self, event: Event, **when: Any) -> None:
            submitted.append(time.monotonic())
            super().submit(event, **when)

    rules = load_ruleset("tournament")
    runtime = TimedTable(
        TableSpec(voice=VoiceSettings(captions_only=True), seats="gpio"),
        rules,
        10,
        clock=MonotonicClock(),
        seats=seats,
        speaker=FakeSpeaker(),
    )
    runtime.start()
    runtime.submit(GameSetUp(rules, 10, ROLES))
    time.sleep(1.0)  # the sweep round the table
    to_input: list[float] = []
    to_light: list[float] = []
    while len(to_light) < args.presses:
        game = runtime.game
        turn = current_turn(game) if game is not None else None
        if game is None or game.phase == "ended":
            # The host only moves on and nobody is nominated: days and nights
            # go round until the presses are done; a game that ends stops here.
            print(f"the game ended after {len(to_light)} presses", file=sys.stderr)
            break
        if game.phase != "speeches" or turn is None or turn.kind != "speech":
            runtime.submit(HostAdvanced())  # votes, nights, last words: the host moves on
            time.sleep(0.002)
            continue
        # The engine is pure: what the press will do can be worked out first.
        after, _ = step(game, SeatPressed(turn.seat))
        after_turn = current_turn(after)
        following = after_turn.seat if after_turn is not None else None
        if following is None or following == turn.seat:  # the day's last speech ends in a vote
            runtime.submit(HostAdvanced())
            time.sleep(0.002)
            continue
        led = pinmap.seat(following).led
        assert led is not None
        lit = LIT[led][1]
        lit.clear()
        button = factory.pin(pinmap.seat(turn.seat).button.pin)
        count = len(submitted)
        edge = time.monotonic()
        button.drive_low()
        if not lit.wait(2.0):
            print(
                f"seat {following}'s light did not come on ({game.phase}, {turn}, modes {seats.board.modes})",
                file=sys.stderr,
            )
            break
        to_light.append(LIT[led][0] - edge)
        to_input.append(submitted[count] - edge)
        button.drive_high()
        time.sleep(pinmap.seat(turn.seat).button.bounce_s + 0.002)  # the release settles
    runtime.close()
    print(f"{len(to_light)} presses, gpiozero mock pins, default pin map")
    print(
        f"  pin edge -> runtime input: p50 {pct(to_input, 0.5):6.3f} ms   p99 {pct(to_input, 0.99):6.3f} ms"
    )
    print(
        f"  pin edge -> LED change:    p50 {pct(to_light, 0.5):6.3f} ms   p99 {pct(to_light, 0.99):6.3f} ms   max {max(to_light) * 1000:6.3f} ms"
    )
    print("target: pin edge -> LED change p99 <= 2 ms")


if __name__ == "__main__":
    main()
