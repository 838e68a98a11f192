"""Messages a receiver has seen already, dropped (the board, the web pages).

A table sends again what the broker may not have had (its outbox after a
reconnect, paho's own resend of an unacknowledged message), and the broker
hands a retained message again to every new subscription: the same
message may arrive twice. Pure: the receiver asks ``fresh`` of each one.

- ``state``: a newer sequence number of the same game is fresh; the same
  one only if its payload differs (one input may post the state twice,
  the second with its announcement); an older one is stale.
- ``captions``: fresh once per (game, seq, part).
- ``protocol/<game>``: fresh once per table, game and payload (an ending
  undone and made again is a new protocol).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from .topics import CAPTIONS, PROTOCOL, STATE, parse_table_topic

#: captions remembered per receiver: far more than a round says in the
#: time a table can be away (an outage's resend is what is deduplicated)
MAX_CAPTIONS = 20_000


class Dedup:
    def __init__(self, max_captions: int = MAX_CAPTIONS) -> None:
        self._states: dict[tuple[str, int, str], tuple[int, bytes]] = {}
        self._captions: OrderedDict[tuple[str, int, str, int, int], None] = OrderedDict()
        self._protocols: dict[tuple[str, int, str], bytes] = {}
        self._max = max_captions
        self.dropped = 0  # how many were not fresh

    def fresh(self, topic: str, payload: bytes, data: dict[str, Any] | None = None) -> bool:
        """True the first time this message is seen; ``data``: the payload
        already parsed (by the caller), else only the topic and bytes count.
        Messages of other topics are always fresh."""
        place = parse_table_topic(topic)
        if place is None:
            return True
        event, table, sub = place
        seen = self._seen(event, table, sub, payload, data or {})
        if seen:
            self.dropped += 1
        return not seen

    def _seen(self, event: str, table: int, sub: str, payload: bytes, data: dict[str, Any]) -> bool:
        game, seq = str(data.get("game", "")), _int(data.get("seq"))
        if sub == STATE:
            key = (event, table, game)
            last = self._states.get(key)
            if last is not None and (seq < last[0] or (seq == last[0] and payload == last[1])):
                return True
            self._states[key] = (seq, payload)
            return False
        if sub == CAPTIONS:
            caption = (event, table, game, seq, _int(data.get("part")))
            if caption in self._captions:
                return True
            self._captions[caption] = None
            if len(self._captions) > self._max:
                self._captions.popitem(last=False)
            return False
        if sub.startswith(PROTOCOL + "/"):
            kept = (event, table, sub)
            if self._protocols.get(kept) == payload:
                return True
            self._protocols[kept] = payload
        return False


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
