"""The board's and the web pages' lag behind the tables, through a real
Mosquitto (issue 27's "state-to-board lag"; goal p99 <= 200 ms).

Run ``python bench/hall_board.py`` (about a minute; ``--seconds 5`` for a
quick look). It prints its figures and asserts nothing.

A Mosquitto of its own (a temporary config, a free port on 127.0.0.1,
anonymous, nothing kept on disk) takes ``--tables`` (40) simulated tables,
each its own paho client publishing its public state (a realistic payload
of some 600 bytes: ten seats with names, fouls, one out, an announcement)
``--rate`` times a second (2; a live table publishes on each input, far
less often), QoS 1 and retained, as the tables do. Each payload carries the
moment it was published (``bench_sent``, the monotonic clock: the tables and
the board are one process here, so one clock).

Two receivers, each its own subscriber (companion/hall/subscriber.py):

- ``board``: paho's thread feeds the HallModel directly, as the board's
  app does on its own thread after a post (Textual's drawing not counted);
- ``web``: paho's thread posts into an asyncio loop's Hub
  (hall/web/server.py), and a stream's queue is read by a coroutine, as an
  SSE response reads it (the HTTP write to the browser not counted).

Figures per load (0 and ``--neighbours`` CPU-bound processes): published,
received, dropped as duplicates; the lag publish -> the model holds it
p50/p99/max, and publish -> a page's stream has it; the model's cost per
message (its feed) p50/p99; the broker's CPU seconds over the run. Then
the Textual board's own work (headless, 160x48, no broker): a message taken
(the model's feed and its table's row's cells updated) and the timers' tick
(every row's cells, twice a second on the board) p50/p99; Textual draws the
changed cells afterwards on its loop, which is not counted.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from bench.cues import neighbours
from bench.naive import pct
from companion.hall import topics
from companion.hall.model import HallModel
from companion.hall.scoring import find_scheme
from companion.hall.subscriber import Subscriber
from companion.hall.web.server import Hub

NAMES = ["Анна", "Борис", "Вера", "Глеб", "Даша", "Егор", "Жанна", "Зоя", "Игорь", "Кира"]


def mosquitto(folder: Path) -> tuple[subprocess.Popen[bytes], int]:
    binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    config = folder / "mosquitto.conf"
    config.write_text(
        f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n"
        f"log_dest none\nuser {getpass.getuser()}\nmax_queued_messages 100000\n"
    )
    process = subprocess.Popen([binary, "-c", str(config)], stderr=subprocess.DEVNULL)
    for _ in range(400):
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return process, port
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise SystemExit("mosquitto did not start")


def payload(table: int, seq: int) -> bytes:
    return json.dumps(
        {
            "schema": 1,
            "game": f"t{table}-g1",
            "seq": seq,
            "phase": "speech",
            "day": 2,
            "speaker": 1 + seq % 10,
            "deadline": time.time() + 60,
            "paused_left": None,
            "out": [{"seat": 4, "why": "voted"}],
            "fouls": {"2": 1, "7": 3},
            "rights_lost": {"7": ["speak"]},
            "nominations": [3, 8],
            "votes": None,
            "result": None,
            "announcement": f"Говорит игрок номер {1 + seq % 10}",
            "seats": 10,
            "players": {str(n): name for n, name in enumerate(NAMES, 1)},
            "bench_sent": time.monotonic(),
        },
        ensure_ascii=False,
    ).encode()


class Board:
    """The board's receiver: the model fed on paho's thread."""

    def __init__(self, event: str) -> None:
        self.model = HallModel(event)
        self.lags: list[float] = []
        self.costs: list[float] = []
        self.received = 0

    def take(self, topic: str, data: bytes) -> None:
        self.received += 1
        start = time.perf_counter()
        update = self.model.feed(topic, data)
        self.costs.append(time.perf_counter() - start)
        if update is not None:
            sent = self.model.tables[update.table].state.get("bench_sent")
            self.lags.append(time.monotonic() - float(sent or 0))


class Web:
    """The pages' receiver: a Hub on its own loop, one stream read."""

    def __init__(self, event: str) -> None:
        self.hub = Hub(HallModel(event), find_scheme("wins"), "ru")
        self.lags: list[float] = []
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.hub.loop = self.loop
        self.thread.start()
        self.reader = asyncio.run_coroutine_threadsafe(self._read(), self.loop)

    async def _read(self) -> None:
        stream = self.hub.open(None)
        while (line := await stream.queue.get()) is not None:
            event = json.loads(line)
            if event["kind"] == "table":
                number = event["table"]["table"]
                sent = self.hub.model.tables[number].state.get("bench_sent")
                self.lags.append(time.monotonic() - float(sent or 0))

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.hub.close)
        self.reader.result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def run(tables: int, rate: float, seconds: float, busy: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        broker_process, port = mosquitto(Path(tmp))
        address = topics.BrokerAddress("127.0.0.1", port)
        procs = neighbours(busy)
        board, web = Board("bench"), Web("bench")
        links: list[Subscriber] = []
        try:
            ready = threading.Barrier(3)

            def linked(up: bool, why: str) -> None:
                if up:
                    ready.wait(10)

            for receiver in (board.take, web.hub.post):
                sub = Subscriber(address, "bench", receiver, linked)
                sub.start()
                links.append(sub)
            ready.wait(20)
            clients = []
            for n in range(1, tables + 1):
                client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"table-{n}")
                client.connect("127.0.0.1", port)
                client.loop_start()
                clients.append(client)
            cpu_before = _cpu(broker_process.pid)
            published = 0
            start = time.monotonic()
            step = 1.0 / (rate * tables)
            seq = 0
            while time.monotonic() - start < seconds:
                seq += 1
                for n, client in enumerate(clients, 1):
                    topic = topics.table_topic("bench", n, topics.STATE)
                    client.publish(topic, payload(n, seq), qos=1, retain=True)
                    published += 1
                    pause = start + published * step - time.monotonic()
                    if pause > 0:
                        time.sleep(pause)
            time.sleep(1.0)  # the last messages on their way
            cpu = _cpu(broker_process.pid) - cpu_before
            for client in clients:
                client.disconnect()
                client.loop_stop()
        finally:
            for sub in links:
                sub.stop()
            web.stop()
            for proc in procs:
                proc.kill()
                proc.wait()
            broker_process.terminate()
            broker_process.wait(10)
    print(
        f"  {tables} tables x {rate:g}/s for {seconds:g} s, {busy} CPU-bound neighbours: "
        f"published {published}, board received {board.received} "
        f"(duplicates dropped {board.model.duplicates}), web streamed {len(web.lags)}"
    )
    print(
        f"    publish -> board model: p50 {pct(board.lags, 0.5):.1f} ms, "
        f"p99 {pct(board.lags, 0.99):.1f} ms, max {pct(board.lags, 1.0):.1f} ms"
    )
    print(
        f"    publish -> a page's stream: p50 {pct(web.lags, 0.5):.1f} ms, "
        f"p99 {pct(web.lags, 0.99):.1f} ms, max {pct(web.lags, 1.0):.1f} ms"
    )
    print(
        f"    the model's feed per message: p50 {pct(board.costs, 0.5) * 1000:.0f} us, "
        f"p99 {pct(board.costs, 0.99) * 1000:.0f} us; broker CPU {cpu:.2f} s "
        f"({cpu / seconds * 100:.1f}% of a core)"
    )


