"""The live table in a process of its own, the console as its client.

Why a process: a busy thread in the console's process (drawing, later the
microphone's analysis) holds Python's interpreter, and a timer that must
fire then waits for it (docs/architecture.md, "Timing on a busy machine").
In a process of its own, the table's loop and its audio thread share the
interpreter with nobody but themselves.

``TableWorker`` spawns a spare process while the host looks at the set-up
screen (it imports the table's modules, which takes a moment, then waits);
``TableWorker.build`` hands it the order and returns a ``TableProcess``:
the console's side of the table, with the calls the console makes on an
in-process ``LiveTable``. Inputs go down one pipe; updates, refusals and
figures come back up another, read by a thread that calls the console's
callbacks (which only post messages). If the table's process dies, the
console is told (``on_lost``): the journal has every accepted input, so it
resumes the game in a new one.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from ..core.events import Event
from ..core.rules import Ruleset
from ..core.state import Game
from ..runner.child_log import log_to
from ..runner.clock import GameClock
from ..runner.sd_notify import waiting
from .table_wire import StateReceiver, StateSender

log = logging.getLogger(__name__)

#: how long the console waits for a table to be built (a resume included)
BUILD_TIMEOUT_S = 60.0
#: how often the table process's threads hand the interpreter over (as the loop sets it)
SWITCH_INTERVAL_S = 0.0002
#: how long a closing table may take before its process is killed
CLOSE_TIMEOUT_S = 5.0
#: how often the table's process tells the console when its loop last went
#: round (the service's watchdog: runner/sd_notify.py)
BEAT_EVERY_S = 1.0


class TableFailed(RuntimeError):
    """The table could not be built or its process could not be reached;
    the message is one line naming what (a pin map, a journal, a device)."""


@dataclass(frozen=True, slots=True)
class TableOrder:
    """What the table's process builds: a new game (``rules``, ``seat_count``)
    or the unfinished one in the journal ``resume``."""

    spec: Any  # assembly.TableSpec (imported in the process, not here)
    rules: Ruleset | None
    seat_count: int
    lang: str = "ru"
    resume: Path | None = None
    #: seconds (of the wall clock) the table's clock starts behind the game:
    #: a scripted source (console/script_inputs.py) hands each line over that
    #: long before the table's clock reaches it, so no timer can fire first
    lag: float = 0.0


@dataclass(frozen=True, slots=True)
class TableReady:
    """The table is built: its first state and what it is made of."""

    spec: Any  # assembly.TableSpec, as built
    update: Any  # assembly.Update
    clock_origin: float  # GameClock: the monotonic time at which game time was start_at
    start_at: float
    speed: float
    sound: bool
    simulated_seats: bool  # the console's keys press them (False: real buttons, or none)
    warnings: tuple[str, ...]


class SeatKeys:
    """The console's keys for the simulated seats, pressed in the table's
    process (where the seats and the loop's clock are)."""

    def __init__(self, send: Callable[[tuple[Any, ...]], None]) -> None:
        self._send = send

    def press(self, seat: int) -> None:
        self._send(("seat", "press", seat))

    def release(self, seat: int) -> None:
        self._send(("seat", "release", seat))

    def toggle(self, seat: int) -> None:
        self._send(("seat", "toggle", seat))

    def lift_all(self) -> None:
        self._send(("seat", "lift_all", 0))


class TableWorker:
    """A spare table process: spawned early, built on ``build``."""

    def __init__(self, log_file: Path | None = None, voice: Any = None) -> None:
        """``voice``: the club's ``VoiceSettings``: the sound device is opened
        while the worker waits (a stream takes a second or two to start), so
        the table's first cue is not late."""
        context = multiprocessing.get_context("spawn")  # never fork a threaded app
        orders_out, self._orders = context.Pipe(duplex=False)
        self._news, news_in = context.Pipe(duplex=False)
        self.process = context.Process(
            target=serve,
            args=(orders_out, news_in, log_file, voice),
            name="companion table",
            daemon=True,
        )
        # Textual stands in for sys.stderr while it runs (its fileno() is -1),
        # and multiprocessing hands sys.stderr's descriptor to its helper.
        stderr, sys.stderr = sys.stderr, sys.__stderr__
        try:
            self.process.start()
        finally:
            sys.stderr = stderr
        orders_out.close()  # the child's ends: an EOF reaches whoever is left
        news_in.close()
        self._used = False

    def build(
        self,
        order: TableOrder,
        on_update: Callable[[Any], None],
        on_refused: Callable[[str, int | None], None],
        on_lost: Callable[[str], None],
        on_notice: Callable[[str, str], None] | None = None,
    ) -> TableProcess:
        """Build the table; raises ``TableFailed`` with the process's reason."""
        if self._used:
            raise RuntimeError("a worker builds one table")
        self._used = True
        try:
            self._orders.send(order)
            # A build has its own bound: systemd's watchdog is fed meanwhile.
            if not waiting(self._news.poll, BUILD_TIMEOUT_S):
                raise TableFailed(f"the table's process did not answer in {BUILD_TIMEOUT_S:.0f} s")
            kind, body = self._news.recv()
        except (OSError, EOFError) as error:
            self.discard()
            raise TableFailed(f"the table's process ended while starting ({error})") from None
        if kind != "ready":
            self.discard()
            raise TableFailed(str(body))
        return TableProcess(self, body, on_update, on_refused, on_lost, on_notice)

    def discard(self) -> None:
        """Let an unused (or failed) worker go."""
        for end in (self._orders, self._news):
            end.close()
        self.process.join(CLOSE_TIMEOUT_S)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()


class TableProcess:
    """The console's side of a table running in its own process."""

    def __init__(
        self,
        worker: TableWorker,
        ready: TableReady,
        on_update: Callable[[Any], None],
        on_refused: Callable[[str, int | None], None],
        on_lost: Callable[[str], None],
        on_notice: Callable[[str, str], None] | None = None,
    ) -> None:
        self._worker = worker
        self.spec = ready.spec
        self.sound = ready.sound
        self.warnings = ready.warnings
        self.clock = GameClock.following(ready.clock_origin, ready.start_at, ready.speed)
        self._states = StateReceiver()
        self._latest = self._states.unpack_update(ready.update)
        self._on_update, self._on_refused, self._on_lost = on_update, on_refused, on_lost
        self._on_notice = on_notice
        #: when the table's loop last went round (``time.monotonic``), as its
        #: process last said: the service's watchdog reads it
        self.last_beat: float | None = time.monotonic()
        self._send_lock = threading.Lock()
        self._answers: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._closing = False
        self.simulated_seats = SeatKeys(self._tell) if ready.simulated_seats else None
        self._reader = threading.Thread(target=self._read, name="table news", daemon=True)
        self._reader.start()

    # --- what the console calls -------------------------------------------------
    @property
    def game(self) -> Game | None:
        return self._latest.game  # type: ignore[no-any-return]

    @property
    def timer_deadlines(self) -> dict[str, tuple[float, int]]:
        """The running timers' deadlines as the table last said (a resumed
        game's with its ready message)."""
        return dict(self._latest.deadlines)

    def now(self) -> float:
        return self.clock.now()

    @property
    def speed(self) -> float:
        """Game seconds per real second, as the table's process last said."""
        return self.clock.speed

    def set_speed(self, speed: float) -> None:
        """A practice game's clock ``speed`` times as fast (``LiveTable.set_speed``);
        this side's clock follows when the table's process says it changed."""
        self._tell(("speed", speed))

    def submit(
        self,
        event: Event,
        *,
        at: float | None = None,
        line: int | None = None,
        ruleset: str | None = None,
    ) -> None:
        """An input; ``at``/``line``/``ruleset`` as ``LiveTable.submit``
        (a script's input: its time, its line, a setup's ruleset name)."""
        self._tell(("submit", event, at, line, ruleset))

    def pump(self) -> None:
        """Nothing to do: the table's own loop takes what is sent."""

    def timing(self) -> Any:
        """The table's timing figures (assembly.TimingFigures), for benches."""
        self._send(("timing",))
        return self._answers.get(timeout=BUILD_TIMEOUT_S)

    def crash(self) -> None:
        """Kill the table's process (tests of a lost table)."""
        self._worker.process.kill()

    def close(self) -> None:
        if self._closing:
            return
        self._closing = True
        with contextlib.suppress(TableFailed):
            self._send(("close",))
        self._worker.process.join(CLOSE_TIMEOUT_S)
        self._worker.discard()
        self._reader.join(CLOSE_TIMEOUT_S)

    # --- the pipes ------------------------------------------------------------------
    def _tell(self, message: tuple[Any, ...]) -> None:
        """Send an input; a table that has just died is not the key's
        caller's problem: ``on_lost`` resumes it (the input was never taken)."""
        try:
            self._send(message)
        except TableFailed as error:
            log.warning("an input for a table that is gone: %s", error)

    def _send(self, message: tuple[Any, ...]) -> None:
        with self._send_lock:
            try:
                self._worker._orders.send(message)
            except (OSError, ValueError) as error:
                raise TableFailed(f"the table's process cannot be reached ({error})") from None

    def _read(self) -> None:
        news = self._worker._news
        while True:
            try:
                kind, body = news.recv()
            except (EOFError, OSError):
                break
            if kind == "update":
                self._latest = self._states.unpack_update(body)
                self._on_update(self._latest)
            elif kind == "refused":
                self._on_refused(*body)
            elif kind == "notice":
                if self._on_notice is not None:
                    self._on_notice(*body)
            elif kind == "speed":  # before the update that shows it
                origin, start_at, speed, self.sound = body
                self.clock.follow(origin, start_at, speed)
            elif kind == "beat":
                self.last_beat = body
            elif kind == "timing":
                self._answers.put(body)
            elif kind == "closed":
                return
        if not self._closing:
            code = self._worker.process.exitcode
            self._on_lost(f"the table's process ended (exit code {code})")


# --- the table's process -------------------------------------------------------------
def serve(orders: Connection, news: Connection, log_file: Path | None, voice: Any) -> None:
    """The table process's main: wait for the order, build, then take the
    console's messages until it says close (or goes away)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # ctrl+c is the console's to handle
    if log_file is not None:
        log_to(log_file, "table")
    from . import assembly  # the slow imports, while the host sets up the game

    # The audio callback needs the interpreter every few ms: while the table
    # is built (the voice loaded, a journal replayed) it must still get it.
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    speaker = _open_early(voice)
    try:
        order: TableOrder = orders.recv()
    except (EOFError, OSError):
        if speaker is not None:
            speaker.close()
        return  # a spare nobody needed
    if speaker is not None and order.spec.voice != voice:
        speaker.close()  # the settings changed: the table opens its own
        speaker = None
    outbox: queue.SimpleQueue[tuple[str, Any] | None] = queue.SimpleQueue()
    try:
        table, warnings = _build(assembly, order, outbox, speaker)
    except Exception as error:  # one line for the host, the whole story in the log
        log.exception("the table could not be built")
        news.send(("failed", _one_line(error, order.lang)))
        return
    sender = threading.Thread(
        target=_send_news,
        args=(news, outbox, lambda: table.loop.last_turn),
        name="news",
        daemon=True,
    )
    clock = table.clock
    outbox.put(("ready", TableReady(
        spec=table.spec,
        update=assembly.Update(table.session.now, table.game, dict(table.session.timers.deadlines), ()),
        clock_origin=clock.origin,
        start_at=clock.start_at,
        speed=clock.speed,
        sound=table.voice.sound,
        simulated_seats=table.simulated_seats is not None,
        warnings=tuple(warnings),
    )))  # fmt: skip
    sender.start()
    table.start()
    try:
        _take_orders(table, orders, outbox)
    finally:
        table.close()
        outbox.put(("closed", None))
        outbox.put(None)
        sender.join(CLOSE_TIMEOUT_S)


def _open_early(voice: Any) -> Any:
    """The sound device, opened before the order comes (None: captions, or
    no settings given; a device that fails is the table's to report)."""
    if voice is None or voice.captions_only:
        return None
    from ..voice.settings import speaker_for
    from ..voice.speaker import CaptionSpeaker

    speaker = speaker_for(voice, None)
    if isinstance(speaker, CaptionSpeaker):
        return None  # no sound card: the table finds the same and says so
    return speaker


def _build(
    assembly: Any, order: TableOrder, outbox: queue.SimpleQueue[Any], speaker: Any
) -> tuple[Any, list[str]]:
    def updated(update: Any) -> None:
        outbox.put(("update", update))

    def refused(event: Event, reason: str, line: int | None) -> None:
        outbox.put(("refused", (reason, line)))

    def notice(what: str, line: str) -> None:
        outbox.put(("notice", (what, line)))

    def speed(table: Any) -> None:  # the clock's anchor, for the console's to follow
        outbox.put(("speed", (*table.clock.anchor, table.sound)))

    session, warnings, rules, seats = None, [], order.rules, order.seat_count
    if order.resume is not None:
        from ..config.rulesets import load_ruleset
        from ..runner.resume import resume_journal

        resumed = resume_journal(order.resume, load_ruleset)
        session, warnings = resumed.session, resumed.warnings
        game = session.game
        if game is None:
            raise ValueError(f"{order.resume}: no game to resume")
        rules, seats = game.rules, len(game.seats)
    assert rules is not None
    table = assembly.LiveTable(
        replace(order.spec, threaded=True),
        rules,
        seats,
        # Every cue is in the console's log already; captions go nowhere.
        outputs=assembly.Outputs(captions=open(os.devnull, "w"), host_log=None),  # noqa: SIM115
        session=session,
        clock=_lagging_clock(order, session.now if session is not None else 0.0),
        on_update=updated,
        on_refused=refused,
        on_notice=notice,
        speaker=speaker,
        lang=order.lang,
        on_speed=speed,
    )
    return table, warnings


def _lagging_clock(order: TableOrder, start: float) -> GameClock | None:
    """The game clock ``order.lag`` seconds behind ``start`` (None: no lag,
    the table's own clock)."""
    if not order.lag:
        return None
    speed = order.spec.speed
    return GameClock(start_at=start - order.lag * speed, speed=speed)


def _take_orders(table: Any, orders: Connection, outbox: queue.SimpleQueue[Any]) -> None:
    while True:
        try:
            message = orders.recv()
        except (EOFError, OSError):
            return  # the console went away: close the table, keep the journal
        kind = message[0]
        if kind == "submit":
            _, event, at, line, ruleset = message
            table.submit(event, at=at, line=line, ruleset=ruleset)
        elif kind == "seat":
            seats = table.simulated_seats
            if seats is not None:
                getattr(seats, message[1])(message[2])
        elif kind == "speed":
            table.set_speed(message[1])
        elif kind == "timing":
            outbox.put(("timing", table.timing()))
        elif kind == "close":
            return


def _send_news(
    news: Connection,
    outbox: queue.SimpleQueue[tuple[str, Any] | None],
    last_turn: Callable[[], float],
) -> None:
    """Packing and pickling a state take a millisecond or so: done here,
    never on the loop's thread. Every ``BEAT_EVERY_S`` the loop's last turn
    goes up too: the loop's own stamp, so a hung loop sends an old one."""
    states = StateSender()
    beat_due = time.monotonic() + BEAT_EVERY_S  # "ready", queued already, goes first
    while True:
        now = time.monotonic()
        if now >= beat_due:
            beat_due = now + BEAT_EVERY_S
            item: tuple[str, Any] | None = ("beat", last_turn())
        else:
            try:
                item = outbox.get(timeout=beat_due - now)
            except queue.Empty:
                continue
        if item is None:
            return
        kind, body = item
        if kind == "update":
            body = states.pack_update(body)
        elif kind == "ready":
            body = replace(body, update=states.pack_update(body.update))
        try:
            news.send((kind, body))
        except (OSError, ValueError):
            return  # the console went away
        except Exception:  # a state that cannot be sent: the next one will be
            log.exception("news for the console could not be sent")


def _one_line(error: BaseException, lang: str) -> str:
    """The reason the table was not built, in the host's words (a journal's
    broken line, its lock: console/refusals/lines.py)."""
    from ..console.refusals.lines import error_line

    text = " ".join(error_line(error, lang).split()) or type(error).__name__
    return text if len(text) <= 300 else text[:297] + "..."


if __name__ == "__main__":  # pragma: no cover - spawned only
    sys.exit("companion.live.table_process is started by the console")
