"""The journal's writer: a thread of its own, so that the disk keeps out of
the timer loop's way (docs/journal.md, "Written behind").

An fsync takes a millisecond on a quiet disk and hundreds of them on an SD
card that is busy (228-288 ms were seen, and the next timer then fired
100 ms late): on the loop's thread every timer behind it waits. So the
live loop steps the engine, queues the input's line here and goes on; this
thread appends the lines one by one in the order they came (the checksum
chain, the fsync, the fallback of runner/fallback.py when the disk takes
no more, the disk watch of runner/journal_watch.py) and reports each one
back into the loop's own queue as a ``Written``. Everything that changes
the game stays on the loop's thread: the session holds an input's effects
until its ``Written`` comes (runner/session.py), so whatever the table saw
or heard of an input is on disk, as before.

A line that could not be written (no place takes it): the writer writes
none of the lines queued after it in the same *epoch* — they were worked
out from a game that included it — and the loop rolls the session back to
before it and refuses them (never reported accepted). The session counts
an epoch on at each rollback: lines queued from then on are written again.

The watch's news (``tell``, ``say``) is made on this thread but carried out
on the loop's: ``LoopCalls`` keeps each call, and the ``Written`` that
follows takes them along.
"""

from __future__ import annotations

import functools
import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from .journal import Journal, JournalWriteError

log = logging.getLogger(__name__)

__all__ = ["SETTLE_S", "DiskWatch", "JournalWriter", "Line", "LoopCalls", "Written"]

#: how long a stop waits for the lines queued to be on disk: an fsync that
#: has not come back by then (a card that hangs) is given up on, with a log
#: line, and the table closes without it
SETTLE_S = 10.0


@dataclass(frozen=True, slots=True)
class Line:
    """One journal line to write (queued by the session)."""

    seq: int  # the session's count of lines queued (never used twice)
    epoch: int  # the session's rollbacks before it
    record: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Written:
    """The writer's word on one line, through the loop's queue."""

    seq: int
    #: None: the line is on disk (fsynced); else why not: the journal still
    #: ends at its last whole line
    error: str | None = None
    #: the disk watch's news, to be carried out on the loop's thread
    calls: tuple[Callable[[], None], ...] = ()


class DiskWatch(Protocol):
    """What the writer tells after each line (runner/journal_watch.py)."""

    def after_input(self, inputs: int, now: float) -> None: ...
    def refused(self) -> None: ...


class LoopCalls:
    """Calls made on the writer's thread, to be carried out on the loop's."""

    def __init__(self) -> None:
        self._calls: list[Callable[[], None]] = []  # the writer's thread only

    def later(self, call: Callable[..., None]) -> Callable[..., None]:
        """``call`` as a function that only keeps its arguments for later."""

        def kept(*args: Any) -> None:
            self._calls.append(functools.partial(call, *args))

        return kept

    def take(self) -> tuple[Callable[[], None], ...]:
        calls, self._calls = tuple(self._calls), []
        return calls


Report = Callable[[Written], None]


class JournalWriter:
    """Appends the session's lines to ``journal`` on a thread of its own."""

    def __init__(
        self, journal: Journal, *, watch: DiskWatch | None = None, calls: LoopCalls | None = None
    ) -> None:
        """``watch``: told after each line, on this thread; what it says
        goes through ``calls`` (its ``later``) to the loop's thread."""
        self.journal = journal
        self.watch = watch
        self.calls = calls or LoopCalls()
        self._lines: queue.SimpleQueue[Line | None] = queue.SimpleQueue()
        self._report: Report | None = None
        self._thread: threading.Thread | None = None
        self._failed_epoch = -1  # lines of this epoch and before are not written
        self.written = 0  # lines this writer put on disk
        # Lines queued and lines done with (written, refused or dropped), for ``drained``.
        self._count = threading.Condition()
        self._queued = self._done = 0

    def start(self, report: Report) -> None:
        """Start the thread; each line's ``Written`` goes to ``report``
        (the loop's queue). Call it from a thread of ordinary priority: a
        new thread inherits its creator's scheduling, and the disk's thread
        must not be a real-time one."""
        if self._thread is None:
            self._report = report
            self._thread = threading.Thread(target=self._run, name="journal writer", daemon=True)
            self._thread.start()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def put(self, line: Line) -> None:
        """Queue a line (never waits on the disk). Thread-safe."""
        with self._count:
            self._queued += 1
        self._lines.put(line)

    def drained(self, timeout: float) -> bool:
        """Wait until every line queued so far is done with and its
        ``Written`` reported. False: not within ``timeout`` seconds."""
        with self._count:
            target = self._queued
            return self._count.wait_for(lambda: self._done >= target, timeout)

    def stop(self, timeout: float = SETTLE_S) -> bool:
        """Write what is queued, then end the thread. False: it is still in
        a write after ``timeout`` seconds (the disk hangs); it goes on
        alone, and the journal's ``close`` will not pull its file from
        under it (runner/journal.py)."""
        self._lines.put(None)
        thread = self._thread
        if thread is None:
            return True
        thread.join(timeout)
        if thread.is_alive():
            log.error(
                "journal %s: the disk has not finished a write in %.0f s; "
                "the table closes without waiting for it",
                self.journal.path,
                timeout,
            )
            return False
        return True

    # --- the writer's thread ---------------------------------------------------------
    def _run(self) -> None:
        while (line := self._lines.get()) is not None:
            try:
                self._write(line)
            finally:
                with self._count:
                    self._done += 1
                    self._count.notify_all()

    def _write(self, line: Line) -> None:
        if line.epoch <= self._failed_epoch:
            return  # it followed a line that was not written: the loop refuses it
        try:
            self.journal.append(line.record)
        except JournalWriteError as error:
            self._failed(line, str(error))
            return
        except Exception as error:  # never die silently: the loop would wait on it
            log.exception("journal %s: writing a line failed", self.journal.path)
            self._failed(line, f"{self.journal.path}: {error}")
            return
        self.written += 1
        if self.watch is not None:
            try:
                self.watch.after_input(self.written, float(line.record.get("at", 0.0)))
            except Exception:  # the watch is a help, not the game
                log.exception("the journal's disk watch failed")
        self._send(Written(line.seq))

    def _failed(self, line: Line, reason: str) -> None:
        self._failed_epoch = line.epoch
        if self.watch is not None:
            try:
                self.watch.refused()
            except Exception:
                log.exception("the journal's disk watch failed")
        self._send(Written(line.seq, reason))

    def _send(self, written: Written) -> None:
        calls = self.calls.take()
        if calls:
            written = Written(written.seq, written.error, calls)
        assert self._report is not None
        self._report(written)
