"""The listening process and the table's end of it.

Capture, voice activity and (later) recognition run in a process of their
own (``serve``), so that no analysis ever holds the interpreter a timer or a
cue is waiting for (docs/architecture.md, "Timing on a busy machine").
``EarsLink`` is the table's end: it spawns that process, reads its
messages on a thread of its own, holds the ``FlagWatcher`` and submits
each flag to the table as a ``SpeechFlagged`` input (the host confirms or
dismisses it from the proposal queue). Microphone trouble reaches the host
as a notice, once when it goes and once when it is back.
"""

from __future__ import annotations

import contextlib
import logging
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

from ..child_log import log_to
from ..core.events import WORD_KIND, Event, SpeechFlagged
from ..core.state import Game
from ..core.table_state import current_turn, table_or_blank
from .hearing import EarsSettings, hear
from .watch import FlagWatcher, LevelGate

log = logging.getLogger(__name__)

#: how often the table's end looks at the game while an utterance is open
TICK_S = 0.05
#: the room's echo of the table's own voice after a cue ends
ECHO_TAIL_S = 0.3
CLOSE_TIMEOUT_S = 3.0

#: (what: "lost" | "back" | "failed", one line)
OnNotice = Callable[[str, str], None]


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
    ) -> None:
        """``voice_until``: when the table's own voice stops sounding
        (monotonic): an utterance that begins while it sounds is the
        companion heard by its own microphone, never flagged."""
        self.settings = settings
        self._submit, self._game, self._now = submit, game, now
        self._speed = speed
        self._on_notice = on_notice or (
            lambda what, line: log.warning("microphone %s: %s", what, line)
        )
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

    @property
    def started(self) -> bool:
        return self._process is not None

    def start(self) -> None:
        # A plain child process, not multiprocessing's: the table's process
        # is a daemonic one, and those may not have children of their own.
        mine, theirs = socket.socketpair()
        command = [sys.executable, "-m", "companion.ears.link", str(theirs.fileno())]
        log_file = self._log_file or _log_file()
        if log_file is not None:
            command.append(str(log_file))
        self._process = subprocess.Popen(
            command, pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL
        )
        theirs.close()
        self._conn = Connection(mine.detach())
        self._conn.send(self.settings)
        self._thread = threading.Thread(target=self._read, name="ears", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._closing.set()
        if self._conn is not None:
            with contextlib.suppress(OSError, ValueError):
                self._conn.send(("close",))
        if self._thread is not None:
            self._thread.join(CLOSE_TIMEOUT_S)
        if self._process is not None:
            try:
                self._process.wait(CLOSE_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(CLOSE_TIMEOUT_S)
        if self._conn is not None:
            self._conn.close()

    # --- the reading thread --------------------------------------------------------
    def _read(self) -> None:
        assert self._conn is not None
        while not self._closing.is_set():
            try:
                if self._conn.poll(TICK_S):
                    message = self._conn.recv()
                    self.heard(message)
                    if message[0] == "ended":
                        break
                else:
                    self.tick()
            except (EOFError, OSError):
                if not self._closing.is_set():
                    self._on_notice("failed", "the listening process ended; no flags")
                return

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
    try:
        hear(settings, send, stopping)
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
