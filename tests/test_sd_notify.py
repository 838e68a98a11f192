"""systemd's readiness and watchdog messages (``runner/sd_notify.py``) on
real Unix datagram sockets, as systemd listens for them, and the watchdog
fed only while the table's loop turns: the loop's own stamp, the table's
process sending it, and a stopped table process starving the watchdog."""

from __future__ import annotations

import os
import queue
import shutil
import signal
import socket
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterator
from multiprocessing import Pipe

import pytest

from companion.config.rulesets import load_ruleset
from companion.live.assembly import TableSpec
from companion.live.table_messages import TableOrder
from companion.live.table_process import TableWorker
from companion.live.table_serve import send_news
from companion.runner.clock import FakeClock
from companion.runner.loop import LiveLoop
from companion.runner.sd_notify import (
    PING_EVERY_S,
    ServiceWatchdog,
    Watchdog,
    notify,
    waiting,
    watchdog_interval,
)
from companion.voice.settings import VoiceSettings

PATIENCE_S = 60.0


class Systemd:
    """The receiving end of ``NOTIFY_SOCKET``: a datagram socket."""

    def __init__(self, address: str, bind_to: str) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(bind_to)
        self.environ = {"NOTIFY_SOCKET": address}

    def received(self) -> list[str]:
        """Every message waiting, without blocking."""
        got = []
        self.sock.setblocking(False)
        while True:
            try:
                got.append(self.sock.recv(4096).decode())
            except BlockingIOError:
                return got

    def watchdog(self, usec: int = 30_000_000, pid: int | None = None) -> dict[str, str]:
        return {**self.environ, "WATCHDOG_USEC": str(usec), "WATCHDOG_PID": str(pid or os.getpid())}


@pytest.fixture
def systemd() -> Iterator[Systemd]:
    # Not in tmp_path: a socket's path may be 107 bytes at most.
    folder = tempfile.mkdtemp(prefix="sd-")
    path = f"{folder}/notify"
    listener = Systemd(path, path)
    yield listener
    listener.sock.close()
    shutil.rmtree(folder)


def test_ready_reaches_a_socket_in_the_file_system(systemd: Systemd) -> None:
    assert notify("READY=1", systemd.environ) is True
    assert systemd.received() == ["READY=1"]


def test_an_abstract_socket_is_reached_too() -> None:
    name = f"companion-test-{uuid.uuid4().hex}"
    listener = Systemd("@" + name, "\0" + name)
    try:
        assert notify("WATCHDOG=1\nSTATUS=ok", listener.environ) is True
        assert listener.received() == ["WATCHDOG=1\nSTATUS=ok"]
    finally:
        listener.sock.close()


@pytest.mark.parametrize("address", ["", "relative/path", "/no/such/socket", "@no-such-abstract"])
def test_without_systemd_nothing_is_sent_and_nothing_raised(address: str) -> None:
    environ = {"NOTIFY_SOCKET": address} if address else {}
    assert notify("READY=1", environ) is False


@pytest.mark.parametrize(("usec", "pid", "interval"), [
    ("30000000", "self", 15.0),
    ("30000000", "", 15.0),
    ("30000000", "other", None),  # a watchdog meant for the console, read in the table's process
    ("0", "self", None),
    ("", "self", None),
    ("30s", "self", None),
])  # fmt: skip
def test_the_watchdog_interval_is_half_the_timeout_of_this_process(
    usec: str, pid: str, interval: float | None
) -> None:
    pids = {"self": str(os.getpid()), "other": str(os.getpid() + 1), "": ""}
    environ = {"WATCHDOG_USEC": usec, "WATCHDOG_PID": pids[pid]}
    assert watchdog_interval(environ) == interval


def test_a_watchdog_pings_once_per_interval_however_often_it_ticks(systemd: Systemd) -> None:
    clock = FakeClock()
    dog = Watchdog(environ=systemd.watchdog(10_000_000), clock=clock.now)
    sent = []
    for _ in range(12):  # 0 .. 11 s
        sent.append(dog.tick())
        clock.advance(1.0)
    assert sent == [True, *[False] * 4, True, *[False] * 4, True, False]
    assert systemd.received() == ["WATCHDOG=1"] * 3


# --- the console's watchdog: fed only while the table turns --------------------------------


def test_the_console_pings_while_the_table_is_fresh_and_stops_when_it_is_stale(
    systemd: Systemd,
) -> None:
    clock = FakeClock()
    beat: list[float | None] = [None]  # no table yet: the set-up screen
    dog = ServiceWatchdog(lambda: beat[0], environ=systemd.watchdog(), clock=clock.now)
    assert dog.enabled
    assert dog.watchdog.interval == PING_EVERY_S  # not 15 s: a busy console has room
    assert dog.tick() is True
    clock.advance(PING_EVERY_S)
    beat[0] = clock.now() - 1.0  # a table whose loop turned a second ago
    assert dog.tick() is True
    clock.advance(PING_EVERY_S)
    beat[0] = clock.now() - dog.stale_after - 0.1  # it has stopped turning
    assert (dog.tick(), dog.table_hung) == (False, True)
    clock.advance(PING_EVERY_S)
    assert dog.tick() is False
    beat[0] = clock.now()  # turning again
    assert (dog.tick(), dog.table_hung) == (True, False)
    assert systemd.received() == ["WATCHDOG=1"] * 3


