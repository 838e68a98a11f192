"""The live loop: every input through one queue, timers on a real clock.

Threads (seat buttons, the console, the microphone, a script feeder) only
``submit``: the input is stamped with the clock's time and queued. One loop
(``run``) takes them in order, fires each timer at its deadline, and hands
each input to the ``GameSession``, which steps the engine, journals the
accepted input, and only then carries out the effects. Timer deadlines are
counted from the input that asked for them (for a timer started by a timer,
from that timer's deadline), never from when the loop got round to it:
lateness is measured, never accumulated.

The clock reads game time: seconds since the setup, the same numbers the
journal holds (``GameClock`` over the monotonic clock).
"""

from __future__ import annotations

import logging
import queue
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from ..core.engine import IllegalInput
from ..core.events import BadEvent, Event, TimerExpired
from ..core.state import Game
from .clock import Clock, Deadlines, Timers
from .codec import input_name
from .journal import Journal, JournalWriteError
from .priority import QuietCollector, raise_priority
from .session import Changed, EffectSink, GameSession

log = logging.getLogger(__name__)

#: (the input refused, why, the script line it came from if any)
Rejected = Callable[[Event, str, int | None], None]

#: after a timer's expiry could not be journaled (a full disk), how long the
#: loop waits before it tries again, in seconds of the clock
RETRY_AFTER = 1.0


@dataclass(frozen=True, slots=True)
class Queued:
    at: float  # when it happened, on the runtime's clock
    event: Event
    line: int | None = None  # the script line it came from, if any
    ruleset: str | None = None  # a setup's ruleset as its script names it


@dataclass
class TimerStats:
    """How late timers fired: deadline -> the moment the loop stepped the engine."""

    lateness: list[float] = field(default_factory=list)


class LiveLoop:
    """The live loop around one ``GameSession``."""

    def __init__(
        self,
        clock: Clock,
        on_effects: EffectSink,
        *,
        journal: Journal | None = None,
        game: Game | None = None,
        deadlines: Deadlines | None = None,
        on_rejected: Rejected | None = None,
        on_changed: Changed | None = None,
        realtime: bool = False,
        session: GameSession | None = None,
    ) -> None:
        """``realtime``: ``run`` gives its thread a real-time priority and
        keeps full garbage collections to quiet moments (``QuietCollector``):
        for the live table, not for tests that run the loop in their own
        thread. ``session``: a game already under way (a resumed journal)."""
        self.clock = clock
        self.session = session or GameSession(journal=journal, game=game, deadlines=deadlines)
        self.session.on_effects = on_effects
        self.session.on_changed = on_changed or self.session.on_changed
        self.on_rejected = on_rejected or _log_rejected
        self.stats = TimerStats()
        self.realtime = realtime
        self.quiet = QuietCollector() if realtime else None
        self._queue: queue.Queue[Queued | None] = queue.Queue()
        self._hold_timers_until = float("-inf")

    @property
    def game(self) -> Game | None:
        return self.session.game

    @property
    def timers(self) -> Timers:
        return self.session.timers

    @property
    def on_changed(self) -> Changed | None:
        return self.session.on_changed

    @on_changed.setter
    def on_changed(self, hook: Changed | None) -> None:
        self.session.on_changed = hook

    # --- for every thread ----------------------------------------------------
    def submit(
        self,
        event: Event,
        *,
        at: float | None = None,
        line: int | None = None,
        ruleset: str | None = None,
    ) -> None:
        """Queue an input, stamped with the time it happened (``at``, on the
        runtime's clock; default: now). Thread-safe."""
        stamp = self.clock.now() if at is None else at
        self._queue.put(Queued(stamp, event, line, ruleset))

    def stop(self) -> None:
        """Make ``run`` return once what is queued now is done. Thread-safe."""
        self._queue.put(None)

    # --- the loop --------------------------------------------------------------
    def run(self, stopping: threading.Event | None = None) -> None:
        """Take inputs and fire timers until ``stop()`` (or ``stopping`` is set).

        With nothing queued the loop blocks on the queue until the next
        deadline (at most half a second, to notice ``stopping``).
        """
        # Python hands the interpreter between threads every 5 ms by default:
        # a busy thread (audio decoding, the console) could make a timer that
        # many ms late. A shorter switch interval keeps the loop on time.
        sys.setswitchinterval(min(sys.getswitchinterval(), 0.0002))
        if self.realtime:
            raise_priority("timer loop")
            if self.quiet is not None:
                self.quiet.start(self.clock.now())
        speed = getattr(self.clock, "speed", 1.0)
        while stopping is None or not stopping.is_set():
            now = self.clock.now()
            next_due = max(self.timers.next_due, self._hold_timers_until)
            if self.quiet is not None and self._queue.empty():
                self.quiet.idle(now, next_due)
            timeout = max(0.0, next_due - now) / speed
            try:
                item = self._queue.get(timeout=min(timeout, 0.5))
            except queue.Empty:
                self.fire_due(self.clock.now())
                continue
            if item is None:
                self.fire_due(self.clock.now())
                return
            self._take(item)

    def run_pending(self) -> None:
        """Take everything queued and every timer due by now, without waiting
        (a fake clock's loop, for tests)."""
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is not None:
                self._take(item)
        self.fire_due(self.clock.now())

    def fire_due(self, until: float) -> None:
        """Fire, in deadline order, every timer due by ``until``."""
        if until < self._hold_timers_until:
            return
        session = self.session
        while (due := session.timers.earliest()) is not None and due[1] <= until:
            name, deadline, generation = due
            self.stats.lateness.append(max(0.0, self.clock.now() - deadline))
            event = TimerExpired(name, generation)
            try:
                session.take(event, max(deadline, 0.0))
            except JournalWriteError as error:
                # The expiry stays due; try again a little later rather than
                # spin on a full disk.
                self._hold_timers_until = self.clock.now() + RETRY_AFTER
                self.on_rejected(event, str(error), None)
                return

    # --- one input -------------------------------------------------------------
    def _take(self, item: Queued) -> None:
        at = round(item.at, 6)  # as the session keeps it
        self.fire_due(at)
        try:
            self.session.take(item.event, at, line=item.line, ruleset=item.ruleset)
        except (IllegalInput, BadEvent) as error:
            self.on_rejected(item.event, f"{input_name(item.event)}: {error}", item.line)
        except JournalWriteError as error:
            self.on_rejected(item.event, str(error), item.line)


def _log_rejected(event: Event, reason: str, line: int | None) -> None:
    log.warning("refused: %s", reason)
