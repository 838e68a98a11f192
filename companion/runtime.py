"""The live loop: every input through one queue, timers on a real clock.

Threads (seat buttons, the console, the microphone, a script feeder) only
``submit``: the input is stamped with the clock's time and queued. One loop
(``run``) takes them in order, fires each timer at its deadline, steps the
engine, journals the accepted input, and only then carries out the effects.
Timer deadlines are counted from the input that asked for them (for a timer
started by a timer, from that timer's deadline), never from when the loop
got round to it: lateness is measured, never accumulated.
"""

from __future__ import annotations

import logging
import queue
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .clock import Clock, Deadlines, Timers
from .core.common import IllegalInput
from .core.effects import Effect
from .core.engine import apply
from .core.events import (
    BadEvent,
    Event,
    GameSetUp,
    TimeAdjusted,
    TimerExpired,
    TimersPaused,
)
from .core.state import Game
from .journal import Journal
from .realtime import QuietCollector, raise_priority
from .script import event_fields

log = logging.getLogger(__name__)

EffectSink = Callable[[float, tuple[Effect, ...]], None]
Rejected = Callable[[Event, str], None]
Changed = Callable[[Game | None, Game], None]  # the state before and after an input


@dataclass(frozen=True, slots=True)
class Queued:
    at: float  # when it happened, on the runtime's clock
    event: Event
    fields: dict[str, Any] | None = None  # the script line's fields, if it came from one


@dataclass
class TimerStats:
    """How late timers fired: deadline -> the moment the loop stepped the engine."""

    lateness: list[float] = field(default_factory=list)


class Runtime:
    """Owns the game, the timers' deadlines and the journal."""

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
    ) -> None:
        """``realtime``: ``run`` gives its thread a real-time priority and
        keeps full garbage collections to quiet moments (``QuietCollector``):
        for the live table, not for tests that run the loop in their own
        thread."""
        self.clock = clock
        self.on_effects = on_effects
        self.on_rejected = on_rejected or _log_rejected
        self.on_changed = on_changed
        self.journal = journal
        self.game = game
        self.timers = Timers(deadlines)
        self.stats = TimerStats()
        self.realtime = realtime
        self.quiet = QuietCollector() if realtime else None
        self._queue: queue.Queue[Queued | None] = queue.Queue()

    # --- for every thread ----------------------------------------------------
    def submit(
        self, event: Event, fields: dict[str, Any] | None = None, *, at: float | None = None
    ) -> None:
        """Queue an input, stamped with the time it happened (``at``, on the
        runtime's clock; default: now). Thread-safe."""
        self._queue.put(Queued(self.clock.now() if at is None else at, event, fields))

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
        while stopping is None or not stopping.is_set():
            now = self.clock.now()
            if self.quiet is not None and self._queue.empty():
                self.quiet.idle(now, self.timers.next_due)
            timeout = max(0.0, self.timers.next_due - now)
            try:
                item = self._queue.get(timeout=min(timeout, 0.5))
            except queue.Empty:
                self.fire_due(self.clock.now())
                continue
            if item is None:
                self.fire_due(self.clock.now())
                return
            self.fire_due(item.at)
            self._take(item)

    def run_pending(self) -> None:
        """Take everything queued and every timer due by now, without waiting
        (a fake clock's loop, for tests)."""
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if item is None:
                continue
            self.fire_due(item.at)
            self._take(item)
        self.fire_due(self.clock.now())

    def fire_due(self, until: float) -> None:
        """Fire, in deadline order, every timer due by ``until``."""
        while (due := self.timers.earliest()) is not None and due[1] <= until:
            name, deadline, generation = due
            self.stats.lateness.append(max(0.0, self.clock.now() - deadline))
            self._apply(TimerExpired(name, generation), max(deadline, 0.0), None)

    # --- one input -------------------------------------------------------------
    def _take(self, item: Queued) -> None:
        event = item.event
        if isinstance(event, TimersPaused | TimeAdjusted) and not event.remaining:
            left = self.timers.remaining(item.at)
            event = (
                TimersPaused(left)
                if isinstance(event, TimersPaused)
                else TimeAdjusted(event.seconds, left)
            )
        try:
            self._apply(event, item.at, item.fields)
        except (IllegalInput, BadEvent) as error:
            self.on_rejected(event, str(error))

    def _apply(self, event: Event, at: float, fields: dict[str, Any] | None) -> None:
        before = self.game
        game, effects = apply(before, event)
        if self.journal is not None:
            record = {"at": round(at, 6), **(fields if fields is not None else event_fields(event))}
            if isinstance(event, TimersPaused | TimeAdjusted):
                record["remaining"] = [[name, seconds] for name, seconds in event.remaining]
            if isinstance(event, GameSetUp):
                record["journal"] = True
            self.journal.append(record)  # on disk before anything is carried out
        self.game = game
        self.timers.accepted(event, game is not before and before is not None, effects, at)
        if self.on_changed is not None and game is not before and game is not None:
            try:
                self.on_changed(before, game)  # the seat lights, before the slower voice
            except Exception:
                log.exception("showing the new state failed")
        if effects:
            try:
                self.on_effects(at, effects)
            except Exception:  # a broken shell never stops the game
                log.exception("carrying out %s failed", effects)


def _log_rejected(event: Event, reason: str) -> None:
    log.warning("%s refused: %s", type(event).__name__, reason)
