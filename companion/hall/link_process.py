"""The hall's publisher in a process of its own, the table's process its
client (``table_link.TableHall`` starts it).

Why a process: a thread of the table's process that runs Python (paho's
network thread, the link's) holds the interpreter while it runs, and when
the system takes the core from it there (a busy machine: a tournament
hall's Pi, forty tables' worth of reconnects at once) the table's timer
loop waits for it however high its priority. bench/hall.py measured it:
up to ~0.9 s late with the link on threads, within ~1 ms without a hall.
In a process of its own the link shares nothing with the loop but a socket.

The two talk over a Unix stream socket pair, one JSON object a line: the
table sends ``{"hello": ...}`` once, then one ``{"state", "captions",
"ended"}`` per update, then ``{"close": true}``; this process sends back
``{"line", "waiting", "connected"}`` when the console's line changes and
twice a second. It ends when told, or when the table's process is gone
(the socket closes, or its parent changes).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
from pathlib import Path
from typing import Any

from .settings import HallSettings
from .topics import BrokerAddress

#: how often the table is told how much waits
REPORT_EVERY_S = 0.5


def settings_message(settings: HallSettings, game_id: str, journal: Path | None) -> dict[str, Any]:
    b = settings.broker
    return {
        "hello": {
            "host": b.host, "port": b.port, "user": b.username, "password": b.password,
            "tls_ca": str(b.tls_ca) if b.tls_ca else None, "event": settings.event,
            "table": settings.table, "outbox": str(settings.outbox), "lang": settings.lang,
            "game": game_id, "journal": str(journal) if journal else None,
        }
    }  # fmt: skip


def _settings(hello: dict[str, Any]) -> HallSettings:
    ca = Path(hello["tls_ca"]) if hello.get("tls_ca") else None
    broker = BrokerAddress(hello["host"], int(hello["port"]), hello["user"], hello["password"], ca)
    return HallSettings(
        broker, hello["event"], int(hello["table"]), Path(hello["outbox"]), hello["lang"]
    )


def protocol_of(journal: Path | None, lang: str) -> bytes | None:
    """The game's protocol as ``companion protocol --format json`` prints it."""
    if journal is None:
        return None
    from ..config.rulesets import load_ruleset
    from ..protocol.archive import from_journal
    from ..protocol.formats import render

    made, _ = from_journal(journal, load_ruleset, lang)
    return render(made, "json").encode("utf-8")


def serve(fd: int) -> int:
    import threading

    from .link import HallLink  # paho: here, never in the table's process

    sock = socket.socket(fileno=fd)
    parent = os.getppid()
    incoming = sock.makefile("rb")
    hello = json.loads(incoming.readline())["hello"]
    settings = _settings(hello)
    journal = Path(hello["journal"]) if hello.get("journal") else None
    send_lock = threading.Lock()
    over = threading.Event()

    def report(line: str | None = None) -> None:
        message = {"line": line, "waiting": link.waiting(), "connected": link.connected}
        with send_lock, contextlib.suppress(OSError):
            sock.sendall(json.dumps(message, ensure_ascii=False).encode() + b"\n")

    link = HallLink(
        settings,
        hello["game"],
        lambda: protocol_of(journal, settings.lang),
        journal=journal,
        protocol_at=lambda path: protocol_of(path, settings.lang),
        on_status=lambda what, line: report(line),
    )

    def take() -> None:
        try:
            for data in incoming:
                message = json.loads(data)
                if message.get("close"):
                    break
                captions = [(int(seq), str(text)) for seq, text in message.get("captions", ())]
                link.offer(message.get("state"), captions, message.get("ended"))
        except (OSError, ValueError):
            pass
        over.set()

    link.start()
    threading.Thread(target=take, name="table lines", daemon=True).start()
    try:
        while not over.wait(REPORT_EVERY_S):
            if os.getppid() != parent:
                break  # the table's process is gone: what is in flight goes, then us
            report()
    finally:
        link.close()
        report()
    return 0


if __name__ == "__main__":
    sys.exit(serve(int(sys.argv[1])))
