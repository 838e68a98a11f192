"""The set-up in one pass (issue 23, must-hold 6): Enter walks the form,
numbers show whole, Shift+Tab never lands on the start, the last set-up is
offered again, a blank name is said and filled in as «Игрок N», the start
asks once, and a game counts for the club's players only once its first
night is over. Textual's pilot on the fake clock, as a host keys it."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from console_driver import SIZE, Host, config, console, hosting, press, settle, started
from test_console_forum import ForumHost, Wall, forum_app
from textual.widgets import Button, Checkbox, Input, RadioButton, Select

from companion.club.last_setup import (
    LastSetup,
    last_setup_path,
    load_last_setup,
    parse_last_setup,
    save_last_setup,
)
from companion.club.roster import Player, Roster, read_roster
from companion.console.app import ConsoleApp
from companion.console.dialogs import AskYesNo
from companion.console.forum.screen import ForumScreen
from companion.console.players_count import past_first_night
from companion.console.setup_ask import AskToStart, seat_ranges
from companion.console.setup_screen import SetupScreen
from companion.console.sports.screen import TableScreen
from companion.core.forum.state import state


def setup_screen(app: ConsoleApp) -> SetupScreen:
    screen = app.screen
    assert isinstance(screen, SetupScreen)
    return screen


def focused_id(app: ConsoleApp) -> str | None:
    return app.focused.id if app.focused is not None else None


def players(tmp: Path) -> dict[str, int]:
    return {p.name: p.games for p in read_roster(tmp / "roster.toml").players}


# --- the form walks by Enter --------------------------------------------------------


async def test_enter_walks_the_fields_and_the_last_one_asks_to_start(tmp_path: Path) -> None:
    app = console(config(tmp_path))
    async with hosting(app) as host:
        screen = setup_screen(app)
        assert focused_id(app) == "name-1"
        await host.keys(*"Аня", "enter")
        assert focused_id(app) == "name-2"
        await host.keys(*"Боря", "enter", "enter")  # seat 3 left blank
        assert focused_id(app) == "name-4"
        assert screen.query_one("#name-2", Input).value == "Боря"
        # From the top: the ruleset (Enter opens its list, Enter picks and moves on),
        # the seats, the deal (Enter keeps the companion's deal), seat 1.
        ruleset = screen.query_one("#ruleset", Select)
        ruleset.focus()
        await host.keys("enter")
        assert ruleset.expanded, "the rulesets' list open"
        # the focus moves on after the next refresh (the screen's
        # call_after_refresh): a key settles the app that far
        await host.keys("down", "enter")
        assert screen.ruleset_name != "tournament" and focused_id(app) == "seats"
        await host.keys("enter")
        assert focused_id(app) == "deal"
        await host.keys("enter")
        assert not screen.query_one("#deal-cards", RadioButton).value
        assert focused_id(app) in ("name-1", "forum-start")  # the forum's date comes first
        screen.query_one("#name-10", Input).focus()
        await host.keys("enter")  # the last field: the question, not a game
        assert isinstance(app.screen, AskToStart) and app.table is None


async def test_enter_walks_the_roles_from_the_cards(tmp_path: Path) -> None:
    """The last set-up took the roles from the cards: offered again, and
    Enter on the deal keeps it (RadioSet highlights its first choice)."""
    cfg = config(tmp_path)
    save_last_setup(last_setup_path(cfg.paths.roster), LastSetup("tournament", 10, (), True))
    app = console(cfg)
    async with hosting(app) as host:
        screen = setup_screen(app)
        assert screen.query_one("#deal-cards", RadioButton).value
        screen.query_one("#deal").focus()
        await host.keys("enter")
        assert screen.query_one("#deal-cards", RadioButton).value
        assert focused_id(app) == "name-1"
        await host.keys(*"Аня", "enter")
        assert focused_id(app) == "role-1"
        roles = screen.query_one("#role-1", Select)
        await host.keys("enter")  # open the list
        assert roles.expanded, "the roles' list open"
        await host.keys("down", "enter")  # pick, on to seat 2 (after the refresh)
        assert isinstance(roles.value, str)
        assert focused_id(app) == "name-2"


async def test_the_seat_count_shows_whole(tmp_path: Path) -> None:
    """«Мест» showed only its last digit once visited: the field was two
    cells wide inside its border and padding, the cursor took the third."""
    app = console(config(tmp_path, "club"))
    async with hosting(app) as host:
        seats = setup_screen(app).query_one("#seats", Input)
        seats.focus()
        await host.keys("end", "backspace", "backspace", "1", "2")
        assert seats.render_line(0).text.strip() == "12"
        await host.keys("enter")  # visited and left
        assert focused_id(app) == "deal"
        assert seats.render_line(0).text.strip() == "12" and seats.scroll_offset.x == 0
        assert setup_screen(app).query_one("#row-12").display


async def test_shift_tab_never_lands_on_the_start(tmp_path: Path) -> None:
    app = console(config(tmp_path))
    async with hosting(app) as host:
        screen = setup_screen(app)
        screen.query_one("#ruleset", Select).focus()
        await host.keys("shift+tab")  # from the first field: round to the last name
        assert focused_id(app) == "name-10"
        for _ in range(len(screen.focus_chain) + 2):  # the whole way round, both ways
            await host.keys("shift+tab")
            assert not isinstance(app.focused, Button)
        for _ in range(len(screen.focus_chain) + 2):
            await host.keys("tab")
            assert not isinstance(app.focused, Button)
        await host.keys("enter")  # a stray Enter: at most the question
        assert app.table is None


async def test_enter_walks_the_forum_fields_without_ticking_them(tmp_path: Path) -> None:
    app = forum_app(tmp_path, Wall())
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        host = Host(app, pilot)
        screen = setup_screen(app)
        screen.query_one("#forum-start", Input).focus()
        await host.keys("enter")
        assert focused_id(app) == "option-two_sided"
        await host.keys("enter", "space")  # Enter moves on, space ticks
        assert focused_id(app) == "option-no_basements"
        assert not screen.query_one("#option-two_sided", Checkbox).value
        assert screen.query_one("#option-no_basements", Checkbox).value
        date = screen.query_one("#forum-start", Input)
        assert date.render_line(0).text.strip() == date.value  # the whole date shows


# --- the start asks once ------------------------------------------------------------


async def test_the_start_asks_once_and_escape_goes_back(tmp_path: Path) -> None:
    app = console(config(tmp_path, "club"))
    async with hosting(app) as host:
        await host.keys(*"Аня")
        await host.keys("f5")
        ask = app.screen
        assert isinstance(ask, AskToStart) and app.table is None
        question = ask.question
        assert question.startswith("Начать игру?")
        assert "Правила: Клубные правила" in question and "Мест: 10" in question
        assert "раздаёт компаньон" in question and "1 Аня" in question
        assert "Без имени: 2–10" in question and "«Игрок N»" in question
        await host.keys("ctrl+s", "f5")  # no second question on top of the first
        assert app.screen is ask and sum(isinstance(s, AskToStart) for s in app.screen_stack) == 1
        await host.keys("escape")
        assert isinstance(app.screen, SetupScreen) and app.table is None
        assert focused_id(app) == "name-2"  # back to the first seat without a name
        await host.pilot.click("#start")  # the button asks too
        assert isinstance(app.screen, AskToStart)
        await host.keys("enter")
        assert isinstance(app.screen, TableScreen)
        assert [s.name for s in host.game.seats][:3] == ["Аня", "Игрок 2", "Игрок 3"]


async def test_a_named_table_is_not_told_of_blanks(tmp_path: Path) -> None:
    app = console(config(tmp_path, lang="en"))
    async with hosting(app) as host:
        screen = setup_screen(app)
        screen.query_one("#seats", Input).value = "4"
        await host.settle()
        for n, name in enumerate(["Ann", "Bob", "Cy", "Di"], 1):
            screen.query_one(f"#name-{n}", Input).value = name
        await host.pilot.click("#deal-cards")
        for n, role in enumerate(["civilian", "sheriff", "mafia", "civilian"], 1):
            screen.query_one(f"#role-{n}", Select).value = role
        await host.keys("ctrl+s")
        ask = app.screen
        assert isinstance(ask, AskToStart)
        assert "from the cards" in ask.question and "1 Ann, 2 Bob, 3 Cy, 4 Di" in ask.question
        assert "No name" not in ask.question
        await host.keys("enter")
        assert [s.name for s in host.game.seats] == ["Ann", "Bob", "Cy", "Di"]


async def test_the_question_fits_an_80_by_24_screen(tmp_path: Path) -> None:
    app = console(config(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await started(pilot)
        host = Host(app, pilot)
        await host.keys(*"Аня", "enter", *"Борис", "f5")
        ask = app.screen
        assert isinstance(ask, AskToStart)
        screen_area = ask.region
        for part in (".dialog", ".prompt", "#yes", "#no"):
            region = ask.query_one(part).region
            assert region.area and screen_area.contains_region(region), (part, region)
        await host.keys("enter")
        assert isinstance(app.screen, TableScreen)


def test_seat_ranges() -> None:
    assert seat_ranges([2, 3, 4, 7, 9, 10]) == "2–4, 7, 9–10"
    assert seat_ranges([5]) == "5" and seat_ranges([]) == ""


# --- the last set-up, offered again -------------------------------------------------


async def test_the_last_setup_is_offered_again(tmp_path: Path) -> None:
    cfg = config(tmp_path)  # the config says tournament, 10 seats
    app = console(cfg)
    async with hosting(app) as host:
        screen = setup_screen(app)
        screen.query_one("#ruleset", Select).value = "club"
        screen.query_one("#seats", Input).value = "11"
        await host.settle()
        screen.query_one("#name-1", Input).value = "Аня"
        screen.query_one("#name-11", Input).value = "Зоя"
        await host.keys("ctrl+s", "enter")
        assert host.game.rules.name == "club" and len(host.game.seats) == 11
        app.action_new_game()  # the next game of the evening, in the same console
        await host.settle()
        again = setup_screen(app)
        assert again.query_one("#ruleset", Select).value == "club"
        assert again.query_one("#seats", Input).value == "11"
        assert again.query_one("#name-11", Input).value == "Зоя"
    kept = load_last_setup(last_setup_path(cfg.paths.roster))
    assert kept is not None and kept.names[:2] == ("Аня", "")  # blanks kept blank
    mode = last_setup_path(cfg.paths.roster).stat().st_mode & 0o777
    assert mode == 0o600

    async with hosting(console(cfg)) as host:  # tomorrow: a new console, the same club
        await host.keys("escape")  # not the unfinished game: «Новая игра»
        screen = setup_screen(host.app)
        assert screen.query_one("#ruleset", Select).value == "club"
        assert screen.query_one("#seats", Input).value == "11"
        names = [screen.query_one(f"#name-{n}", Input).value for n in range(1, 12)]
        assert names == ["Аня", *[""] * 9, "Зоя"]
        assert screen.query_one("#row-11").display


async def test_the_last_forum_setup_is_offered_again(tmp_path: Path) -> None:
    wall = Wall(dt.datetime(2026, 12, 3, 9, 0))
    app = forum_app(tmp_path, wall, ruleset="tournament", seats=10)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        host = Host(app, pilot)
        screen = setup_screen(app)
        screen.query_one("#ruleset", Select).value = "forum"
        await settle(pilot)
        screen.query_one("#seats", Input).value = "24"
        await settle(pilot)
        screen.query_one("#name-24", Input).value = "Last"
        screen.query_one("#option-two_sided", Checkbox).value = True
        await host.keys("ctrl+s")
        ask = app.screen
        assert isinstance(ask, AskToStart)
        assert "2026-12-03" in ask.question and "двусторонн" in ask.question.lower()
        await host.keys("enter")
        assert isinstance(app.screen, ForumScreen) and len(host.game.seats) == 24
    again = forum_app(tmp_path, wall, ruleset="tournament", seats=10)
    async with again.run_test(size=SIZE) as pilot:
        await started(pilot)
        await press(pilot, "escape")  # not the unfinished game: «Новая игра»
        await settle(pilot)
        screen = setup_screen(again)
        assert screen.query_one("#ruleset", Select).value == "forum"
        assert screen.query_one("#seats", Input).value == "24"
        assert screen.query_one("#name-24", Input).value == "Last"
        assert screen.query_one("#option-two_sided", Checkbox).value
        assert not screen.query_one("#option-no_basements", Checkbox).value


def test_a_last_setup_file_round_trips_and_a_bad_one_warns(tmp_path: Path) -> None:
    path = tmp_path / "data" / "last-setup.toml"
    kept = LastSetup("forum", 24, ("Анна", "", 'Кавычка " и \\'), True, ("two_sided",))
    save_last_setup(path, kept)
    assert load_last_setup(path) == kept
    assert path.parent.stat().st_mode & 0o777 == 0o700
    said: list[str] = []
    for text in ("seats = 10\n", 'ruleset = "club"\nseats = 1\n', "ruleset = [\n"):
        path.write_text(text, encoding="utf-8")
        assert load_last_setup(path, said.append) is None
    assert len(said) == 3 and all(line.count("\n") == 0 for line in said)
    assert "last-setup.toml" in said[0] and "seats" in said[1]
    with pytest.raises(ValueError, match="at most 2 names"):
        parse_last_setup('ruleset = "club"\nseats = 2\nnames = ["a", "b", "c"]\n', "x")
    assert load_last_setup(tmp_path / "none.toml") is None


async def test_a_last_setup_of_a_gone_ruleset_is_not_offered(tmp_path: Path) -> None:
    cfg = config(tmp_path)
    save_last_setup(last_setup_path(cfg.paths.roster), LastSetup("no_such_rules", 7, ("Аня",)))
    async with hosting(console(cfg)) as host:
        screen = setup_screen(host.app)
        assert screen.query_one("#ruleset", Select).value == "tournament"
        assert screen.query_one("#seats", Input).value == "10"
        assert screen.query_one("#name-1", Input).value == ""


# --- when a game counts for the players ---------------------------------------------


async def to_day_one(host: Host) -> None:
    await host.keys(*"Аня", "ctrl+s", "enter")
    await host.until("speech")


async def test_a_game_abandoned_in_night_zero_does_not_count(tmp_path: Path) -> None:
    app = console(config(tmp_path))
    async with hosting(app) as host:
        await host.keys(*"Аня", "ctrl+s", "enter")  # a stray start
        assert host.game.phase == "night" and host.game.day == 0
        await host.next()  # the mafia's agreement ends; then the host quits
        assert host.game.day == 0
    assert players(tmp_path) == {}


async def test_a_game_past_night_zero_counts_once(tmp_path: Path) -> None:
    cfg = config(tmp_path)
    async with hosting(console(cfg)) as host:
        await to_day_one(host)
        assert players(tmp_path) == {"Аня": 1}  # not «Игрок 2»: a blank seat's
        await host.next(3)
    # Quit mid-day: the next console resumes it and does not count it again.
    app = console(cfg)
    async with hosting(app) as host:
        await host.keys("enter")  # «Продолжить»
        assert isinstance(app.screen, TableScreen) and host.game.day == 1
        await host.next(2)
        assert players(tmp_path) == {"Аня": 1}


async def test_a_game_undone_back_into_night_zero_is_taken_back(tmp_path: Path) -> None:
    app = console(config(tmp_path))
    async with hosting(app) as host:
        await to_day_one(host)
        assert players(tmp_path) == {"Аня": 1}
        await host.keys("u")  # the night's end undone
        assert host.game.day == 0
        assert players(tmp_path) == {}


async def test_a_forum_game_counts_once_its_first_day_has_results(tmp_path: Path) -> None:
    wall = Wall()
    app = forum_app(tmp_path, wall)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        host = ForumHost(app, pilot)
        setup_screen(app).query_one("#name-1", Input).value = "Ник"
        await host.keys("ctrl+s", "enter")
        assert isinstance(app.screen, ForumScreen) and host.game.day == 1
        assert players(tmp_path) == {}  # day 1 open: nothing decided yet
        living = [x.number for x in host.game.seats]
        await host.votes("; ".join(f"{n} {living[2] if n != living[2] else 1}" for n in living))
        wall.at = dt.datetime(2026, 12, 1, 21, 0)
        await host.close("vote")
        if isinstance(app.screen, AskYesNo):  # the day choices nobody posted: it asks first
            await host.keys("enter")
        assert state(host.game).open == ("night",) and host.game.phase == "night"
        assert players(tmp_path) == {"Ник": 1}


def test_the_forum_game_is_past_its_first_night_from_its_first_results() -> None:
    from dataclasses import replace

    from companion.config.rulesets import load_ruleset
    from companion.core.state import Game

    game = Game(load_ruleset("forum"))
    assert not past_first_night(replace(game, phase="day", day=1))
    assert past_first_night(replace(game, phase="night", day=1))
    assert past_first_night(replace(game, phase="day", day=2))
    sports = Game(load_ruleset("club"))
    assert not past_first_night(replace(sports, phase="night", day=0))
    assert past_first_night(replace(sports, phase="speech", day=1))


def test_a_game_taken_back_from_the_roster() -> None:
    day = dt.date(2026, 12, 1)
    roster = Roster((Player("Анна", 3, day), Player("Борис", 1, day)))
    back = roster.without_game(["анна", "Борис", "Вера"])
    assert back.players == (Player("Анна", 2, day),)
