"""The journal: every accepted input, one JSON line, on disk before its effects.

Append-only. Each line is written whole, flushed and fsynced; a power cut can
at worst leave the last line torn, and ``read`` reports and drops it.
"""

from __future__ import annotations

import json
import os
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True, slots=True)
class JournalText:
    lines: list[str]  # complete lines, without their newline
    torn: str | None  # the torn tail that was dropped, if any
    good_bytes: int  # length of the file up to the last complete line


def read(path: Path) -> JournalText:
    """Read a journal; a last line without its newline, or one that is not
    JSON, is a torn write: it is returned apart, never raised."""
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    body, tail = data[:end], data[end:]
    # Split on b"\n" only: str.splitlines() would also split inside a value
    # holding U+2028 or U+0085, which json.dumps(ensure_ascii=False) leaves raw.
    lines = [raw.decode("utf-8", errors="replace") for raw in body.split(b"\n")[:-1]]
    torn = tail.decode("utf-8", errors="replace") if tail else None
    if torn is None and lines:
        try:
            json.loads(lines[-1])
        except json.JSONDecodeError:
            # A newline may have landed before the rest of the line did.
            torn = lines.pop()
            end = body.rfind(b"\n", 0, end - 1) + 1
    return JournalText(lines, torn, end)


class Journal:
    """Appends records durably. ``crash_at`` is a test hook (see
    docs/journal.md): kill this process with SIGKILL at a chosen point."""

    def __init__(self, path: Path, *, truncate_to: int | None = None) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        if truncate_to is not None:
            os.ftruncate(self._fd, truncate_to)
            os.fsync(self._fd)
        self._dir_synced = False
        self.written = 0
        self._crash = _crash_point()

    def append(self, record: dict[str, Any]) -> None:
        data = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        self.written += 1
        if self._crash == (self.written, "mid"):
            os.write(self._fd, data[: len(data) // 2])
            os.fsync(self._fd)
            os.kill(os.getpid(), signal.SIGKILL)
        os.write(self._fd, data)
        os.fsync(self._fd)
        if not self._dir_synced:
            # The first line also makes the file's directory entry durable.
            _fsync_dir(self.path.parent)
            self._dir_synced = True
        if self._crash == (self.written, "after"):
            os.kill(os.getpid(), signal.SIGKILL)

    def close(self) -> None:
        os.close(self._fd)


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
