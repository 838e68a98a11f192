"""A real Mosquitto for the hall's tests: ``companion hall init``'s own
configuration in a temporary folder, on free ports of 127.0.0.1, started
and stopped around a test (as the PulseAudio null sink is for sound).
Needs the Debian package ``mosquitto`` (scripts/debian-packages-dev.txt)."""

from __future__ import annotations

import json
import queue
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from companion.hall.broker import Hall, init_hall, start_broker, stop_broker
from companion.hall.topics import BrokerAddress

needs_mosquitto = pytest.mark.skipif(
    shutil.which("mosquitto") is None and not Path("/usr/sbin/mosquitto").exists(),
    reason="the mosquitto package is not installed (scripts/setup.sh dev)",
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def make_hall(folder: Path, tables: tuple[int, ...] = (3, 4), **extra: Any) -> Hall:
    hall = Hall(
        folder=folder, event="cup", tables=tables, host="127.0.0.1", bind="127.0.0.1",
        port=free_port(), spectator_port=free_port(), **extra,
    )  # fmt: skip
    return init_hall(hall)


@pytest.fixture
def hall(tmp_path: Path) -> Iterator[Hall]:
    """A hall of tables 3 and 4, its broker running."""
    made = make_hall(tmp_path / "hall")
    process = start_broker(made)
    try:
        yield made
    finally:
        stop_broker(process)


class Listener:
    """A subscriber that keeps what it receives (a paho client)."""

    def __init__(self, broker: BrokerAddress, topic: str, client_id: str = "") -> None:
        import paho.mqtt.client as mqtt

        self.messages: queue.SimpleQueue[tuple[str, bytes, bool]] = queue.SimpleQueue()
        self.subscribed = threading.Event()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id)
        if broker.username:
            self.client.username_pw_set(broker.username, broker.password)
        if broker.tls_ca is not None:
            self.client.tls_set(ca_certs=str(broker.tls_ca))
        self.client.on_message = lambda c, u, m: self.messages.put((m.topic, m.payload, m.retain))
        self.client.on_subscribe = lambda *a: self.subscribed.set()
        self.client.on_connect = lambda c, u, f, rc, p: c.subscribe(topic, qos=1)
        self.client.connect(broker.host, broker.port, 10)
        self.client.loop_start()
        assert self.subscribed.wait(10), "no SUBACK"

    def take(self, until: float = 5.0) -> list[tuple[str, bytes, bool]]:
        """What arrived until the line has been quiet for a moment."""
        got: list[tuple[str, bytes, bool]] = []
        deadline = time.monotonic() + until
        while time.monotonic() < deadline:
            try:
                got.append(self.messages.get(timeout=0.3))
            except queue.Empty:
                if got:
                    break
        return got

    def wait_for(self, test: Any, timeout: float = 10.0) -> list[tuple[str, bytes, bool]]:
        """Messages until one passes ``test(topic, payload)``."""
        got: list[tuple[str, bytes, bool]] = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                item = self.messages.get(timeout=0.1)
            except queue.Empty:
                continue
            got.append(item)
            if test(item[0], item[1]):
                return got
        raise AssertionError(f"not received in {timeout} s; got {[t for t, _, _ in got]}")

    def drain(self, quiet_s: float) -> list[tuple[str, bytes, bool]]:
        """Every message still coming, until none has for ``quiet_s``."""
        got: list[tuple[str, bytes, bool]] = []
        while True:
            try:
                got.append(self.messages.get(timeout=quiet_s))
            except queue.Empty:
                return got

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def publish_as(broker: BrokerAddress, topic: str, payload: bytes, retain: bool = False) -> None:
    """Publish once with QoS 1 and wait for the broker's answer (an ACL's
    refusal is silent in MQTT 3.1.1: the message is dropped, PUBACK sent);
    ``retain``: as a table publishes its state."""
    import paho.mqtt.client as mqtt

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    client.username_pw_set(broker.username, broker.password)
    client.connect(broker.host, broker.port, 10)
    client.loop_start()
    try:
        client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(5)
    finally:
        client.disconnect()
        client.loop_stop()


def payloads(got: list[tuple[str, bytes, bool]]) -> list[dict[str, Any]]:
    return [json.loads(p) for _, p, _ in got if p.startswith(b"{")]


def play_at_table(
    script: Path, journal: Path, hall_settings: Any, *, until_line: int | None = None
) -> Any:
    """A live table of a hall (unthreaded, on a fake clock) playing a table
    script as the console's keys would; returns the table, not closed."""
    from companion.config.rulesets import load_ruleset
    from companion.core.events import GameSetUp
    from companion.live.assembly import LiveTable, Outputs, TableSpec
    from companion.runner.clock import FakeClock
    from companion.runner.script import parse_lines
    from companion.voice.settings import VoiceSettings

    lines = parse_lines(script.read_text(encoding="utf-8").splitlines(), str(script), load_ruleset)
    setup = next(line.event for line in lines if isinstance(line.event, GameSetUp))
    assert isinstance(setup, GameSetUp)
    clock = FakeClock()
    spec = TableSpec(
        voice=VoiceSettings(captions_only=True), seats="none", threaded=False,
        journal=journal, hall=hall_settings,
    )  # fmt: skip
    table = LiveTable(spec, setup.ruleset, setup.seats, outputs=Outputs(None, None), clock=clock)
    table.start()
    for line in lines:
        if until_line is not None and line.number > until_line:
            break
        clock.set(max(clock.now(), line.at))
        table.pump()
        if line.event is not None:
            ruleset = line.fields.get("ruleset")
            table.submit(
                line.event, at=line.at, ruleset=ruleset if isinstance(ruleset, str) else None
            )
    return table
