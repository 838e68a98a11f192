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
resumes the game in a new one. The process's own side is ``table_serve``;
what goes between them, ``table_messages``.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import queue
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core.events import Event
from ..core.state import Game
from ..runner.clock import GameClock
from ..runner.sd_notify import waiting
from .table_messages import BUILD_TIMEOUT_S, CLOSE_TIMEOUT_S, TableFailed, TableOrder, TableReady
from .table_serve import serve
from .table_wire import StateReceiver

log = logging.getLogger(__name__)


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
            line, reason = body
            raise TableFailed(line, reason)
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
        # The reader ends at the process's "closed" or its pipe's EOF; the
        # pipe is closed only after: closed under a recv() in progress, it
        # made the reader's thread die of a TypeError inside multiprocessing.
        if not self._worker.process.is_alive():  # a hung one is killed first
            self._reader.join(CLOSE_TIMEOUT_S)
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
