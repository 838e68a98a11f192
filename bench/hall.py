"""The tournament hall under a round's troubles (issue 27, docs/hall.md).

Run ``python bench/hall.py`` (40 tables; ``--tables 8 --speed 40`` for a
quick look; ``--load N``: N CPU-bound neighbour processes beside it). It
makes a hall (``companion hall init``'s own folder) on free ports of this
machine, starts its Mosquitto, and runs every table as a **real table
process** of its own: ``python bench/hall.py --table N``, a ``LiveTable``
(captions only, no seats) with the table's ``[hall]``, journaling into its
own journal and playing a tournament example game on its clock ``--speed``
times as fast, fed the way ``replay --realtime`` feeds it. A board (a
paho subscriber with the board's user feeding the board's own ``HallModel``,
which drops what arrives twice by ``Dedup``'s rules)
runs in this process. During the round:

- the broker is stopped (SIGTERM) at half the round and started again two
  seconds later, on the same configuration (its persistence kept);
- one table reaches the broker through a small TCP proxy that, for five
  simulated minutes (300 game seconds / speed), forwards nothing (both ways:
  bytes dropped, connections kept), then drops its connections and lets new
  ones through;
- one table's process is killed (SIGKILL) at 40 % of its game and started
  again on its journal (``resume_journal``), going on with the script.

Printed: protocols received / games finished (distinct, deduplicated),
protocols received more than once (dropped by the model) and tables with two
different protocols (must be 0), protocols byte for byte the table's own
(``companion protocol --format json`` made here from each journal after
the round), the state-to-board lag (p50/p99 of every state the board took,
from the table's ``at`` to its arrival; with and without the outages), the
timer firing error of the cut table while its link was down and of all
tables while theirs was up, payload bytes per table per game minute, and
the CPU time of the broker and of this process (board and proxy).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import queue
import resource
import select
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion.hall.broker import (  # noqa: E402
    BOARD,
    Hall,
    credentials,
    init_hall,
    start_broker,
    stop_broker,
)
from companion.hall.model import HallModel  # noqa: E402

SCRIPT = ROOT / "examples" / "tournament-red-win.jsonl"
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


# --- the round ------------------------------------------------------------------------------------
def cpu_of(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def spawn(args: argparse.Namespace, folder: Path, n: int, port: int, start_at: float, resume: bool) -> subprocess.Popen[str]:  # fmt: skip
    command = [
        sys.executable, str(Path(__file__).resolve()), "--table", str(n), "--folder", str(folder),
        "--port", str(port), "--speed", str(args.speed), "--script", str(args.script),
        "--start-at", str(start_at), "--wait", str(args.wait),
    ]  # fmt: skip
    if args.without_hall:
        command.append("--without-hall")
    if resume:
        command.append("--resume")
    log = (folder / f"table-{n}{'-resumed' if resume else ''}.log").open("w")
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True)


def round_main(args: argparse.Namespace) -> int:
    from companion.config.rulesets import load_ruleset
    from companion.protocol.archive import from_journal
    from companion.protocol.formats import render
    from companion.runner.script import parse_lines

    script = Path(args.script)
    lines = parse_lines(script.read_text(encoding="utf-8").splitlines(), str(script), load_ruleset)
    game_s = max(line.at for line in lines)
    round_s = game_s / args.speed
    tables = tuple(range(1, args.tables + 1))
    cut_table, kill_table = tables[-1], tables[-2]
    folder = Path(tempfile.mkdtemp(prefix="hall-bench-"))
    hall = init_hall(
        Hall(folder=folder / "hall", event=EVENT, tables=tables, host="127.0.0.1",
             bind="127.0.0.1", port=free_port(), spectator_port=free_port())
    )  # fmt: skip
    load = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.load)]
    broker = start_broker(hall)
    broker_cpu = 0.0
    proxy = Proxy(hall.port)
    board = Board()
    client = start_board(hall, board)
    own_cpu = resource.getrusage(resource.RUSAGE_SELF)
    start_at = time.time() + 4.0 + 0.25 * len(tables)  # every process imported by then
    children = {
        n: spawn(args, folder, n, proxy.port if n == cut_table else hall.port, start_at + 0.05 * n, False)
        for n in tables
    }  # fmt: skip
    events: dict[str, tuple[float, float]] = {}
    cut_s = 300 / args.speed

    def troubles() -> None:
        time.sleep(max(0.0, start_at + 0.3 * round_s - time.time()))
        proxy.cut()
        children[cut_table].send_signal(signal.SIGUSR1)
        began = time.time()
        time.sleep(cut_s)
        proxy.mend()
        children[cut_table].send_signal(signal.SIGUSR2)
        events["cut"] = (began, time.time())
        time.sleep(max(0.0, start_at + 0.4 * round_s - time.time()))
        os.kill(children[kill_table].pid, signal.SIGKILL)
        children[kill_table].wait()
        killed = time.time()
        children[kill_table] = spawn(args, folder, kill_table, hall.port, 0.0, True)
        events["kill"] = (killed, time.time())
        time.sleep(max(0.0, start_at + 0.5 * round_s - time.time()))
        nonlocal broker, broker_cpu
        began = time.time()
        broker_cpu += cpu_of(broker.pid)
        stop_broker(broker)
        time.sleep(2.0)
        broker = start_broker(hall)
        events["broker"] = (began, time.time())

    trouble = threading.Thread(target=troubles, daemon=True)
    trouble.start()
    reports: dict[int, dict[str, Any]] = {}
    limit = start_at + round_s + args.wait + 120
    while len(reports) < len(tables) and time.time() < limit:
        board.take()
        for n, child in list(children.items()):
            if (
                n not in reports
                and child.poll() is not None
                and (n != kill_table or "kill" in events)
            ):
                out = child.stdout.read() if child.stdout else ""
                last = out.strip().splitlines()[-1:] or ["{}"]
                with contextlib.suppress(ValueError):
                    reports[n] = json.loads(last[0])
                reports.setdefault(n, {"table": n, "phase": None})
        time.sleep(0.2)
    trouble.join(5)
    # the board takes what is still on its way
    settle = time.time() + 15
    while time.time() < settle and len(board.protocols) < len(tables):
        board.take()
        time.sleep(0.2)
    board.take()
    broker_cpu += cpu_of(broker.pid)
    mine = resource.getrusage(resource.RUSAGE_SELF)
    own = (mine.ru_utime - own_cpu.ru_utime) + (mine.ru_stime - own_cpu.ru_stime)
    client.disconnect()
    client.loop_stop()
    stop_broker(broker)
    for child in children.values():
        if child.poll() is None:
            child.kill()
    for busy in load:
        busy.kill()

    finished = [n for n, r in reports.items() if r.get("phase") == "ended"]
    identical = 0
    for n in tables:
        if not (folder / "journals" / f"table-{n}.jsonl").exists():
            continue
        made, _ = from_journal(folder / "journals" / f"table-{n}.jsonl", load_ruleset, "ru")
        own_protocol = render(made, "json").encode("utf-8")
        got = board.protocols.get(n, [])
        identical += int(len(got) == 1 and got[0] == own_protocol)
    different = sum(1 for got in board.protocols.values() if len(got) > 1)

    def outside(table: int, at: float) -> bool:
        b0, b1 = events.get("broker", (0, 0))
        if b0 - 1 <= at <= b1 + 5:
            return False
        if table == cut_table:
            c0, c1 = events.get("cut", (0, 0))
            return not c0 - 1 <= at <= c1 + 30
        if table == kill_table:
            k0, k1 = events.get("kill", (0, 0))
            return not k0 - 1 <= at <= k1 + 5
        return True

    lag_all = [lag * 1000 for _, _, lag in board.lags]
    lag_calm = [lag * 1000 for t, at, lag in board.lags if outside(t, at)]
    down = reports.get(cut_table, {}).get("down_ms", [])
    down_all = [x for r in reports.values() if not r.get("resumed") for x in r.get("down_ms", [])]
    # a resumed table's first timers were due while it was dead: not the loop's error
    up = [x for r in reports.values() if not r.get("resumed") for x in r.get("up_ms", [])]
    resumed = reports.get(kill_table, {})
    again = resumed.get("up_ms", []) + resumed.get("down_ms", [])
    minutes = game_s / 60
    per_table = [board.bytes_by_table.get(n, 0) / minutes for n in tables]
    round_real = time.time() - start_at
    print(f"hall bench: {len(tables)} tables, {script.name} at x{args.speed:g} "
          f"({game_s / 60:.1f} game min, {round_s:.0f} s a game), load {args.load}")  # fmt: skip
    print(f"  troubles: broker restarted at 50 % (down {events.get('broker', (0, 0))[1] - events.get('broker', (0, 0))[0]:.1f} s); "
          f"table {cut_table} cut off for 300 game s ({cut_s:.1f} s); table {kill_table} SIGKILLed at 40 % and resumed")  # fmt: skip
    print(
        f"  protocols received / games finished: {len(board.protocols)}/{len(finished)} "
        f"(tables {len(tables)}); byte-identical to the table's own: {identical}/{len(tables)}"
    )
    print(f"  protocol copies received: {board.protocol_copies}; dropped as duplicates by the board's model: "
          f"{board.protocol_copies - sum(len(g) for g in board.protocols.values())}; "
          f"tables with two different protocols: {different}")  # fmt: skip
    print(f"  messages dropped as duplicates (all topics): {board.model.duplicates}; "
          f"refused: {len(board.model.refused)}")  # fmt: skip
    print(f"  state-to-board lag, ms: p50 {pct(lag_calm, 50):.1f}, p99 {pct(lag_calm, 99):.1f}, "
          f"max {max(lag_calm, default=float('nan')):.1f} ({len(lag_calm)} states, outside the outages); "
          f"with the outages p99 {pct(lag_all, 99):.0f}, max {max(lag_all, default=float('nan')):.0f} "
          f"({len(lag_all)})")  # fmt: skip
    if args.without_hall:
        every = down_all + up
        print(f"  WITHOUT A HALL: timer firing error, ms, every table: p50 {pct(every, 50):.2f}, "
              f"p99 {pct(every, 99):.2f}, max {max(every, default=float('nan')):.2f} ({len(every)})")  # fmt: skip
    print(f"  timer firing error, ms: table {cut_table} while its link was down: p50 {pct(down, 50):.2f}, "
          f"p99 {pct(down, 99):.2f}, max {max(down, default=float('nan')):.2f} ({len(down)} timers); "
          f"every table while its link was down (the cut, the broker's restart): p99 {pct(down_all, 99):.2f}, "
          f"max {max(down_all, default=float('nan')):.2f} ({len(down_all)}); "
          f"while up: p99 {pct(up, 99):.2f}, max {max(up, default=float('nan')):.2f} ({len(up)}); "
          f"table {kill_table} after its resume: max {max(again, default=float('nan')):.1f} ({len(again)})")  # fmt: skip
    print(
        f"  payload bytes per table per game minute: median {statistics.median(per_table):.0f}, "
        f"max {max(per_table):.0f}"
    )
    print(f"  CPU: broker {broker_cpu:.2f} s, this process (board + proxy) {own:.2f} s, "
          f"over {round_real:.0f} s")  # fmt: skip
    priorities = sorted({str(r.get("priority")) for r in reports.values()})
    print(f"  the tables' loop priority: {', '.join(priorities)}")
    unfinished = sorted(set(tables) - set(finished))
    if unfinished:
        print(f"  unfinished tables: {unfinished} (folder kept: {folder})")
    return 0 if len(board.protocols) == len(finished) == len(tables) == identical else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--speed", type=float, default=20.0)
    parser.add_argument("--script", default=str(SCRIPT))
    parser.add_argument("--load", type=int, default=0, help="CPU-bound neighbour processes")
    parser.add_argument("--wait", type=float, default=60.0, help="a table's wait for the hall")
    parser.add_argument(
        "--without-hall",
        action="store_true",
        help="the same tables and troubles with no [hall]: the timers' reference",
    )
    # a table's own process
    parser.add_argument("--table", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--start-at", type=float, default=0.0, help=argparse.SUPPRESS)
    parser.add_argument("--resume", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.table is not None:
        return table_main(args)
    return round_main(args)


if __name__ == "__main__":
    sys.exit(main())
