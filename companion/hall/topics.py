"""The hall's topics and the shape of what is published on them.

Everything a table publishes lies under ``mafia/<event>/table/<N>/``; the
broker's ACL lets table N write there only, and the spectators' user read
only the public topics named here. One module names them so the table's
publisher, the board, the web pages and the ACL file cannot disagree.

Payloads are UTF-8 JSON objects; every one carries ``game`` (the game's id,
the journal's) and ``seq`` (the journal's sequence number of the event it
follows), so a message sent twice (the outbox after a reconnect) is dropped
by (game, seq) at the receiver.

- ``state`` (QoS 1, retained): the table's public state — ``phase``,
  ``speaker`` (seat or null), ``deadline`` (wall-clock epoch seconds when the
  running timer ends, null when none runs; pages count down from it, no
  ticking number is sent), ``paused_left`` (seconds, when paused), ``out``
  ([{"seat", "why"}]), ``fouls`` ({seat: count}), ``rights_lost``
  ({seat: [right, ...]}), ``nominations`` ([seat, ...]), ``votes``
  ({seat: count} once announced, else null), ``result`` (null or
  {"winner": [team, ...], "reason"}), ``announcement`` (the last public
  caption), ``seats`` (the number of seats), ``players`` ({seat: name}),
  ``day``, ``schema`` (1), ``at`` (wall-clock epoch seconds when the table
  took the input: the board's lag is measured from it).
- ``captions`` (QoS 1, not retained): {"game", "seq", "part", "text"} per
  public caption (``part``: the caption's place among its input's, so that
  one input's two captions are not each other's duplicates).
- ``protocol/<game>`` (QoS 1, retained): the game's protocol, byte for byte
  ``companion protocol --format json`` (roles revealed: only after the end).
- ``link`` (retained; the client's last will says ``offline``):
  ``online`` / ``offline``.

A role, a check, a night choice or anything the host log holds is never
published before its game has ended.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ROOT = "mafia"
STATE = "state"
CAPTIONS = "captions"
PROTOCOL = "protocol"
LINK = "link"
#: the sub-topics a spectator may read (the ACL's read-only lines)
PUBLIC = (STATE, CAPTIONS, f"{PROTOCOL}/+", LINK)


def table_prefix(event: str, table: int) -> str:
    """``mafia/<event>/table/<N>``: all that table N publishes."""
    return f"{ROOT}/{event}/table/{table}"


def table_topic(event: str, table: int, sub: str) -> str:
    """One of a table's topics, e.g. ``table_topic("cup", 3, STATE)``."""
    return f"{table_prefix(event, table)}/{sub}"


def protocol_topic(event: str, table: int, game: str) -> str:
    """Where the protocol of one game is kept (retained)."""
    return table_topic(event, table, f"{PROTOCOL}/{game}")


def all_tables(event: str, sub: str) -> str:
    """A subscription to one sub-topic of every table (``+`` for the number)."""
    return f"{ROOT}/{event}/table/+/{sub}"


def parse_table_topic(topic: str) -> tuple[str, int, str] | None:
    """(event, table, sub) of a table's topic; None for any other topic."""
    parts = topic.split("/")
    if len(parts) < 5 or parts[0] != ROOT or parts[2] != "table" or not parts[3].isdigit():
        return None
    return parts[1], int(parts[3]), "/".join(parts[4:])


@dataclass(frozen=True)
class BrokerAddress:
    """How a client reaches the hall's broker (the table's ``[hall]``, the
    board's and the web server's settings)."""

    host: str
    port: int
    username: str = ""
    password: str = ""
    #: the CA certificate for TLS (``companion hall init --tls`` makes it); None: plain TCP
    tls_ca: Path | None = None
