"""One console per table (issue 23, must-hold 8). The lock itself across
processes (a holder killed with SIGKILL blocks nobody), then the real
command in pseudo-terminals the way a host runs it: a first console holds
the table; a second says so on its whole screen in Russian, opens nothing
of the table and quits cleanly on Esc; a third waits (Enter) and opens
once the first is closed; a service restarted after its console was killed
is not blocked by it. The tests wait on the screen's text, never on a
clock."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

from companion.console.console_lock import ConsoleLock, console_lock_path
from testkit.terminal import Terminal, console_env

HOLDER = """
import sys
from pathlib import Path
from companion.console.console_lock import ConsoleLock
lock = ConsoleLock(Path(sys.argv[1]))
print("held" if lock.take() else "busy", flush=True)
sys.stdin.read()  # until the test closes it, or kills this process
"""


def test_one_holder_at_a_time_and_a_killed_one_blocks_nobody(tmp_path: Path) -> None:
    path = console_lock_path(tmp_path / "journals")
    assert path == tmp_path / "console.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        mine = ConsoleLock(path)
        assert not mine.take() and not mine.held
        assert mine.holder == holder.pid  # the message names it
        holder.kill()  # SIGKILL: no clean-up; the kernel lets go of the lock
        holder.wait()
        assert mine.take() and mine.held and mine.holder == os.getpid()
        again = ConsoleLock(path)  # another console in this very process
        assert not again.take() and again.holder == os.getpid()
        mine.release()
        assert again.take()
        again.release()
    finally:
        holder.kill()
        holder.wait()
    assert oct(path.stat().st_mode & 0o777) == "0o600"


def children(pid: int) -> list[str]:
    """The processes ``pid`` has started and that still run."""
    return Path(f"/proc/{pid}/task/{pid}/children").read_text(encoding="ascii").split()


def test_a_second_console_says_so_and_a_third_waits_its_turn(tmp_path: Path) -> None:
    env = console_env(tmp_path)
    first = Terminal(env)
    second = third = None
    try:
        first.until("Новая игра")
        pid = first.process.pid
        second = Terminal(env)
        second.until(f"Стол уже открыт в другой консоли (pid {pid}).")
        second.until("Закройте её или нажмите Esc, чтобы выйти.")
        second.read(1.0)  # what it would open, it would open now
        assert children(second.process.pid) == []  # no table process: no sound, no seats
        assert "Новая игра" not in second.seen and "Хеш расклада" not in second.seen
        second.key("\x1b")  # Esc
        assert second.process.wait(30) == 0
        third = Terminal(env)
        third.until(f"(pid {pid})")
        third.keys("\r")  # Enter: wait for the first to close
        third.until("Ждём, пока та консоль закроется")
        assert first.quit() == 0
        third.until("Новая игра")  # its own set-up screen, the table its own now
        third.until("Хеш расклада")
        assert third.quit() == 0
    finally:
        for terminal in (first, second, third):
            if terminal is not None:
                terminal.kill()
    for terminal in (first, second, third):
        assert terminal is not None and "Traceback" not in terminal.seen
    log = (tmp_path / "companion.log").read_text(encoding="utf-8")
    assert "Traceback" not in log
    assert f"another console (pid {pid}) has this table" in log


def test_a_service_restarted_after_a_kill_is_not_blocked(tmp_path: Path) -> None:
    """systemd starts the service again after its console was killed; the
    killed console's table process may outlive it for a moment: neither
    holds the table's lock."""
    env = console_env(tmp_path)
    env["COMPANION_FALLBACK_JOURNALS"] = str(tmp_path / "fallback")
    first = Terminal(env, ["console", "--service"])
    second = None
    try:
        first.until("Новая игра")
        first.until("Хеш расклада")
        os.kill(first.process.pid, signal.SIGKILL)  # the console alone, not its group
        assert first.process.wait(30) == -signal.SIGKILL
        second = Terminal(env, ["console", "--service"])
        second.until("Новая игра")
        second.until("Хеш расклада")
        assert "Стол уже открыт" not in second.seen
        assert second.quit() == 0
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(first.process.pid, signal.SIGKILL)  # what is left of the first
        if second is not None:
            second.kill()
    assert second is not None and "Traceback" not in second.seen
    assert "Traceback" not in (tmp_path / "companion.log").read_text(encoding="utf-8")


async def test_the_service_waits_for_the_other_console_without_being_asked(
    tmp_path: Path,
) -> None:
    """In the pilot: nobody may be at the service's keyboard, so it waits
    at once, opening nothing, and starts up once the other console is gone."""
    from console_driver import config, console

    from companion.console.busy_screen import BusyScreen
    from companion.console.setup_screen import SetupScreen

    cfg = config(tmp_path)
    other = ConsoleLock.for_journals(cfg.paths.journals)
    assert other.take()
    lock = ConsoleLock.for_journals(cfg.paths.journals)
    assert not lock.take()
    app = console(cfg)
    app.service, app.console_lock = True, lock
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, BusyScreen) and screen.waiting
            assert f"(pid {os.getpid()})" in str(screen.query_one("#busy-title").render())
            assert app.table is None and not list(cfg.paths.journals.glob("*.jsonl"))
            screen._try()  # the other console is still there: nothing changes
            await pilot.pause()
            assert app.screen is screen
            other.release()
            screen._try()  # what the screen's timer does every half second
            await pilot.pause()
            assert isinstance(app.screen, SetupScreen) and lock.held
    finally:
        lock.release()
        other.release()
