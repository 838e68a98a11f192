"""The hall board (Textual) at 80x24 and 160x48: every table's row from its
state, the time left counted from the deadline on a held clock, the
standings from the protocols that arrived, the exports on a key."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hall_games import protocol_bytes
from rich.cells import cell_len
from textual.widgets import DataTable

from companion.hall import topics
from companion.hall.board.app import BoardApp, HallMessage
from companion.hall.model import HallModel
from companion.hall.scoring import find_scheme

NAMES = ["Анна", "Борис", "Вера", "Глеб", "Даша", "Егор", "Жанна", "Зоя", "Игорь", "Кира"]


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def state(table: int, seq: int, **fields: object) -> tuple[str, bytes]:
    body = {"game": f"g{table}", "seq": seq, **fields}
    return topics.table_topic("cup", table, topics.STATE), json.dumps(body).encode()


def board(clock: Clock, tmp_path: Path, lang: str = "ru") -> BoardApp:
    return BoardApp(
        HallModel("cup"), find_scheme("tournament"), lang, now=clock, export_dir=tmp_path / "out",
        tick_s=0,
    )  # fmt: skip


def cells(app: BoardApp, table: str) -> list[list[str]]:
    grid = app.query_one(f"#{table}", DataTable)
    return [[str(cell) for cell in grid.get_row(key)] for key in grid.rows]


def visible_within(app: BoardApp, width: int, height: int) -> None:
    for widget_id in ("title", "tables", "standings-title", "standings", "status"):
        region = app.query_one(f"#{widget_id}").region
        assert region.width > 0 and region.height > 0, widget_id
        assert region.right <= width and region.bottom <= height, (widget_id, region)
    # the announcement is cut to the room left: no row scrolls sideways, no cell is clipped
    grid = app.query_one("#tables", DataTable)
    for index, column in enumerate(grid.columns.values()):
        widest = max(cell_len(str(grid.get_row(key)[index])) for key in grid.rows)
        assert column.get_render_width(grid) >= widest + 2, column.key
    assert grid.virtual_size.width <= grid.scrollable_content_region.width, (
        grid.virtual_size,
        grid.scrollable_content_region,
        grid.show_horizontal_scrollbar,
    )


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_the_board_shows_every_table_and_the_standings(
    size: tuple[int, int], tmp_path: Path
) -> None:
    clock = Clock(1000.0)
    app = board(clock, tmp_path)
    async with app.run_test(size=size) as pilot:
        for topic, payload in (
            state(3, 4, phase="speech", speaker=7, deadline=1042.0, fouls={"2": 1},
                  out=[{"seat": 9, "why": "voted"}],
                  announcement="Говорит игрок 7: минута, и ещё много слов после неё, " * 3),
            state(1, 2, phase="night", deadline=None),
        ):  # fmt: skip
            app.post_message(HallMessage(topic, payload))
        app.post_message(HallMessage(topics.table_topic("cup", 1, topics.LINK), b"online"))
        won = protocol_bytes("tournament-red-win", tmp_path, NAMES)
        app.post_message(HallMessage(topics.protocol_topic("cup", 2, "g2"), won))
        await pilot.pause()
        rows = cells(app, "tables")
        assert [row[0] for row in rows] == ["1", "3"]  # by number
        assert rows[0][1:3] == ["●", "ночь"]
        assert rows[1][2:7] == ["речь", "7", "0:42", "9", "2:1"]
        assert rows[1][7].startswith("Говорит")
        # the clock moves: the next tick shows less
        clock.now = 1030.5
        app.show_tables()
        assert cells(app, "tables")[1][4] == "0:12"
        # the next speaker, more fouls (a wider cell): one row redrawn, still no scrolling
        topic, payload = state(
            3,
            5,
            phase="speech",
            speaker=8,
            deadline=1090.0,
            fouls={"2": 1, "5": 3, "8": 2},
            announcement="Говорит игрок 8, " * 9,
        )
        app.post_message(HallMessage(topic, payload))  # fmt: skip
        await pilot.pause()
        assert cells(app, "tables")[1][3:7] == ["8", "1:00", "—", "2:1 5:3 8:2"]
        standing = cells(app, "standings")
        assert len(standing) == 10 and standing[0][0] == "1" and standing[0][3] == "1"
        assert standing[-1][0] == "8"  # the three black seats share the eighth place
        visible_within(app, *size)


async def test_english_words_and_a_paused_timer(tmp_path: Path) -> None:
    app = board(Clock(0.0), tmp_path, lang="en")
    async with app.run_test(size=(80, 24)) as pilot:
        topic, payload = state(5, 1, phase="speech", speaker=2, paused_left=30.0)
        app.post_message(HallMessage(topic, payload))
        await pilot.pause()
        assert cells(app, "tables")[0][2:5] == ["speech", "2", "0:30 ⏸"]
        grid = app.query_one("#tables", DataTable)
        assert [str(c.label) for c in grid.columns.values()][:3] == ["Table", "Link", "Phase"]


async def test_a_duplicate_changes_nothing_on_the_board(tmp_path: Path) -> None:
    app = board(Clock(0.0), tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.post_message(HallMessage(*state(2, 5, phase="day")))
        app.post_message(HallMessage(*state(2, 5, phase="day")))  # the outbox again
        app.post_message(HallMessage(*state(2, 4, phase="night")))  # an older one, late
        await pilot.pause()
        assert cells(app, "tables")[0][2] == "день"


async def test_e_saves_the_standings_and_the_protocols(tmp_path: Path) -> None:
    app = board(Clock(0.0), tmp_path)
    won = protocol_bytes("tournament-red-win", tmp_path, NAMES)
    async with app.run_test(size=(80, 24)) as pilot:
        app.post_message(HallMessage(topics.protocol_topic("cup", 6, "g9"), won))
        await pilot.pause()
        await pilot.press("e")
        await pilot.pause()
        out = tmp_path / "out"
        assert app.status.startswith("Сохранено:")
        assert (out / "standings.csv").read_bytes().decode("utf-8-sig").count("\r\n") == 11
        assert zipfile.ZipFile(out / "protocols.zip").read("table-6/g9.json") == won


async def test_an_export_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    app = board(Clock(0.0), tmp_path)
    (tmp_path / "out").write_text("a file where the folder should be")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("e")
        await pilot.pause()
        assert app.status.startswith("Не сохранено:") and "\n" not in app.status


async def test_the_broker_shell_starts_with_the_board_and_stops_with_it(tmp_path: Path) -> None:
    """run_board's way: the subscriber started on mount, stopped on exit; the
    link's news on the status line."""
    from companion.hall.board.app import LinkChanged
    from companion.hall.topics import BrokerAddress

    calls: list[str] = []

    def start(app: BoardApp) -> Callable[[], None]:
        calls.append("start")
        app.post_message(HallMessage(*state(4, 1, phase="day")))  # as paho's thread posts
        return lambda: calls.append("stop")

    app = BoardApp(HallModel("cup"), find_scheme("wins"), "en", now=Clock(0.0), tick_s=0,
                   start=start, broker=BrokerAddress("hall.local", 1883))  # fmt: skip
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert calls == ["start"] and cells(app, "tables")[0][0] == "4"
        app.post_message(LinkChanged(False, "connection refused"))
        await pilot.pause()
        assert app.status == "Broker hall.local:1883 unreachable: connection refused"
        app.post_message(LinkChanged(True, ""))
        await pilot.pause()
        assert app.status == "Broker hall.local:1883: connected"
    assert calls == ["start", "stop"]


def test_a_bad_scheme_is_one_line_before_any_screen(capsys: pytest.CaptureFixture[str]) -> None:
    from companion.hall.board.app import run_board
    from companion.hall.topics import BrokerAddress
    from companion.hall.web.server import serve

    broker = BrokerAddress("127.0.0.1", 1)
    assert run_board(broker, "cup", "en", scheme="nope") == 2
    assert serve(broker, "cup", "127.0.0.1", 0, lang="en", scheme="nope") == 2
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and all(line.startswith("Scoring scheme: nope") for line in lines)
