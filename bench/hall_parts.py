"""The hall bench's simulated pieces (bench/hall.py runs the round and
prints its figures): a table's own process (``python bench/hall.py --table
N``: a real ``LiveTable`` fed a tournament script on its clock), the TCP
proxy that cuts one table's link, and the board that takes what the hall
publishes.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import queue
import select
import signal
import socket
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.hall.broker import BOARD, Hall, credentials
from companion.hall.model import HallModel

#: the event the bench's hall is for (its topics: mafia/bench/...)
EVENT = "bench"


# --- the table's process ---------------------------------------------------------------------
def table_main(args: argparse.Namespace) -> int:
    """One table: build, play the script (or the rest of it after a
    resume), wait until the hall has everything, report as one JSON line."""
    from companion.config.rulesets import load_ruleset
    from companion.core.events import GameSetUp
    from companion.hall.settings import HallSettings
    from companion.hall.topics import BrokerAddress
    from companion.live.assembly import LiveTable, Outputs, TableSpec
    from companion.runner.clock import GameClock
    from companion.runner.resume import resume_journal
    from companion.runner.script import parse_lines
    from companion.voice.settings import VoiceSettings

    n, speed = args.table, args.speed
    folder = Path(args.folder)
    # The bench says when the network is cut (SIGUSR1) and back (SIGUSR2):
    # paho itself notices a dead link only after its keepalive.
    cut = threading.Event()
    signal.signal(signal.SIGUSR1, lambda *_: cut.set())
    signal.signal(signal.SIGUSR2, lambda *_: cut.clear())
    secret = credentials(folder / "hall")[f"table{n}"]
    broker = BrokerAddress("127.0.0.1", args.port, f"table{n}", secret)
    settings = HallSettings(broker, EVENT, n, folder / "outbox")
    journal = folder / "journals" / f"table-{n}.jsonl"
    script = Path(args.script)
    lines = parse_lines(script.read_text(encoding="utf-8").splitlines(), str(script), load_ruleset)
    session = None
    if args.resume:
        session = resume_journal(journal, load_ruleset).session
        assert session.game is not None
        rules, seats = session.game.rules, len(session.game.seats)
        lines = [line for line in lines if line.number > session.last_line]
    else:
        setup = next(line.event for line in lines if isinstance(line.event, GameSetUp))
        assert isinstance(setup, GameSetUp)
        rules, seats = setup.ruleset, setup.seats
        time.sleep(max(0.0, args.start_at - time.time()))
    clock = GameClock(start_at=session.now if session is not None else 0.0, speed=speed)
    spec = TableSpec(
        voice=VoiceSettings(captions_only=True),
        seats="none",
        speed=speed,
        journal=None if args.resume else journal,
        hall=None if args.without_hall else settings,
    )
    table = LiveTable(
        spec,
        rules,
        seats,
        outputs=Outputs(open(os.devnull, "w"), None),  # noqa: SIM115
        session=session,
        clock=clock,
    )
    # As the console's table process does (live/table_process.py): the loop
    # gets the interpreter back within 0.2 ms of asking.
    sys.setswitchinterval(0.0002)
    link = table.hall  # the table's end of the link (its publisher: a process of its own)
    down: list[float] = []  # the timers' lateness while the link was down (game s)
    up: list[float] = []
    done = threading.Event()

    def classify() -> None:  # each timer's lateness by the link's state when it fired
        seen = 0
        while not done.wait(0.01):
            late = table.loop.stats.lateness
            fresh, seen = late[seen:], len(late)
            linked = link is not None and link.connected
            (down if cut.is_set() or not linked else up).extend(fresh)

    inputs = [line for line in lines if line.event is not None]
    end = max((line.at for line in lines), default=clock.now())
    next_ats = [line.at for line in inputs[1:]] + [end]

    def feed() -> None:
        for line, next_at in zip(inputs, next_ats, strict=True):
            time.sleep(max(0.0, clock.wall_time(line.at) - time.monotonic()))
            ruleset = line.fields.get("ruleset")
            table.submit(
                line.event,  # type: ignore[arg-type]
                at=line.at,
                line=line.number,
                ruleset=ruleset if isinstance(ruleset, str) else None,
                next_at=next_at,
            )
        time.sleep(max(0.0, clock.wall_time(end) - time.monotonic()))
        table.stop()

    table.loop.end_at(inputs[0].at if inputs else end)
    watcher = threading.Thread(target=classify, daemon=True)
    watcher.start()
    threading.Thread(target=feed, daemon=True).start()
    table.start()
    while table.running():
        table.join(0.2)
    deadline = time.monotonic() + args.wait
    while link is not None and time.monotonic() < deadline and (link.waiting or not link.connected):
        time.sleep(0.1)
    done.set()
    watcher.join()
    game = table.game
    report = {
        "table": n,
        "phase": game.phase if game is not None else None,
        "up_ms": [x / speed * 1000 for x in up],
        "down_ms": [x / speed * 1000 for x in down],
        "waiting": link.waiting if link is not None else 0,
        "resumed": bool(args.resume),
        "priority": table.timing().loop_priority,
        "game_s": end,
    }
    table.close()
    print(json.dumps(report), flush=True)
    return 0


# --- the proxy that drops a table's traffic ---------------------------------------------------
class Proxy:
    """127.0.0.1:port -> the broker; ``cut`` drops every byte both ways
    (the connections stay, as a dead switch leaves them), ``mend`` closes
    what was cut and lets new connections through."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.cutting = False
        self.pairs: list[tuple[socket.socket, socket.socket]] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target))
            except OSError:
                client.close()
                continue
            with self.lock:
                self.pairs.append((client, upstream))
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        ends = {a: b, b: a}
        try:
            while True:
                ready, _, _ = select.select(list(ends), [], [], 0.5)
                for sock in ready:
                    data = sock.recv(65536)
                    if not data:
                        return
                    if not self.cutting:
                        ends[sock].sendall(data)
        except OSError:
            return
        finally:
            for sock in (a, b):
                with contextlib.suppress(OSError):
                    sock.close()

    def cut(self) -> None:
        self.cutting = True

    def mend(self) -> None:
        with self.lock:
            pairs, self.pairs = self.pairs, []
        for pair in pairs:
            for sock in pair:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
        self.cutting = False


