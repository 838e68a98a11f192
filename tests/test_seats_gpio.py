"""A whole day at a table on gpiozero's mock pins (issue 4): buttons driven
pin by pin, LED pins read back, the real runtime on a fake clock."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockFactory, MockPin, MockPWMPin
from seat_table import SeatTable

from companion.core.events import HostAdvanced, Nominated, OffenceGiven
from companion.core.sports.state import current_turn
from companion.core.sports.state import table as table_state
from companion.seats.lights import SWEEP_STEP
from companion.seats.pinmap import PinMap, load_pinmap, parse_pinmap

IDLE, STEADY, DIM = 0.04, 1.0, 0.25


@pytest.fixture
def table() -> Iterator[SeatTable]:
    table = SeatTable()
    try:
        yield table
    finally:
        table.close()


def test_the_lights_start_dark_and_sweep_round_the_table_when_a_game_starts(
    table: SeatTable,
) -> None:
    assert table.leds() == [0.0] * 10
    table.start()
    assert table.leds() == [1.0] + [0.0] * 9  # the sweep: seat 1 first, the rest wait
    table.wait(SWEEP_STEP * 4.5)
    assert table.leds()[:4] == [IDLE] * 4 and table.leds()[4] == 1.0
    table.wait(SWEEP_STEP * 6)
    assert table.leds() == [IDLE] * 10  # then every seat shows its mode


def play_to_day_one(table: SeatTable) -> None:
    table.start()
    table.wait(60 + 20)  # night zero: two timed steps
    assert table.game.phase == "speeches" and current_turn(table.game) is not None
    assert current_turn(table.game).seat == 1


def test_a_whole_day_through_the_pins(table: SeatTable) -> None:
    play_to_day_one(table)
    assert table.leds() == [STEADY] + [IDLE] * 9  # seat 1's minute

    # Seat 1's warning, then «Пас» by the button: seat 2's minute starts lit.
    table.wait(50.5)
    assert table_state(table.game).turn_warned
    table.wait(0.25)
    lit_then_dark = [table.led(1)]
    table.wait(0.5)
    lit_then_dark.append(table.led(1))
    assert sorted(lit_then_dark) == [0.0, 1.0]  # the slow blink
    table.press(1)
    assert current_turn(table.game) is not None and current_turn(table.game).seat == 2
    assert table.leds()[:2] == [IDLE, STEADY]
    table.release(1)  # nothing: logged by the core
    assert current_turn(table.game).seat == 2

    # Nominations (from the console), every speech ended by its button.
    table.submit(Nominated(2, 10))
    for seat in range(2, 11):
        assert current_turn(table.game) is not None and current_turn(table.game).seat == seat
        if seat in (6, 9):
            table.submit(Nominated(seat, {6: 4, 9: 2}[seat]))
        table.wait(3)
        table.press(seat)
        table.release(seat)
    assert table.game.phase == "voting"
    table.wait(0.05)
    assert table.leds() == [DIM] * 10  # everyone may vote

    # «За 10»: seats 1, 2, 3, 5, 8 hold; 3 lifts before «Спасибо».
    for seat in (1, 2, 3, 5, 8):
        table.press(seat)
    assert [table.led(n) for n in (1, 2, 3, 5, 8)] == [STEADY] * 5
    assert table.led(4) == DIM
    table.wait(0.4)
    table.release(3)
    assert [(p.seat, p.offence) for p in table.game.proposals] == [
        (3, "hand_release_before_thanks")
    ]
    assert table.led(3) == DIM  # the hand is up again
    table.wait(1.7)  # «Спасибо» (2 s after the question)
    assert table.said[-1] == "thanks"
    table.release(8)  # during the count: no foul in this text
    assert len(table.game.proposals) == 1
    table.wait(2)
    assert table.said[-2:] == ["votes_accepted", "vote_question"]  # «Принято»; «за 4»
    ballot = table_state(table.game).ballot
    assert ballot is not None and ballot.votes[0] == (1, 2, 3, 5, 8)
    for seat in (1, 2, 5):
        table.release(seat)  # held over from the last question: no vote, no foul
    assert len(table.game.proposals) == 1
    assert table.leds() == [DIM] * 10

    # «За 4»: seats 6, 7, 9; the Don (7) lifts early. The rest go to 2.
    for seat in (6, 7, 9):
        table.press(seat)
    assert table.leds() == [DIM] * 5 + [STEADY, STEADY, DIM, STEADY, DIM]
    table.wait(0.5)
    table.release(7)
    assert [p.seat for p in table.game.proposals] == [3, 7]
    table.wait(3.5)
    for seat in (6, 9):
        table.release(seat)
    table.wait(5)
    # Seat 10 leaves with five votes and speaks a last word: steady, out or not.
    turn = current_turn(table.game)
    assert turn is not None and (turn.seat, turn.kind) == (10, "last_word")
    assert table.leds() == [IDLE] * 9 + [STEADY]
    table.press(10)  # ends the last word by the button too
    assert current_turn(table.game) is None or current_turn(table.game).kind != "last_word"
    assert table.led(10) == 0.0  # out of the game: dark


def test_a_button_press_outside_a_turn_or_vote_changes_nothing(table: SeatTable) -> None:
    play_to_day_one(table)
    before = table.leds()
    table.press(7)
    table.release(7)
    assert current_turn(table.game) is not None and current_turn(table.game).seat == 1
    assert table.leds() == before


def test_ten_milliseconds_of_chatter_make_one_press(table: SeatTable) -> None:
    play_to_day_one(table)
    pin = table.button_pin(1)
    seen: list[object] = []
    table.seats.start(lambda event: seen.append(event) or table.table.bridge.button(event))  # type: ignore[func-returns-value]
    for _ in range(5):  # a contact bouncing for 10 ms: an edge every millisecond
        pin.drive_low()
        table.wait(0.001)
        pin.drive_high()
        table.wait(0.001)
    pin.drive_low()  # and it settles closed
    table.wait(0.05)
    assert [(e.pressed, e.seat) for e in seen] == [(True, 1)]  # type: ignore[attr-defined]
    assert table.seats.filters["seat 1"].chatter >= 9
    assert (
        current_turn(table.game) is not None and current_turn(table.game).seat == 2
    )  # one «Пас», not two
    pin.drive_high()
    table.wait(0.05)
    assert [(e.pressed, e.seat) for e in seen] == [(True, 1), (False, 1)]  # type: ignore[attr-defined]


def test_a_tap_shorter_than_the_bounce_time_still_ends_in_a_release(table: SeatTable) -> None:
    play_to_day_one(table)
    seen: list[bool] = []
    table.seats.start(lambda event: seen.append(event.pressed))
    pin = table.button_pin(4)
    pin.drive_low()
    table.wait(0.008)
    pin.drive_high()  # inside the bounce time: ignored as chatter at first ...
    table.wait(0.05)
    assert seen == [True, False]  # ... and passed on when the bounce time is over


def test_a_stuck_button_is_reported_once_and_ignored_until_released(table: SeatTable) -> None:
    play_to_day_one(table)
    table.submit(HostAdvanced())  # into seat 2's minute
    seen: list[tuple[bool, int | None]] = []
    table.seats.start(lambda event: seen.append((event.pressed, event.seat)))
    table.press(9)
    table.wait(31)
    assert table.seats.stuck_reports == [
        "seat 9: held for 30 s, stuck? Ignored until it is released"
    ]
    table.wait(60)
    assert len(table.seats.stuck_reports) == 1  # once
    table.release(9)
    table.wait(0.05)
    assert seen == [(True, 9), (False, 9)]
    assert not table.seats.filters["seat 9"].stuck
    table.press(9)  # works again
    assert seen[-1] == (True, 9)


def levels_over(table: SeatTable, seat: int, seconds: float, step: float = 0.025) -> list[float]:
    out = []
    for _ in range(round(seconds / step)):
        table.wait(step, step)
        out.append(table.led(seat))
    return out


def test_over_time_blinks_fast_and_a_lost_speech_flashes_twice(table: SeatTable) -> None:
    play_to_day_one(table)
    table.wait(60)  # seat 1 runs past the end of the minute
    assert table_state(table.game).turn_over
    fast = levels_over(table, 1, 1.0)
    assert fast.count(1.0) == fast.count(0.0) == 20  # 4 Hz: 125 ms lit, 125 ms dark
    assert max(len(run) for run in "".join("x" if v else "." for v in fast).split(".")) == 5
    table.press(1)
    # Three fouls take seat 5's next speech (tournament 4.4): a double flash.
    for _ in range(3):
        table.submit(OffenceGiven(5, "excessive_gestures"))
    flashes = levels_over(table, 5, 1.575)  # one period, from the third foul
    lit = "".join("x" if v == 1.0 else "." for v in flashes)
    assert [len(r) for r in lit.split(".") if r] == [5, 5]  # two 128 ms flashes per 1.6 s
    assert table.led(4) == IDLE


ONOFF_MAP = parse_pinmap(
    "[defaults]\nled = 'onoff'\n[seats]\n"
    + "\n".join(
        f"{n} = {{ button = {s.button.pin}, led = {s.led} }}"
        for n, s in enumerate(load_pinmap("default").seats, 1)
    ),
    "onoff.toml",
)


@pytest.mark.parametrize(
    ("pinmap", "pin_class"),
    [(ONOFF_MAP, MockPWMPin), (load_pinmap("default"), MockPin)],
    ids=["on/off LEDs in the map", "PWM LEDs on pins without PWM"],
)
def test_plain_on_off_leds_show_the_vote_by_blinking(pinmap: PinMap, pin_class: type) -> None:
    """On/off LEDs: those the map says are on/off, and the map's PWM LEDs on
    pins that cannot dim (gpiozero's plain mock pins), which fall back."""
    table = SeatTable(pinmap, MockFactory(pin_class=pin_class))
    try:
        fell_back = list(range(1, 11)) if pinmap.seat(1).led_kind == "pwm" else []
        assert table.seats.no_pwm == fell_back
        assert table.seats.led_kinds == ["onoff"] * 10
        play_to_day_one(table)
        assert table.leds() == [1.0] + [0.0] * 9  # no faint glow without PWM
        table.submit(Nominated(1, 5))
        for seat in range(1, 11):
            if seat == 2:
                table.submit(Nominated(2, 6))  # two nominees: day one votes
            table.press(seat)
            table.release(seat)
        assert table.game.phase == "voting"
        table.wait(0.05)
        table.press(3)
        assert table.led(3) == 1.0  # steady: your hand is down
        may_vote = levels_over(table, 1, 1.0, 0.05)
        assert may_vote.count(1.0) == may_vote.count(0.0) == 10  # blinking: you may vote
        assert table.led(3) == 1.0
    finally:
        table.close()


def test_pwm_pins_keep_the_dim_levels(table: SeatTable) -> None:
    assert table.seats.no_pwm == [] and table.seats.led_kinds == ["pwm"] * 10
    play_to_day_one(table)
    assert table.leds() == [1.0] + [IDLE] * 9
