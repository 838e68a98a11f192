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
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import signal
import socket
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from .journal_check import (
    JournalDamaged,
    JournalError,
    JournalText,
    chain,
    lock_path,
    read_head,
    verify,
)

__all__ = [
    "FileLayer",
    "Journal",
    "JournalDamaged",
    "JournalError",
    "JournalLocked",
    "JournalText",
    "JournalWriteError",
    "lock_path",
    "read",
]


class JournalLocked(JournalError):
    """Another process holds the journal."""


class JournalWriteError(JournalError):
    """A line could not be written whole (a full disk, an I/O error): the
    input was refused and the journal still ends at its last whole line."""


class FileLayer(Protocol):
    """The system calls a journal writes with (a fake one in tests)."""

    def write(self, fd: int, data: bytes) -> int: ...
    def fsync(self, fd: int) -> None: ...
    def ftruncate(self, fd: int, length: int) -> None: ...


class OsFiles:
    write = staticmethod(os.write)
    fsync = staticmethod(os.fsync)
    ftruncate = staticmethod(os.ftruncate)


def read(path: Path) -> JournalText:
    """Read and check a journal without taking it (a replay of it, a bench)."""
    if path.is_dir():
        raise JournalError(f"{path}: is a folder, not a journal")
    return verify(path.read_bytes(), str(path), read_head(path))


@dataclass
class _Tally:
    """Where the journal's last whole line ends, and what it was."""

    size: int = 0
    count: int = 0
    last_sum: str = ""
    torn: bool = False  # bytes after ``size`` that must go before the next line
    head_at: int = 0  # offset of the head line in the lock file


