"""The live loop on a fake clock: one queue, timers at their deadlines,
the journal before the effects, refused inputs reported, threads that only
enqueue (issue 3)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from companion.config.rulesets import load_ruleset
from companion.core.effects import Effect, Say
from companion.core.events import (
    GameSetUp,
    HostAdvanced,
    Nominated,
    SeatPressed,
    TimeAdjusted,
    TimersPaused,
    TimersResumed,
)
from companion.core.sports.state import current_turn
from companion.runner.clock import FakeClock
from companion.runner.journal import Journal
from companion.runner.loop import LiveLoop
from companion.runner.replay import ScriptReplay
from companion.runner.script import parse_lines
from tests.helpers import TOURNAMENT_ROLES

RULES = load_ruleset("tournament")


class Recorder:
    def __init__(self) -> None:
        self.said: list[tuple[float, str]] = []
        self.refused: list[str] = []

    def effects(self, now: float, effects: tuple[Effect, ...]) -> None:
        self.said.extend((now, e.cue) for e in effects if isinstance(e, Say))

    def rejected(self, event: object, reason: str, line: int | None) -> None:
        self.refused.append(reason)


def live(journal: Journal | None = None) -> tuple[LiveLoop, FakeClock, Recorder]:
    clock = FakeClock()
    seen = Recorder()
    runtime = LiveLoop(clock, seen.effects, journal=journal, on_rejected=seen.rejected)
    runtime.submit(GameSetUp(RULES, 10, tuple(TOURNAMENT_ROLES)))
    runtime.run_pending()
    return runtime, clock, seen


def test_night_zero_and_the_first_speech_run_on_their_deadlines() -> None:
    runtime, clock, seen = live()
    for look in (60, 80, 130, 140):  # the loop looks a little late each time
        clock.set(look + 0.0004)
        runtime.run_pending()
    times = {cue: at for at, cue in seen.said}
    assert times["city_wakes"] == 80 and times["speech_start"] == 80
    assert times["time_warning"] == 130 and times["time_up"] == 140
    assert all(late < 0.001 for late in runtime.stats.lateness)


def test_an_input_is_stamped_when_it_happens_not_when_it_is_taken() -> None:
    runtime, clock, seen = live()
    clock.set(30)
    runtime.submit(HostAdvanced())  # the host ends night 0's agreement at 30 ...
    clock.set(40)
    runtime.run_pending()  # ... though the loop takes it at 40
    assert (30, "free_seating") in seen.said
    assert runtime.timers.deadlines["night"][0] == 30 + 20


def test_refused_inputs_are_reported_and_change_nothing() -> None:
    runtime, _clock, seen = live()
    game = runtime.game
    runtime.submit(Nominated(1, 3))  # at night
    runtime.run_pending()
    assert runtime.game is game
    assert seen.refused == ["nominate: not allowed in phase night"]


def test_the_journal_is_written_before_the_effects(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    order: list[str] = []
    journal = Journal.create(path)
    clock = FakeClock()

    def effects(now: float, effects: tuple[Effect, ...]) -> None:
        lines = path.read_text(encoding="utf-8").splitlines()
        order.append(json.loads(lines[-1])["input"])

    runtime = LiveLoop(clock, effects, journal=journal)
    runtime.submit(GameSetUp(RULES, 10, tuple(TOURNAMENT_ROLES)))
    clock.set(100)
    runtime.submit(SeatPressed(4))  # ignored, but journaled and answered
    runtime.run_pending()
    assert order[:3] == ["setup", "timer", "timer"]
    # The journal replays to the same game (it is a table script).
    replayed = ScriptReplay(auto_timers=False).run(
        parse_lines(path.read_text(encoding="utf-8").splitlines(), "j", load_ruleset)
    )
    assert replayed == runtime.game


def test_pause_and_adjust_take_the_time_left_from_the_loops_clock(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    runtime, clock, _seen = live(Journal.create(path))
    clock.set(100)  # seat 1 has spoken 20 s of 60
    runtime.submit(TimersPaused())
    runtime.run_pending()
    assert runtime.game is not None and dict(runtime.game.paused)["turn"] == 40
    clock.set(400)
    runtime.submit(TimersResumed())
    clock.set(405)
    runtime.submit(TimeAdjusted(10))
    runtime.run_pending()
    assert runtime.timers.deadlines["turn"][0] == 405 + 35 + 10
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    assert [x["remaining"] for x in lines if x["input"] in ("pause", "adjust")] == [
        [["turn", 40.0], ["warning", 30.0]],
        [["turn", 35.0], ["warning", 25.0]],
    ]


def test_threads_only_enqueue_and_one_loop_takes_everything() -> None:
    runtime, clock, _seen = live()
    clock.set(80)
    runtime.run_pending()
    workers = [
        threading.Thread(target=lambda n=n: [runtime.submit(SeatPressed(n)) for _ in range(50)])
        for n in range(2, 11)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    stopper = threading.Thread(target=runtime.stop)
    stopper.start()
    stopper.join()
    runtime.run()  # returns at the stop mark, after every press was taken
    assert runtime._queue.empty()
    assert runtime.game is not None and current_turn(runtime.game).seat == 1  # type: ignore[union-attr]
