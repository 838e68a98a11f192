"""What the hall knows of its tables, fed one MQTT message at a time (pure).

:class:`HallModel` takes ``(topic, payload bytes)`` as the broker delivers
them (topics.py names the tree) and keeps, per table, the last public state,
the last announcement and whether the table is online, and every protocol
that arrived. It knows no MQTT client, no clock and no screen: the board
(hall/board), the web pages (hall/web) and the tests feed it alike, and the
time left is counted from the state's ``deadline`` by whoever shows it, with
its own ``now``.

What a table sends twice is dropped here: the outbox sends again after a
reconnect, and the broker delivers a retained message again on every
subscription. Whether a message was seen is hall/dedup.py's ``Dedup``
(one set of rules for every receiver, and the one bench/hall.py measures
through this model): a state older than the last of its game, or of the
same seq and bytes (one input may post the state twice, the second with
its announcement); a caption by (game, seq, part); a protocol by (table,
game) and its bytes (a different one, an ending undone and made again,
replaces it, byte for byte as sent: the archive holds what the table
sent). The model adds its own: a state or caption of a game the table has
left behind is dropped too. A payload that is not what topics.py says is
refused with one line kept in ``refused``, never raised.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import topics
from .dedup import Dedup
from .standings import Game

#: refusal lines kept (the oldest go first)
KEEP_REFUSED = 50
#: the largest payload taken (a protocol of a long game is ~100 KB)
MAX_PAYLOAD = 4 << 20


@dataclass(slots=True)
class TableView:
    """One table as the hall sees it."""

    table: int
    link: str = ""  # "online", "offline", "" before the table said
    game: str = ""  # the game its state is of
    state: dict[str, Any] = field(default_factory=dict)
    announcement: str = ""
    announcement_seq: int = -1
    past_games: set[str] = field(default_factory=set)

    # what the board and the pages show, read off the state
    @property
    def phase(self) -> str:
        return _text(self.state.get("phase"))

    @property
    def speaker(self) -> int | None:
        value = self.state.get("speaker")
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    @property
    def deadline(self) -> float | None:
        return _number(self.state.get("deadline"))

    @property
    def paused_left(self) -> float | None:
        return _number(self.state.get("paused_left"))

    def time_left(self, now: float) -> float | None:
        """Seconds the running timer has left at wall-clock `now` (epoch
        seconds); the paused timer's left; None when no timer runs."""
        if self.deadline is not None:
            return max(0.0, self.deadline - now)
        return self.paused_left

    @property
    def out(self) -> list[tuple[int, str]]:
        found = []
        for item in self.state.get("out") or ():
            if isinstance(item, Mapping) and isinstance(item.get("seat"), int):
                found.append((int(item["seat"]), _text(item.get("why"))))
        return found

    @property
    def fouls(self) -> dict[int, int]:
        found: dict[int, int] = {}
        raw = self.state.get("fouls")
        if isinstance(raw, Mapping):
            for seat, count in raw.items():
                if str(seat).isdigit() and isinstance(count, int) and count > 0:
                    found[int(seat)] = count
        return dict(sorted(found.items()))

    @property
    def seats(self) -> int:
        value = self.state.get("seats")
        return value if isinstance(value, int) and 0 < value <= 64 else 0

    @property
    def players(self) -> dict[int, str]:
        raw = self.state.get("players")
        if not isinstance(raw, Mapping):
            return {}
        return {int(k): _text(v) for k, v in raw.items() if str(k).isdigit()}

    @property
    def result(self) -> str:
        raw = self.state.get("result")
        if not isinstance(raw, Mapping):
            return ""
        winner = raw.get("winner")  # the winning teams (a list), or one
        if isinstance(winner, list):
            return ", ".join(_text(team) for team in winner) or "—"
        return _text(winner) or "—"

    def public(self) -> dict[str, Any]:
        """The table as the web pages take it (JSON): the state's fields,
        checked, never a field the state did not name."""
        return {
            "table": self.table,
            "link": self.link,
            "game": self.game,
            "phase": self.phase,
            "speaker": self.speaker,
            "deadline": self.deadline,
            "paused_left": self.paused_left,
            "out": [{"seat": s, "why": w} for s, w in self.out],
            "fouls": {str(s): c for s, c in self.fouls.items()},
            "seats": self.seats,
            "players": {str(s): n for s, n in self.players.items()},
            "result": self.result,
            "announcement": self.announcement,
        }


