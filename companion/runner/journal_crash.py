"""The journal's crash test hook, ``COMPANION_CRASH_AT`` (tests and
bench/crash.py only; docs/journal.md): the process kills itself with
SIGKILL at a chosen line, as a power cut would, no buffers flushed."""

from __future__ import annotations

import os
import signal


def crash_point() -> tuple[int, str] | None:
    """COMPANION_CRASH_AT="N:after" or "N:mid" (tests only)."""
    spec = os.environ.get("COMPANION_CRASH_AT")
    if not spec:
        return None
    count, _, where = spec.partition(":")
    return int(count), where or "after"


def crash_now() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def crash_mid(fd: int, data: bytes) -> None:
    """Half the line written and fsynced, then the kill: a torn line."""
    os.write(fd, data[: len(data) // 2])
    os.fsync(fd)
    crash_now()
