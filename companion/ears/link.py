"""The listening process and the table's end of it.

Capture, voice activity and (later) recognition run in a process of their
own (``serve``), so that no analysis ever holds the interpreter a timer or a
cue is waiting for (docs/architecture.md, "Timing on a busy machine").
``EarsLink`` is the table's end: it spawns that process, reads its
messages on a thread of its own, holds the ``FlagWatcher`` and submits
each flag to the table as a ``SpeechFlagged`` input (the host confirms or
dismisses it from the proposal queue). Microphone trouble reaches the host
as a notice, once when it goes and once when it is back.

The same thread watches the process: its death closes the socket, so it is
seen at once; a process that dies without having said why (killed, crashed)
is started again (``restarts.RestartPolicy``: within 5 s) and the host is
told (``ears_restarted``), or, after a run of quick deaths, told that the
table gave up (``ears_gave_up``). One that said why it cannot listen
(``failed``: a file that is not there) is not: a new one would fail the
same way. Each process that listens says so (``ears_started``, its pid);
the console keeps the health (``health.EarsHealth``) for the service's
status and the doctor.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from ..core.events import WORD_KIND, Event, SpeechFlagged
from ..core.sports.state import current_turn, table_or_blank
from ..core.state import Game
from ..runner.child_log import log_to
from .hearing import EarsSettings, hear
from .restarts import RestartPolicy, ending
from .watch import FlagWatcher, LevelGate

log = logging.getLogger(__name__)

#: how often the table's end looks at the game while an utterance is open
TICK_S = 0.05
#: the room's echo of the table's own voice after a cue ends
ECHO_TAIL_S = 0.3
CLOSE_TIMEOUT_S = 3.0

#: (what: "lost" | "back" | "failed" | "ears_started" | "ears_restarted" | ..., one line)
OnNotice = Callable[[str, str], None]
#: the listening process's own news, not the microphone's: logged at info
_QUIET = ("ears_started", "ears_stopped")


class EarsLink:
    """The table's end of the listening process."""

    def __init__(
        self,
        settings: EarsSettings,
        submit: Callable[[Event], None],
        game: Callable[[], Game | None],
        now: Callable[[], float],
        *,
        speed: float = 1.0,
        on_notice: OnNotice | None = None,
        voice_until: Callable[[], float] | None = None,
        monotonic: Callable[[], float] = time.monotonic,
        log_file: Path | None = None,
        restarts: RestartPolicy | None = None,
        pause: Callable[[float], bool] | None = None,
    ) -> None:
        """``voice_until``: when the table's own voice stops sounding
        (monotonic): an utterance that begins while it sounds is the
        companion heard by its own microphone, never flagged.
        ``restarts``: when a dead listening process is started again;
        ``pause(seconds)``: the wait before it, True when the link is closing
        meanwhile (default: a wait the link's close ends; a test's returns
        at once)."""
        self.settings = settings
        self._submit, self._game, self._now = submit, game, now
        self._speed = speed
        self._on_notice = on_notice or _log_notice
        self._log_file = log_file
        self._voice_until = voice_until
        # The utterance heard and not yet watched: (start, seat, confidence)
        # until it is as loud as the table's speakers.
        self._heard: tuple[float, int | None, float] | None = None
        # Its loudness so far; once closed, its last (the listening process
        # sends an utterance's words before the next utterance opens).
        self._level = -120.0
        self._monotonic = monotonic
        # A microphone per seat or the array tells whose speech is whose: what
        # no seat claims (the next table, the room) is not the table's.
        self.watcher = FlagWatcher(needs_seat=settings.layout != "single")
        self.gate = LevelGate()
        self.flags: list[SpeechFlagged] = []  # what was submitted, for the benches
        self._process: Any = None
        self._conn: Connection | None = None
        self._thread: threading.Thread | None = None
        self._closing = threading.Event()
        self.restarts = restarts or RestartPolicy()
        self._pause = pause or self._closing.wait
        # Swapping in a new process against close() taking the current one.
        self._lock = threading.Lock()
        self._started_at = 0.0  # (monotonic) when the current process was started
        self._said_failed = False  # it said why it cannot listen
        self._stopped = False  # ears_stopped told

    @property
    def started(self) -> bool:
        return self._process is not None

    @property
    def pid(self) -> int | None:
        """The current listening process's (tests, benches)."""
        process = self._process
        return None if process is None else int(process.pid)

    def start(self) -> None:
        self._spawn()
        self._thread = threading.Thread(target=self._watch, name="ears", daemon=True)
        self._thread.start()

    def _spawn(self) -> bool:
        """Start a listening process and hand it its settings (False: the
        link is closing, none was started)."""
        # A plain child process, not multiprocessing's: the table's process
        # is a daemonic one, and those may not have children of their own.
        mine, theirs = socket.socketpair()
        command = [sys.executable, "-m", "companion.ears.link", str(theirs.fileno())]
        log_file = self._log_file or _log_file()
        if log_file is not None:
            command.append(str(log_file))
        with self._lock:
            if self._closing.is_set():
                mine.close()
                theirs.close()
                return False
            try:
                self._process = subprocess.Popen(
                    command, pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL
                )
            except OSError:
                mine.close()
                raise
            finally:
                theirs.close()
            self._conn = conn = Connection(mine.detach())
            self._started_at = self._monotonic()
        with contextlib.suppress(OSError, ValueError):  # dead already: the watch sees it
            conn.send(self.settings)
        return True

    def close(self) -> None:
        self._closing.set()
        with self._lock:
            conn, process = self._conn, self._process
        if conn is not None:
            with contextlib.suppress(OSError, ValueError):
                conn.send(("close",))
        if self._thread is not None:
            self._thread.join(CLOSE_TIMEOUT_S)
        if process is not None:
            try:
                process.wait(CLOSE_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(CLOSE_TIMEOUT_S)
        if conn is not None:
            conn.close()
        if process is not None:
            self._stop("the table closed")

    def _stop(self, why: str) -> None:
        if not self._stopped:
            self._stopped = True
            self._on_notice("ears_stopped", why)

    # --- the reading and watching thread ---------------------------------------------
    def _watch(self) -> None:
        """Read the listening process until it ends; start it again when it
        died without a word (the module's docstring)."""
        while True:
            conn, process = self._conn, self._process
            assert conn is not None and process is not None
            if self._read(conn) or self._closing.is_set():
                return
            conn.close()
            # What was being heard ended with the process.
            self.watcher.closed()
            self._heard = None
            how = _ended(process)
            lived = self._monotonic() - self._started_at
            log.warning("the listening process ended (%s) after %.1f s", how, lived)
            if self._said_failed:
                return  # it said why, and a new one would fail the same way
            if not self._restart(how, lived):
                return

    def _restart(self, how: str, lived: float) -> bool:
        """Start a new listening process after the policy's wait (False:
        given up, or the link is closing)."""
        while True:
            wait = self.restarts.died(lived)
            if wait is None:
                self._on_notice("ears_gave_up", f"{how}, {self.restarts.quick + 1} times in a row")
                return False
            if self._pause(wait) or self._closing.is_set():
                return False
            try:
                if not self._spawn():
                    return False
            except OSError as error:  # no process at all (no memory, no pids): as a death
                how, lived = f"could not start: {error}", 0.0
                continue
            self._on_notice("ears_restarted", how)
            return True

    def _read(self, conn: Connection) -> bool:
        """Read one process's messages: True when it ended by itself (a
        file's end) or the link is closing, False when it died."""
        self._said_failed = False
        while not self._closing.is_set():
            try:
                if conn.poll(TICK_S):
                    message = conn.recv()
                    if message[0] == "listening":
                        self._on_notice("ears_started", str(message[1]))
                        continue
                    if message[:2] == ("status", "failed"):
                        self._said_failed = True
                    self.heard(message)
                    if message[0] == "ended":
                        self._stop("the sound ended")
                        return True
                else:
                    self.tick()
            except (EOFError, OSError):
                return False
        return True

    def tick(self) -> None:
        """While an utterance is open: the flag it earns by now (an overrun)."""
        if self.watcher.hearing:
            self._flag(self.watcher.tick(self._now(), self._game()))

    def heard(self, message: tuple[Any, ...]) -> None:
        """One message of the listening process (``hearing``'s docstring)."""
        kind = message[0]
        now, game = self._now(), self._game()
        if kind == "open":
            _, start, seat, confidence, level = message
            self._heard = None if self._own_voice(start) else (start, seat, confidence)
            self._level = level
            self._louder(now, game)
        elif kind == "level":
            self._level = message[1]
            self._louder(now, game)
        elif kind == "seat":
            self._flag(self.watcher.attributed(now, message[1], message[2], game))
            if self._heard is not None:
                self._heard = (self._heard[0], message[1], message[2])
                self._louder(now, game)
        elif kind == "close":
            _, start, end, _seat, _confidence, level = message
            if self.watcher.hearing:
                self._flag(self.watcher.tick(now, game))
            self.watcher.closed()
            self._heard = None
            self._level = level
            if _is_the_speakers(game) and end - start >= self.gate.learn_from_s:
                self.gate.learn(level)
        elif kind == "word":
            # Whose: the seat of the utterance it was heard in (its end came first).
            _, _start, seat, phrase, words, confidence = message
            if seat is None and self.watcher.needs_seat:
                return  # no seat's: the next table's words, not ours
            if not self.gate.passes(self._level):  # the utterance it was heard in
                return  # far quieter than the table's speakers: the next table's
            if game is not None and game.phase != "ended":
                self._propose(
                    SpeechFlagged(WORD_KIND, seat or 0, round(confidence, 3), phrase, words)
                )
        elif kind == "status":
            if message[1] == "lost":  # what was being heard ended with the card
                self.watcher.closed()
                self._heard = None
            elif message[1] == "no_seats":  # no seats after all: as one microphone
                self.watcher.needs_seat = False
            self._on_notice(message[1], message[2])

    def _flag(self, flag: Any) -> None:
        if flag is not None:
            confidence = min(1.0, max(0.0, flag.confidence))
            self._propose(SpeechFlagged(flag.kind, flag.seat or 0, confidence))

    def _propose(self, event: SpeechFlagged) -> None:
        self.flags.append(event)
        self._submit(event)

    def _louder(self, now: float, game: Game | None) -> None:
        """The utterance heard is loud enough to be the table's: watch it
        (with a microphone per seat or an array, the watcher flags it only
        once a seat claims it)."""
        if self._heard is not None and self.gate.passes(self._level):
            start, seat, confidence = self._heard
            self._heard = None
            self._flag(self.watcher.opened(now, self._game_time(start), seat, confidence, game))

    def _own_voice(self, start: float) -> bool:
        return self._voice_until is not None and start < self._voice_until() + ECHO_TAIL_S

    def _game_time(self, monotonic_at: float) -> float:
        return self._now() - (self._monotonic() - monotonic_at) * self._speed


def _is_the_speakers(game: Game | None) -> bool:
    """Speech now is the table's own speaker's, within their time: the
    level the gate learns."""
    return (
        game is not None and current_turn(game) is not None and not table_or_blank(game).turn_over
    )


def _log_notice(what: str, line: str) -> None:
    if what in _QUIET:
        log.info("listening process %s: %s", what, line)
    else:
        log.warning("microphone %s: %s", what, line)


def _ended(process: Any) -> str:
    """How the process ended (it closed its socket: it ends, if it has not)."""
    try:
        return ending(process.wait(CLOSE_TIMEOUT_S))
    except subprocess.TimeoutExpired:  # its socket closed, itself still there: ended now
        process.kill()
        process.wait(CLOSE_TIMEOUT_S)
        return "closed its socket and hung"


def _log_file() -> Path | None:
    """Where this process logs (the console's log file), for the child's."""
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.FileHandler):
            return Path(handler.baseFilename)
    return None


