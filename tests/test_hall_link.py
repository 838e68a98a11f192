"""A table's hall link (companion/hall/link.py) against a real Mosquitto:
the protocol byte for byte ``companion protocol --format json``, nothing
lost while the broker is away, and never a wait on the table's loop."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from hall_broker import Listener, make_hall, needs_mosquitto, play_at_table
from helpers import EXAMPLES, ROOT

from companion.hall.broker import BOARD, start_broker, stop_broker
from companion.hall.link import HallLink
from companion.hall.settings import HallSettings

pytestmark = needs_mosquitto
SCRIPT = EXAMPLES / "tournament-red-win.jsonl"


def _settings(hall: Any, outbox: Path, table: int = 3) -> HallSettings:
    return HallSettings(hall.address(f"table{table}", "127.0.0.1"), "cup", table, outbox)


def _wait(test: Any, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not test():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_the_protocol_is_the_commands_byte_for_byte(tmp_path: Path) -> None:
    hall = make_hall(tmp_path / "hall")
    broker = start_broker(hall)
    board = Listener(hall.address(BOARD, "127.0.0.1"), "mafia/cup/table/+/protocol/+")
    journal = tmp_path / "journals" / "game1.jsonl"
    try:
        table = play_at_table(SCRIPT, journal, _settings(hall, tmp_path / "outbox"))
        got = board.wait_for(lambda topic, _: True)
        table.close()
    finally:
        board.close()
        stop_broker(broker)
    printed = subprocess.run(
        [sys.executable, "-m", "companion.cli", "protocol", str(journal), "--format", "json"],
        capture_output=True, cwd=ROOT, check=True, timeout=120,
    ).stdout  # fmt: skip
    topic, payload, _retained = got[-1]
    assert topic == "mafia/cup/table/3/protocol/game1"
    assert payload == printed
    assert list((tmp_path / "outbox").iterdir()) == []  # acknowledged: out of the outbox


def test_a_game_ended_while_the_broker_is_away_is_delivered_when_it_is_back(tmp_path: Path) -> None:
    """The broker is down for the whole game: the table plays on, counts what
    waits, keeps the protocol in its outbox; killed and started again, the
    table publishes it once the broker is back."""
    hall = make_hall(tmp_path / "hall")
    outbox = tmp_path / "outbox"
    table = play_at_table(SCRIPT, tmp_path / "journals" / "game1.jsonl", _settings(hall, outbox))
    assert table.game.phase == "ended"
    _wait(lambda: len(list(outbox.glob("*.json"))) == 1)
    hall_end = table.hall
    _wait(lambda: hall_end.waiting > 1)
    assert not hall_end.connected
    assert hall_end.status.startswith("Зал: нет связи, "), hall_end.status  # the console's line
    table.close()  # the table goes (its process killed, or the evening over)
    assert len(list(outbox.glob("*.json"))) == 1  # still waiting for the broker

    broker = start_broker(hall)
    board = Listener(hall.address(BOARD, "127.0.0.1"), "mafia/cup/table/+/protocol/+")
    try:
        # the next start of the table (another game): the outbox goes first
        again = HallLink(_settings(hall, outbox), "game2", lambda: None, on_status=None)
        again.start()
        got = board.wait_for(lambda topic, _: topic.endswith("/game1"))
        _wait(lambda: not list(outbox.glob("*.json")))
        again.close()
    finally:
        board.close()
        stop_broker(broker)
    assert got[-1][1].startswith(b"{") and got[-1][2] is False  # live, not a retained copy


def test_offering_never_waits_for_the_publisher(tmp_path: Path) -> None:
    """The publisher's process stopped (SIGSTOP: a hung network stack, a
    starved process): the table's updates go on, none of them waits."""
    import os
    import signal

    hall = make_hall(tmp_path / "hall")
    table = play_at_table(
        SCRIPT,
        tmp_path / "journals" / "g.jsonl",
        _settings(hall, tmp_path / "outbox"),
        until_line=3,
    )
    pid = table.hall.pid()
    assert pid is not None
    os.kill(pid, signal.SIGSTOP)
    try:
        update = table.session.shown
        from companion.core.effects import Say
        from companion.live.assembly import Update

        offered = threading.Thread(
            target=lambda: [
                table.hall.offer(
                    Update(0.0, update.game, {}, (Say("night_falls", (("night", 1),)),))
                )
                for _ in range(20_000)
            ]
        )
        offered.start()
        offered.join(60)
        stuck = offered.is_alive()
    finally:
        os.kill(pid, signal.SIGCONT)
        table.close()
    assert not stuck, "an update waited for the publisher"
    assert table.hall.dropped > 0  # the socket filled: captions dropped, never waited for
