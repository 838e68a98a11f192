"""One start of the console as the service runs it (``bench/faults.py``'s
unit of work): the unit's command in a pseudo-terminal with a
``NOTIFY_SOCKET`` of its own, killed as a power cut would kill it, and
the journals it left in its folder."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import tempfile
import time
from pathlib import Path

from bench.kill_parts import Setup
from testkit.terminal import Terminal, console_env

#: what the screen says when something went badly wrong
TRACEBACK = "Traceback"


def service_command(setup: Setup) -> list[str]:
    """The service's ExecStart, after ``python -m companion.cli``."""
    return ["console", "--service", "--inputs", str(setup.script), "--speed", f"{setup.speed:g}"]


class Service:
    """One start of the service's command in a pseudo-terminal, with a
    ``NOTIFY_SOCKET`` of its own: what the screen shows, whether it said
    ``READY=1``."""

    def __init__(self, folder: Path, setup: Setup) -> None:
        self.folder = folder
        self._sockets = Path(
            tempfile.mkdtemp(prefix="cf-")
        )  # short: a socket's path is ≤ 107 bytes
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notify.bind(str(self._sockets / "notify"))
        self.notify.setblocking(False)
        env = console_env(folder)
        env["NOTIFY_SOCKET"] = str(self._sockets / "notify")
        # The journals' fallback folders (runner/fallback.py) default to some
        # the whole machine shares (/var/tmp, /dev/shm): the moment's own.
        env["COMPANION_FALLBACK_JOURNALS"] = str(folder / "fallback")
        env.pop("COMPANION_CRASH_AT", None)
        self.terminal = Terminal(env, service_command(setup))
        self._closed = False  # the terminal's side of the pseudo-terminal
        self.started = time.monotonic()
        self.ready = False
        self.traceback = False
        self.screens = ""  # the last of what the screen showed (kept for a failing moment)

    @property
    def pid(self) -> int:
        return self.terminal.process.pid

    def pump(self, seconds: float) -> None:
        """Read the screen for ``seconds`` (a pseudo-terminal nobody reads
        blocks its writer) and the notify socket."""
        self.terminal.read(seconds)
        seen = self.terminal.seen
        self.traceback |= TRACEBACK in seen
        if len(seen) > 400_000:  # a game redraws the screen many times over
            self.terminal.seen = seen[-100_000:]
        while True:
            try:
                message = self.notify.recv(4096)
            except BlockingIOError:
                break
            self.ready |= b"READY=1" in message.split(b"\n")

    def exited(self) -> int | None:
        return self.terminal.process.poll()

    def kill(self) -> None:
        """SIGKILL the whole process group, then wait until none of it is
        left (as systemd does before it restarts a unit): the journal's lock
        goes with the last of them."""
        with contextlib.suppress(ProcessLookupError):  # none of it is left
            os.killpg(self.pid, signal.SIGKILL)
        self.terminal.process.wait()
        end = time.monotonic() + 30
        while group_alive(self.pid) and time.monotonic() < end:
            time.sleep(0.01)
        self.close()

    def quit(self) -> int:
        """ctrl+q (the game is in its journal), then the exit status; what
        is left of the group is killed."""
        try:
            status = self.terminal.quit()
        except RuntimeError:
            status = -1
        finally:
            self._closed = True  # quit closed it: never close a number another thread may reuse
        self.kill()
        return status

    def close(self) -> None:
        self.screens = self.terminal.seen[-20_000:]
        if not self._closed:
            self._closed = True
            os.close(self.terminal.master)
        self.notify.close()
        shutil.rmtree(self._sockets, ignore_errors=True)


def group_alive(pgid: int) -> bool:
    """Any process of the group that is not a zombie (a zombie holds no
    files, so no lock)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        fields = text[text.rfind(")") + 2 :].split()  # after "pid (comm) "
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


def journals(folder: Path) -> list[Path]:
    """The moment's journals, newest first."""
    found = (folder / "journals").glob("*.jsonl")
    return sorted(found, key=lambda p: p.stat().st_mtime_ns, reverse=True)


def final_journal(folder: Path) -> Path | None:
    """The newest journal with a line in it."""
    return next((p for p in journals(folder) if p.stat().st_size), None)


def lines_in(path: Path | None) -> int:
    return path.read_bytes().count(b"\n") if path is not None else 0


def complete(folder: Path, setup: Setup) -> bool:
    return lines_in(final_journal(folder)) >= setup.journal_lines
