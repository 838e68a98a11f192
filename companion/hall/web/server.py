"""The spectators' web server (``companion hall web``): Starlette + uvicorn
on the hall's machine, subscribed to the broker's public topics.

Routes: ``/`` (the tables, with links), ``/table/<N>`` (a page for a TV),
``/overlay/<N>`` (an OBS browser source: transparent, fixed size),
``/standings``, ``/events`` (server-sent events: every change, as JSON, to
every page; ``?table=N`` for one table's) and ``/state`` (the whole hall as
JSON). The pages take their script and style from ``/hall.js`` and
``/hall.css``, and the Content Security Policy allows nothing else.

:class:`Hub` owns the :class:`HallModel` on the server's event loop: paho's
thread hands each message over with ``post`` (``call_soon_threadsafe``);
each event stream reads a queue of its own, and one too slow to keep up is
closed rather than let to hold the rest (the browser's EventSource connects
again and starts from the whole state).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from ..board_words import words
from ..exports import standings_rows
from ..model import HallModel
from ..scoring import Scheme, ScoringError, find_scheme
from ..standings import standings
from ..topics import BrokerAddress
from . import pages

#: what one event stream may fall behind before it is closed
QUEUE = 256
#: a comment line this often keeps proxies and the browser from closing a quiet stream
KEEPALIVE_S = 15.0
HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
    "connect-src 'self'; img-src 'self'",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}


class Stream:
    """One page's event stream: its queue, and the table it follows (None: all)."""

    def __init__(self, table: int | None) -> None:
        self.table = table
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(QUEUE)

    def end(self) -> None:
        while not self.queue.empty():
            self.queue.get_nowait()
        self.queue.put_nowait(None)


class Hub:
    """The hall's model on the server's loop, and the streams that follow it."""

    def __init__(
        self, model: HallModel, scheme: Scheme, lang: str, now: Callable[[], float] = time.time
    ) -> None:
        self.model, self.scheme, self.lang, self.now = model, scheme, lang, now
        self.loop: asyncio.AbstractEventLoop | None = None
        self.streams: set[Stream] = set()

    # --- messages in ------------------------------------------------------------

    def post(self, topic: str, payload: bytes) -> None:
        """From any thread (paho's): the message taken on the server's loop."""
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self.take, topic, payload)

    def take(self, topic: str, payload: bytes) -> None:
        update = self.model.feed(topic, payload)
        if update is None:
            return
        if update.table in self.model.tables:  # a protocol may come before any state
            self._send(self.table_event(update.table), update.table)
        if update.standings:
            self._send(self.standings_event(), None)

    # --- what is sent -------------------------------------------------------------

    def table_event(self, number: int) -> dict[str, Any]:
        return {"kind": "table", "now": self.now(), "table": self.model.tables[number].public()}

    def standings_event(self) -> dict[str, Any]:
        rows = standings_rows(standings(self.model.protocols(), self.scheme), self.lang)
        count = words(self.lang)["protocols"].format(count=len(self.model.games))
        return {
            "kind": "standings",
            "head": [str(cell) for cell in rows[0]],
            "rows": [[str(cell) for cell in row] for row in rows[1:]],
            "count": count,
        }

    def snapshot(self, table: int | None = None) -> list[dict[str, Any]]:
        """The whole hall as events (or one table's and the standings)."""
        numbers = sorted(self.model.tables) if table is None else [table]
        found = [self.table_event(n) for n in numbers if n in self.model.tables]
        return [*found, self.standings_event()]

    # --- the streams ----------------------------------------------------------------

    def _send(self, event: dict[str, Any], table: int | None) -> None:
        line = json.dumps(event, ensure_ascii=False)
        for stream in list(self.streams):
            if table is not None and stream.table is not None and stream.table != table:
                continue
            try:
                stream.queue.put_nowait(line)
            except asyncio.QueueFull:  # too slow: closed, it comes back for the whole state
                self.streams.discard(stream)
                stream.end()

    def open(self, table: int | None) -> Stream:
        stream = Stream(table)
        self.streams.add(stream)
        return stream

    def close(self) -> None:
        """Every stream ends (the server stops)."""
        for stream in list(self.streams):
            self.streams.discard(stream)
            stream.end()


