"""Timers on the fake clock: warnings, expiry, pause and resume, ±10 s,
overrun, and no drift over a long game (issue 3). No sleeps: the replay's
clock moves only with the script."""

from __future__ import annotations

from typing import Any

import pytest

from companion.config.rulesets import load_ruleset
from companion.core import views
from companion.core.effects import Effect, Say
from companion.core.engine import new_game, step
from companion.core.events import GameSetUp, HostAdvanced, TimeAdjusted, TimerExpired
from companion.core.sports.state import current_turn
from companion.core.sports.state import table as table_state
from companion.core.step import IllegalInput
from companion.runner.clock import FakeClock, Timers
from companion.runner.replay import ScriptReplay
from companion.runner.script import ScriptError
from tests.helpers import TOURNAMENT_ROLES, play, setup

NIGHT0 = 80  # tournament night 0: agreement 60 s + free seating 20 s


def day_one(**extra: Any) -> tuple[ScriptReplay, list[tuple[float, str]]]:
    """A table at the start of seat 1's speech on day 1 (t = 80 s), and the
    cues it has said, with their times."""
    said: list[tuple[float, str]] = []

    def sink(now: float, effects: tuple[Effect, ...]) -> None:
        said.extend((now, e.cue) for e in effects if isinstance(e, Say))

    table = ScriptReplay(on_effects=sink)
    play(
        setup("tournament", TOURNAMENT_ROLES, **extra), {"at": NIGHT0, "input": "wait"}, table=table
    )
    assert views.phase_name(table.game) == "speech" and current_turn(table.game).seat == 1  # type: ignore[union-attr]
    return table, said


def cues_after(said: list[tuple[float, str]], t0: float) -> list[tuple[float, str]]:
    return [(at, cue) for at, cue in said if at > t0]


def test_the_warning_comes_ten_seconds_before_the_end_and_the_end_on_time() -> None:
    table, said = day_one()
    play({"at": NIGHT0 + 65, "input": "wait"}, table=table)
    assert cues_after(said, NIGHT0) == [(NIGHT0 + 50, "time_warning"), (NIGHT0 + 60, "time_up")]
    game = table.game
    assert (
        game is not None and table_state(game).turn_over and views.lights(game)[0] == "fast_blink"
    )
    # Overrun: the speaker is not cut off; the host moves on.
    play({"at": NIGHT0 + 70, "input": "next"}, table=table)
    assert table.game is not None and current_turn(table.game).seat == 2  # type: ignore[union-attr]


def test_pause_freezes_the_speech_and_resume_gives_back_the_time_left() -> None:
    table, said = day_one()
    play({"at": NIGHT0 + 20, "input": "pause"}, table=table)
    game = table.game
    assert game is not None and dict(game.paused) == {"turn": 40.0, "warning": 30.0}
    assert game.timers == () and table.timers == {}
    # Ten minutes of pause: nothing fires.
    play({"at": NIGHT0 + 620, "input": "resume"}, table=table)
    play({"at": NIGHT0 + 700, "input": "wait"}, table=table)
    assert cues_after(said, NIGHT0 + 21) == [
        (NIGHT0 + 620, "resumed"),
        (NIGHT0 + 650, "time_warning"),
        (NIGHT0 + 660, "time_up"),
    ]


def test_next_while_paused_starts_the_next_speech_running() -> None:
    table, _ = day_one()
    play({"at": NIGHT0 + 5, "input": "pause"}, {"at": NIGHT0 + 30, "input": "next"}, table=table)
    game = table.game
    assert game is not None and game.paused == () and current_turn(game).seat == 2  # type: ignore[union-attr]
    assert table.timers["turn"][0] == NIGHT0 + 30 + 60


