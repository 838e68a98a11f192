"""Where a journal lives: its lock, the lock file beside it (the holder,
the head, the moved line) and the folders and files it is made in
(docs/journal.md). ``journal.py`` writes the lines."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import socket
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..textfiles.regular_file import FileRefused, read_start
from .journal_check import JournalError, lock_path, moved_line


class JournalLocked(JournalError):
    """Another process holds the journal."""


@dataclass
class Tally:
    """Where the journal's last whole line ends, and what it was."""

    size: int = 0
    count: int = 0
    last_sum: str = ""
    torn: bool = False  # bytes after ``size`` that must go before the next line
    head_at: int = 0  # offset of the head line in the lock file
    moved_at: int = -1  # offset of its moved line (-1: the lock file could not be written)


@contextlib.contextmanager
def named(path: Path) -> Iterator[None]:
    """A system error while taking a journal, as one line naming it."""
    try:
        yield
    except OSError as error:
        where = error.filename if error.filename is not None else path
        raise JournalError(f"{where}: {error.strerror or error}") from None


# --- the lock -------------------------------------------------------------------------


def lock(fd: int, path: Path) -> None:
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
        first = read_start(lock_path(path), 400).split(b"\n", 1)[0]
    except OSError:
        return None
    text = first.decode("utf-8", errors="replace")
    return text.removeprefix("holder: ") or None


def take_lock_file(path: Path, tally: Tally) -> int:
    """Write who holds the journal and how far it goes; return the open
    lock file (the head line is rewritten in place after every line), or -1
    if it cannot be written at all (the lock itself is on the journal).

    A new lock file replaces the old by a rename, so that a crash never
    leaves it empty; on a full disk, where a new file cannot be made, the
    old one is rewritten in place."""
    command = " ".join(["companion", *sys.argv[1:]])[:200].replace("\n", " ")
    when = time.strftime("%Y-%m-%d %H:%M:%S")
    holder = f"holder: pid {os.getpid()} on {socket.gethostname()} since {when} ({command})\n"
    # The moved line is written now, empty, so that a move finds its bytes
    # there (a full disk has no room for more).
    content = holder.encode() + head_line(tally.count, tally.last_sum) + moved_line(None)
    tally.head_at = len(holder.encode())
    tally.moved_at = tally.head_at + len(head_line(0, ""))
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
        tally.moved_at = -1
        return -1


def _write_at(fd: int, data: bytes) -> None:
    if os.pwrite(fd, data, 0) != len(data):
        raise OSError(errno.ENOSPC, "short write")


def head_line(count: int, last_sum: str) -> bytes:
    # Fixed width, so that it is rewritten in place.
    return f"head: {count:010d} {last_sum or '-':16}\n".encode()


# --- files and folders ----------------------------------------------------------


def not_a_folder(path: Path) -> None:
    if path.is_dir():
        raise JournalError(f"{path}: is a folder; give a journal file name, e.g. {path}/game.jsonl")


def make_folders(folder: Path) -> list[Path]:
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


def unused(path: Path) -> Path:
    """``path``, or ``game-2.jsonl``, ``game-3.jsonl`` ... beside it when a
    file of that name is there already."""
    for n in range(1, 1000):
        candidate = path if n == 1 else path.with_name(f"{path.stem}-{n}{path.suffix}")
        if not candidate.exists():
            return candidate
    raise OSError(errno.EEXIST, f"{path.parent}: too many journals named {path.name}")


def read_all(fd: int, path: Path, limit: int) -> bytes:
    """The file's bytes; ``FileRefused`` past ``limit`` (it grew after its
    size was checked)."""
    chunks = []
    offset = 0
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
        if offset > limit:
            raise FileRefused(path, "too_big", offset, limit)
    return b"".join(chunks)


def fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