@dataclass(frozen=True, slots=True)
class Update:
    """What one message changed: a table's view, the standings, or both."""

    table: int
    standings: bool = False


def _text(value: object) -> str:
    return value if isinstance(value, str) else "" if value is None else str(value)


def _number(value: object) -> float | None:
    """A JSON number as a float; None for anything else (true, NaN, text)."""
    if isinstance(value, int | float) and not isinstance(value, bool) and value == value:
        return float(value)
    return None


class HallModel:
    """Every table of one event, fed the broker's messages."""

    def __init__(self, event: str) -> None:
        self.event = event
        self.tables: dict[int, TableView] = {}
        #: (table, game) -> the protocol as it arrived
        self.raw_protocols: dict[tuple[int, str], bytes] = {}
        self.games: dict[tuple[int, str], Game] = {}
        self.refused: deque[str] = deque(maxlen=KEEP_REFUSED)
        self.dedup = Dedup()  # what was seen: the decision for every receiver
        self.duplicates = 0  # dropped: seen (Dedup) or of a game left behind

    def table(self, number: int) -> TableView:
        if number not in self.tables:
            self.tables[number] = TableView(number)
        return self.tables[number]

    def feed(self, topic: str, payload: bytes) -> Update | None:
        """Take one message; what it changed, or None (another event's, a
        duplicate, an empty retained clear, a refused payload)."""
        parsed = topics.parse_table_topic(topic)
        if parsed is None or parsed[0] != self.event or not payload:
            return None
        _, number, sub = parsed
        if len(payload) > MAX_PAYLOAD:
            return self._refuse(topic, f"larger than {MAX_PAYLOAD} bytes")
        if sub == topics.LINK:
            text = payload.decode("utf-8", "replace").strip()
            if text not in ("online", "offline"):
                return self._refuse(topic, "not online or offline")
            self.table(number).link = text
            return Update(number)
        if sub.startswith(topics.PROTOCOL + "/"):
            return self._protocol(topic, number, sub.partition("/")[2], payload)
        if sub not in (topics.STATE, topics.CAPTIONS):
            return None
        try:
            data = json.loads(payload.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            return self._refuse(topic, "not UTF-8 JSON")
        game, seq = (data.get("game"), data.get("seq")) if isinstance(data, dict) else (None, None)
        if not isinstance(game, str) or not isinstance(seq, int) or isinstance(seq, bool):
            return self._refuse(topic, "no game (text) and seq (number)")
        view = self.table(number)
        if game in view.past_games or not self.dedup.fresh(topic, payload, data):
            self.duplicates += 1
            return None
        if sub == topics.STATE:
            return self._state(view, game, seq, data)
        return self._caption(view, game, seq, data)

    def _state(self, view: TableView, game: str, seq: int, data: dict[str, Any]) -> Update | None:
        if game != view.game:
            if view.game:
                view.past_games.add(view.game)
            view.announcement, view.announcement_seq = "", -1
        view.game, view.state = game, data
        said = data.get("announcement")
        if isinstance(said, str) and said and seq >= view.announcement_seq:
            view.announcement, view.announcement_seq = said, seq
        return Update(view.table)

    def _caption(self, view: TableView, game: str, seq: int, data: dict[str, Any]) -> Update | None:
        text = data.get("text")
        if not isinstance(text, str):
            return self._refuse(
                topics.table_topic(self.event, view.table, topics.CAPTIONS), "no text"
            )
        if game == view.game and seq < view.announcement_seq:
            return None  # an older caption than the state's announcement
        view.announcement, view.announcement_seq = text, seq
        return Update(view.table)

    def _protocol(self, topic: str, number: int, game: str, payload: bytes) -> Update | None:
        key = (number, game)
        if not game or "/" in game:
            return self._refuse(topic, "no game id")
        if not self.dedup.fresh(topic, payload):
            self.duplicates += 1
            return None
        try:
            data = json.loads(payload.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            return self._refuse(topic, "not UTF-8 JSON")
        if not isinstance(data, dict) or data.get("format") != "companion-protocol/1":
            return self._refuse(topic, "not a companion-protocol/1 protocol")
        self.raw_protocols[key] = payload
        self.games[key] = Game(number, game, data)
        return Update(number, standings=True)

    def _refuse(self, topic: str, why: str) -> Update | None:
        """Keep the one line; nothing changed (None)."""
        self.refused.append(f"{topic}: {why}")
        return None

    def protocols(self) -> list[Game]:
        """The arrived protocols, by table and game id."""
        return [self.games[key] for key in sorted(self.games)]