@pytest.mark.parametrize(
    ("at", "seconds", "warning_at", "end_at"),
    [
        (20, +10, 60, 70),  # 40 s left -> 50 s: warning and end move by 10 s
        (20, -10, 40, 50),
        (55, +10, None, 70),  # warned already, 5 s left -> 15 s: the warning comes again at 60
        (45, -10, None, 50),  # 15 s left -> 5 s: warned at once, the end in 5 s
        (55, -10, None, 55),  # 5 s left, 10 taken: time is up now
    ],
)
def test_the_host_adds_or_takes_ten_seconds(
    at: float, seconds: float, warning_at: float | None, end_at: float
) -> None:
    table, said = day_one()
    play({"at": NIGHT0 + at, "input": "adjust", "seconds": seconds}, table=table)
    play({"at": NIGHT0 + 200, "input": "wait"}, table=table)
    later = cues_after(said, NIGHT0 + at - 0.5)
    ends = [t for t, cue in later if cue == "time_up"]
    assert ends == [NIGHT0 + end_at]
    warnings = [t for t, cue in said if cue == "time_warning" and t >= NIGHT0 + at]
    if warning_at is not None:
        assert warnings == [NIGHT0 + warning_at]
    if (at, seconds) == (55, 10):
        assert warnings == [NIGHT0 + 60]
    if (at, seconds) == (45, -10):
        assert warnings == [NIGHT0 + 45]


def test_more_time_for_a_speaker_over_time() -> None:
    table, said = day_one()
    play({"at": NIGHT0 + 64, "input": "adjust", "seconds": 10}, table=table)
    game = table.game
    assert game is not None and not table_state(game).turn_over
    assert views.lights(game)[0] == "slow_blink"  # 10 s left: the last seconds
    play({"at": NIGHT0 + 100, "input": "wait"}, table=table)
    assert [t for t, cue in said if cue == "time_up"] == [NIGHT0 + 60, NIGHT0 + 74]


def test_taking_time_from_nothing_is_refused() -> None:
    table, _ = day_one()
    play({"at": NIGHT0 + 61, "input": "wait"}, table=table)  # over time, nothing running
    with pytest.raises(ScriptError, match="no turn, vote window or night step"):
        play({"at": NIGHT0 + 62, "input": "adjust", "seconds": -10}, table=table)


def test_pausing_twice_or_resuming_unpaused_timers_is_refused() -> None:
    table, _ = day_one()
    with pytest.raises(ScriptError, match="not paused"):
        play({"at": NIGHT0 + 1, "input": "resume"}, table=table)
    play({"at": NIGHT0 + 2, "input": "pause"}, table=table)
    with pytest.raises(ScriptError, match="already paused"):
        play({"at": NIGHT0 + 3, "input": "pause"}, table=table)


def test_a_vote_window_can_be_given_more_time() -> None:
    table, said = day_one()
    lines: list[dict[str, Any]] = [{"input": "nominate", "by": 1, "target": 3}]
    lines += [{"after": 1, "input": "next"}, {"input": "nominate", "by": 2, "target": 4}]
    lines += [{"after": 1, "input": "next"} for _ in range(9)]
    play(*lines, table=table)
    game = table.game
    assert game is not None and views.phase_name(game) == "vote"
    opened = table.now
    play({"after": 1, "input": "adjust", "seconds": 2}, {"after": 10, "input": "wait"}, table=table)
    assert [t for t, cue in said if cue == "thanks"] == [opened + 4]  # 2 s window + 2 s


def test_the_time_left_must_cover_the_running_timers() -> None:
    table, _ = day_one()
    game = table.game
    assert game is not None
    with pytest.raises(IllegalInput, match="running timers"):
        step(game, TimeAdjusted(10, (("turn", 30.0),)))  # the warning is missing


def test_no_drift_over_three_hours_of_timers() -> None:
    """Timers restarted from the deadline that fired them, on a clock that is
    late by a little every time it looks: after three hours of 60 s turns the
    deadlines are exactly where they belong."""
    clock = FakeClock()
    timers = Timers()
    rules = load_ruleset("tournament")
    game, effects = new_game(GameSetUp(rules, 10, tuple(TOURNAMENT_ROLES)))
    timers.carry_out(effects, clock.now())
    fired = 0
    lateness = [0.0031, 0.0007, 0.012, 0.0]
    while clock.now() < 3 * 3600:
        due = timers.earliest()
        assert due is not None
        name, deadline, generation = due
        clock.set(max(clock.now(), deadline + lateness[fired % len(lateness)]))
        game, effects = step(game, TimerExpired(name, generation))
        timers.expired(name)
        timers.carry_out(effects, deadline)  # counted from the deadline, not from "now"
        if table_state(game).turn_over:  # the host moves on the moment time is up
            game, effects = step(game, HostAdvanced())
            timers.carry_out(effects, deadline)
        fired += 1
        if game.phase == "voting":
            break
    assert fired > 20
    # Every deadline sits on the whole-second grid the rulesets' timings make.
    assert all(d == round(d) for d, _ in timers.deadlines.values())
