"""The console at every terminal size it is laid out for (issue 23): every
key of the table screen is in the footer or the «?» map, whole and on the
screen; a key chosen on the map does what it does; the cards of a full
12-seat table say everything they must at 80x24 without a word cut short
unmarked; the dialogs fit the smallest screen. The pictures are
test_console_snapshots.py's."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from console_driver import Host, config, console, settle, started
from rich.cells import cell_len
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Input, Label
from textual.widgets._footer import FooterKey

from companion.config.values import TableConfig
from companion.console.app import ConsoleApp
from companion.console.dialogs import AskText, AskYesNo, PickOne
from companion.console.fit import ellipsis, first_fit, short_name
from companion.console.keymap import KeyCell, KeysMap, fit
from companion.console.sports.screen import HOST_KEYS, SeatCard, TableScreen

SIZES = [(80, 24), (100, 30), (160, 48), (200, 60)]
LONG_NAMES = [
    "Владислав Петров",
    "Аня",
    "Константин",
    "Bob",
    "Екатерина Великая",
    "Жо",
    "Максимилиан",
    "Ли",
    "Ёж",
    "Александра",
    "Станислав",
    "Я",
]


@pytest.mark.parametrize(
    ("text", "cells", "shown"),
    [
        ("Аня", 10, "Аня"),
        ("Владислав Петров", 12, "Владислав…"),  # at the word boundary
        ("Константинопольский", 10, "Константи…"),  # no boundary: cut, but marked
        ("Екатерина Великая", 17, "Екатерина Великая"),
        ("Мирный житель", 1, "…"),
    ],
)
def test_words_cut_only_with_an_ellipsis(text: str, cells: int, shown: str) -> None:
    assert ellipsis(text, cells) == shown
    assert cell_len(ellipsis(text, cells)) <= cells


def test_a_shorter_way_before_an_ellipsis() -> None:
    assert first_fit(["Мирный житель", short_name("Мирный житель")], 10) == "Мирный"
    assert first_fit(["Маньяк-одиночка", short_name("Маньяк-одиночка")], 10) == "Маньяк"
    assert first_fit(["▶ говорит  ★ выставлен", "▶ ★"], 12) == "▶ ★"
    assert first_fit(["заголосован (2)", "заголосован"], 8) == "заголос…"


def test_the_footer_passes_over_a_key_too_wide_for_what_is_left() -> None:
    assert fit([("a", 5), ("b", 9), ("c", 3)], 10) == {"a", "c"}
    assert fit([("a", 11)], 10) == set()


def _inside(widget: Widget, screen: Region) -> bool:
    """Shown whole: displayed, laid out, and all of it within the screen."""
    region = widget.region
    return widget.display and region.area > 0 and screen.contains_region(region)


async def _to_day_one(host: Host) -> None:
    await host.keys("ctrl+s", "enter")
    await host.until("speech")


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
async def test_every_key_of_the_table_is_in_the_footer_or_the_map(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    app = console(config(tmp_path))
    async with app.run_test(size=size) as pilot:
        await started(pilot)
        host = Host(app, pilot)
        await _to_day_one(host)
        screen = app.screen
        assert isinstance(screen, TableScreen)
        whole = Region(0, 0, *size)
        in_footer = {key.key for key in screen.query(FooterKey) if _inside(key, whole)}
        assert {"question_mark", "ctrl+q", "space"} <= in_footer, in_footer
        widths = [key.region.width for key in screen.query(FooterKey) if key.display]
        assert sum(widths) <= size[0]  # nothing beyond the right edge
        await host.keys("question_mark")
        assert isinstance(app.screen, KeysMap)
        in_map = {cell.row.key for cell in app.screen.query(KeyCell) if _inside(cell, whole)}
        wanted = {key for key, _, _ in HOST_KEYS} | {"ctrl+q"}
        assert wanted <= in_footer | in_map, wanted - in_footer - in_map
        assert wanted <= in_map  # the map holds every key, the footer those that fit
        words = " ".join(str(cell.render()) for cell in app.screen.query(KeyCell))
        assert not any(word in words for word in ("Scroll", "Focus", "Copy", "palette"))
        await host.keys("escape")
        assert app.screen is screen


async def test_a_key_chosen_on_the_map_does_what_it_does(tmp_path: Path) -> None:
    app = console(config(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        host = Host(app, pilot)
        await _to_day_one(host)
        await host.keys("question_mark", "p")  # pressed on the map
        assert isinstance(app.screen, TableScreen)
        assert host.game.paused
        await host.keys("f1")  # where «?» would be typed
        cell = next(c for c in app.screen.query(KeyCell) if c.row.key == "p")
        await pilot.click(cell)  # a tap on its line (the 7" touch screen)
        await settle(pilot)
        assert isinstance(app.screen, TableScreen)
        assert not host.game.paused


def _twelve_seats(tmp_path: Path) -> ConsoleApp:
    cfg = config(tmp_path, "club")
    return console(dataclasses.replace(cfg, table=TableConfig(ruleset="club", seats=12)))


@pytest.mark.parametrize("roles", [False, True], ids=["roles hidden", "roles shown"])
async def test_twelve_cards_say_it_all_at_80x24(tmp_path: Path, roles: bool) -> None:
    app = _twelve_seats(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        for n, name in enumerate(LONG_NAMES, 1):
            app.screen.query_one(f"#name-{n}", Input).value = name
        host = Host(app, pilot)
        await _to_day_one(host)
        await host.nominate(4)
        for _ in range(3):
            await host.offence(6, "speech_out_of_turn")  # loses the next speech
        if roles:
            await host.keys("r")
        await settle(pilot)
        for card in app.screen.query(SeatCard):
            width = card.content_size.width
            assert width >= 10, width  # six cards a row across 80 columns
            lines = str(card.render()).split("\n")
            assert all(cell_len(line) <= width for line in lines), (card.number, lines)
            number, _, name = lines[0].partition(" ")
            assert number == str(card.number)
            full = LONG_NAMES[card.number - 1]
            assert name.strip() == full or name.strip().endswith("…"), lines[0]
        look = {c.number: str(c.render()).split("\n") for c in app.screen.query(SeatCard)}
        assert "▶" in look[1][3] and "★" in look[4][3]
        assert "●●●" in look[6][2] and "−речь" in "".join(look[6])
        if roles:
            role_lines = {lines[1] for lines in look.values()}
            assert "Мирный" in role_lines and "Мирный житель" not in role_lines
            assert all(line.strip() for line in role_lines)


async def test_the_dialogs_fit_80x24_and_wrap_their_words(tmp_path: Path) -> None:
    app = console(config(tmp_path))
    whole = Region(0, 0, 80, 24)
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        host = Host(app, pilot)
        await _to_day_one(host)
        for key, dialog in (("n", AskText), ("o", AskText), ("question_mark", KeysMap)):
            await host.keys(key)
            assert isinstance(app.screen, dialog)
            box = app.screen.query_one(".dialog")
            assert whole.contains_region(box.region), box.region
            for label in app.screen.query(Label):
                assert label.region.right <= box.region.right
            await host.keys("escape")
        await host.keys("o")
        await host.type("3")
        assert isinstance(app.screen, PickOne)
        key, longest = max(app.screen.choices, key=lambda choice: len(choice[1]))
        await host.keys(*[{"_": "underscore"}.get(c, c) for c in key])  # that one alone
        options = app.screen.query_one("#choices")
        shown = " ".join(options.render_line(y).text for y in range(options.size.height))
        assert len(longest) > options.size.width  # too long for a line: wrapped, whole
        assert " ".join(longest.split()) == " ".join(shown.split())


async def test_the_resume_question_fits_80x24(tmp_path: Path) -> None:
    first = console(config(tmp_path))
    async with first.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        await _to_day_one(Host(first, pilot))
    app = console(config(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        assert isinstance(app.screen, AskYesNo)
        box = app.screen.query_one(".dialog")
        label = app.screen.query_one(".prompt", Label)
        assert Region(0, 0, 80, 24).contains_region(box.region)
        assert label.region.height >= 2  # the question wraps rather than run off
        assert label.region.right <= box.region.right
