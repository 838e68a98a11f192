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

The disk is kept out of the loop's way (``writer``: runner/journal_writer.py):
the loop only queues each line to the journal's writer thread; the writer's
word on it (``Written``) comes back through this same queue, and only then
does the session carry out what the input caused (runner/session.py). A
line the writer could not write takes the game back to before it.

Foresight (runner/foresight.py): after every input the earliest timer's
cues go to the announcer ahead of its deadline.
"""

from __future__ import annotations

import logging
import queue
import sys
import threading
import time
from collections.abc import Hashable

from ..core.engine import IllegalInput
from ..core.events import BadEvent, Event, TimerExpired
from ..core.state import Game
from .clock import Clock, Deadlines, Timers
from .codec import input_name
from .foresight import Foresight, TimerCues
from .journal import Journal, JournalWriteError
from .journal_writer import SETTLE_S, JournalWriter, Written
from .loop_items import Queued, Rejected, SpeedChange, SpeedTaken, TimerStats
from .priority import QuietCollector, favour_process, raise_priority
from .session import Changed, EffectSink, GameSession, Held

log = logging.getLogger(__name__)

#: after a timer's expiry could not be journaled (a full disk), how long the
#: loop waits before it tries again, in seconds of the clock
RETRY_AFTER = 1.0


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
        foresight: Foresight | None = None,
        on_speed: SpeedTaken | None = None,
        writer: JournalWriter | None = None,
    ) -> None:
        """``realtime``: ``run`` gives its thread a real-time priority and
        keeps full garbage collections to quiet moments (``QuietCollector``):
        for the live table, not for tests that run the loop in their own
        thread. ``session``: a game already under way (a resumed journal).
        ``foresight``: takes each timer's cues ahead of its deadline (the
        announcer); deadlines go to it on the monotonic clock
        (``clock.wall_time`` when the clock has one). ``on_speed``: told
        after a practice speed change (``change_speed``) was taken.
        ``writer``: the session's journal written on a thread of its own
        (started here, from the constructing thread: not a real-time one);
        None: each line is written before the loop goes on."""
        self.clock = clock
        self.session = session or GameSession(journal=journal, game=game, deadlines=deadlines)
        self.session.on_effects = on_effects
        self.session.on_changed = on_changed or self.session.on_changed
        self.on_rejected = on_rejected or _log_rejected
        self.stats = TimerStats()
        self.realtime = realtime
        self.quiet = QuietCollector() if realtime else None
        self._queue: queue.Queue[Queued | SpeedChange | Written | None] = queue.Queue()
        self.on_speed = on_speed
        self._hold_timers_until = float("-inf")
        #: no timer due after this fires (``end_at``): a script's last moment
        self._end = float("inf")
        self.cues = TimerCues(foresight, getattr(clock, "wall_time", _same))
        self.priority = "not asked"  # what run's thread got from raise_priority
        self.writer = writer
        #: writing behind: a fired timer's cues handed over ahead, by its
        #: line, carried out when that line is on disk
        self._tickets: dict[int, Hashable] = {}
        if writer is not None:
            self.session.writer = writer
            writer.start(self._queue.put)
        #: when ``run`` last went round (``time.monotonic``, the same in every
        #: process): the service's watchdog is fed only while it is recent
        #: (runner/sd_notify.py), so a hung loop gets the service restarted
        self.last_turn = time.monotonic()

    @property
    def game(self) -> Game | None:
        return self.session.game

    @property
    def timers(self) -> Timers:
        return self.session.timers

    # --- for every thread ----------------------------------------------------
    def submit(
        self,
        event: Event,
        *,
        at: float | None = None,
        line: int | None = None,
        ruleset: str | None = None,
        next_at: float | None = None,
    ) -> None:
        """Queue an input, stamped with the time it happened (``at``, on the
        runtime's clock; default: now). ``next_at``: a script's next input
        is due then, so no timer due after it fires before that input is
        taken (see ``end_at``). Thread-safe."""
        stamp = self.clock.now() if at is None else at
        self._queue.put(Queued(stamp, event, line, ruleset, next_at))

    def change_speed(self, speed: float) -> None:
        """Run the clock ``speed`` times as fast from now on (a practice
        game), journaled in its turn among the inputs. Thread-safe."""
        self._queue.put(SpeedChange(self.clock.now(), speed))

    def stop(self) -> None:
        """Make ``run`` return once what is queued now is done. Thread-safe."""
        self._queue.put(None)

    def end_at(self, at: float) -> None:
        """Fire no timer due after ``at``: the game ends there. A script
        played at its pace ends at its last line, as its replay on the fake
        clock does, however late the loop comes round to the stop after it
        (a busy machine): a timer that ran out meanwhile on the real clock
        is not the script's. Call before ``run``; each input's ``next_at``
        moves it on."""
        self._end = at

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
            favour_process()  # whoever holds the interpreter gets it back soon
            self.priority = raise_priority("timer loop")
            if self.quiet is not None:
                self.quiet.start(self.clock.now())
        self._foresee()  # a resumed game's running timer
        try:
            self._turn(stopping)
        finally:
            self.close_writer()

    def _turn(self, stopping: threading.Event | None) -> None:
        while stopping is None or not stopping.is_set():
            self.last_turn = time.monotonic()
            now = self.clock.now()
            next_due = max(self.timers.next_due, self._hold_timers_until)
            if next_due > self._end:
                next_due = float("inf")  # the game ends first: only an input wakes the loop
            if self.quiet is not None and self._queue.empty():
                self.quiet.idle(now, next_due)
            # The speed of the moment: a practice game's may change (change_speed).
            timeout = max(0.0, next_due - now) / getattr(self.clock, "speed", 1.0)
            try:
                item = self._queue.get(timeout=min(timeout, 0.5))
            except queue.Empty:
                self.fire_due(self.clock.now())
                continue
            if item is None:
                self.fire_due(self.clock.now())
                return
            self._take(item)

    def settle(self, timeout: float = SETTLE_S) -> bool:
        """``run_pending``, then, writing behind, wait until every line is
        on disk (or refused) and what it caused carried out: for a caller
        that drives the loop itself (a test). False: the writer is still
        in a write after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        self.run_pending()
        while self.writer is not None and self.session.held:
            if not self.writer.drained(max(0.0, deadline - time.monotonic())):
                return False
            self.run_pending()
        return True

    def close_writer(self, timeout: float = SETTLE_S) -> None:
        """The loop ends: wait (``timeout`` seconds at most) until every
        line queued is on disk, carry out what they caused, and end the
        writer's thread. Inputs queued meanwhile are not taken (the loop
        has stopped)."""
        writer = self.writer
        if writer is None or not writer.running:
            return
        done = writer.drained(timeout)
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                break
            if type(item) is Written:
                self._written(item)
        if not done:
            log.error(
                "journal: %d line(s) not on disk after %.0f s (the disk hangs); "
                "what they caused was never shown",
                len(self.session.held),
                timeout,
            )
        writer.stop(timeout=1.0 if not done else SETTLE_S)

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
        until = min(until, self._end)
        session = self.session
        while (due := session.timers.earliest()) is not None and due[1] <= until:
            name, deadline, generation = due
            self.stats.lateness.append(max(0.0, self.clock.now() - deadline))
            event = TimerExpired(name, generation)
            ticket = self.cues.fired(due)
            if ticket is not None and self.writer is None:
                self.cues.carried_out(ticket)  # its effects come next
            try:
                session.take(event, max(deadline, 0.0))
            except JournalWriteError as error:
                # The expiry stays due; try again a little later rather than
                # spin on a full disk. (Its cue, if foreseen, was heard on
                # time: the retry does not say it again.)
                self._hold_timers_until = self.clock.now() + RETRY_AFTER
                self.on_rejected(event, str(error), None)
                return
            if ticket is not None and self.writer is not None and session.held:
                # Its effects come when its line is on disk; other inputs'
                # may come before them.
                self._tickets[session.held[-1].seq] = ticket
            self._foresee()

    # --- one input -------------------------------------------------------------
    def _take(self, item: Queued | SpeedChange | Written) -> None:
        if type(item) is Written:
            self._written(item)
            return
        assert not isinstance(item, Written)
        at = round(item.at, 6)  # as the session keeps it
        self.fire_due(at)
        if type(item) is SpeedChange:
            self._change_speed(item.speed, at)
            return
        assert isinstance(item, Queued)
        if item.next_at is not None:
            self._end = item.next_at  # the script's order holds, however late its feeder
        try:
            self.session.take(item.event, at, line=item.line, ruleset=item.ruleset)
        except (IllegalInput, BadEvent) as error:
            self.on_rejected(item.event, f"{input_name(item.event)}: {error}", item.line)
        except JournalWriteError as error:
            self.on_rejected(item.event, str(error), item.line)
        else:
            self._foresee()

    def _change_speed(self, speed: float, at: float) -> None:
        """Journal the speed, then run the clock at it: every deadline is
        at another moment of the monotonic clock now, so the cues handed
        over ahead are withdrawn and planned anew. A fake clock (a test's)
        keeps its own time: only the journal and the session change.
        ``on_speed`` is told before the cues are planned anew (the live
        table's voice is captions only above real time)."""
        try:
            self.session.speed_changed(speed, at)
        except JournalWriteError as error:
            log.warning("the speed change was not taken: %s", error)
            if self.on_speed is not None:
                self.on_speed(getattr(self.clock, "speed", self.session.speed), str(error))
            return
        self._run_at(speed, None)

    def _run_at(self, speed: float, refused: str | None) -> None:
        set_speed = getattr(self.clock, "set_speed", None)
        if set_speed is not None:
            set_speed(speed)
        self.cues.drop()
        if self.on_speed is not None:
            self.on_speed(speed, refused)  # first: the voice may be silent now
        self._foresee()

    # --- the writer's word -------------------------------------------------------
    def _written(self, item: Written) -> None:
        """A line is on disk (what it caused is carried out now), or could
        not be written (the game goes back to before it)."""
        session = self.session
        if item.error is None:
            ticket = self._tickets.pop(item.seq, None)
            if ticket is not None and session.held and session.held[0].seq == item.seq:
                self.cues.carried_out(ticket)  # the timer's effects come next
            held = session.written(item.seq)
            if held is not None:
                self.stats.durable.append(max(0.0, self.clock.now() - held.at))
        else:
            self._not_written(item.error, session.not_written(item.seq))
        for call in item.calls:  # the disk watch's news, after the line's own
            try:
                call()
            except Exception:
                log.exception("telling of the journal's disk failed")

    def _not_written(self, error: str, dropped: list[Held]) -> None:
        """Back to before the line that failed: every input held after it
        is refused as well (none was shown); a timer's expiry among them is
        due again, after ``RETRY_AFTER`` (no spinning on a failing disk)."""
        if not dropped:
            return
        for held in dropped:
            ticket = self._tickets.pop(held.seq, None)
            if ticket is not None:
                self.cues.withdraw(ticket)
        self._hold_timers_until = self.clock.now() + RETRY_AFTER
        if any(held.event is None for held in dropped):  # a speed change taken back
            log.warning("the speed change was not taken: %s", error)
            self._run_at(self.session.speed, error)
        for number, held in enumerate(dropped):
            if held.event is not None and (number == 0 or type(held.event) is not TimerExpired):
                self.on_rejected(held.event, error, held.line)
        self._foresee()

    def _foresee(self) -> None:
        self.cues.plan_next(self.session, self._end)


def _same(at: float) -> float:
    return at


def _log_rejected(event: Event, reason: str, line: int | None) -> None:
    log.warning("refused: %s", reason)