def _table_number(request: Request) -> int | None:
    raw = request.path_params.get("table", request.query_params.get("table"))
    if raw is None:
        return None
    text = str(raw)
    return int(text) if text.isdigit() and len(text) <= 4 else -1


def make_app(
    hub: Hub, *, on_start: Callable[[], None] | None = None,
    on_stop: Callable[[], None] | None = None,
) -> Starlette:  # fmt: skip
    """The pages over a hub; `on_start`/`on_stop` run with the server (the
    broker's subscriber)."""
    event, lang = hub.model.event, hub.lang

    async def index(request: Request) -> Response:
        body = pages.index_body(event, sorted(hub.model.tables), lang)
        return _html(pages.page("index", event, body, [], lang))

    async def table_page(request: Request) -> Response:
        number = _table_number(request)
        if number is None or number < 1:
            return Response("no such table\n", 404, headers=HEADERS)
        body = pages.tv_body(number, lang)
        title = f"{words(lang)['table']} {number}"
        return _html(pages.page("tv", title, body, hub.snapshot(number), lang, number))

    async def overlay(request: Request) -> Response:
        number = _table_number(request)
        if number is None or number < 1:
            return Response("no such table\n", 404, headers=HEADERS)
        title = f"{words(lang)['table']} {number}"
        body = pages.overlay_body()
        return _html(pages.page("overlay", title, body, hub.snapshot(number), lang, number))

    async def standings_page(request: Request) -> Response:
        body = pages.standings_body(event, hub.scheme.title, lang)
        title = words(lang)["standings"]
        return _html(pages.page("standings", title, body, [hub.standings_event()], lang))

    async def state(request: Request) -> Response:
        return JSONResponse(hub.snapshot(), headers=HEADERS)

    async def events(request: Request) -> Response:
        number = _table_number(request)
        if number is not None and number < 1:
            return Response("no such table\n", 404, headers=HEADERS)
        opened = hub.open(number)

        async def stream() -> AsyncIterator[str]:
            try:
                for item in hub.snapshot(number):
                    yield f"data: {json.dumps(item, ensure_ascii=False)}\n\n"
                while True:
                    try:
                        line = await asyncio.wait_for(opened.queue.get(), KEEPALIVE_S)
                    except TimeoutError:
                        yield ": keep-alive\n\n"
                        continue
                    if line is None:
                        return
                    yield f"data: {line}\n\n"
            finally:
                hub.streams.discard(opened)

        headers = {**HEADERS, "X-Accel-Buffering": "no"}
        return StreamingResponse(stream(), media_type="text/event-stream", headers=headers)

    async def script(request: Request) -> Response:
        return Response(pages.SCRIPT, media_type="text/javascript", headers=HEADERS)

    async def style(request: Request) -> Response:
        return Response(pages.CSS, media_type="text/css", headers=HEADERS)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        hub.loop = asyncio.get_running_loop()
        if on_start is not None:
            on_start()
        try:
            yield
        finally:
            if on_stop is not None:
                on_stop()
            hub.close()

    return Starlette(
        routes=[
            Route("/", index),
            Route("/table/{table}", table_page),
            Route("/overlay/{table}", overlay),
            Route("/standings", standings_page),
            Route("/state", state),
            Route("/events", events),
            Route("/hall.js", script),
            Route("/hall.css", style),
        ],
        lifespan=lifespan,
    )


def _html(text: str) -> HTMLResponse:
    return HTMLResponse(text, headers=HEADERS)


def serve(
    broker: BrokerAddress, event: str, host: str, port: int, *, lang: str = "ru",
    scheme: str = "tournament",
) -> int:  # fmt: skip
    """``companion hall web``: the pages on host:port until stopped (Ctrl+C).
    2 with one line when the scoring scheme is bad."""
    import uvicorn

    from ..subscriber import Subscriber

    try:
        chosen = find_scheme(scheme)
    except ScoringError as error:
        print(words(lang)["no_scheme"].format(why=error))
        return 2
    hub = Hub(HallModel(event), chosen, lang)
    subscriber = Subscriber(broker, event, hub.post)
    app = make_app(hub, on_start=subscriber.start, on_stop=subscriber.stop)
    uvicorn.run(app, host=host, port=port, log_level="warning")
    return 0
