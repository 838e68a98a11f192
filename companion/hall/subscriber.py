"""The board's and the web pages' thin MQTT shell: paho-mqtt subscribed to
the public topics of every table of one event, each message handed on as
``(topic, payload)``.

paho runs its network loop on a thread of its own (``loop_start``); the
callbacks here only hand the message over (the board posts it into the
Textual app, the web server into its event loop), never touch a model. A
broker away is paho's to reconnect to (``reconnect_delay_set``); the
retained messages come again on every subscription, which the model drops
by (game, seq). paho is imported here only, so nothing else of the
companion loads it.
"""

from __future__ import annotations

import ssl
from collections.abc import Callable
from typing import Any

from . import topics

#: (topic, payload) from paho's thread
OnMessage = Callable[[str, bytes], None]
#: True when connected, False when the link is lost; the reason in words
OnLink = Callable[[bool, str], None]


class Subscriber:
    """One client reading the public topics of an event."""

    def __init__(
        self,
        broker: topics.BrokerAddress,
        event: str,
        on_message: OnMessage,
        on_link: OnLink | None = None,
        client_id: str = "",
    ) -> None:
        import paho.mqtt.client as mqtt
        from paho.mqtt.enums import CallbackAPIVersion

        self.broker, self.event = broker, event
        self._on_message, self._on_link = on_message, on_link
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv311
        )
        if broker.username:
            self.client.username_pw_set(broker.username, broker.password)
        if broker.tls_ca is not None:
            self.client.tls_set(ca_certs=str(broker.tls_ca), cert_reqs=ssl.CERT_REQUIRED)
        self.client.reconnect_delay_set(min_delay=1, max_delay=10)
        self.client.on_connect = self._connected
        self.client.on_disconnect = self._disconnected
        self.client.on_connect_fail = self._failed
        self.client.on_message = self._message

    def subscriptions(self) -> list[tuple[str, int]]:
        """Every public sub-topic of every table, QoS 1."""
        return [(topics.all_tables(self.event, sub), 1) for sub in topics.PUBLIC]

    def start(self) -> None:
        """Connect in the background: a broker not there yet is retried."""
        self.client.connect_async(self.broker.host, self.broker.port, keepalive=30)
        self.client.loop_start()

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def _connected(self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            self._link(False, str(reason))
            return
        client.subscribe(self.subscriptions())
        self._link(True, "")

    def _disconnected(
        self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any
    ) -> None:
        self._link(False, str(reason))

    def _failed(self, client: Any, userdata: Any) -> None:
        # the broker refused or is not there (paho tries again after a delay)
        self._link(False, "no connection")

    def _message(self, client: Any, userdata: Any, message: Any) -> None:
        self._on_message(message.topic, bytes(message.payload))

    def _link(self, up: bool, why: str) -> None:
        if self._on_link is not None:
            self._on_link(up, why)
