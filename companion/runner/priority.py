"""Real-time scheduling for the threads that keep time.

On a loaded machine (the console redrawing, a busy core, PulseAudio) Linux
may wake a sleeping thread several milliseconds after its timer ran out: the
timer loop and the audio callback then fire late. With SCHED_FIFO they run
as soon as they wake, ahead of every ordinary thread. That takes root,
CAP_SYS_NICE or a high enough RLIMIT_RTPRIO (the systemd unit sets
LimitRTPRIO= and LimitNICE=: ops/service_unit.py); without it we ask for a high
nice priority instead, and without that we run as we are and say so once.
"""

from __future__ import annotations

import gc
import logging
import os
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)

# Audio above the loop: a starved audio thread is an underrun heard by all;
# the loop's work per input is well under a millisecond.
FIFO_PRIORITY = {"timer loop": 20, "audio": 30}
_warned: set[str] = set()


def raise_priority(role: str) -> str:
    """Give the calling thread a real-time priority for ``role``; returns
    what it got ("fifo N", "nice -N" or "normal")."""
    tid = threading.get_native_id()
    priority = FIFO_PRIORITY.get(role, 10)
    try:
        os.sched_setscheduler(tid, os.SCHED_FIFO, os.sched_param(priority))
        return f"fifo {priority}"
    except (AttributeError, OSError) as error:
        reason = error
    try:
        os.setpriority(os.PRIO_PROCESS, tid, -10)
        got = "nice -10"
    except (AttributeError, OSError):
        got = "normal"
    if role not in _warned:
        _warned.add(role)
        log.warning(
            "the %s thread runs without real-time priority (%s; got %s): "
            "timing may slip on a loaded machine",
            role,
            reason,
            got,
        )
    return got


#: the niceness the whole process asks for on a live table (see favour_process)
PROCESS_NICE = -10


def favour_process(nice: int = PROCESS_NICE) -> int:
    """Give every thread of this process (and, through the main thread,
    those it starts later) a high nice priority; returns how many threads
    got it.

    Why: a real-time thread that wants the interpreter waits for whichever
    ordinary thread holds it (the console, a busy core of our own). When
    other processes keep every core busy, that thread may be preempted
    while it holds the interpreter, and the real-time thread waits with it:
    bench/cues.py saw timers fire 10-27 ms late (p99) from that alone with
    an in-process busy thread and a CPU-bound process per core, 0.4-0.9 ms
    with either alone. At nice -10 such a thread gets the CPU back within a
    few ms. Threads already real-time keep their policy; a thread we may not
    renice (no CAP_SYS_NICE) is left as it is."""
    done = 0
    try:
        tasks = [int(task) for task in os.listdir("/proc/self/task")]
    except OSError:
        tasks = [threading.get_native_id()]
    for tid in tasks:
        try:
            if os.getpriority(os.PRIO_PROCESS, tid) > nice:
                os.setpriority(os.PRIO_PROCESS, tid, nice)
            done += 1
        except (AttributeError, OSError):
            continue
    if done < len(tasks) and "process" not in _warned:
        _warned.add("process")
        log.warning("could not raise the priority of %d thread(s)", len(tasks) - done)
    return done


class QuietCollector:
    """Keeps Python's garbage collector from stopping the clock.

    A full collection walks every object the program holds and keeps the
    interpreter for milliseconds; whichever thread triggers it (the console,
    a busy core) holds up the timer loop and the audio callback meanwhile.
    The bench saw timers fire 2-7 ms late from that alone. So, once
    everything for the game is loaded, ``start`` freezes what exists (it is
    never scanned again) and raises the threshold of the oldest generation
    out of reach; the young generations, which are quick, still run as
    usual. The full collection then runs here, from the timer loop, at a
    quiet moment: at most every ``every`` seconds and only with no
    deadline within ``margin`` seconds.
    """

    OLDEST_THRESHOLD = 1_000_000  # a full collection practically never starts by itself

    def __init__(
        self,
        every: float = 300.0,
        margin: float = 1.0,
        collect: Callable[[], object] = gc.collect,
    ) -> None:
        self.every = every
        self.margin = margin
        self._collect = collect
        self._last: float | None = None
        self.collections = 0

    def start(self, now: float) -> None:
        gc.collect()
        gc.freeze()
        young, middle, _ = gc.get_threshold()
        gc.set_threshold(young, middle, self.OLDEST_THRESHOLD)
        self._last = now

    def idle(self, now: float, next_due: float) -> bool:
        """The loop has nothing to do until ``next_due``: collect if it is
        time and there is room. Returns whether it collected."""
        if self._last is None or now - self._last < self.every or next_due - now < self.margin:
            return False
        self._collect()
        self._last = now
        self.collections += 1
        return True
