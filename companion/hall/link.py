"""The hall's publisher: a table's public state, captions and protocols
to the hall's broker (paho-mqtt), in a process of its own beside the table's
(``link_process.py``; why a process: docs/hall.md, "The table's timers").

``offer`` takes one message from the table (its public state as of an
input, the captions that input said, whether the game has ended), keeps
the latest state and the captions under a lock and wakes the link's
thread; that thread publishes them with QoS 1 and counts what the broker
has not acknowledged. paho's own thread connects, and reconnects in the
background when the network or the broker goes away (a persistent session,
``clean_session=False``: paho sends again what was in flight).

What must not be lost is the protocol: at the game's end it is made from
the journal (byte for byte ``companion protocol --format json``), written
into the outbox folder, published retained, and its file removed only when
the broker has acknowledged it. A link started again (the table's process
killed and resumed, the next evening) publishes whatever the outbox still
holds; on every connect the current state is published again (retained:
the board finds it).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import words
from .settings import HallSettings
from .topics import CAPTIONS, LINK, STATE, protocol_topic, table_topic

log = logging.getLogger(__name__)

#: captions kept for the link's thread between two of its turns; past it
#: the oldest go (the state, retained, always says the last one)
MAX_CAPTIONS = 256
#: messages paho keeps while the broker is away (QoS 1); past it a caption
#: is dropped (counted); protocols wait in the outbox folder whatever this is
MAX_QUEUED = 2000
#: paho's reconnect back-off (seconds): first try soon, then at most this often
RECONNECT_MIN_S, RECONNECT_MAX_S = 1, 4
KEEPALIVE_S = 10
#: how long ``close`` waits for the broker to acknowledge what is in flight
CLOSE_WAIT_S = 1.0
#: how long ``close`` waits for the link's thread (making a protocol takes a while)
CLOSE_JOIN_S = 20.0

Status = Callable[[str, str], None]  # (what, line): the table's notice
Protocol = Callable[[], bytes | None]  # the finished game's protocol JSON


class HallLink:
    """One table's publisher. ``client``: a paho-like client (tests give
    a real one on a test broker); None: made from the settings."""

    def __init__(
        self,
        settings: HallSettings,
        game_id: str,
        protocol: Protocol,
        *,
        journal: Path | None = None,
        protocol_at: Callable[[Path], bytes | None] | None = None,
        on_status: Status | None = None,
        client: Any = None,
    ) -> None:
        self.settings = settings
        self.game_id = _topic_level(game_id)
        self._protocol = protocol
        #: the game's journal and how a protocol is made from one: an end
        #: whose protocol was not made yet (the process killed meanwhile) is
        #: made by the next link from its marker in the outbox
        self._journal, self._protocol_at = journal, protocol_at
        self._stopping = False
        self._on_status = on_status
        self._lock = threading.Lock()
        self._latest: dict[str, Any] | None = None  # the public state (topics.py)
        self._ended: bool | None = None  # the game has ended (None: no game yet)
        self._captions: list[tuple[int, str]] = []
        self._wake = threading.Event()
        self._acks: queue.SimpleQueue[int] = queue.SimpleQueue()
        self._connects: queue.SimpleQueue[bool] = queue.SimpleQueue()
        self.connected = False
        self._inflight: dict[int, str] = {}  # mid -> what ("state", "caption", a file's name)
        self._state_sent: bytes | None = None  # the state payload last handed to paho
        self._state_dirty = False  # a state not handed over (the broker away)
        self._protocol_sent: bytes | None = None
        self._announcement = ""
        self._parts: dict[int, int] = {}  # seq -> captions published of it
        self.dropped = 0  # captions dropped (paho's queue or ours full)
        self.published = 0
        self._shown = ""
        self._told = 0.0  # when the line was last told (time.monotonic)
        self._down_prefix = words.status_line(False, 0, settings.lang).split(",")[0]
        self._closing = False
        self._client = client if client is not None else self._make_client()
        self._thread = threading.Thread(target=self._run, name="hall link", daemon=True)

    # --- the table's side ---------------------------------------------------------------
    def offer(
        self, state: dict[str, Any] | None, captions: list[tuple[int, str]], ended: bool | None
    ) -> None:
        """After an accepted input: its public state (None: no game yet),
        the captions it said ((seq, text)) and whether the game has ended."""
        with self._lock:
            if state is not None:
                self._latest = state
            self._ended = ended
            self._captions.extend(captions)
            if len(self._captions) > MAX_CAPTIONS:
                self.dropped += len(self._captions) - MAX_CAPTIONS
                del self._captions[:-MAX_CAPTIONS]
        self._wake.set()

    # --- life ----------------------------------------------------------------------
    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        """Make what the thread had not taken yet (the end's protocol into
        the outbox), hand it over (a second at most), say ``offline`` and
        let the broker go; the outbox keeps an unacknowledged protocol."""
        if self._closing:
            return
        self._stopping = True
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(CLOSE_JOIN_S)
        with contextlib.suppress(Exception):
            self._turn()
        deadline = time.monotonic() + CLOSE_WAIT_S
        while time.monotonic() < deadline and self.connected and self.waiting():
            time.sleep(0.02)
            with contextlib.suppress(Exception):
                self._take_acks()
        self._closing = True
        with contextlib.suppress(Exception):
            if self.connected:
                self._client.publish(self._topic(LINK), b"offline", qos=1, retain=True)
            self._client.disconnect()
            self._client.loop_stop()

    def waiting(self) -> int:
        """Events the broker has not acknowledged (or not been handed)."""
        with self._lock:
            pending = len(self._captions)
            unmade = int(self._ended is True and self._protocol_sent is None)
        return (
            len(self._inflight) + int(self._state_dirty) + pending + unmade + self._outbox_waiting()
        )

    # --- paho ------------------------------------------------------------------------
    def _make_client(self) -> Any:
        import paho.mqtt.client as mqtt  # only a table with [hall] loads paho
        from paho.mqtt.enums import CallbackAPIVersion

        s, broker = self.settings, self.settings.broker
        client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=f"companion-{s.event}-table-{s.table}",
            clean_session=False,
            protocol=mqtt.MQTTv311,
        )
        if broker.username:
            client.username_pw_set(broker.username, broker.password or None)
        if broker.tls_ca is not None:
            client.tls_set(ca_certs=str(broker.tls_ca))
        client.will_set(self._topic(LINK), b"offline", qos=1, retain=True)
        client.reconnect_delay_set(RECONNECT_MIN_S, RECONNECT_MAX_S)
        client.max_queued_messages_set(MAX_QUEUED)
        client.max_inflight_messages_set(100)
        client.on_connect = self._connected
        client.on_disconnect = self._disconnected
        client.on_publish = self._acknowledged
        client.connect_async(broker.host, broker.port, KEEPALIVE_S)
        client.loop_start()  # its thread connects, and again whenever the link breaks
        return client

    def _connected(self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if not getattr(reason, "is_failure", False):
            self._connects.put(True)
            self._wake.set()

    def _disconnected(
        self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any
    ) -> None:
        self._connects.put(False)
        self._wake.set()

    def _acknowledged(self, client: Any, userdata: Any, mid: int, reason: Any, props: Any) -> None:
        self._acks.put(mid)
        self._wake.set()

    # --- the link's thread ---------------------------------------------------------------
    def _run(self) -> None:
        with contextlib.suppress(Exception):
            self._make_marked()
        while not self._stopping:
            self._wake.wait(1.0)
            self._wake.clear()
            try:
                self._turn()
            except Exception:  # the hall is never the game's trouble
                log.exception("the hall link's turn failed")

    def _turn(self) -> None:
        reconnected = False
        while not self._connects.empty():
            self.connected = self._connects.get()
            reconnected = reconnected or self.connected
        with self._lock:
            latest, ended, captions, self._captions = self._latest, self._ended, self._captions, []
        if reconnected:
            self._publish(self._topic(LINK), b"online", "link", retain=True)
            self._state_sent = None  # the broker may have lost it: again
        if latest is not None:
            self._publish_state(latest)
        for seq, text in captions:
            self._publish_caption(seq, text)
        if ended is not None:
            self._ending(ended)
        if reconnected:
            self._outbox_again()
        self._take_acks()
        self._tell()

    def _publish_state(self, state: dict[str, Any]) -> None:
        payload = _json(state)
        if payload == self._state_sent:
            return
        if not self.connected:  # retained: only the last one counts, sent on connect
            self._state_dirty = True
            return
        if self._publish(self._topic(STATE), payload, "state", retain=True):
            self._state_sent, self._state_dirty = payload, False

    def _publish_caption(self, seq: int, text: str) -> None:
        part = self._parts.get(seq, 0)
        self._parts = {seq: part + 1}  # only the newest input's count is needed
        payload = _json({"game": self.game_id, "seq": seq, "part": part, "text": text})
        if not self._publish(self._topic(CAPTIONS), payload, "caption"):
            self.dropped += 1

    def _ending(self, ended: bool) -> None:
        """The game's end: its protocol into the outbox, then published.
        An ending undone clears the retained protocol (the board drops it)."""
        if not ended:
            if self._protocol_sent is not None:
                self._protocol_sent = None
                self._outbox_file().unlink(missing_ok=True)
                self._publish(self._protocol_topic(), b"", "clear", retain=True)
            return
        if self._protocol_sent is not None:
            return
        path = self._outbox_file()
        marker = path.with_suffix(".pending")
        if self._journal is not None:  # before the long part: a kill leaves it
            _write_whole(marker, str(self._journal).encode())
        payload = self._protocol()
        if payload is None:
            return
        self._protocol_sent = payload
        _write_whole(path, payload)
        marker.unlink(missing_ok=True)
        self._publish(self._protocol_topic(), payload, path.name, retain=True)

    def _make_marked(self) -> None:
        """The protocols of games that ended while a link before this one
        was killed before making them: made now from their journals."""
        if self._protocol_at is None:
            return
        s = self.settings
        for marker in sorted(s.outbox.glob(f"{s.event}.{s.table}.*.pending")):
            if marker.stem == self._outbox_file().stem:
                continue  # this link's own game: its end makes it
            payload = self._protocol_at(Path(marker.read_text(encoding="utf-8")))
            if payload is not None:
                _write_whole(marker.with_suffix(".json"), payload)
            marker.unlink(missing_ok=True)

    def _outbox_again(self) -> None:
        """Every protocol of the outbox not in flight, published again."""
        flying = set(self._inflight.values())
        for path in self._outbox_files():
            if path.name not in flying:
                game = path.name.removesuffix(".json").split(".", 2)[-1]
                self._publish(
                    protocol_topic(self.settings.event, self.settings.table, game),
                    path.read_bytes(),
                    path.name,
                    retain=True,
                )

    def _publish(self, topic: str, payload: bytes, what: str, *, retain: bool = False) -> bool:
        """Handed to paho (it sends now, or when connected again); False:
        its queue is full."""
        info = self._client.publish(topic, payload, qos=1, retain=retain)
        if info.rc not in (0, 4):  # 4: MQTT_ERR_NO_CONN, queued until connected
            return False
        self._inflight[info.mid] = what
        self.published += 1
        return True

    def _take_acks(self) -> None:
        while not self._acks.empty():
            what = self._inflight.pop(self._acks.get(), None)
            if what is not None and what.endswith(".json"):
                (self.settings.outbox / what).unlink(missing_ok=True)  # delivered

    def _tell(self) -> None:
        """The console's line when it changes: a link that is up says only
        «всё доставлено» (what is in flight for a few ms is no news); a
        link that is down counts what waits, once a second at most."""
        waiting = self.waiting()
        if self.connected and waiting:
            return
        line = words.status_line(self.connected, waiting, self.settings.lang)
        now = time.monotonic()
        soon = (
            not self.connected
            and self._shown.startswith(self._down_prefix)
            and now < self._told + 1
        )
        if line != self._shown and self._on_status is not None and not soon:
            self._shown, self._told = line, now
            try:
                self._on_status("hall", line)
            except Exception:
                log.exception("the hall's status could not be told")

    # --- the outbox ------------------------------------------------------------------------
    def _topic(self, sub: str) -> str:
        return table_topic(self.settings.event, self.settings.table, sub)

    def _protocol_topic(self) -> str:
        return protocol_topic(self.settings.event, self.settings.table, self.game_id)

    def _outbox_file(self) -> Path:
        s = self.settings
        return s.outbox / f"{s.event}.{s.table}.{self.game_id}.json"

    def _outbox_files(self) -> list[Path]:
        s = self.settings
        try:
            return sorted(s.outbox.glob(f"{s.event}.{s.table}.*.json"))
        except OSError:
            return []

    def _outbox_waiting(self) -> int:
        flying = set(self._inflight.values())
        return sum(1 for path in self._outbox_files() if path.name not in flying)


def _json(data: dict[str, Any]) -> bytes:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()


def _topic_level(name: str) -> str:
    """A game's id as one topic level: no wildcard, no separator."""
    kept = "".join(c if c.isalnum() or c in "-_." else "-" for c in name)
    return kept[:100] or "game"


def _write_whole(path: Path, data: bytes) -> None:
    """A temporary file, fsynced, renamed: the outbox never holds half a
    protocol."""
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(path.name + ".part")
    with part.open("wb") as stream:
        stream.write(data)
        stream.flush()
        os.fsync(stream.fileno())
    os.replace(part, path)
