"""The spectators' pages (issue 27, part 4): routes and the event stream
through Starlette's TestClient; then in headless Chromium, over a real
uvicorn on a free port, a TV page that shows a speech a table started
(pushed while the page is open, no reload) and the OBS overlay rendered on
a transparent background."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from hall_games import protocol_bytes
from starlette.testclient import TestClient
from test_protocol_chromium import decode_png, needs_chromium

from companion.hall import topics
from companion.hall.model import HallModel
from companion.hall.scoring import find_scheme
from companion.hall.web.pages import OVERLAY_HEIGHT, OVERLAY_WIDTH
from companion.hall.web.server import QUEUE, Hub, make_app

NAMES = ["Анна", "Борис", "Вера", "Глеб", "Даша", "Егор", "Жанна", "Зоя", "Игорь", "Кира"]


def state(table: int, seq: int, **fields: object) -> tuple[str, bytes]:
    body = {"game": f"g{table}", "seq": seq, "seats": 10, **fields}
    return topics.table_topic("cup", table, topics.STATE), json.dumps(body).encode()


def hub(now: float = 1000.0) -> Hub:
    return Hub(HallModel("cup"), find_scheme("tournament"), "ru", now=lambda: now)


def initial(page: str) -> list[dict[str, object]]:
    start = page.index('<script type="application/json" id="initial">') + 45
    return json.loads(page[start : page.index("</script>", start)])


# --- routes and the stream, in process ---------------------------------------------


def test_the_pages_carry_the_state_and_a_strict_policy() -> None:
    h = hub()
    h.take(*state(3, 1, phase="speech", speaker=7, deadline=1042.0,
                  players={"7": "</script><script>alert(1)</script>"}))  # fmt: skip
    with TestClient(make_app(h)) as client:
        index = client.get("/")
        assert index.status_code == 200 and 'href="/table/3"' in index.text
        assert 'href="/overlay/3"' in index.text
        tv = client.get("/table/3")
        assert "default-src 'none'; script-src 'self'" in tv.headers["content-security-policy"]
        assert "<script>alert" not in tv.text  # a name cannot close the data's <script>
        (table, standings) = initial(tv.text)
        assert table["table"]["speaker"] == 7 and table["now"] == 1000.0
        assert table["table"]["deadline"] == 1042.0 and standings["kind"] == "standings"
        assert 'data-page="overlay"' in client.get("/overlay/3").text
        assert client.get("/hall.js").headers["content-type"].startswith("text/javascript")
        assert client.get("/table/x").status_code == 404
        assert client.get("/events?table=0").status_code == 404
        assert client.get("/state").json()[0]["table"]["phase"] == "speech"


def test_the_standings_page_follows_the_protocols(tmp_path: Path) -> None:
    h = Hub(HallModel("cup"), find_scheme("tournament"), "en")
    won = protocol_bytes("tournament-red-win", tmp_path, NAMES)
    h.take(topics.protocol_topic("cup", 1, "g1"), won)
    with TestClient(make_app(h)) as client:
        (standings,) = initial(client.get("/standings").text)
    assert standings["head"][:2] == ["Place", "Player"]
    assert [row[1] for row in standings["rows"]][:2] == ["Анна", "Борис"]
    assert standings["count"] == "Protocols: 1"


def test_the_event_stream_pushes_each_change() -> None:
    h = hub()
    h.take(*state(3, 1, phase="night"))
    with TestClient(make_app(h)) as client, client.stream("GET", "/events?table=3") as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        assert h.loop is not None
        # a bound on a hang: the streams end (and the test fails) if nothing comes
        guard = threading.Timer(20.0, h.loop.call_soon_threadsafe, (h.close,))
        guard.start()
        lines = stream.iter_lines()

        def next_event() -> dict[str, object]:
            for line in lines:
                if line.startswith("data: "):
                    return json.loads(line[6:])
            raise AssertionError("the stream ended")

        seen = [next_event(), next_event()]  # the state so far: the table, the standings
        assert seen[0]["table"]["phase"] == "night" and seen[1]["kind"] == "standings"  # type: ignore[index]
        h.post(*state(4, 1, phase="day"))  # another table's: not on this stream
        h.post(*state(3, 2, phase="speech", speaker=5, deadline=1060.0))
        pushed = next_event()
        assert pushed["table"]["speaker"] == 5 and pushed["table"]["table"] == 3  # type: ignore[index]
        guard.cancel()
        h.loop.call_soon_threadsafe(h.close)  # the server stopping ends every stream
        assert [line for line in lines if line] == []  # it ends: nothing more


async def test_a_stream_that_falls_behind_is_closed_not_waited_for() -> None:
    h = hub()
    slow, quick = h.open(None), h.open(None)
    for seq in range(QUEUE + 1):
        h.take(*state(1, seq, phase="day"))
        while not quick.queue.empty():
            quick.queue.get_nowait()
    assert slow not in h.streams and quick in h.streams
    assert slow.queue.get_nowait() is None  # its end, in place of what it missed


# --- in headless Chromium, over a real server ----------------------------------------


@pytest.fixture
def server() -> Iterator[tuple[Hub, int]]:
    """uvicorn on a free port of 127.0.0.1, in a thread; stopped after."""
    h = Hub(HallModel("cup"), find_scheme("tournament"), "ru")
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(make_app(h), log_level="warning", timeout_graceful_shutdown=2)
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    end = time.monotonic() + 20
    while not running.started:
        assert time.monotonic() < end and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.02)
    yield h, sock.getsockname()[1]
    if h.loop is not None:
        h.loop.call_soon_threadsafe(h.close)
    running.should_exit = True
    thread.join(20)
    sock.close()


@needs_chromium
def test_a_tv_page_shows_a_speech_the_table_started(server: tuple[Hub, int]) -> None:
    from hall_cdp import Browser

    h, port = server
    h.post(*state(3, 1, phase="night", players={"7": "Анна"}))
    browser = Browser(1280, 720)
    try:
        browser.open(f"http://127.0.0.1:{port}/table/3")
        browser.wait_for("document.getElementById('phase').textContent === 'ночь'")
        assert browser.evaluate("document.getElementById('speaker').textContent") == ""
        # the table starts seat 7's speech: pushed to the open page, no reload
        browser.evaluate("window.loadedOnce = true")
        h.post(*state(3, 2, phase="speech", speaker=7, deadline=time.time() + 45,
                      players={"7": "Анна"}, fouls={"7": 2}))  # fmt: skip
        browser.wait_for("document.getElementById('speaker').textContent !== ''")
        speaker, timer, seat, same_page = browser.evaluate(
            "[document.getElementById('speaker').textContent,"
            " document.getElementById('timer').textContent,"
            " document.querySelector('.seat.speaking').textContent, window.loadedOnce]"
        )
        assert (speaker, same_page) == ("Говорит: 7 · Анна", True)
        assert seat == "7 · Анна⚠2"
        assert timer.startswith("0:4")  # counting down from 45 s in the browser
    finally:
        browser.close()


@needs_chromium
def test_the_overlay_renders_on_a_transparent_background(server: tuple[Hub, int]) -> None:
    from hall_cdp import Browser

    h, port = server
    h.post(*state(2, 1, phase="speech", speaker=4, deadline=time.time() + 30))
    browser = Browser(OVERLAY_WIDTH, OVERLAY_HEIGHT)
    try:
        browser.open(f"http://127.0.0.1:{port}/overlay/2", transparent=True)
        browser.wait_for("document.getElementById('o-timer').textContent.startsWith('0:')")
        pixels = decode_png(browser.screenshot(), alpha=True)
    finally:
        browser.close()
    assert pixels.shape == (OVERLAY_HEIGHT, OVERLAY_WIDTH, 4)
    alpha = pixels[:, :, 3]
    # above the panel and at the corners: nothing drawn, the video shows through
    assert (alpha[:50] == 0).all()
    assert alpha[0, 0] == alpha[-1, -1] == alpha[0, -1] == 0
    # the panel: drawn, most of it see-through a little (rgba .85), its text opaque
    panel = alpha[70:120, 30:770]
    assert (panel > 150).all()
    assert (panel == 255).any() and (panel < 255).mean() > 0.5
