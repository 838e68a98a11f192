"""Words made to fit a width of terminal cells: said shorter where there is
a shorter way to say them, otherwise cut with an ellipsis, never cut in
the middle of a word without one (issue 23: the console at 80x24)."""

from __future__ import annotations

from collections.abc import Iterable

from rich.cells import cell_len, set_cell_size

ELLIPSIS = "…"


def ellipsis(text: str, cells: int) -> str:
    """``text`` if it fits in ``cells``; else cut at the last word boundary
    that keeps at least half of the room (a word cut in the middle only
    when there is none), with «…»."""
    if cell_len(text) <= cells:
        return text
    if cells <= 1:
        return ELLIPSIS[:cells]
    cut = set_cell_size(text, cells - 1).rstrip()
    boundary = cut.rfind(" ")
    if boundary >= (cells - 1) // 2:
        cut = cut[:boundary].rstrip(" ,.;:—-")
    return cut + ELLIPSIS


def first_fit(ways: Iterable[str], cells: int) -> str:
    """The first of ``ways`` (longest first) that fits in ``cells``, else the
    last one cut with an ellipsis."""
    last = ""
    for way in ways:
        if cell_len(way) <= cells:
            return way
        last = way
    return ellipsis(last, cells)


def short_name(name: str) -> str:
    """A name said shorter in its own language: its first word («Мирный»
    for «Мирный житель», «Маньяк» for «Маньяк-одиночка»)."""
    return name.split()[0].split("-")[0] if name.strip() else name
