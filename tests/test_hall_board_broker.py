"""The board's side over a real Mosquitto (issue 27): a table's state and a
protocol published to the broker reach the board's model and the web
pages through the subscriber shell (paho-mqtt).

The broker is the test's own: a temporary config, a free port on
127.0.0.1, started and stopped here (Debian's ``mosquitto``; the hall-tables
branch puts it in scripts/debian-packages-dev.txt and brings a shared
fixture with the hall's ACL, tests/hall_broker.py, which this may move to:
this one is anonymous, for the board alone).
"""

from __future__ import annotations

import getpass
import io
import json
import queue
import shutil
import socket
import subprocess
import threading
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from hall_games import protocol_bytes
from paho.mqtt.enums import CallbackAPIVersion
from starlette.testclient import TestClient

from companion.hall import topics
from companion.hall.exports import export_from_broker
from companion.hall.model import HallModel
from companion.hall.scoring import find_scheme
from companion.hall.subscriber import Subscriber
from companion.hall.web.server import Hub, make_app

MOSQUITTO = shutil.which("mosquitto") or (
    "/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None
)
_DEBIAN = Path("/etc/debian_version").exists() and shutil.which("apt-get") is not None
pytestmark = pytest.mark.skipif(
    MOSQUITTO is None and not _DEBIAN, reason="no mosquitto (not Debian)"
)
#: a bound on a hang (a broker that never starts, a message never delivered)
LIMIT_S = 20.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_mosquitto(port: int, folder: Path) -> subprocess.Popen[bytes]:
    """Mosquitto on 127.0.0.1:port, anonymous, nothing kept on disk;
    returned once it accepts connections."""
    assert MOSQUITTO is not None, "mosquitto is missing: scripts/setup.sh dev installs it"
    config = folder / f"mosquitto-{port}.conf"
    config.write_text(
        f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n"
        f"log_dest stderr\nuser {getpass.getuser()}\n"
    )
    process = subprocess.Popen(
        [MOSQUITTO, "-c", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    end = time.monotonic() + LIMIT_S
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return process
        except OSError:
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < end, "mosquitto did not listen"
            time.sleep(0.05)


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    process.wait(10)
    if process.stderr is not None:
        process.stderr.close()


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[topics.BrokerAddress]:
    port = free_port()
    process = start_mosquitto(port, tmp_path)
    yield topics.BrokerAddress("127.0.0.1", port)
    stop(process)


def publish(broker: topics.BrokerAddress, messages: list[tuple[str, bytes]]) -> None:
    """As a table does: QoS 1, retained, each one acknowledged."""
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="table-3")
    client.connect(broker.host, broker.port)
    client.loop_start()
    try:
        for topic, payload in messages:
            client.publish(topic, payload, qos=1, retain=True).wait_for_publish(LIMIT_S)
    finally:
        client.disconnect()
        client.loop_stop()


def state(seq: int, **fields: object) -> tuple[str, bytes]:
    body = {"game": "g1", "seq": seq, "seats": 10, **fields}
    return topics.table_topic("cup", 3, topics.STATE), json.dumps(body).encode()


def test_the_board_model_follows_the_broker(broker: topics.BrokerAddress, tmp_path: Path) -> None:
    won = protocol_bytes("tournament-red-win", tmp_path, None)
    # published before the board connects: the retained messages come on subscribing
    publish(broker, [state(1, phase="night"), (topics.protocol_topic("cup", 3, "g0"), won)])
    inbox: queue.Queue[tuple[str, bytes]] = queue.Queue()
    links: queue.Queue[bool] = queue.Queue()
    subscriber = Subscriber(broker, "cup", lambda t, p: inbox.put((t, p)),
                            lambda up, why: links.put(up))  # fmt: skip
    model = HallModel("cup")
    subscriber.start()
    try:
        assert links.get(timeout=LIMIT_S) is True

        def until(done: object) -> None:
            while not callable(done) or not done():
                topic, payload = inbox.get(timeout=LIMIT_S)
                model.feed(topic, payload)

        until(lambda: 3 in model.tables and model.games)
        assert model.tables[3].phase == "night"
        assert model.raw_protocols[(3, "g0")] == won  # byte for byte
        # a speech starts at the table: the board sees it
        publish(broker, [state(2, phase="speech", speaker=6, deadline=2e9)])
        until(lambda: model.tables[3].speaker == 6)
        assert model.duplicates == 0
    finally:
        subscriber.stop()


def test_the_web_pages_follow_the_broker(broker: topics.BrokerAddress) -> None:
    hub = Hub(HallModel("cup"), find_scheme("tournament"), "ru")
    subscriber = Subscriber(broker, "cup", hub.post)
    app = make_app(hub, on_start=subscriber.start, on_stop=subscriber.stop)
    with TestClient(app) as client, client.stream("GET", "/events?table=3") as stream:
        assert hub.loop is not None
        # a bound on a hang: the streams end (and next() fails) if nothing comes
        guard = threading.Timer(LIMIT_S, hub.loop.call_soon_threadsafe, (hub.close,))
        guard.start()
        lines = (line for line in stream.iter_lines() if line.startswith("data: "))
        assert json.loads(next(lines)[6:])["kind"] == "standings"  # nothing yet at table 3
        publish(broker, [state(1, phase="speech", speaker=2, deadline=2e9)])
        pushed = json.loads(next(lines)[6:])
        assert pushed["table"]["speaker"] == 2 and pushed["table"]["deadline"] == 2e9
        assert client.get("/state").json()[0]["table"]["phase"] == "speech"
        guard.cancel()
        hub.loop.call_soon_threadsafe(hub.close)


def test_the_standings_export_from_the_broker(broker: topics.BrokerAddress, tmp_path: Path) -> None:
    won = protocol_bytes("tournament-red-win", tmp_path, None)
    drawn = protocol_bytes("tournament-draw-5-6", tmp_path, None)
    publish(broker, [(topics.protocol_topic("cup", 3, "g0"), won),
                     (topics.protocol_topic("cup", 5, "g1"), drawn)])  # fmt: skip
    archive, table = tmp_path / "round.zip", tmp_path / "standings.csv"
    out, err = io.StringIO(), io.StringIO()
    code = export_from_broker(broker, "cup", "tournament", archive_path=archive, csv_path=table,
                              out=out, err=err, quiet_s=0.5)  # fmt: skip
    assert code == 0, err.getvalue()
    with zipfile.ZipFile(archive) as kept:
        assert kept.namelist() == ["table-3/g0.json", "table-5/g1.json"]
        assert kept.read("table-3/g0.json") == won and kept.read("table-5/g1.json") == drawn
    assert table.read_bytes().decode("utf-8-sig").count("\r\n") == 1 + 10 + 7


def test_a_broker_away_is_one_line(tmp_path: Path) -> None:
    err = io.StringIO()
    away = topics.BrokerAddress("127.0.0.1", free_port())
    with_limit = {"csv_path": tmp_path / "s.csv", "out": io.StringIO(), "err": err}
    assert export_from_broker(away, "cup", "wins", **with_limit) == 2  # type: ignore[arg-type]
    assert err.getvalue().startswith("Брокер 127.0.0.1:") and err.getvalue().count("\n") == 1
    assert "refused or not there" in err.getvalue()


def test_the_subscriber_waits_for_a_broker_that_comes_later(tmp_path: Path) -> None:
    port = free_port()
    links: queue.Queue[bool] = queue.Queue()
    subscriber = Subscriber(topics.BrokerAddress("127.0.0.1", port), "cup", lambda t, p: None,
                            lambda up, why: links.put(up))  # fmt: skip
    subscriber.start()
    process = None
    try:
        process = start_mosquitto(port, tmp_path)  # the hall's machine comes up after the board
        while not links.get(timeout=LIMIT_S):
            pass  # refusals while it was away
    finally:
        subscriber.stop()
        if process is not None:
            stop(process)