# --- the listening process -------------------------------------------------------------
def serve(conn: Connection, settings: EarsSettings, log_file: Path | None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # ctrl+c is the console's
    if log_file is not None:
        log_to(log_file, "ears")
    stopping = threading.Event()

    def wait_for_close() -> None:
        with contextlib.suppress(EOFError, OSError):
            conn.recv()
        stopping.set()

    threading.Thread(target=wait_for_close, name="orders", daemon=True).start()
    send = conn.send  # from this thread only: the listener calls back on it
    pid = os.getpid()
    try:
        hear(settings, send, stopping, ready=lambda: send(("listening", pid)))
        send(("ended",))
    except (OSError, ValueError) as error:
        if not stopping.is_set():
            log.exception("listening failed")
            with contextlib.suppress(OSError, ValueError):
                send(("status", "failed", " ".join(str(error).split())))


def main(argv: list[str]) -> None:
    """``python -m companion.ears.link FD [LOG]``: the listening process, on
    the socket ``FD`` its parent passed; the first message is its settings."""
    if not argv or not argv[0].isdigit():
        sys.exit("companion.ears.link is started by the table")
    conn = Connection(int(argv[0]))
    try:
        settings = conn.recv()
    except (EOFError, OSError):
        return
    serve(conn, settings, Path(argv[1]) if len(argv) > 1 else None)


if __name__ == "__main__":  # pragma: no cover - started by EarsLink
    main(sys.argv[1:])
