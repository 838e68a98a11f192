"""What the board's two tables show, cell by cell (pure: a view and ``now``
in, text out), so the app only lays them out and the tests read them."""

from __future__ import annotations

from ...textfiles.printable import printable
from ..board_words import clock, phase_words, words
from ..model import TableView
from ..standings import Row, places, points_text

TABLE_COLUMNS = ("table", "link", "phase", "speaker", "left", "out", "fouls", "said")
STANDING_COLUMNS = ("place", "player", "games", "wins", "best_move", "penalties", "points")


def table_cells(view: TableView, now: float, lang: str) -> tuple[str, ...]:
    """One table's row: number, link, phase, speaker, time left, seats out,
    fouls (seat:count), the last announcement."""
    w = words(lang)
    link = {"online": "●", "offline": "○"}.get(view.link, "·")
    left = view.time_left(now)
    timer = clock(left)
    if view.deadline is None and left is not None:
        timer += " ⏸"  # paused: the time it will resume with
    phase = phase_words(view.phase, lang)
    if view.result:
        phase = w["result"].format(winner=printable(view.result))
    return (
        str(view.table),
        link,
        phase,
        "—" if view.speaker is None else str(view.speaker),
        timer,
        " ".join(str(seat) for seat, _ in view.out) or "—",
        " ".join(f"{seat}:{count}" for seat, count in view.fouls.items()) or "—",
        printable(view.announcement) or "—",
    )


def standing_cells(rows: list[Row]) -> list[tuple[str, ...]]:
    return [
        (
            str(place),
            printable(row.player),
            str(row.games),
            str(row.wins),
            points_text(row.best_move),
            points_text(row.penalties),
            points_text(row.points),
        )
        for place, row in zip(places(rows), rows, strict=True)
    ]
