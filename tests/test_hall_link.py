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
    link = table.hall.link
    _wait(lambda: link.waiting() > 1)
    assert not link.connected
    table.close()  # the table goes (its process killed, or the evening over)
    assert len(list(outbox.glob("*.json"))) == 1  # still waiting for the broker
    assert link._shown.startswith("Зал: нет связи, "), link._shown  # the console's line

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


class _StuckClient:
    """A paho client whose publish never returns (a network stack gone
    wrong): what must never reach the table's loop."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.entered = threading.Event()

    def publish(self, *args: Any, **kwargs: Any) -> Any:
        self.entered.set()
        self.release.wait()
        raise OSError("released")

    def disconnect(self) -> None: ...

    def loop_stop(self) -> None: ...


def test_offering_never_waits_for_the_network(tmp_path: Path) -> None:
    from helpers import TOURNAMENT_ROLES, play, setup

    from companion.config.rulesets import load_ruleset
    from companion.core.engine import new_game  # noqa: F401  (the game's module, loaded)

    game = play(setup("tournament", TOURNAMENT_ROLES))
    client = _StuckClient()
    settings = HallSettings(
        make_hall(tmp_path / "hall").address("table3"), "cup", 3, tmp_path / "outbox"
    )
    link = HallLink(settings, "g", lambda: None, client=client)
    link.connected = True
    link._connects.put(True)
    link.start()
    link.offer(game, {}, (), 1, 0.0, 1.0)
    assert client.entered.wait(10)  # the link's thread is stuck in publish
    offered = threading.Thread(
        target=lambda: [link.offer(game, {}, (), n, 0.0, 1.0) for n in range(2, 5000)]
    )
    offered.start()
    offered.join(30)
    stuck = offered.is_alive()
    client.release.set()
    link._closing = True
    assert not stuck, "offer waited for the link's thread"
    _ = load_ruleset