class Journal:
    """Appends records durably. ``crash_at`` is a test hook (see
    docs/journal.md): kill this process with SIGKILL at a chosen point."""

    def __init__(self, path: Path, fd: int, lock_fd: int, tally: _Tally, files: FileLayer) -> None:
        self.path = path
        self._fd = fd
        self._lock_fd = lock_fd
        self._tally = tally
        self._files = files
        self.written = 0  # lines appended by this process
        self._crash = _crash_point()

    # --- opening ----------------------------------------------------------------
    @classmethod
    def create(cls, path: Path, *, files: FileLayer | None = None) -> Journal:
        """A new journal (an empty file may be taken over). Its folders are
        made private (0700), the file too (0600): it holds every role."""
        _not_a_folder(path)
        with _named(path):
            made = _make_folders(path.parent)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
        try:
            with _named(path):
                _lock(fd, path)
                if os.fstat(fd).st_size:
                    raise JournalError(f"{path}: journal exists; use 'companion resume {path}'")
                os.fchmod(fd, 0o600)
                for folder in (path.parent, *made):
                    _fsync_dir(folder)  # the new names are durable, not only the bytes
                tally = _Tally()
                lock_fd = _take_lock_file(path, tally)
        except BaseException:
            os.close(fd)
            raise
        return cls(path, fd, lock_fd, tally, files or OsFiles())

    @classmethod
    def resume(cls, path: Path, *, files: FileLayer | None = None) -> tuple[Journal, JournalText]:
        """Take an existing journal and check it (``JournalDamaged`` naming
        the line if anything but a crash changed it). A torn last line is
        reported in the text and cut off by ``repair`` or the next append."""
        _not_a_folder(path)
        try:
            fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CLOEXEC)
        except FileNotFoundError:
            raise JournalError(
                f"{path}: no such journal; a game is journaled from its start with "
                f"'companion replay SCRIPT --journal {path}'"
            ) from None
        except OSError as error:
            raise JournalError(f"{path}: {error.strerror or error}") from None
        try:
            with _named(path):
                _lock(fd, path)
                text = verify(_read_all(fd), str(path), read_head(path))
                torn = text.torn is not None
                tally = _Tally(text.good_bytes, len(text.lines), text.last_sum, torn)
                lock_fd = _take_lock_file(path, tally)
        except BaseException:
            os.close(fd)
            raise
        return cls(path, fd, lock_fd, tally, files or OsFiles()), text

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
            self.repair()
            if self._crash == (self.written, "mid"):
                self._crash_mid(data)
            self._write_whole(data)
            self._files.fsync(self._fd)
        except OSError as error:
            self._roll_back()
            reason = os.strerror(error.errno) if error.errno else str(error)
            raise JournalWriteError(
                f"{self.path}: {reason}: the input was not taken "
                f"(the journal still ends at its line {tally.count})"
            ) from None
        tally.size += len(data)
        tally.count += 1
        tally.last_sum = line_sum
        self._write_head()
        if self._crash == (self.written, "after"):
            os.kill(os.getpid(), signal.SIGKILL)

    def _write_whole(self, data: bytes) -> None:
        done = 0
        while done < len(data):
            # O_APPEND: whatever a short write left is appended next.
            count = self._files.write(self._fd, data[done:])
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
            os.pwrite(self._lock_fd, _head_line(tally.count, tally.last_sum), tally.head_at)

    def _crash_mid(self, data: bytes) -> None:
        os.write(self._fd, data[: len(data) // 2])
        os.fsync(self._fd)
        os.kill(os.getpid(), signal.SIGKILL)

    def close(self) -> None:
        for fd in (self._fd, self._lock_fd):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._fd = self._lock_fd = -1

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextlib.contextmanager
def _named(path: Path) -> Iterator[None]:
    """A system error while taking a journal, as one line naming it."""
    try:
        yield
    except OSError as error:
        where = error.filename if error.filename is not None else path
        raise JournalError(f"{where}: {error.strerror or error}") from None


# --- the lock -------------------------------------------------------------------------


def _lock(fd: int, path: Path) -> None:
    """Hold the journal exclusively for this process's life (the kernel lets
    go when the process ends, however it ends)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _holder_of(path) or "another process"
        raise JournalLocked(
            f"{path}: in use by {holder}; a journal has one writer: stop that one first"
        ) from None


def _holder_of(path: Path) -> str | None:
    try:
        first = lock_path(path).read_bytes()[:400].split(b"\n", 1)[0]
    except OSError:
        return None
    text = first.decode("utf-8", errors="replace")
    return text.removeprefix("holder: ") or None


def _take_lock_file(path: Path, tally: _Tally) -> int:
    """Write who holds the journal and how far it goes; return the open
    lock file (the head line is rewritten in place after every line), or -1
    if it cannot be written at all (the lock itself is on the journal).

    A new lock file replaces the old by a rename, so that a crash never
    leaves it empty; on a full disk, where a new file cannot be made, the
    old one is rewritten in place."""
    command = " ".join(["companion", *sys.argv[1:]])[:200].replace("\n", " ")
    when = time.strftime("%Y-%m-%d %H:%M:%S")
    holder = f"holder: pid {os.getpid()} on {socket.gethostname()} since {when} ({command})\n"
    content = holder.encode() + _head_line(tally.count, tally.last_sum)
    tally.head_at = len(holder.encode())
    lock = lock_path(path)
    fresh = lock.with_name(f"{lock.name}.{os.getpid()}")
    fd = -1
    try:
        fd = os.open(fresh, os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        _write_at(fd, content)
        os.replace(fresh, lock)
        return fd
    except OSError:
        if fd >= 0:
            os.close(fd)
        with contextlib.suppress(OSError):
            fresh.unlink()
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        os.ftruncate(fd, 0)
        _write_at(fd, content)
        return fd
    except OSError:
        if fd >= 0:
            os.close(fd)
        return -1


def _write_at(fd: int, data: bytes) -> None:
    if os.pwrite(fd, data, 0) != len(data):
        raise OSError(errno.ENOSPC, "short write")


def _head_line(count: int, last_sum: str) -> bytes:
    # Fixed width, so that it is rewritten in place.
    return f"head: {count:010d} {last_sum or '-':16}\n".encode()


# --- files and folders ----------------------------------------------------------


def _not_a_folder(path: Path) -> None:
    if path.is_dir():
        raise JournalError(f"{path}: is a folder; give a journal file name, e.g. {path}/game.jsonl")


def _make_folders(folder: Path) -> list[Path]:
    """Make the missing folders, private to the user; return the parents
    whose entries changed (to fsync)."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    changed = []
    for path in reversed(missing):
        os.mkdir(path, 0o700)
        changed.append(path.parent)
    return changed


def _read_all(fd: int) -> bytes:
    chunks = []
    offset = 0
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _crash_point() -> tuple[int, str] | None:
    """COMPANION_CRASH_AT="N:after" or "N:mid" (tests only)."""
    spec = os.environ.get("COMPANION_CRASH_AT")
    if not spec:
        return None
    count, _, where = spec.partition(":")
    return int(count), where or "after"