def board_cost(tables: int, messages: int) -> None:
    """The Textual board's own work per message with `tables` rows (headless,
    160x48): the model's feed plus the row's cells updated, on the app's
    thread (the drawing that follows on Textual's loop is not counted)."""
    from companion.hall.board.app import BoardApp

    async def measure() -> tuple[list[float], list[float]]:
        app = BoardApp(HallModel("bench"), find_scheme("wins"), "ru", tick_s=0)
        takes: list[float] = []
        ticks: list[float] = []
        async with app.run_test(size=(160, 48)) as pilot:
            for n in range(1, tables + 1):
                app.take(topics.table_topic("bench", n, topics.STATE), payload(n, 1))
            await pilot.pause()
            for seq in range(2, 2 + messages // tables):
                for n in range(1, tables + 1):
                    data = payload(n, seq)
                    start = time.perf_counter()
                    app.take(topics.table_topic("bench", n, topics.STATE), data)
                    takes.append(time.perf_counter() - start)
                start = time.perf_counter()
                app.show_tables()  # the timers' tick (twice a second)
                ticks.append(time.perf_counter() - start)
                await pilot.pause()
        return takes, ticks

    takes, ticks = asyncio.run(measure())
    print(
        f"  the board app, {tables} tables (cells updated, drawing not counted): a message p50 {pct(takes, 0.5):.2f} ms, "
        f"p99 {pct(takes, 0.99):.2f} ms; the timers' tick (every row) p50 "
        f"{pct(ticks, 0.5):.2f} ms, p99 {pct(ticks, 0.99):.2f} ms"
    )


def _cpu(pid: int) -> float:
    """A process's user + system CPU seconds (from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tables", type=int, default=40, help="simulated tables (40)")
    parser.add_argument("--rate", type=float, default=2.0, help="states a second per table (2)")
    parser.add_argument("--seconds", type=float, default=20.0, help="each run's length (20)")
    parser.add_argument("--neighbours", type=int, default=2, help="CPU-bound neighbours (2)")
    args = parser.parse_args()
    print(f"hall board lag, {os.cpu_count()} cores, load average {os.getloadavg()}")
    for busy in (0, args.neighbours):
        run(args.tables, args.rate, args.seconds, busy)
    board_cost(args.tables, 2000)


if __name__ == "__main__":
    main()
