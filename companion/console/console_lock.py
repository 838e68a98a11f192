"""One console per table: a lock on a file beside the journals folder.

A second console on the same table (``./run`` twice, on two terminals of
the Pi) would open the sound device and the seats a second time and find
the game's journal held by the first. So the console command takes this
lock before anything of the table is opened, and a console that cannot
says so on a full screen (``busy_screen.py``) instead.

The lock is ``flock`` on ``console.lock`` in the journals folder's parent
(the club's data folder, where ``companion.log`` is), held for the life of
the process: the kernel lets go when the process ends, however it ends (a
crash, SIGKILL, the service's watchdog), so a console killed never blocks
the next, and a service restarted by systemd is never blocked by its own
dead predecessor. The file names the holder (its pid) for the message.
The descriptor is close-on-exec and the table's process is spawned, so no
child of the console holds the lock after it is gone (runner/journal_lock.py
does the same for journals).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import socket
import time
from pathlib import Path

#: the lock file's name, in the journals folder's parent
LOCK_NAME = "console.lock"
_PID = re.compile(rb"\Apid (\d+)")


def console_lock_path(journals: Path) -> Path:
    """The lock file of the table whose journals are in ``journals``."""
    return journals.parent / LOCK_NAME


class ConsoleLock:
    """The table's console lock: ``take`` tries once; ``held`` says whether
    this process has it, ``holder`` who has it otherwise (a pid, or None
    when the file does not say)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd = -1
        self.holder: int | None = None

    @classmethod
    def for_journals(cls, journals: Path) -> ConsoleLock:
        return cls(console_lock_path(journals))

    @property
    def held(self) -> bool:
        return self._fd >= 0

    def take(self) -> bool:
        """Take the lock if nobody holds it (never waits); True when held.
        A folder or file that cannot be opened is an OSError."""
        if self.held:
            return True
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            self.holder = _holder(self.path)
            return False
        except BaseException:
            os.close(fd)
            raise
        self._fd, self.holder = fd, os.getpid()
        when = time.strftime("%Y-%m-%d %H:%M:%S")
        line = f"pid {os.getpid()} on {socket.gethostname()} since {when}\n".encode()
        with contextlib.suppress(OSError):  # the lock is the flock; the text only names it
            os.ftruncate(fd, 0)
            os.pwrite(fd, line, 0)
        return True

    def release(self) -> None:
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            os.close(fd)  # closing lets the flock go


def _holder(path: Path) -> int | None:
    """The pid the lock file names. The holder writes it just after taking
    the lock: a file still empty then is read again once, a moment later."""
    for attempt in range(2):
        try:
            found = _PID.match(path.read_bytes()[:100])
        except OSError:
            return None
        if found is not None:
            return int(found[1])
        if attempt == 0:
            time.sleep(0.05)
    return None