def test_without_a_watchdog_the_console_sends_nothing(systemd: Systemd) -> None:
    dog = ServiceWatchdog(lambda: None, environ=systemd.environ)
    assert not dog.enabled
    assert dog.tick() is False
    assert systemd.received() == []


def test_a_bounded_wait_feeds_the_watchdog_between_its_slices(systemd: Systemd) -> None:
    answers = iter([False, False, True])
    asked: list[float] = []

    def ready(seconds: float) -> bool:
        asked.append(seconds)
        return next(answers)

    assert waiting(ready, 60.0, systemd.watchdog()) is True
    assert asked == [1.0, 1.0, 1.0]
    assert systemd.received() == ["WATCHDOG=1"] * 2


def test_a_wait_that_runs_out_says_so_and_pings_only_under_a_watchdog(systemd: Systemd) -> None:
    asked: list[float] = []

    def never(seconds: float) -> bool:
        asked.append(seconds)
        return False

    assert waiting(never, 3.0, systemd.environ) is False
    assert asked == [1.0, 1.0, 1.0]
    assert systemd.received() == []  # NOTIFY_SOCKET but no WATCHDOG_USEC: no pings


# --- the table's side: its loop's stamp and the beats its process sends -------------------


class StallingClock(FakeClock):
    """A fake clock whose ``now`` blocks while ``stall`` is set: the loop's
    thread hangs inside a turn, as a hung loop would."""

    def __init__(self) -> None:
        super().__init__()
        self.stall = threading.Event()
        self.release = threading.Event()
        self.stalled = threading.Event()  # the loop's thread hangs in now()

    def now(self) -> float:
        if self.stall.is_set():
            self.stalled.set()
            self.release.wait()
        return super().now()


def wait_for(condition: Callable[[], bool]) -> None:
    done = threading.Event()
    for _ in range(int(PATIENCE_S / 0.05)):
        if condition():
            return
        done.wait(0.05)
    raise AssertionError("never happened")


def test_the_loop_stamps_every_turn_and_a_hung_loop_stops_stamping() -> None:
    clock = StallingClock()
    loop = LiveLoop(clock, lambda now, effects: None, realtime=False)
    thread = threading.Thread(target=loop.run, daemon=True)
    thread.start()
    try:
        first = loop.last_turn
        wait_for(lambda: loop.last_turn > first)  # idle, it still goes round (every 0.5 s)
        clock.stall.set()
        assert clock.stalled.wait(PATIENCE_S)
        stamps = [loop.last_turn]
        # Two idle turns' worth (0.5 s each) and more: the stamp does not
        # move while the loop hangs.
        threading.Event().wait(1.1)
        stamps.append(loop.last_turn)
        assert stamps[0] == stamps[1]
        clock.stall.clear()
        clock.release.set()
        wait_for(lambda: loop.last_turn > stamps[1])
    finally:
        clock.stall.clear()
        clock.release.set()
        loop.stop()
        thread.join(PATIENCE_S)


def test_the_sender_passes_the_loops_own_stamp_up_the_pipe() -> None:
    reader, writer = Pipe(duplex=False)
    outbox: queue.SimpleQueue[tuple[str, object] | None] = queue.SimpleQueue()
    outbox.put(("refused", ("the first news", None)))
    sender = threading.Thread(target=send_news, args=(writer, outbox, lambda: 1234.5), daemon=True)
    sender.start()
    try:
        assert reader.poll(PATIENCE_S)
        assert reader.recv() == ("refused", ("the first news", None))  # before any beat
        assert reader.poll(PATIENCE_S)
        assert reader.recv() == ("beat", 1234.5)  # the stamp as the loop left it
    finally:
        outbox.put(None)
        sender.join(PATIENCE_S)


def test_a_stopped_table_process_starves_the_consoles_watchdog(systemd: Systemd) -> None:
    """End to end: a real table process; SIGSTOP stands for a hang of the
    whole table (loop and sender alike)."""
    spec = TableSpec(voice=VoiceSettings(captions_only=True), seats="simulated")
    table = TableWorker().build(
        TableOrder(spec, load_ruleset("tournament"), 10),
        lambda update: None,
        lambda reason, line: None,
        lambda reason: None,
    )
    pid = table._worker.process.pid
    assert pid is not None
    dog = ServiceWatchdog(lambda: table.last_beat, stale_after=2.0, environ=systemd.watchdog())
    try:
        start = table.last_beat
        assert start is not None
        wait_for(lambda: (table.last_beat or 0) > start)  # the loop's turns come up the pipe
        assert dog.tick() is True
        assert systemd.received() == ["WATCHDOG=1"]
        os.kill(pid, signal.SIGSTOP)
        wait_for(lambda: hung_after_tick(dog))  # 2 s without a turn
        systemd.received()  # pings sent before it went stale
        for _ in range(3):
            assert dog.tick() is False
        assert systemd.received() == []  # while it hangs, nothing
        os.kill(pid, signal.SIGCONT)
        wait_for(lambda: not hung_after_tick(dog))
        systemd.received()  # that tick may have pinged, or found it too soon
        wait_for(dog.tick)  # fed again: a ping every PING_EVERY_S
        assert systemd.received() == ["WATCHDOG=1"]
    finally:
        os.kill(pid, signal.SIGCONT)
        table.close()


def hung_after_tick(dog: ServiceWatchdog) -> bool:
    dog.tick()
    return dog.table_hung
