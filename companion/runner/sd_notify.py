"""systemd's readiness and watchdog messages (``sd_notify(3)``).

The service (``companion service install``, docs/service.md) is
``Type=notify`` with ``NotifyAccess=main`` and a ``WatchdogSec``: the console
(the service's main process) says ``READY=1`` once its first screen is up and
``WATCHDOG=1`` while all is well, so a hung console or a hung table loop is
killed and restarted, and the game resumed from its journal.

Who pings, and why only the console: the table's loop runs in a child
process. Had both pinged (``NotifyAccess=all``), either one alone would keep
the watchdog fed while the other hangs. So only the console pings, from a
timer of its own event loop (a hung console sends nothing), and only while
the table loop's last turn is recent (:class:`ServiceWatchdog`): the table's
process sends that moment up its pipe every second (``live/table_serve.py``), so a
hung loop, a hung sender or a dead process all stop the pings too.

Outside systemd ``NOTIFY_SOCKET`` is unset and every call is a no-op
returning ``False``.

Why not a package: the protocol is one datagram on a Unix socket, stable
since systemd 209; ``systemd-python`` needs libsystemd's headers to build
and ``sdnotify`` has had no release since 2017 (docs/dependencies.md).
"""

from __future__ import annotations

import logging
import math
import os
import socket
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

NOTIFY_SOCKET = "NOTIFY_SOCKET"
#: how often the console pings while all is well: far inside any WatchdogSec,
#: so that a console busy for a while (closing a table takes up to ~15 s) is
#: not taken for a hung one
PING_EVERY_S = 2.0
#: a table loop whose last turn is older than this is hung: it turns at least
#: every 0.5 s, and a slow card's fsync may hold it for a second or two
TABLE_STALE_S = 10.0
#: the slices of a bounded wait between two pings (:func:`waiting`)
WAIT_SLICE_S = 1.0


def notify(state: str, environ: dict[str, str] | None = None) -> bool:
    """Send ``state`` (``"READY=1"``, ``"WATCHDOG=1"``, ``"STATUS=..."``,
    several joined by newlines) to systemd; ``False`` when not under systemd
    or the socket is gone (never raises: a lost message is not worth a game)."""
    env = os.environ if environ is None else environ
    address = env.get(NOTIFY_SOCKET, "")
    if not address or address[0] not in "/@":
        return False
    if address[0] == "@":  # an abstract socket: a leading NUL byte
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.connect(address)
            sock.sendall(state.encode("utf-8"))
    except OSError:
        return False
    return True


def watchdog_interval(environ: dict[str, str] | None = None) -> float | None:
    """Seconds between two ``WATCHDOG=1`` pings: half of ``WATCHDOG_USEC``
    as ``sd_watchdog_enabled(3)`` advises; ``None`` with no watchdog (or one
    meant for another process: ``WATCHDOG_PID``)."""
    env = os.environ if environ is None else environ
    usec = env.get("WATCHDOG_USEC", "")
    pid = env.get("WATCHDOG_PID", "")
    if not usec.isdigit() or int(usec) == 0:
        return None
    if pid and pid.isdigit() and int(pid) != os.getpid():
        return None
    return int(usec) / 2_000_000


class Watchdog:
    """Pings at most once per interval, however often :meth:`tick` is
    called (:class:`ServiceWatchdog` ticks it from the console's timer)."""

    def __init__(
        self,
        interval: float | None = None,
        environ: dict[str, str] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._environ = environ
        self.interval = watchdog_interval(environ) if interval is None else interval
        self._now = clock
        self._last = float("-inf")

    def tick(self) -> bool:
        """Ping if the interval has passed; ``True`` when a ping was sent."""
        if self.interval is None:
            return False
        now = self._now()
        if now - self._last < self.interval:
            return False
        self._last = now
        return notify("WATCHDOG=1", self._environ)


def waiting(
    ready: Callable[[float], bool], timeout: float, environ: dict[str, str] | None = None
) -> bool:
    """Call ``ready(seconds)`` (a poll that waits up to ``seconds``) until it
    says ``True`` or ``timeout`` seconds of slices have passed, pinging the
    watchdog between slices. For a wait that has its own bound and is no hang:
    the console waiting for a table to be built (a resume, a cold voice cache)."""
    step = min(WAIT_SLICE_S, timeout)
    for _ in range(max(1, math.ceil(timeout / WAIT_SLICE_S))):
        if ready(step):
            return True
        if watchdog_interval(environ) is not None:
            notify("WATCHDOG=1", environ)
    return False


class ServiceWatchdog:
    """The service's watchdog as the console feeds it (see the module's
    docstring): :meth:`tick` from a timer of the console's event loop pings
    every :data:`PING_EVERY_S` while ``table_beat()`` is recent.

    ``table_beat()``: the monotonic time (``time.monotonic``, the same in
    every process) of the table loop's last turn, or ``None`` when no table
    is running (the set-up screen)."""

    def __init__(
        self,
        table_beat: Callable[[], float | None],
        *,
        stale_after: float = TABLE_STALE_S,
        environ: dict[str, str] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        interval = watchdog_interval(environ)
        every = min(interval, PING_EVERY_S) if interval is not None else None
        self.watchdog = Watchdog(every, environ, clock)
        self.stale_after = stale_after
        self.table_hung = False  # the last tick found the table's loop stale
        self._table_beat = table_beat
        self._now = clock

    @property
    def enabled(self) -> bool:
        """Under systemd with a watchdog meant for this process."""
        return self.watchdog.interval is not None

    def tick(self) -> bool:
        """Ping if it is time and the table is not hung; ``True`` when sent."""
        beat = self._table_beat()
        if beat is not None and self._now() - beat > self.stale_after:
            if not self.table_hung:
                log.error(
                    "the table's loop has not turned for %.0f s: systemd's watchdog is no "
                    "longer fed and will restart the service",
                    self._now() - beat,
                )
            self.table_hung = True
            return False
        self.table_hung = False
        return self.watchdog.tick()
