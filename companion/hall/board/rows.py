"""What the board's two tables show, cell by cell (pure: a view and ``now``
in, text out), so the app only lays them out and the tests read them."""

from __future__ import annotations

from ...textfiles.printable import printable
from ..hall_words import clock, words
from ..model import TableView
from ..standings import Row, places, points_text

#: the phases a table's state names, in words (anything else shown as sent)
PHASES: dict[str, tuple[str, str]] = {
    "setup": ("подготовка", "set-up"),
    "night": ("ночь", "night"),
    "day": ("день", "day"),
    "speech": ("речь", "speech"),
    "last_word": ("последнее слово", "last word"),
    "tie_speech": ("оправдание", "tie speech"),
    "vote": ("голосование", "vote"),
    "voting": ("голосование", "vote"),
    "count": ("подсчёт", "count"),
    "ended": ("конец", "ended"),
    "paused": ("пауза", "paused"),
}

TABLE_COLUMNS = ("table", "link", "phase", "speaker", "left", "out", "fouls", "said")
STANDING_COLUMNS = ("place", "player", "games", "wins", "best_move", "penalties", "points")


def phase_words(phase: str, lang: str) -> str:
    known = PHASES.get(phase)
    return printable(phase) if known is None else known[1 if lang == "en" else 0]


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
