"""When a listening process that died is started again (``EarsLink``,
link.py), and when the table gives up on it.

A kill or a crash is no reason to wait: the next process starts half a
second later (time for a crash's last words to reach the log). A process
that dies again soon after is started again after longer and longer waits,
so that one that cannot live (a broken library, a device that crashes it)
does not spin a core; the longest wait (2 s) plus a start (imports and the
detector: 0.5-1.5 s on the development machine under load, bench/ears_restart.py)
keeps every restart within 5 s of the death.
After as many quick deaths in a row as there are waits, plus one, the
table gives up and tells the host. A process that listened for
``STEADY_S`` was well: its death starts a new count.

Pure: the caller hands in how long the process lived.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass

#: the waits before the restarts of a run of quick deaths
WAITS_S = (0.5, 1.0, 1.5, 2.0)
#: a process that lived this long was well: its death is the first of a run
STEADY_S = 60.0


@dataclass(slots=True)
class RestartPolicy:
    waits: tuple[float, ...] = WAITS_S
    steady_s: float = STEADY_S
    #: quick deaths in a row so far
    quick: int = 0

    def died(self, lived_s: float) -> float | None:
        """A process that lived ``lived_s`` seconds died: the wait before
        the next one starts, or None to give up."""
        if lived_s >= self.steady_s:
            self.quick = 0
        if self.quick >= len(self.waits):
            return None
        wait = self.waits[self.quick]
        self.quick += 1
        return wait


def ending(returncode: int | None) -> str:
    """How a process ended, in a few words for a log and a notice:
    ``SIGKILL``, ``exit status 1``."""
    if returncode is None:
        return "still running"
    if returncode < 0:
        try:
            return signal.Signals(-returncode).name
        except ValueError:
            return f"signal {-returncode}"
    return f"exit status {returncode}"
