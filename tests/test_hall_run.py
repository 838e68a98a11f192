"""``companion hall`` as a director runs it (issue 27): ``companion hall
init`` into a folder of its own, then ``companion hall`` with no
sub-command in a pseudo-terminal (testkit/terminal.py): it starts the
hall's Mosquitto, the board shows the row of a table that publishes its
state, ``q`` quits, and the broker the command started is stopped again."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from hall_broker import free_port, needs_mosquitto, publish_as
from helpers import ROOT

from companion.hall.broker import listening, read_hall
from companion.hall.topics import STATE, table_topic
from testkit.terminal import Terminal, console_env

pytestmark = needs_mosquitto


def brokers_of(conf: Path) -> list[int]:
    """Every running Mosquitto started on ``conf`` (by its command line)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            line = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:  # gone meanwhile
            continue
        if line and line[0].endswith(b"mosquitto") and os.fsencode(conf) in line:
            found.append(int(entry.name))
    return found


def test_companion_hall_runs_the_broker_and_the_board_and_stops_it(tmp_path: Path) -> None:
    folder = tmp_path / "hall"
    port = free_port()
    made = subprocess.run(
        [sys.executable, "-m", "companion.cli", "hall", "init", "--dir", str(folder),
         "--event", "cup", "--tables", "3", "--host", "127.0.0.1", "--bind", "127.0.0.1",
         "--port", str(port), "--spectator-port", str(free_port()), "--lang", "en"],
        capture_output=True, text=True, cwd=ROOT, timeout=120, check=False,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    hall = read_hall(folder)
    assert not listening("127.0.0.1", port)

    terminal = Terminal(console_env(tmp_path), ["hall", "--dir", str(folder), "--lang", "en"])
    try:
        terminal.until("Broker started")
        assert brokers_of(hall.conf), "no mosquitto on the hall's configuration"
        state = {"game": "g1", "seq": 4, "phase": "day", "speaker": 7, "seats": 10,
                 "announcement": "Player seven speaks"}  # fmt: skip
        publish_as(
            hall.address("table3", "127.0.0.1"),
            table_topic("cup", 3, STATE),
            json.dumps(state).encode(),
            retain=True,  # as a table does: the board takes it whenever it subscribes
        )
        terminal.until("Player seven speaks", timeout=30)
        terminal.key("q")
        assert terminal.process.wait(30) == 0
    finally:
        terminal.kill()
        os.close(terminal.master)
    left = brokers_of(hall.conf)
    for pid in left:  # a failing run leaves no broker behind
        os.kill(pid, signal.SIGTERM)
    assert left == []  # the broker the command started has gone
    assert not listening("127.0.0.1", port)
