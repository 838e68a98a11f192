"""Reading a file a person named, with limits: regular files only, the size
checked before a byte is read.

A path given on the command line (a journal, a script, a protocol) may be
anything: a named pipe (reading it waits for a writer that never comes),
``/dev/zero`` or a link to it (reading it never ends), an 8-GiB sparse file
(reading it fills the memory). Every reader of such a path opens it here:
the file is opened without waiting (``O_NONBLOCK``: a FIFO opens at once),
looked at through the open descriptor (``fstat``: no race with a rename),
refused with one line unless it is a regular file no larger than its limit,
and read no further than that limit (a file growing meanwhile is caught).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Any

from .printable import printable

__all__ = ["MAX_FILE", "FileRefused", "check_opened", "open_regular", "read_regular", "read_start"]

#: the largest journal, script or protocol read (a three-hour game journals ~1 MB)
MAX_FILE = 64 * 2**20

#: why a file is refused, in words: (Russian, English)
WORDS: dict[str, tuple[str, str]] = {
    "fifo": ("именованный канал (FIFO), а не файл", "a named pipe (FIFO), not a file"),
    "device": ("устройство, а не файл", "a device, not a file"),
    "socket": ("сокет, а не файл", "a socket, not a file"),
    "folder": ("папка, а не файл", "a folder, not a file"),
    "other": ("не обычный файл", "not a regular file"),
    "too_big": ("{size} байт: больше {limit} МиБ", "{size} bytes: larger than {limit} MiB"),
}


class FileRefused(OSError):
    """A path that is not a regular file, or too large a one: ``str()`` is
    one English line naming it, ``said(lang)`` the same in the user's words."""

    def __init__(self, path: Path | str, reason: str, size: int = 0, limit: int = 0) -> None:
        code = errno.EFBIG if reason == "too_big" else errno.EINVAL
        super().__init__(code, self.why_in(reason, "en", size, limit), str(path))
        self.path, self.reason, self.size, self.limit = Path(path), reason, size, limit

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt from its fields, not OSError's (errno, strerror, filename).
        return type(self), (self.path, self.reason, self.size, self.limit)

    @staticmethod
    def why_in(reason: str, lang: str, size: int = 0, limit: int = 0) -> str:
        ru, en = WORDS[reason]
        return (ru if lang == "ru" else en).format(size=size, limit=limit // 2**20)

    def why(self, lang: str) -> str:
        """Why, without the path."""
        return self.why_in(self.reason, lang, self.size, self.limit)

    def said(self, lang: str) -> str:
        return f"{printable(self.path)}: {self.why(lang)}"

    def __str__(self) -> str:
        return self.said("en")


def check_opened(fd: int, path: Path | str, limit: int = MAX_FILE) -> os.stat_result:
    """The open file's status; ``FileRefused`` unless it is a regular file
    of at most ``limit`` bytes."""
    status = os.fstat(fd)
    mode = status.st_mode
    if not stat.S_ISREG(mode):
        if stat.S_ISFIFO(mode):
            reason = "fifo"
        elif stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
            reason = "device"
        elif stat.S_ISSOCK(mode):
            reason = "socket"
        elif stat.S_ISDIR(mode):
            reason = "folder"
        else:
            reason = "other"
        raise FileRefused(path, reason)
    if status.st_size > limit:
        raise FileRefused(path, "too_big", status.st_size, limit)
    return status


def open_regular(path: Path | str, flags: int = os.O_RDONLY, limit: int = MAX_FILE) -> int:
    """``path`` opened with ``flags`` (a descriptor), once it is known to be a
    regular file of at most ``limit`` bytes; ``FileRefused`` (or the
    ``OSError`` of the open) otherwise, with nothing left open."""
    # O_NONBLOCK: opening a FIFO for reading would wait for a writer.
    fd = os.open(path, flags | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        check_opened(fd, path, limit)
        # A regular file: its reads and writes block as usual from here on.
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(path: Path | str, limit: int = MAX_FILE) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes."""
    fd = open_regular(path, os.O_RDONLY, limit)
    with open(fd, "rb") as stream:
        data = stream.read(limit + 1)
    if len(data) > limit:  # it grew after it was looked at
        raise FileRefused(path, "too_big", len(data), limit)
    return data


def read_start(path: Path | str, count: int) -> bytes:
    """The first ``count`` bytes (at most) of a regular file of any size: a
    small file's head (a lock file's lines)."""
    fd = open_regular(path, os.O_RDONLY, limit=2**63 - 1)
    with open(fd, "rb") as stream:
        return stream.read(count)
