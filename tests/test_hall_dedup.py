"""The receiver's duplicates dropped (companion/hall/dedup.py)."""

from __future__ import annotations

import json

from companion.hall.dedup import Dedup
from companion.hall.topics import CAPTIONS, STATE, protocol_topic, table_topic


def _msg(data: dict[str, object]) -> tuple[bytes, dict[str, object]]:
    return json.dumps(data).encode(), data


def test_a_state_again_or_older_is_dropped() -> None:
    dedup, topic = Dedup(), table_topic("cup", 3, STATE)
    first = _msg({"game": "g", "seq": 5, "phase": "night"})
    assert dedup.fresh(topic, *first)
    assert not dedup.fresh(topic, *first)  # sent again after a reconnect
    assert not dedup.fresh(topic, *_msg({"game": "g", "seq": 4, "phase": "day"}))  # stale
    assert dedup.fresh(topic, *_msg({"game": "g", "seq": 5, "phase": "night", "announcement": "x"}))
    assert dedup.fresh(topic, *_msg({"game": "g", "seq": 6}))
    assert dedup.fresh(topic, *_msg({"game": "h", "seq": 1}))  # the next game starts over
    assert dedup.fresh(table_topic("cup", 4, STATE), *first)  # another table
    assert dedup.dropped == 2


def test_captions_once_per_game_seq_and_part() -> None:
    dedup, topic = Dedup(max_captions=3), table_topic("cup", 3, CAPTIONS)
    a = _msg({"game": "g", "seq": 5, "part": 0, "text": "a"})
    b = _msg({"game": "g", "seq": 5, "part": 1, "text": "b"})
    assert dedup.fresh(topic, *a) and dedup.fresh(topic, *b)
    assert not dedup.fresh(topic, *a) and not dedup.fresh(topic, *b)


def test_a_protocol_once_unless_it_changed() -> None:
    dedup, topic = Dedup(), protocol_topic("cup", 3, "g")
    assert dedup.fresh(topic, b'{"a":1}')
    assert not dedup.fresh(topic, b'{"a":1}')
    assert dedup.fresh(topic, b'{"a":2}')  # an ending undone and made again


def test_other_topics_are_always_fresh() -> None:
    dedup = Dedup()
    assert dedup.fresh("elsewhere/x", b"1") and dedup.fresh("elsewhere/x", b"1")
