"""One live table, put together in one place.

``LiveTable`` builds everything a game at a real table needs from a
``TableSpec`` (the club's config, or a command's options): the clock, the
session with its journal, the live loop, the seats (real GPIO, simulated by
the console's keys, or none), the voice (the sound device, or captions) and
the host log. The console, ``replay --realtime``, the benches and the tests
all build their table here; nothing is wired by setting hooks afterwards.

Threads never call into the console: after every accepted input the table
hands an ``Update`` (a snapshot: the state, the timers' deadlines, the
effects) to ``on_update``, which the console turns into a posted message.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import datetime
from typing import Any

from ..core.effects import Effect, Say
from ..core.events import Event
from ..core.rules import Ruleset
from ..core.state import Game
from ..protocol.hostlog import HostLog
from ..runner.clock import Clock, Deadlines, FakeClock, GameClock
from ..runner.fallback import FallbackPlaces, FreeSpace, free_space
from ..runner.forum_clock import local_now
from ..runner.journal import Journal
from ..runner.journal_watch import JournalWatch
from ..runner.journal_writer import SETTLE_S, JournalWriter, LoopCalls
from ..runner.loop import LiveLoop
from ..runner.session import GameSession
from ..seats.bridge import SeatsBridge
from ..seats.fake import FakeSeats
from ..seats.port import Seats
from ..voice.settings import VoiceSettings, open_announcer
from ..voice.speaker import Speaker
from . import procedures
from .table_spec import (
    OnNotice,
    OnRefused,
    OnUpdate,
    Outputs,
    TableSpec,
    TimingFigures,
    Update,
    default_pin_map,
    open_ears,
    open_seats,
)

#: what was defined here before table_spec.py took it, for its importers
__all__ = [
    "LiveTable",
    "Outputs",
    "TableSpec",
    "TimingFigures",
    "Update",
    "VoiceSettings",
    "default_pin_map",
]

log = logging.getLogger(__name__)

#: the clock's speed changed (a practice game's key): the table, as it now is
OnSpeed = Callable[["LiveTable"], None]


class LiveTable:
    """A game at a live table: ``submit`` inputs from any thread; the loop
    takes them in order, journals them and carries out their effects."""

    def __init__(
        self,
        spec: TableSpec,
        rules: Ruleset,
        seat_count: int,
        *,
        outputs: Outputs | None = None,
        session: GameSession | None = None,
        clock: Clock | None = None,
        on_update: OnUpdate | None = None,
        on_refused: OnRefused | None = None,
        on_notice: OnNotice | None = None,
        seats: Seats | None = None,
        speaker: Speaker | None = None,
        lang: str = "ru",
        wall: Callable[[], datetime] = local_now,
        fallback: FallbackPlaces | None = None,
        disk_free: FreeSpace = free_space,
        on_speed: OnSpeed | None = None,
    ) -> None:
        """``rules``/``seat_count``: the game about to be set up (its voice
        is prepared for them) or the resumed one. ``session``: a game rebuilt
        from its journal. ``seats``/``speaker``/``clock``: given parts instead
        of those the spec names (tests, benches). ``fallback``: where the
        journal goes on when its disk takes no more (default: the order of
        runner/fallback.py); ``disk_free``: the free-space probe.
        ``on_speed``: told when a practice game's speed has changed
        (``set_speed``), before the update that follows."""
        self.spec = spec
        self._on_notice = on_notice
        self.outputs = outputs or Outputs(None, None)
        if session is None:
            journal = Journal.create(spec.journal) if spec.journal is not None else None
            session = GameSession(journal=journal)
        self.session = session
        if spec.practice and session.game is None:
            session.speed = spec.speed  # the setup line will say so
        # A resumed practice game goes on at its journal's speed.
        speed = session.speed if spec.practice else spec.speed
        self.clock: Clock = clock or GameClock(start_at=session.now, speed=speed)
        #: game seconds per real second now (``set_speed`` changes it)
        self.speed: float = getattr(self.clock, "speed", speed)
        self._on_speed = on_speed
        self._on_update = on_update
        self._on_refused = on_refused
        self.host_log = (
            HostLog(self.outputs.host_log, lang=lang) if self.outputs.host_log is not None else None
        )
        wall_time = getattr(self.clock, "wall_time", None)
        self.voice = open_announcer(
            spec.voice, rules, seat_count, self.outputs.captions, wall_time, speaker
        )
        self._voice_sound = self.voice.sound  # as built; silent while the clock runs fast
        self._voice_at(self.speed)
        self.journal_watch, writer = self._journal_watch(fallback, disk_free)
        self.loop = LiveLoop(
            self.clock,
            self._effects,
            on_rejected=self._refused,
            on_changed=self._changed,
            realtime=spec.threaded,
            session=session,
            # Every timer's cues go to the speaker ahead of the deadline and
            # start on the audio clock (docs/architecture.md, timing).
            foresight=self.voice,
            on_speed=self._speed_taken,
            writer=writer,
        )
        self.seats = seats if seats is not None else open_seats(spec, seat_count, self.clock)
        self.bridge = (
            SeatsBridge(self.seats, self.submit, lambda: self.loop.game)
            if self.seats is not None
            else None
        )
        self.ears = open_ears(
            spec,
            rules,
            self.voice.speaker,
            self.submit,
            lambda: self.loop.game,
            self.clock.now,
            speed=self.speed,
            on_notice=on_notice,
        )
        # The procedure's own inputs at their wall-clock moments (live/procedures.py).
        self.deadlines = procedures.WATCHES[rules.procedure](rules, self.submit, wall)
        if self.deadlines is not None and session.game is not None:
            self.deadlines.changed(session.game)  # a resumed game's open windows
        self.hall: Any = None
        if spec.hall is not None:  # paho and the hall's modules: only for a table of a hall
            from ..hall.table_link import TableHall

            self.hall = TableHall(spec.hall, self)
        self._thread: threading.Thread | None = None
        self._closed = False
        self._watched = -1  # the inputs count the journal watch last saw

    def _journal_watch(
        self, fallback: FallbackPlaces | None, disk_free: FreeSpace
    ) -> tuple[JournalWatch | None, JournalWriter | None]:
        """A full disk never stops the game: the journal goes on elsewhere
        (docs/faults.md), and the host hears of the disk well before. A
        threaded table writes its journal on a thread of its own, out of
        the timers' way (runner/journal_writer.py): the watch looks at the
        disk there, and what it tells is told on the loop's thread."""
        journal = self.session.journal
        if journal is None:
            return None, None
        places = fallback or FallbackPlaces.default(disk_free)
        journal.fallback = places
        if not self.spec.threaded:
            return JournalWatch(journal, places, self._notice, self._say, free=disk_free), None
        calls = LoopCalls()
        tell, say = calls.later(self._notice), calls.later(self._say)
        watch = JournalWatch(journal, places, tell, say, free=disk_free)
        return watch, JournalWriter(journal, watch=watch, calls=calls)

    # --- what the table is doing ---------------------------------------------
    @property
    def game(self) -> Game | None:
        """The game as the table has seen it (its last line on disk)."""
        return self.session.shown.game

    @property
    def timer_deadlines(self) -> Deadlines:
        """The running timers' deadlines now (a resumed game's before its
        first update), as the table has seen them."""
        return dict(self.session.shown.deadlines)

    @property
    def simulated_seats(self) -> FakeSeats | None:
        return self.seats if isinstance(self.seats, FakeSeats) else None

    @property
    def sound(self) -> bool:
        """The voice is heard (False: captions only, or the sound device is
        gone for now)."""
        return self.voice.sound and bool(getattr(self.voice.speaker, "sound_now", True))

    def now(self) -> float:
        return self.clock.now()

    def timing(self) -> TimingFigures:
        speaker: Any = self.voice.speaker
        playback = getattr(speaker, "playback", None)
        return TimingFigures(
            started=tuple(playback.started) if playback is not None else (),
            lateness=tuple(self.loop.stats.lateness),
            underruns=getattr(speaker, "underruns", 0),
            audio_priority=str(getattr(speaker, "priority", "none")),
            loop_priority=str(self.loop.priority),
        )

    # --- inputs ------------------------------------------------------------------
    def submit(
        self,
        event: Event,
        *,
        at: float | None = None,
        line: int | None = None,
        ruleset: str | None = None,
        next_at: float | None = None,
    ) -> None:
        """Queue an input (thread-safe). Unthreaded, it is taken at once.
        ``next_at``: a script's next input is due then (``LiveLoop.submit``)."""
        self.loop.submit(event, at=at, line=line, ruleset=ruleset, next_at=next_at)
        if not self.spec.threaded:
            self.loop.run_pending()

    def pump(self) -> None:
        """Unthreaded: take what is queued and fire the timers due by now."""
        self.loop.run_pending()

    def set_speed(self, speed: float) -> None:
        """A practice game's clock ``speed`` times as fast from now on
        (thread-safe): journaled in its turn, then the clock changes."""
        self.loop.change_speed(speed)
        if not self.spec.threaded:
            self.loop.run_pending()

    def advance(self, seconds: float) -> None:
        """On a fake clock: let ``seconds`` pass, firing every timer due."""
        if not isinstance(self.clock, FakeClock):
            raise TypeError("advance() needs a FakeClock")
        self.clock.advance(seconds)
        self.loop.run_pending()

    # --- life --------------------------------------------------------------------
    def start(self) -> None:
        """Run the loop in a thread of its own (it takes a real-time priority,
        which the console's thread should not have)."""
        if self.spec.threaded and self._thread is None:
            self._thread = threading.Thread(target=self.loop.run, name="timer loop", daemon=True)
            self._thread.start()
        watch = getattr(self.voice.speaker, "on_status", None)
        if watch is not None:  # the sound device lost and back (voice/recovery.py)
            watch(self._notice)
        if self.ears is not None and self.ears.started is False:
            self.ears.start()
        if self.deadlines is not None and self.spec.threaded:
            self.deadlines.start()
        if self.hall is not None:
            self.hall.start()

    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def last_beat(self) -> float | None:
        """When the loop's thread last went round (``time.monotonic``), for
        the service's watchdog; None when the loop has no thread of its own.
        A dead thread's beat grows old like a hung one's."""
        return self.loop.last_turn if self._thread is not None else None

    def join(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def stop(self) -> None:
        """Make the loop return once what is queued now is done."""
        self.loop.stop()

    def close(self) -> None:
        """Stop the loop, then close the voice, the seats and the journal."""
        if self._closed:
            return
        self._closed = True
        if self.ears is not None:
            # First: a flag already heard still reaches the journal.
            self._close_part("ears", self.ears.close)
        if self.deadlines is not None:
            self._close_part("deadline watch", self.deadlines.stop)
        if self._thread is not None:
            self.loop.stop()
            # The loop waits for the journal's writer (SETTLE_S at most).
            self._thread.join(SETTLE_S + 5.0)
        else:
            self.loop.run_pending()
            self.loop.close_writer()  # started, never run
        for part, closing in (
            ("hall", self.hall.close if self.hall is not None else None),
            ("voice", self.voice.close),
            ("seats", self.seats.close if self.seats is not None else None),
            ("journal", self.session.journal.close if self.session.journal else None),
        ):
            if closing is not None:
                self._close_part(part, closing)

    @staticmethod
    def _close_part(part: str, closing: Callable[[], None]) -> None:
        try:
            closing()
        except Exception:  # one broken part must not keep the others open
            log.exception("closing the %s failed", part)

    # --- the loop's hooks (on its thread) ------------------------------------------
    def _changed(self, before: Game | None, after: Game) -> None:
        if self.bridge is not None:
            self.bridge.changed(before, after)  # the seat lights first: they are quickest
        if self.deadlines is not None:
            self.deadlines.changed(after)
        shown = self.session.shown  # as of this input: later ones may wait for the disk
        self._post(Update(shown.now, after, dict(shown.deadlines), ()))
        self._after_input()

    def _effects(self, now: float, effects: tuple[Effect, ...]) -> None:
        self.voice(now, effects)
        if self.host_log is not None:
            self.host_log(now, effects)
        shown = self.session.shown
        self._post(Update(now, shown.game, dict(shown.deadlines), effects))
        self._after_input()

    def _after_input(self) -> None:
        """Once per accepted input (both hooks may run for one); the
        journal's writer tells its watch itself."""
        session = self.session
        if self.loop.writer is not None:
            return
        if self.journal_watch is not None and session.inputs != self._watched:
            self._watched = session.inputs
            self.journal_watch.after_input(session.inputs, session.now)

    def _speed_taken(self, speed: float, refused: str | None) -> None:
        """On the loop's thread, once the speed change is journaled (or,
        ``refused``, not: written behind, it may be taken back)."""
        if refused is not None:
            self._notice("journal_failed", refused)
            if speed == self.speed:
                return
        self.speed = speed
        self._voice_at(speed)
        if self._on_speed is not None:
            try:
                self._on_speed(self)
            except Exception:  # the console's trouble never stops the game
                log.exception("the console could not be told of the speed")
        shown = self.session.shown
        self._post(Update(shown.now, shown.game, dict(shown.deadlines), ()))

    def _voice_at(self, speed: float) -> None:
        """Above real time the voice cannot keep up (its cues never cut
        each other short, so they would fall further and further behind):
        captions only, in the console's log; at 1 (or slower) it speaks."""
        self.voice.sound = self._voice_sound and speed <= 1.0

    def _refused(self, event: Event, reason: str, line: int | None) -> None:
        if self.journal_watch is not None and self.loop.writer is None:
            self.journal_watch.refused()
        if self._on_refused is not None:
            self._on_refused(event, reason, line)
        else:
            log.warning("refused: %s", reason)

    def _notice(self, what: str, line: str) -> None:
        """News for the host (docs/faults.md): logged, and to the console."""
        log.warning("%s: %s", what, line)
        if self._on_notice is not None:
            try:
                self._on_notice(what, line)
            except Exception:  # the console's trouble never stops the game
                log.exception("the console could not be told of %s", what)

    def _say(self, cue: str) -> None:
        """One of the table's own cues (core/vocabulary.py TABLE_CUES)."""
        try:
            self.voice.say(Say(cue))
        except Exception:  # the voice is not the game
            log.exception("saying %s failed", cue)

    def _post(self, update: Update) -> None:
        if self.hall is not None:
            self.hall.offer(update)
        if self._on_update is None:
            return
        try:
            self._on_update(update)
        except Exception:  # the console's trouble never stops the game
            log.exception("the console could not be told of an update")
