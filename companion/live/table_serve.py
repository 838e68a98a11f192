"""The live table's process: it waits for the console's order, builds the
table, then takes the console's inputs and sends back what the table says
(``table_process`` is the console's side; ``table_messages`` what goes
between them).

The process imports the table's parts and opens the sound device while it
waits, so the table is ready soon after the order comes. A table that
cannot be built is not worded here: the error itself goes up the pipe
where it can (the console words it as it words any error), else its line.
"""

from __future__ import annotations

import logging
import os
import pickle
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from ..core.events import Event
from ..runner.child_log import log_to
from ..runner.clock import GameClock
from .table_messages import BEAT_EVERY_S, CLOSE_TIMEOUT_S, SWITCH_INTERVAL_S, TableOrder, TableReady
from .table_wire import StateSender

log = logging.getLogger(__name__)


def serve(orders: Connection, news: Connection, log_file: Path | None, voice: Any) -> None:
    """The table process's main: wait for the order, build, then take the
    console's messages until it says close (or goes away)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # ctrl+c is the console's to handle
    if log_file is not None:
        log_to(log_file, "table")
    from . import assembly  # the slow imports, while the host sets up the game

    # The audio callback needs the interpreter every few ms: while the table
    # is built (the voice loaded, a journal replayed) it must still get it.
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    speaker = _open_early(voice)
    try:
        order: TableOrder = orders.recv()
    except (EOFError, OSError):
        if speaker is not None:
            speaker.close()
        return  # a spare nobody needed
    if speaker is not None and order.spec.voice != voice:
        speaker.close()  # the settings changed: the table opens its own
        speaker = None
    outbox: queue.SimpleQueue[tuple[str, Any] | None] = queue.SimpleQueue()
    try:
        table, warnings = _build(assembly, order, outbox, speaker)
    except Exception as error:  # one line for the host, the whole story in the log
        log.exception("the table could not be built")
        news.send(("failed", failure(error)))
        return
    sender = threading.Thread(
        target=send_news,
        args=(news, outbox, lambda: table.loop.last_turn),
        name="news",
        daemon=True,
    )
    clock = table.clock
    outbox.put(("ready", TableReady(
        spec=table.spec,
        update=assembly.Update(table.session.now, table.game, dict(table.session.timers.deadlines), ()),
        clock_origin=clock.origin,
        start_at=clock.start_at,
        speed=clock.speed,
        sound=table.voice.sound,
        simulated_seats=table.simulated_seats is not None,
        warnings=tuple(warnings),
    )))  # fmt: skip
    sender.start()
    table.start()
    try:
        _take_orders(table, orders, outbox)
    finally:
        table.close()
        outbox.put(("closed", None))
        outbox.put(None)
        sender.join(CLOSE_TIMEOUT_S)


def _open_early(voice: Any) -> Any:
    """The sound device, opened before the order comes (None: captions, or
    no settings given; a device that fails is the table's to report)."""
    if voice is None or voice.captions_only:
        return None
    from ..voice.settings import speaker_for
    from ..voice.speaker import CaptionSpeaker

    speaker = speaker_for(voice, None)
    if isinstance(speaker, CaptionSpeaker):
        return None  # no sound card: the table finds the same and says so
    return speaker


def _build(
    assembly: Any, order: TableOrder, outbox: queue.SimpleQueue[Any], speaker: Any
) -> tuple[Any, list[str]]:
    def updated(update: Any) -> None:
        outbox.put(("update", update))

    def refused(event: Event, reason: str, line: int | None) -> None:
        outbox.put(("refused", (reason, line)))

    def notice(what: str, line: str) -> None:
        outbox.put(("notice", (what, line)))

    def speed(table: Any) -> None:  # the clock's anchor, for the console's to follow
        outbox.put(("speed", (*table.clock.anchor, table.sound)))

    session, warnings, rules, seats = None, [], order.rules, order.seat_count
    if order.resume is not None:
        from ..config.rulesets import load_ruleset
        from ..runner.resume import resume_journal

        resumed = resume_journal(order.resume, load_ruleset)
        session, warnings = resumed.session, resumed.warnings
        game = session.game
        if game is None:
            raise ValueError(f"{order.resume}: no game to resume")
        rules, seats = game.rules, len(game.seats)
    assert rules is not None
    table = assembly.LiveTable(
        replace(order.spec, threaded=True),
        rules,
        seats,
        # Every cue is in the console's log already; captions go nowhere.
        outputs=assembly.Outputs(captions=open(os.devnull, "w"), host_log=None),  # noqa: SIM115
        session=session,
        clock=_lagging_clock(order, session.now if session is not None else 0.0),
        on_update=updated,
        on_refused=refused,
        on_notice=notice,
        speaker=speaker,
        lang=order.lang,
        on_speed=speed,
    )
    return table, warnings


def _lagging_clock(order: TableOrder, start: float) -> GameClock | None:
    """The game clock ``order.lag`` seconds behind ``start`` (None: no lag,
    the table's own clock)."""
    if not order.lag:
        return None
    speed = order.spec.speed
    return GameClock(start_at=start - order.lag * speed, speed=speed)


def _take_orders(table: Any, orders: Connection, outbox: queue.SimpleQueue[Any]) -> None:
    while True:
        try:
            message = orders.recv()
        except (EOFError, OSError):
            return  # the console went away: close the table, keep the journal
        kind = message[0]
        if kind == "submit":
            _, event, at, line, ruleset = message
            table.submit(event, at=at, line=line, ruleset=ruleset)
        elif kind == "seat":
            seats = table.simulated_seats
            if seats is not None:
                getattr(seats, message[1])(message[2])
        elif kind == "speed":
            table.set_speed(message[1])
        elif kind == "timing":
            outbox.put(("timing", table.timing()))
        elif kind == "close":
            return


def send_news(
    news: Connection,
    outbox: queue.SimpleQueue[tuple[str, Any] | None],
    last_turn: Callable[[], float],
) -> None:
    """Packing and pickling a state take a millisecond or so: done here,
    never on the loop's thread. Every ``BEAT_EVERY_S`` the loop's last turn
    goes up too: the loop's own stamp, so a hung loop sends an old one."""
    states = StateSender()
    beat_due = time.monotonic() + BEAT_EVERY_S  # "ready", queued already, goes first
    while True:
        now = time.monotonic()
        if now >= beat_due:
            beat_due = now + BEAT_EVERY_S
            item: tuple[str, Any] | None = ("beat", last_turn())
        else:
            try:
                item = outbox.get(timeout=beat_due - now)
            except queue.Empty:
                continue
        if item is None:
            return
        kind, body = item
        if kind == "update":
            body = states.pack_update(body)
        elif kind == "ready":
            body = replace(body, update=states.pack_update(body.update))
        try:
            news.send((kind, body))
        except (OSError, ValueError):
            return  # the console went away
        except Exception:  # a state that cannot be sent: the next one will be
            log.exception("news for the console could not be sent")


def failure(error: BaseException) -> tuple[str, BaseException | None]:
    """Why the table was not built, for the console: one line, and the error
    itself if it crosses the pipe whole (the same kind, the same words)."""
    text = " ".join(str(error).split()) or type(error).__name__
    line = text if len(text) <= 300 else text[:297] + "..."
    try:
        copy = pickle.loads(pickle.dumps(error))
    except Exception:  # an error of a kind that cannot be rebuilt: its line goes
        return line, None
    same = type(copy) is type(error) and str(copy) == str(error)
    return line, copy if same else None
