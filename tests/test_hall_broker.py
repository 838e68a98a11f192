"""The hall's security, by a real Mosquitto on ``companion hall init``'s
configuration (tests/hall_broker.py): what each user may write and read."""

from __future__ import annotations

import json
from pathlib import Path

from hall_broker import (
    Listener,
    hall,  # noqa: F401  (the fixture)
    needs_mosquitto,
    payloads,
    play_at_table,
    publish_as,
)
from helpers import EXAMPLES

from companion.config.rulesets import load_ruleset
from companion.hall.broker import BOARD, SPECTATOR, Hall, credentials
from companion.hall.settings import HallSettings
from companion.hall.topics import STATE, BrokerAddress, table_topic

pytestmark = needs_mosquitto


def _spectators(h: Hall, user: str = SPECTATOR) -> BrokerAddress:
    address = h.address(user, "127.0.0.1")
    return BrokerAddress("127.0.0.1", h.spectator_port, address.username, address.password)


def test_table_3_cannot_publish_as_table_4(hall: Hall) -> None:  # noqa: F811
    board = Listener(hall.address(BOARD, "127.0.0.1"), "mafia/cup/table/+/state")
    try:
        publish_as(
            hall.address("table3", "127.0.0.1"), table_topic("cup", 4, STATE), b'{"forged":1}'
        )
        publish_as(hall.address("table4", "127.0.0.1"), table_topic("cup", 4, STATE), b'{"own":4}')
        publish_as(hall.address("table3", "127.0.0.1"), table_topic("cup", 3, STATE), b'{"own":3}')
        got = board.take()
    finally:
        board.close()
    assert sorted(p for _, p, _ in got) == [b'{"own":3}', b'{"own":4}']


def test_a_table_reads_nothing_of_another(hall: Hall) -> None:  # noqa: F811
    table3 = Listener(hall.address("table3", "127.0.0.1"), "#")
    board = Listener(hall.address(BOARD, "127.0.0.1"), "#")
    try:
        publish_as(hall.address("table4", "127.0.0.1"), table_topic("cup", 4, STATE), b"{}")
        assert board.take()  # it was published
        assert table3.take(1.0) == []
    finally:
        table3.close()
        board.close()


def test_the_spectator_cannot_publish(hall: Hall) -> None:  # noqa: F811
    board = Listener(hall.address(BOARD, "127.0.0.1"), "#")
    watcher = Listener(_spectators(hall), "mafia/cup/table/+/state")
    try:
        publish_as(_spectators(hall), table_topic("cup", 3, STATE), b'{"forged":1}')
        publish_as(hall.address(BOARD, "127.0.0.1"), table_topic("cup", 3, STATE), b'{"forged":2}')
        assert board.take(1.5) == []
        publish_as(hall.address("table3", "127.0.0.1"), table_topic("cup", 3, STATE), b'{"own":3}')
        assert [p for _, p, _ in watcher.take()] == [b'{"own":3}']  # it reads
    finally:
        board.close()
        watcher.close()


def test_no_anonymous_client_and_no_wrong_password(hall: Hall) -> None:  # noqa: F811
    import paho.mqtt.client as mqtt

    answers = []
    for user, password, port in (
        (None, None, hall.port),
        ("table3", "wrong", hall.port),
        (None, None, hall.spectator_port),  # anonymous spectators are off unless enabled
        ("table3", credentials(hall.folder)["table3"], hall.port),  # the control
    ):
        said: list[object] = []
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        client.on_connect = lambda c, u, f, reason, p, said=said: said.append(reason)
        if user:
            client.username_pw_set(user, password)
        client.connect("127.0.0.1", port, 5)
        for _ in range(100):
            client.loop(0.05)
            if said:
                break
        client.disconnect()
        answers.append(getattr(said[0], "is_failure", None) if said else "no answer")
    assert answers == [True, True, True, False]


def test_the_board_sees_no_role_before_the_end(hall: Hall, tmp_path: Path) -> None:  # noqa: F811
    """A whole game played at table 3; a subscriber to ``#`` with the board's
    user: no payload names a role or a team until the protocol arrives."""
    board = Listener(hall.address(BOARD, "127.0.0.1"), "#")
    settings = HallSettings(hall.address("table3", "127.0.0.1"), "cup", 3, tmp_path / "outbox")
    script = EXAMPLES / "tournament-red-win.jsonl"
    table = play_at_table(script, tmp_path / "journals" / "game1.jsonl", settings)
    seen = {"protocol": False, "ended": False}

    def both(topic: str, payload: bytes) -> bool:
        # the protocol and the last state go by separate paths of the
        # publisher: on a busy machine either may reach the broker first
        seen["protocol"] |= "/protocol/" in topic
        seen["ended"] |= topic.endswith("/state") and b'"phase":"ended"' in payload
        return seen["protocol"] and seen["ended"]

    try:
        got = board.wait_for(both, timeout=30)
        got += board.drain(quiet_s=1.0)  # the last input's captions, sent after its state
    finally:
        table.close()
        board.close()
    rules = load_ruleset("tournament")
    secret = {role.id for role in rules.roles} | {team.id for team in rules.teams}
    # Every payload but the ended state (who won is public once the game has
    # ended) and the protocol (made from the journal once it has ended, the
    # one payload that names the roles). The states in between are a
    # retained "latest wins": how many of them get out depends on the
    # machine's pace, the captions all do (a whole game says dozens).
    ended = [(t, p) for t, p, _ in got if t.endswith("/state") and b'"phase":"ended"' in p]
    checked = [(t, p) for t, p, _ in got if "/protocol/" not in t and (t, p) not in ended]
    assert sum(t.endswith("/captions") for t, _ in checked) > 20
    for topic, payload in checked:
        assert topic.startswith("mafia/cup/table/3/")
        text = payload.decode()
        for word in secret:
            assert f'"{word}"' not in text, (topic, word, text[:200])
    states = [p for p in payloads(got) if "phase" in p]
    assert states[0]["game"] == "game1" and states[-1]["phase"] == "ended"
    protocols = [p for t, p, _ in got if "/protocol/" in t]
    assert len(protocols) == 1
    protocol = json.loads(protocols[0])
    assert any(word in json.dumps(protocol) for word in secret)  # roles revealed at the end
