"""The hall board (``companion hall``): every table of the event at once and
the standings, live from the broker.

The app holds a :class:`HallModel` and shows it; paho's thread only posts
each message into the app (Textual's ``post_message`` is thread-safe), where
the model takes it on the app's own thread. The timers count down on the
board from each state's ``deadline`` (``now`` given, so a test holds the
clock). ``e`` saves the standings (CSV, HTML) and the round's protocols
(zip) into the export folder.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.cells import cell_len as cell_length
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import DataTable, Static

from ...textfiles.printable import printable
from ..board_words import words
from ..exports import write_exports
from ..model import HallModel
from ..scoring import Scheme, ScoringError, find_scheme
from ..standings import standings
from ..topics import BrokerAddress
from .rows import STANDING_COLUMNS, TABLE_COLUMNS, standing_cells, table_cells

#: the last announcement's cells at the least (cut with "…" beyond the room left)
MIN_SAID = 12


@dataclass
class HallMessage(Message):
    """One message from the broker (posted from paho's thread)."""

    topic: str
    payload: bytes


@dataclass
class LinkChanged(Message):
    up: bool
    why: str


class BoardApp(App[int]):
    CSS_PATH = "board.tcss"
    TITLE = "companion hall"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "quit"),
        Binding("e", "export", "export"),
    ]

    def __init__(
        self,
        model: HallModel,
        scheme: Scheme,
        lang: str = "ru",
        *,
        now: Callable[[], float] = time.time,
        export_dir: Path | None = None,
        tick_s: float = 0.5,
        start: Callable[[BoardApp], Callable[[], None]] | None = None,
        broker: BrokerAddress | None = None,
    ) -> None:
        super().__init__()
        self.model, self.scheme, self.lang = model, scheme, lang
        self.words = words(lang)
        self.now = now
        self.export_dir = export_dir or Path.cwd() / f"hall-{model.event}"
        self.tick_s = tick_s
        self._start = start
        self._stop: Callable[[], None] | None = None
        self.broker = broker
        self.status = ""
        self._said_room = MIN_SAID

    def compose(self) -> ComposeResult:
        yield Static(printable(self.words["title"].format(event=self.model.event)), id="title")
        yield DataTable(id="tables", cursor_type="row", zebra_stripes=True)
        yield Static(self._standings_title(), id="standings-title")
        yield DataTable(id="standings", cursor_type="row", zebra_stripes=True)
        yield Static(self.words["keys"], id="status")

    def on_mount(self) -> None:
        tables = self.query_one("#tables", DataTable)
        for key in TABLE_COLUMNS:
            tables.add_column(self.words[key], key=key)
        board = self.query_one("#standings", DataTable)
        for key in STANDING_COLUMNS:
            board.add_column(self.words[key], key=key)
        self.show_tables()
        self.show_standings()
        if self.tick_s:
            self.set_interval(self.tick_s, self.show_tables)
        if self._start is not None:
            self._stop = self._start(self)

    def on_unmount(self) -> None:
        if self._stop is not None:
            self._stop()

    # --- what arrives ---------------------------------------------------------

    def on_hall_message(self, message: HallMessage) -> None:
        self.take(message.topic, message.payload)

    def on_link_changed(self, message: LinkChanged) -> None:
        if self.broker is None:
            return
        host, port = printable(self.broker.host), self.broker.port
        line = (
            self.words["broker_connected"].format(host=host, port=port)
            if message.up
            else self.words["broker_down"].format(host=host, port=port, why=printable(message.why))
        )
        self.set_status(line)

    def take(self, topic: str, payload: bytes) -> None:
        update = self.model.feed(topic, payload)
        if update is None:
            return
        if not self._show_one(update.table):
            self.show_tables()
        if update.standings:
            self.show_standings()

    # --- what is shown --------------------------------------------------------

    def show_tables(self) -> None:
        """Every table's row, the time left counted from now."""
        tables = self.query_one("#tables", DataTable)
        now = self.now()
        numbers = sorted(self.model.tables)
        rows = [list(table_cells(self.model.tables[n], now, self.lang)) for n in numbers]
        room = self._said_room = self._room(rows)
        for cells in rows:
            if len(cells[-1]) > room:
                cells[-1] = cells[-1][: room - 1] + "…"
        present = {str(row.value) for row in tables.rows}
        if set(map(str, numbers)) != present:
            tables.clear()
            present = set()
        for number, cells in zip(numbers, rows, strict=True):
            key = str(number)
            if key not in present:
                tables.add_row(*cells, key=key)
                continue
            for column, cell in zip(TABLE_COLUMNS, cells, strict=True):
                if tables.get_cell(key, column) != cell:
                    # a wider cell widens its column (the room was left for it)
                    tables.update_cell(key, column, cell, update_width=True)

    def _show_one(self, number: int) -> bool:
        """One table's row again, when it has one and its cells still fit
        the room the last full refresh left (True); else False: the caller
        lays out every row (a message costs one row, not the board)."""
        tables = self.query_one("#tables", DataTable)
        key = str(number)
        if key not in {str(row.value) for row in tables.rows} or number not in self.model.tables:
            return False
        cells = list(table_cells(self.model.tables[number], self.now(), self.lang))
        widths = [cell_length(cell) + 2 for cell in cells[:-1]]
        taken = [column.get_render_width(tables) for column in tables.columns.values()][:-1]
        if any(w > t for w, t in zip(widths, taken, strict=True)):
            return False  # a wider cell: the announcement's room changes
        if len(cells[-1]) > self._said_room:
            cells[-1] = cells[-1][: self._said_room - 1] + "…"
        for column, cell in zip(TABLE_COLUMNS, cells, strict=True):
            if tables.get_cell(key, column) != cell:
                tables.update_cell(key, column, cell)
        return True

    def _room(self, rows: list[list[str]]) -> int:
        """Cells left for the last announcement once the other columns take
        theirs (their widest cell or heading, a cell of padding each side;
        a column never narrows once widened), the scroll bar and the edges
        aside."""
        tables = self.query_one("#tables", DataTable)
        now = [column.get_render_width(tables) for column in tables.columns.values()]
        taken = 0
        for index, key in enumerate(TABLE_COLUMNS[:-1]):
            widest = max([cell_length(self.words[key])] + [cell_length(r[index]) for r in rows])
            taken += max(widest + 2, now[index] if index < len(now) else 0)
        # the heading's width at the least: a room below it would not narrow the column
        least = max(MIN_SAID, cell_length(self.words["said"]))
        return max(least, self.size.width - taken - 2 - 2)

    def show_standings(self) -> None:
        board = self.query_one("#standings", DataTable)
        board.clear()
        for cells in standing_cells(standings(self.model.protocols(), self.scheme)):
            board.add_row(*cells)
        self.query_one("#standings-title", Static).update(self._standings_title())

    def _standings_title(self) -> str:
        count = self.words["protocols"].format(count=len(self.model.games))
        scheme = self.words["scheme"].format(title=printable(self.scheme.title))
        return f"{self.words['standings']} · {count} · {scheme}"

    def set_status(self, line: str) -> None:
        self.status = line
        self.query_one("#status", Static).update(line)

    # --- keys -----------------------------------------------------------------

    def action_export(self) -> None:
        folder = self.export_dir
        try:
            folder.mkdir(parents=True, exist_ok=True)
            written = write_exports(
                self.model.protocols(),
                self.model.raw_protocols,
                self.scheme,
                self.model.event,
                self.lang,
                csv_path=folder / "standings.csv",
                html_path=folder / "standings.html",
                archive_path=folder / "protocols.zip",
            )
        except OSError as error:
            why = f"{printable(error.filename or folder)}: {error.strerror}"
            self.set_status(self.words["export_failed"].format(why=why))
            return
        files = ", ".join(printable(path) for path in written)
        self.set_status(self.words["exported"].format(files=files))


def run_board(
    broker: BrokerAddress,
    event: str,
    lang: str,
    *,
    scheme: str = "tournament",
    export_dir: Path | None = None,
) -> int:
    """``companion hall``'s board: subscribe to the event's tables and show
    them until the director quits. 2 with one line when the scheme is bad."""
    try:
        chosen = find_scheme(scheme)
    except ScoringError as error:
        print(words(lang)["no_scheme"].format(why=error))
        return 2

    def start(app: BoardApp) -> Callable[[], None]:
        from ..subscriber import Subscriber  # paho only when a board runs

        def message(topic: str, payload: bytes) -> None:
            app.post_message(HallMessage(topic, payload))

        def link(up: bool, why: str) -> None:
            app.post_message(LinkChanged(up, why))

        subscriber = Subscriber(broker, event, message, link)
        subscriber.start()
        return subscriber.stop

    app = BoardApp(
        HallModel(event), chosen, lang, export_dir=export_dir, start=start, broker=broker
    )
    app.run()
    return 0
