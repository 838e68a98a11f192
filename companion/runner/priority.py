"""Real-time scheduling for the threads that keep time.

On a loaded machine (the console redrawing, a busy core, PulseAudio) Linux
may wake a sleeping thread several milliseconds after its timer ran out: the
timer loop and the audio callback then fire late. With SCHED_FIFO they run
as soon as they wake, ahead of every ordinary thread. That takes root or
CAP_SYS_NICE (the systemd unit grants it); without it we ask for a high nice
priority instead, and without that we run as we are and say so once.
"""

from __future__ import annotations

import gc
import logging
import os
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)

FIFO_PRIORITY = {"timer loop": 20, "audio": 30}  # audio above the loop: it must never starve
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
