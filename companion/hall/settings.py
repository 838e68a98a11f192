"""What a table's hall link is made of, from the club's config.

Small and light: the console and the table's spec carry it, and a table
without ``[hall]`` never imports more of the hall than this module's name
(the console imports it only when the config has a hall).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..config.values import Config
from .topics import BrokerAddress

#: the folder, beside the journals, where a finished game's protocol waits
#: until the broker has acknowledged it (docs/hall.md, "When the network fails")
OUTBOX = "hall-outbox"


@dataclass(frozen=True, slots=True)
class HallSettings:
    broker: BrokerAddress
    event: str
    table: int
    outbox: Path  # the protocols not yet acknowledged, one file a game
    lang: str = "ru"  # the protocol's language (as ``companion protocol``)


def hall_settings(config: Config) -> HallSettings | None:
    """The table's hall (None: the config has no ``[hall]``)."""
    hall = config.hall
    if hall.host is None or hall.event is None or hall.table is None:
        return None
    broker = BrokerAddress(hall.host, hall.port, hall.user or "", hall.password or "", hall.tls_ca)
    outbox = config.paths.journals.parent / OUTBOX
    return HallSettings(broker, hall.event, hall.table, outbox, config.lang)
