"""The simulated table's seats (issue 4): keys for buttons, the lights as
text, the same modes and patterns as the LEDs."""

from __future__ import annotations

from companion.runner.clock import FakeClock
from companion.seats.fake import FakeSeats, glyph
from companion.seats.port import ButtonEvent


def test_the_lights_as_text_follow_the_same_patterns() -> None:
    clock = FakeClock(5.0)
    seats = FakeSeats(4, clock.now)
    seats.show([(1, "steady"), (2, "idle"), (3, "may_vote"), (4, "off")])
    assert seats.render() == "1● 2○ 3◐ 4·"
    seats.show([(1, "slow_blink")])
    assert seats.render() == "1● 2○ 3◐ 4·"  # a blink starts lit ...
    clock.advance(0.6)
    assert seats.render() == "1· 2○ 3◐ 4·"  # ... and goes dark half a second on
    assert seats.modes() == ["slow_blink", "idle", "may_vote", "off"]


def test_the_sweep_goes_round_then_back_to_the_modes() -> None:
    clock = FakeClock()
    seats = FakeSeats(3, clock.now)
    seats.show([(1, "idle"), (2, "idle"), (3, "idle")])
    seats.sweep()
    frames = []
    for _ in range(4):
        frames.append(seats.render())
        clock.advance(0.08)
    assert frames == ["1● 2· 3·", "1○ 2● 3·", "1○ 2○ 3●", "1○ 2○ 3○"]


def test_a_key_presses_and_a_second_press_releases() -> None:
    clock = FakeClock(1.0)
    seats = FakeSeats(10, clock.now)
    seen: list[ButtonEvent] = []
    seats.start(seen.append)
    seats.toggle(3)
    clock.advance(0.5)
    seats.toggle(3)
    seats.release(3)  # not held: nothing
    assert seen == [ButtonEvent(True, 1.0, seat=3), ButtonEvent(False, 1.5, seat=3)]


def test_glyphs() -> None:
    assert [glyph(x) for x in (0.0, 0.04, 0.25, 1.0)] == ["·", "○", "◐", "●"]


def test_the_bridge_turns_buttons_into_inputs_at_the_edge_time() -> None:
    from companion.core.events import (
        HostAdvanced,
        SeatPressed,
        SeatReleased,
        TimersPaused,
        TimersResumed,
    )
    from companion.seats.bridge import SeatsBridge

    sent: list[tuple[object, float | None]] = []
    paused = [False]
    offence_asked: list[bool] = []

    class Game:
        @property
        def paused(self) -> tuple[tuple[str, float], ...]:
            return (("speech", 12.0),) if paused[0] else ()

    seats = FakeSeats(10)
    bridge = SeatsBridge(
        seats,
        lambda event, *, at=None: sent.append((event, at)),
        lambda: Game(),  # type: ignore[return-value,arg-type]
        lambda: offence_asked.append(True),
    )
    bridge.button(ButtonEvent(True, 12.5, seat=3))
    bridge.button(ButtonEvent(False, 13.0, seat=3))
    bridge.button(ButtonEvent(True, 14.0, host="next"))
    bridge.button(ButtonEvent(False, 14.1, host="next"))  # a host button acts on its press
    bridge.button(ButtonEvent(True, 15.0, host="pause"))
    paused[0] = True
    bridge.button(ButtonEvent(True, 16.0, host="pause"))
    bridge.button(ButtonEvent(True, 17.0, host="offence"))
    assert sent == [
        (SeatPressed(3), 12.5),
        (SeatReleased(3), 13.0),
        (HostAdvanced(), 14.0),
        (TimersPaused(), 15.0),
        (TimersResumed(), 16.0),
    ]
    assert offence_asked == [True]


def test_the_button_thread_runs_due_actions_in_turn_and_survives_a_failure() -> None:
    import threading

    from companion.seats.buttons import LaterThread

    clock = FakeClock(10.0)
    later = LaterThread(clock.now)
    ran: list[str] = []
    done = threading.Event()

    def fail() -> None:
        ran.append("fail")
        raise RuntimeError("broken check")

    later(0.0, lambda: ran.append("first"))
    later(0.0, fail)
    later(0.0, done.set)
    assert done.wait(10)
    assert ran == ["first", "fail"]  # in the order asked, the failure logged
