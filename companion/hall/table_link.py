"""The hall link put on a live table: what ``live/assembly.py`` calls.

The table's side of the hall is small on purpose: after each update, on
the table's loop thread, the public state is made (``public.public_state``,
pure: tens of microseconds) and made into one JSON line, which goes on a
bounded deque (the oldest line goes when the publisher is far behind; the
latest, which carries the state, never); a thread of almost no Python of
its own writes the lines to the publisher's own process
(``link_process.py``), which does everything else (paho, the broker, the
outbox, the protocol). The loop never waits for the hall: it appends, and
wakes the writer through a pipe without waiting. Another thread reads the
publisher's reports (blocked in ``recv``) and tells the console (``status``).

Kept here, not in the assembly, so that the wiring there is a few lines,
and a table without ``[hall]`` imports none of it.
"""

from __future__ import annotations

import collections
import contextlib
import json
import logging
import os
import select
import socket
import subprocess
import sys
import threading
import time
from typing import Any

from ..core.effects import Say
from .link_process import settings_message
from .public import public_state
from .settings import HallSettings

log = logging.getLogger(__name__)

#: how long ``close`` waits for the publisher to hand over what is left
#: (the end's protocol is made from the journal first: seconds on a busy Pi)
CLOSE_WAIT_S = 25.0
#: lines kept for a publisher that is behind (one an input: a whole game's worth)
MAX_LINES = 2000


class TableHall:
    """The table's end of the hall link (``table``: a ``LiveTable``,
    duck-typed: the live layer sits above the hall's)."""

    def __init__(self, settings: HallSettings, table: Any) -> None:
        self._table = table
        journal = table.session.journal
        self.game_id = journal.path.stem if journal is not None else "game"
        self.settings = settings
        self._announcement = ""
        self._state: dict[str, Any] | None = None
        self._lines: collections.deque[bytes] = collections.deque()
        self.dropped = 0  # lines dropped for a publisher far behind
        #: what the publisher last reported: the console's line, how much
        #: waits, whether the broker is reached
        self.status, self.waiting, self.connected = "", 0, False
        self._sock, self._theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        self._closing = False
        self._process: subprocess.Popen[bytes] | None = None
        self._reader = threading.Thread(target=self._read, name="hall reports", daemon=True)
        self._writer = threading.Thread(target=self._write, name="hall lines", daemon=True)

    def start(self) -> None:
        journal = self._table.session.journal
        self._process = subprocess.Popen(
            [sys.executable, "-m", "companion.hall.link_process", str(self._theirs.fileno())],
            pass_fds=(self._theirs.fileno(),),
            stdin=subprocess.DEVNULL,
            # the console owns the terminal: the publisher says what it has
            # to say through its reports (the parts line)
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self._theirs.close()
        hello = settings_message(self.settings, self.game_id, journal.path if journal else None)
        self._sock.sendall(json.dumps(hello).encode() + b"\n")  # before any update
        self._reader.start()
        self._writer.start()

    # --- on the table's loop thread: never waits ------------------------------------
    def offer(self, update: Any) -> None:
        table = self._table
        journal = table.session.journal
        seq = journal.lines if journal is not None else table.session.inputs
        captions = [
            (seq, self._caption(effect)) for effect in update.effects if isinstance(effect, Say)
        ]
        if captions:
            self._announcement = captions[-1][1]
        game = update.game
        if game is not None:
            self._state = self._public(game, update.deadlines, seq)
        message = {
            "state": self._state,
            "captions": captions,
            "ended": None if game is None else game.phase == "ended",
        }
        lines = self._lines
        if len(lines) >= MAX_LINES:  # the publisher far behind: the oldest goes
            with contextlib.suppress(IndexError):
                lines.popleft()
                self.dropped += 1
        lines.append(json.dumps(message, ensure_ascii=False).encode() + b"\n")
        with contextlib.suppress(OSError):  # full: the writer is awake already
            os.write(self._wake_w, b"x")

    def _write(self) -> None:
        """The lines to the publisher, in order; blocked in the kernel
        (not holding the interpreter) while the publisher is behind."""
        lines = self._lines
        while not self._closing:
            select.select([self._wake_r], [], [], 0.5)
            with contextlib.suppress(OSError):
                os.read(self._wake_r, 4096)
            while lines:
                try:
                    line = lines.popleft()
                    self._sock.sendall(line)
                except IndexError:
                    break
                except OSError:  # the publisher is gone: the game is not the hall's
                    return
                if line.startswith(b'{"close"'):
                    return

    def _public(self, game: Any, deadlines: dict[str, Any], seq: int) -> dict[str, Any]:
        table = self._table
        wall, now = time.time(), table.clock.now()
        deadline = None
        if deadlines:
            first = min(at for at, _generation in deadlines.values())
            deadline = round(wall + (first - now) / (table.speed or 1.0), 3)
        paused = max((left for _name, left in game.paused), default=None)
        state = public_state(
            game,
            game_id=self.game_id,
            seq=seq,
            deadline=deadline,
            paused_left=paused,
            announcement=self._announcement,
        )
        state["at"] = round(wall, 3)  # when the table took it (the board's lag)
        return state

    def _caption(self, say: Say) -> str:
        voice = self._table.voice
        try:
            return str(voice.catalogue.text(say.cue, dict(say.args), voice.rules))
        except Exception:  # a phrase the catalogue lacks: its cue's name
            return say.cue

    # --- the publisher's reports -----------------------------------------------------
    def _read(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            for data in self._sock.makefile("rb"):
                with contextlib.suppress(ValueError):
                    report = json.loads(data)
                    self.waiting = int(report.get("waiting", 0))
                    self.connected = bool(report.get("connected"))
                    line = report.get("line")
                    if line and line != self.status:
                        self.status = line
                        self._table._notice("hall", line)

    def close(self) -> None:
        """Tell the publisher to hand over what is left and go (a couple of
        seconds at most); an unacknowledged protocol stays in the outbox."""
        self._lines.append(b'{"close": true}\n')
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")
        if self._writer.is_alive():
            self._writer.join(CLOSE_WAIT_S)
        self._closing = True
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")
        process = self._process
        if process is not None:
            try:
                process.wait(CLOSE_WAIT_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        self._sock.close()
        if self._reader.is_alive():
            self._reader.join(2.0)
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)

    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None
