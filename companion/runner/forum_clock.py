"""The forum game's deadlines on the wall clock.

The forum game's windows close at clock times (13:00:01, 21:01:00,
22:01:00 by default; docs/forum.md), not after a number of seconds: the
table's timers count game seconds on the monotonic clock, which knows no
time of day. ``DeadlineWatch`` reads the open windows' deadlines off the
game after every accepted input (so a resumed game, an undo or a moved
deadline need nothing else) and, on the wall clock, submits
``DeadlineNear`` the ruleset's minutes before each and ``DeadlinePassed``
at it. Both go through the loop's queue like any input: journaled, so a
replay closes each window exactly where the live table did.

The wall clock is the machine's local time: a forum game's deadlines are
the forum's clock (deadline.autokill.1), so the table's clock must be set
right (``companion doctor`` checks NTP, issue 12).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import datetime, timedelta

from ..core.events import Event
from ..core.forum.events import DeadlineNear, DeadlinePassed
from ..core.forum.state import open_deadlines
from ..core.state import Game

log = logging.getLogger(__name__)

#: how often the watch looks at the clock, in seconds: a deadline is taken
#: within this of its second (the post's own stamp decides whether it counts)
TICK_S = 0.25


def local_now() -> datetime:
    return datetime.now().replace(microsecond=0)


def moment(stamp: str, now: datetime) -> datetime:
    """A deadline's stamp as a moment; a time of day alone is today's."""
    if "T" in stamp:
        return datetime.fromisoformat(stamp)
    hours, minutes, seconds = (int(part) for part in stamp.split(":"))
    return now.replace(hour=hours, minute=minutes, second=seconds, microsecond=0)


class DeadlineWatch:
    """Submits ``DeadlineNear`` and ``DeadlinePassed`` at their wall-clock moments."""

    def __init__(
        self,
        submit: Callable[[Event], None],
        *,
        wall: Callable[[], datetime] = local_now,
        warn_minutes: int = 10,
    ) -> None:
        self._submit = submit
        self._wall = wall
        self._warn = timedelta(minutes=warn_minutes)
        self._lock = threading.Lock()
        #: (name, stamp) of the open windows' deadlines
        self._pending: tuple[tuple[str, str], ...] = ()
        #: what was submitted already, each (kind, name, stamp) once
        self._done: set[tuple[str, str, str]] = set()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def changed(self, game: Game) -> None:
        """The game after an accepted input (any thread)."""
        pending = open_deadlines(game)
        with self._lock:
            self._pending = pending

    def pending(self) -> tuple[tuple[str, str], ...]:
        with self._lock:
            return self._pending

    def tick(self) -> None:
        """Look at the clock once: submit what is due."""
        now = self._wall()
        for name, stamp in self.pending():
            at = moment(stamp, now)
            if now >= at:
                self._once(DeadlinePassed(name), "passed", name, stamp)
            elif now >= at - self._warn:
                self._once(DeadlineNear(name), "near", name, stamp)

    def _once(self, event: Event, kind: str, name: str, stamp: str) -> None:
        key = (kind, name, stamp)
        if key in self._done:
            return
        self._done.add(key)
        self._submit(event)

    # --- a thread of its own ------------------------------------------------------
    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="forum deadlines", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while not self._stopping.wait(TICK_S):
            try:
                self.tick()
            except Exception:  # a bad stamp must not stop the watch for the others
                log.exception("the forum deadline watch failed a tick")

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(2.0)
