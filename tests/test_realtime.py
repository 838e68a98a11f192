"""Real-time priority for the timing threads and garbage collection kept to
quiet moments (issue 3: the bench saw timers fire 2-7 ms late from full
collections triggered by a busy thread)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

from companion.config.rulesets import load_ruleset
from companion.core.events import GameSetUp
from companion.runner.clock import FakeClock
from companion.runner.loop import LiveLoop
from companion.runner.priority import QuietCollector, raise_priority

ROLES = ("civilian",) * 6 + ("mafia", "mafia", "don", "sheriff")


def in_a_thread(work: object) -> object:
    """Run ``work()`` in a thread of its own (its priority dies with it)."""
    result: list[object] = []
    thread = threading.Thread(target=lambda: result.append(work()))  # type: ignore[operator]
    thread.start()
    thread.join()
    return result[0]


def test_raise_priority_reports_what_the_thread_really_got() -> None:
    def work() -> tuple[str, int, int]:
        got = raise_priority("timer loop")
        return (
            got,
            os.sched_getscheduler(0),
            os.getpriority(os.PRIO_PROCESS, threading.get_native_id()),
        )

    got, policy, nice = in_a_thread(work)  # type: ignore[misc]
    if got.startswith("fifo"):
        assert policy == os.SCHED_FIFO
        assert os.sched_getscheduler(0) != os.SCHED_FIFO  # only that thread
    elif got.startswith("nice"):
        assert policy == os.SCHED_OTHER and nice == -10
    else:
        assert got == "normal" and policy == os.SCHED_OTHER


def test_audio_ranks_above_the_timer_loop() -> None:
    def work(role: str) -> object:
        return lambda: (raise_priority(role), os.sched_getparam(0).sched_priority)

    loop = in_a_thread(work("timer loop"))
    audio = in_a_thread(work("audio"))
    if loop[0].startswith("fifo"):  # type: ignore[index]
        assert audio[1] > loop[1] > 0  # type: ignore[index,operator]


#: run in a Python of its own: a full collection of a test worker's heap
#: (every test before it) took 3-4 s of CPU
FREEZE = """
import gc, json
import companion.live.assembly  # what a table's process holds when it starts
from companion.runner.priority import QuietCollector
young = gc.get_threshold()[:2]
QuietCollector().start(0.0)
print(json.dumps([gc.get_freeze_count(), young, gc.get_threshold()]))
"""


def test_start_freezes_what_exists_and_puts_full_collections_out_of_reach() -> None:
    done = subprocess.run(
        [sys.executable, "-c", FREEZE], capture_output=True, text=True, timeout=60, check=True
    )
    frozen, young, thresholds = json.loads(done.stdout)
    assert frozen > 1000  # the modules, the rulesets
    assert thresholds == [*young, QuietCollector.OLDEST_THRESHOLD]  # young ones still run


def test_a_full_collection_waits_for_a_quiet_moment() -> None:
    collected: list[int] = []
    quiet = QuietCollector(every=300, margin=1.0, collect=lambda: collected.append(1))
    assert not quiet.idle(500.0, 10_000.0)  # not started: nothing frozen, nothing due
    quiet._last = 0.0  # as if started at t=0 (start would freeze the test process)
    assert not quiet.idle(299.0, 10_000.0)  # too soon since the last
    assert not quiet.idle(301.0, 301.5)  # a deadline within the margin
    assert quiet.idle(301.0, 302.5)
    assert not quiet.idle(302.0, 10_000.0)  # the clock starts again from the collection
    assert quiet.idle(601.5, 10_000.0)
    assert len(collected) == quiet.collections == 2


def test_the_live_loop_offers_its_idle_moments_to_the_collector() -> None:
    class Seen:
        def __init__(self) -> None:
            self.calls: list[tuple[float, float]] = []
            self.called = threading.Event()

        def idle(self, now: float, next_due: float) -> bool:
            self.calls.append((now, next_due))
            self.called.set()
            return False

    clock = FakeClock(50.0)
    runtime = LiveLoop(clock, lambda at, effects: None)
    seen = Seen()
    runtime.quiet = seen  # type: ignore[assignment]
    runtime.submit(GameSetUp(load_ruleset("tournament"), 10, ROLES))
    loop = threading.Thread(target=runtime.run)
    loop.start()
    assert seen.called.wait(10)
    runtime.stop()
    loop.join(10)
    assert not loop.is_alive()
    assert runtime.game is not None
    # The game's first timer (the night-zero step) is what the loop waits for.
    now, next_due = seen.calls[-1]
    assert now == 50.0 and next_due > 50.0
