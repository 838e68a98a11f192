"""The service's watchdog as systemd sees it (issue 12): the real
``companion console --service`` in a pseudo-terminal with ``NOTIFY_SOCKET``
and ``WATCHDOG_USEC`` set as systemd sets them. The console says
``READY=1``, then ``WATCHDOG=1`` again and again while the game's table turns;
when the table's process is stopped (a hung loop), the pings stop, so
systemd would restart the service. The waits are the test's patience, not
measurements: it asserts what arrives, never how soon."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest
from test_console_service import GAME

from companion.runner.sd_notify import PING_EVERY_S
from testkit.command import companion
from testkit.terminal import Terminal, console_env

#: what the console logs when the table's loop has not turned for TABLE_STALE_S
HUNG = "systemd's watchdog is no longer fed"


def receive(sock: socket.socket, terminal: Terminal, seconds: float) -> bytes | None:
    """One datagram within ``seconds``, or ``None``. The terminal is read
    meanwhile: a console whose screen nobody reads blocks on its next write,
    and a blocked console sends nothing."""
    sock.setblocking(False)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            return sock.recv(4096)
        except BlockingIOError:
            terminal.read(0.05)
    return None


def drain(sock: socket.socket, terminal: Terminal, gap: float) -> list[bytes]:
    """Every datagram until none has come for ``gap`` seconds."""
    got: list[bytes] = []
    while len(got) < 100 and (message := receive(sock, terminal, gap)) is not None:
        got.append(message)
    return got


def watchdog_pings(
    sock: socket.socket, terminal: Terminal, count: int, patience: float
) -> list[bytes]:
    """Datagrams until ``count`` pings came (each waited for at most ``patience`` s)."""
    got: list[bytes] = []
    while got.count(b"WATCHDOG=1") < count:
        message = receive(sock, terminal, patience)
        if message is None:
            raise TimeoutError(f"after {got}")
        got.append(message)
    return got


def table_pids(console: int) -> list[int]:
    """The console's children (the table's process among them)."""
    out = subprocess.run(
        ["ps", "-o", "pid=", "--ppid", str(console)], capture_output=True, text=True, check=False
    )
    return [int(pid) for pid in out.stdout.split()]


@pytest.mark.slow  # the real console's pings, then a hung table's 10 s going stale: ~20 s
def test_the_console_feeds_the_watchdog_while_the_table_turns_and_stops_when_it_hangs(
    tmp_path: Path, notify: tuple[socket.socket, str]
) -> None:
    sock, address = notify
    script = tmp_path / "game.jsonl"
    script.write_text("\n".join(GAME) + "\n", encoding="utf-8")
    journal = tmp_path / "journals" / "2026-12-01_20-00-00.jsonl"
    argv, env = companion("replay", script, "--journal", journal)
    subprocess.run(argv, env=env, check=True, capture_output=True)
    env = console_env(tmp_path)
    env.update(NOTIFY_SOCKET=address, WATCHDOG_USEC="4000000")  # 4 s: a ping every 2 s
    env["COMPANION_FALLBACK_JOURNALS"] = str(tmp_path / "fallback")
    terminal = Terminal(env, ["console", "--service"])
    stopped: list[int] = []
    try:
        terminal.until("Выставлены: 5")  # the resumed game's table is up
        # READY=1 once the first screen is drawn; pings from the start (the
        # watchdog runs from the service's start, readiness or not).
        try:
            first = watchdog_pings(sock, terminal, 3, patience=60)
        except TimeoutError:  # say what the console and its table were doing
            log = (tmp_path / "companion.log").read_text(encoding="utf-8")
            pytest.fail(f"no ping for 60 s; log:\n{log[-3000:]}\nscreen:\n{terminal.seen[-1500:]}")
        assert first.count(b"READY=1") == 1, first
        assert set(first) == {b"READY=1", b"WATCHDOG=1"}, first
        # The table's loop hangs: its process stopped. The console goes on
        # drawing, but it no longer vouches for the table.
        stopped = table_pids(terminal.process.pid)
        assert stopped, "no table process under the console"
        for pid in stopped:
            os.kill(pid, signal.SIGSTOP)
        # Pings go on while the last beat is fresh (TABLE_STALE_S); then the
        # console finds the table hung, logs it and stops them for good: no
        # ping after its log line, over three times the pings' interval.
        log = tmp_path / "companion.log"
        end = time.monotonic() + 60
        while not log.exists() or HUNG not in log.read_text(encoding="utf-8"):
            assert time.monotonic() < end, "the console never found the table hung"
            drain(sock, terminal, gap=0.2)
        drain(sock, terminal, gap=0.05)  # sent before it, still in the socket
        assert drain(sock, terminal, gap=3 * PING_EVERY_S) == []
    finally:
        for pid in stopped:
            os.kill(pid, signal.SIGCONT)
        terminal.kill()
    assert "Traceback" not in terminal.seen