# --- the board ----------------------------------------------------------------------------------
@dataclass
class Board:
    """The board's model (HallModel, what hall/board shows) fed every
    message; the lag of each state it took, the protocols it took."""

    model: HallModel = field(default_factory=lambda: HallModel(EVENT))
    lags: list[tuple[int, float, float]] = field(default_factory=list)  # (table, at, lag s)
    protocols: dict[int, list[bytes]] = field(default_factory=dict)  # fresh, per table
    protocol_copies: int = 0  # every protocol message, duplicates too
    bytes_by_table: dict[int, int] = field(default_factory=dict)
    inbox: queue.SimpleQueue[tuple[float, str, bytes]] = field(default_factory=queue.SimpleQueue)

    def take(self) -> None:
        from companion.hall.topics import parse_table_topic

        while not self.inbox.empty():
            arrived, topic, payload = self.inbox.get()
            place = parse_table_topic(topic)
            if place is None:
                continue
            _, table, sub = place
            self.bytes_by_table[table] = self.bytes_by_table.get(table, 0) + len(payload)
            protocol = sub.startswith("protocol/")
            if protocol:
                self.protocol_copies += 1
            if self.model.feed(topic, payload) is None:
                continue  # seen (or a caption older than the announcement, an empty clear)
            if protocol:
                self.protocols.setdefault(table, []).append(payload)
            elif sub == "state":
                at = self.model.tables[table].state.get("at")
                if isinstance(at, int | float):
                    self.lags.append((table, at, arrived - at))


def start_board(hall: Hall, board: Board) -> Any:
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    address = hall.address(BOARD, "127.0.0.1")
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="bench-board", clean_session=False)
    client.username_pw_set(address.username, address.password)
    client.on_connect = lambda c, u, f, rc, p: c.subscribe(f"mafia/{EVENT}/table/+/#", qos=1)
    client.on_message = lambda c, u, m: board.inbox.put((time.time(), m.topic, bytes(m.payload)))
    client.reconnect_delay_set(1, 2)
    client.connect_async("127.0.0.1", hall.port, 10)
    client.loop_start()
    return client
