"""The journal: every accepted input, one checksummed JSON line, on disk
before its effects (docs/journal.md).

Append-only. Each line ends with ``"sum"``, a checksum of the line chained
to the one before it, so that a changed, deleted, duplicated or reordered
line is found when the journal is read back. A line is written whole (a
short write is completed), then fsynced; if that fails (a full disk), the
file is cut back to its last whole line and the input is refused.

One process writes a journal: it holds an exclusive lock on the file for its
life. The lock file beside it (``game.jsonl.lock``) names the holder, and
records how many lines the journal has and the last one's checksum, which
is how lines removed from the end are found.

A journal may go on elsewhere: when its disk takes no more (full, gone
read-only, pulled out) and it was given a ``fallback`` (the live table's:
runner/fallback.py), every whole line is copied to the first fallback
folder that takes them, the line goes in there, and the old lock file's
``moved:`` line points to the new journal, so that a resume or a reader of
the old name finds the whole game (docs/faults.md).
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..textfiles.regular_file import MAX_FILE, FileRefused, open_regular
from .journal_check import (
    JournalDamaged,
    JournalError,
    JournalText,
    chain,
    follow,
    lock_path,
    moved_line,
    read,
    read_head,
    verify,
)
from .journal_crash import crash_mid, crash_now, crash_point
from .journal_lock import (
    JournalLocked,
    Tally,
    head_line,
    lock,
    make_folders,
    named,
    not_a_folder,
    read_all,
    take_lock_file,
    unused,
)
from .journal_lock import fsync_dir as _fsync_dir  # a test counts the fsyncs through it

log = logging.getLogger(__name__)

__all__ = [
    "Fallback",
    "FileLayer",
    "Journal",
    "JournalDamaged",
    "JournalError",
    "JournalLocked",
    "JournalText",
    "JournalWriteError",
    "Moved",
    "lock_path",
    "read",
]


#: how long ``close`` waits for a write under way on another thread (the
#: live table's writer: runner/journal_writer.py) before it leaves the
#: file open rather than pull it from under that write
CLOSE_WAIT_S = 2.0


class JournalWriteError(JournalError):
    """A line could not be written whole (a full disk, an I/O error): the
    input was refused and the journal still ends at its last whole line."""


class FileLayer(Protocol):
    """The system calls a journal writes with (a fake one in tests)."""

    def write(self, fd: int, data: bytes) -> int: ...
    def fsync(self, fd: int) -> None: ...
    def ftruncate(self, fd: int, length: int) -> None: ...


class Fallback(Protocol):
    """Where a journal may go on when its own disk takes no more."""

    def folders(self, journal: Path) -> Iterable[Path]:
        """Folders to try for ``journal`` (its present path), best first."""
        ...


@dataclass(frozen=True, slots=True)
class Moved:
    """The journal went on elsewhere after its line ``lines``."""

    source: Path
    target: Path
    reason: str  # why the old place took no more ("No space left on device")
    lines: int


class OsFiles:
    write = staticmethod(os.write)
    fsync = staticmethod(os.fsync)
    ftruncate = staticmethod(os.ftruncate)


class Journal:
    """Appends records durably. ``crash_at`` is a test hook (see
    docs/journal.md): kill this process with SIGKILL at a chosen point."""

    def __init__(
        self,
        path: Path,
        fd: int,
        lock_fd: int,
        tally: Tally,
        files: FileLayer,
        *,
        kept: bytes = b"",
        fallback: Fallback | None = None,
    ) -> None:
        """``kept``: the journal's whole lines as they are on disk (what a
        move copies: read from memory, never from a disk that is failing).
        ``fallback``: where to go on when a line cannot be written (None:
        the input is refused)."""
        self.path = path
        self._fd = fd
        self._lock_fd = lock_fd
        self._tally = tally
        self._files = files
        self._kept = bytearray(kept)
        self.fallback = fallback
        self.moves: list[Moved] = []  # where it went on, in order
        self.failing = ""  # why the last line was refused ("": it went in)
        # The places left behind: (fd, lock fd, moved line's offset), held
        # (the lock) until the journal is closed.
        self._left: list[tuple[int, int, int]] = []
        self._tried: set[Path] = set()  # fallback folders that failed (said once)
        self.written = 0  # lines appended by this process
        self._crash = crash_point()
        # Held while a line goes in or the journal moves: a close from
        # another thread waits for it (a writer thread's fsync).
        self._busy = threading.RLock()

    # --- opening ----------------------------------------------------------------
    @classmethod
    def create(
        cls, path: Path, *, files: FileLayer | None = None, fallback: Fallback | None = None
    ) -> Journal:
        """A new journal (an empty file may be taken over). Its folders are
        made private (0700), the file too (0600): it holds every role."""
        not_a_folder(path)
        with named(path):
            made = make_folders(path.parent)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
        try:
            with named(path):
                lock(fd, path)
                if os.fstat(fd).st_size:
                    raise JournalError(f"{path}: journal exists; use 'companion resume {path}'")
                os.fchmod(fd, 0o600)
                for folder in (path.parent, *made):
                    _fsync_dir(folder)  # the new names are durable, not only the bytes
                tally = Tally()
                lock_fd = take_lock_file(path, tally)
        except BaseException:
            os.close(fd)
            raise
        return cls(path, fd, lock_fd, tally, files or OsFiles(), fallback=fallback)

    @classmethod
    def resume(
        cls, path: Path, *, files: FileLayer | None = None, fallback: Fallback | None = None
    ) -> tuple[Journal, JournalText]:
        """Take an existing journal and check it (``JournalDamaged`` naming
        the line if anything but a crash changed it). A torn last line is
        reported in the text and cut off by ``repair`` or the next append.
        A journal that went on elsewhere is taken there (a warning says so)."""
        not_a_folder(path)
        path, notes = follow(path)
        try:
            fd = open_regular(path, os.O_RDWR | os.O_APPEND, MAX_FILE)
        except FileRefused:
            raise  # not a journal's file: its own line (textfiles/regular_file.py)
        except FileNotFoundError:
            raise JournalError(
                f"{path}: no such journal; a game is journaled from its start with "
                f"'companion replay SCRIPT --journal {path}'"
            ) from None
        except OSError as error:
            raise JournalError(f"{path}: {error.strerror or error}") from None
        try:
            with named(path):
                lock(fd, path)
                data = read_all(fd, path, MAX_FILE)
                text = verify(data, str(path), read_head(path))
                torn = text.torn is not None
                tally = Tally(text.good_bytes, len(text.lines), text.last_sum, torn)
                lock_fd = take_lock_file(path, tally)
        except BaseException:
            os.close(fd)
            raise
        text.warnings[:0] = notes
        kept = data[: text.good_bytes]
        return cls(path, fd, lock_fd, tally, files or OsFiles(), kept=kept, fallback=fallback), text

    # --- writing ----------------------------------------------------------------
    @property
    def lines(self) -> int:
        """Whole lines in the journal."""
        return self._tally.count

    def repair(self) -> None:
        """Cut a torn tail off (and make that durable) so the next line
        starts clean."""
        tally = self._tally
        if tally.torn:
            self._files.ftruncate(self._fd, tally.size)
            self._files.fsync(self._fd)
            tally.torn = False

    def append(self, record: dict[str, Any]) -> None:
        """Write one record as a whole, checksummed, fsynced line, or raise
        ``JournalWriteError`` leaving the journal at its last whole line."""
        with self._busy:
            self._append(record)

    def _append(self, record: dict[str, Any]) -> None:
        tally = self._tally
        try:
            body = json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        except ValueError as error:  # NaN or infinity: the codec lets none through
            raise JournalWriteError(f"{self.path}: cannot write {error}") from None
        raw = body.encode()
        line_sum = chain(tally.last_sum, raw)
        data = raw[:-1] + b',"sum":"' + line_sum.encode() + b'"}\n'
        self.written += 1
        try:
            self._put(data)
        except OSError as error:
            reason = os.strerror(error.errno) if error.errno else str(error)
            if not self._go_on_elsewhere(data, reason):
                self.failing = reason
                raise JournalWriteError(
                    f"{self.path}: {reason}: the input was not taken "
                    f"(the journal still ends at its line {tally.count})"
                ) from None
        self.failing = ""
        tally.size += len(data)
        tally.count += 1
        tally.last_sum = line_sum
        self._kept += data
        self._write_head()
        if self._crash == (self.written, "after"):
            crash_now()

    def _put(self, data: bytes) -> None:
        """Write one line whole and fsync it, or cut it off again and raise."""
        try:
            self.repair()
            if self._crash == (self.written, "mid"):
                crash_mid(self._fd, data)
            self._write_whole(self._fd, data)
            self._files.fsync(self._fd)
        except OSError:
            self._roll_back()
            raise

    def _go_on_elsewhere(self, data: bytes, reason: str) -> bool:
        """The line could not be written here: move to the first fallback
        folder that takes the journal and the line (False: none did)."""
        if self.fallback is None:
            return False
        for folder in self.fallback.folders(self.path):
            try:
                self.move(folder, reason)
                self._put(data)
            except (OSError, JournalError) as error:
                if folder not in self._tried:  # once a folder: every input tries again
                    self._tried.add(folder)
                    log.warning("%s: the journal cannot go on there: %s", folder, error)
                continue
            return True
        return False

    def move(self, folder: Path, reason: str) -> Path:
        """Go on in ``folder``: a new journal there holding every whole
        line (fsynced, locked, its own lock file), this one's lock file (and
        those of earlier places) pointing to it. Raises ``OSError`` or
        ``JournalError`` with nothing changed."""
        with self._busy:
            return self._move(folder, reason)

    def _move(self, folder: Path, reason: str) -> Path:
        tally = self._tally
        folder = Path(os.path.abspath(folder))  # the moved line must lead there from anywhere
        made = make_folders(folder)
        target = unused(folder / self.path.name)
        fd = os.open(target, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC, 0o600)
        left = (self._fd, self._lock_fd, tally.moved_at)
        head_at = tally.head_at
        try:
            lock(fd, target)
            self._write_whole(fd, bytes(self._kept))
            self._files.fsync(fd)
            for changed in (folder, *made):
                _fsync_dir(changed)
            lock_fd = take_lock_file(target, tally)
        except BaseException:
            tally.head_at, tally.moved_at = head_at, left[2]
            os.close(fd)
            with contextlib.suppress(OSError):
                target.unlink()
            raise
        self._left.append(left)
        try:
            pointer = moved_line(target)
        except ValueError as error:  # the console's notice still names it
            log.warning("%s", error)
        else:
            # Written over bytes the lock file already has: no room needed.
            for _, lock_fd_left, at in self._left:
                if lock_fd_left >= 0 and at >= 0:
                    with contextlib.suppress(OSError):
                        os.pwrite(lock_fd_left, pointer, at)
                        os.fsync(lock_fd_left)
        source = self.path
        self.path, self._fd, self._lock_fd = target, fd, lock_fd
        tally.torn = False  # a torn tail stays behind in the old file
        self.moves.append(Moved(source, target, reason, tally.count))
        log.warning("journal %s: %s; it goes on in %s", source, reason, target)
        return target

    def _write_whole(self, fd: int, data: bytes) -> None:
        done = 0
        while done < len(data):
            # O_APPEND: whatever a short write left is appended next.
            count = self._files.write(fd, data[done:])
            if count <= 0:
                raise OSError(errno.EIO, "the system wrote nothing")
            done += count

    def _roll_back(self) -> None:
        """Cut a partly written line off; if even that fails, the tail is
        cut before the next line (``repair``)."""
        tally = self._tally
        tally.torn = True
        with contextlib.suppress(OSError):
            self.repair()

    def _write_head(self) -> None:
        tally = self._tally
        if self._lock_fd < 0:
            return
        # The head only guards against lines removed from the end; a lock
        # file that cannot be written must not stop the game.
        with contextlib.suppress(OSError):
            os.pwrite(self._lock_fd, head_line(tally.count, tally.last_sum), tally.head_at)

    def close(self, wait: float = CLOSE_WAIT_S) -> None:
        """Close the files (and so let go of the lock). A write under way on
        another thread is waited for ``wait`` seconds; one that has still
        not come back (a disk that hangs) keeps the files open: closing them
        under it could send its bytes into whatever file gets the number next."""
        if not self._busy.acquire(timeout=wait):
            log.error("journal %s: a write has not come back; its file is left open", self.path)
            return
        try:
            fds = [self._fd, self._lock_fd, *(fd for left in self._left for fd in left[:2])]
            self._left = []
            for fd in fds:
                if fd >= 0:
                    with contextlib.suppress(OSError):
                        os.close(fd)
            self._fd = self._lock_fd = -1
        finally:
            self._busy.release()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
