"""A seat whose button never answers the self-test (issue 12): the test's
result is kept in the club's data folder, the console's table leaves that
seat's button unopened (its presses, stuck or noisy, never play), the table
screen marks the seat, and the host's number key plays for it. Pins are
driven one by one on gpiozero's mock factory, on a fake clock."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin
from seat_table import SeatTable
from selftest_player import HOSTS, answering_factory
from textual.app import App

from companion import cli
from companion.config.load import load_config
from companion.config.values import Config, PathsConfig, SeatsConfig
from companion.console.sports.screen import SeatCard, TableScreen
from companion.console.words import Words
from companion.core.sports.state import current_turn
from companion.live.assembly import TableSpec
from companion.live.table_spec import open_seats
from companion.runner.clock import GameClock
from companion.seats import selftest_command
from companion.seats.pinmap import HARDWARE, load_pinmap
from companion.seats.port import ButtonEvent
from companion.seats.silent import (
    RecordError,
    SelfTestRecord,
    load_record,
    pin_map_digest,
    record_path,
    save_record,
    silent_seats_for,
)

CONSOLE = Path(__file__).resolve().parent.parent / "companion" / "console"
DEFAULT = HARDWARE / "default.toml"


@pytest.fixture
def default_factory() -> Iterator[None]:
    yield
    if Device.pin_factory is not None:
        Device.pin_factory.close()
    Device.pin_factory = None


def club(tmp_path: Path, mode: str = "gpio", pins: Path = DEFAULT) -> Config:
    return Config(
        seats=SeatsConfig(mode=mode, pin_map=pins),  # type: ignore[arg-type]
        paths=PathsConfig(
            journals=tmp_path / "data" / "journals",
            games=tmp_path / "data" / "games",
            roster=tmp_path / "data" / "roster.toml",
        ),
    )


def record(silent: tuple[int, ...], pins: Path = DEFAULT) -> SelfTestRecord:
    return SelfTestRecord(str(pins), pin_map_digest(pins), "2026-12-01T19:40:00", silent)


# --- the record -------------------------------------------------------------------


def test_the_record_is_kept_in_the_club_data_folder_and_read_back(tmp_path: Path) -> None:
    config = club(tmp_path)
    path = record_path(config)
    assert path == tmp_path / "data" / "selftest.json"  # beside the journals' folder and the log
    kept = SelfTestRecord(
        str(DEFAULT), pin_map_digest(DEFAULT), "2026-12-01T19:40:00", (4, 7), ("pause",)
    )
    save_record(path, kept)
    assert load_record(path) == kept
    assert [p.name for p in path.parent.iterdir()] == ["selftest.json"]  # no temporary left
    assert silent_seats_for(config) == {4, 7}


def test_no_record_means_every_button_is_listened_to(tmp_path: Path) -> None:
    assert load_record(record_path(club(tmp_path))) is None
    assert silent_seats_for(club(tmp_path)) == frozenset()


def test_a_record_of_the_pin_map_before_it_was_edited_is_not_used(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    pins = tmp_path / "club.toml"
    pins.write_bytes(DEFAULT.read_bytes())
    config = club(tmp_path, pins=pins)
    save_record(record_path(config), record((4,), pins))
    assert silent_seats_for(config) == {4}
    with pins.open("a") as stream:
        stream.write("# seat 4 rewired\n")
    with caplog.at_level(logging.INFO):
        assert silent_seats_for(config) == frozenset()
    assert "not used" in caplog.text


def test_simulated_seats_ignore_the_record(tmp_path: Path) -> None:
    config = club(tmp_path, mode="simulated")
    save_record(record_path(config), record((4,)))
    assert silent_seats_for(config) == frozenset()


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"\xff\xfe", "not a self-test record"),
        (b"[1, 2]", "not a self-test record of version 1"),
        (b'{"version": 2}', "not a self-test record of version 1"),
        (b'{"version": 1, "pin_map": "x", "digest": 5, "at": "y", "silent": []}', "must be strings"),
        (b'{"version": 1, "pin_map": "x", "digest": "d", "at": "y", "silent": [0]}', "silent: seat numbers 1 to 12"),
        (b'{"version": 1, "pin_map": "x", "digest": "d", "at": "y", "silent": [true]}', "silent: seat numbers"),
        (b'{"version": 1, "pin_map": "x", "digest": "d", "at": "y", "silent": [], "hosts_silent": ["x"]}', "hosts_silent"),
        (b" " * (65 * 1024), "larger than 64 KiB"),
    ],
)  # fmt: skip
def test_a_file_that_is_not_a_record_is_refused_in_one_line(
    tmp_path: Path, content: bytes, problem: str
) -> None:
    path = tmp_path / "selftest.json"
    path.write_bytes(content)
    with pytest.raises(RecordError) as caught:
        load_record(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and problem in message and "\n" not in message


def test_a_broken_record_never_stops_a_game(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = club(tmp_path)
    path = record_path(config)
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    with caplog.at_level(logging.WARNING):
        assert silent_seats_for(config) == frozenset()
    assert f"the last self-test's record is not used: {path}: not a self-test record" in caplog.text


# --- the command keeps it -----------------------------------------------------------


def test_the_command_keeps_the_silent_seats_for_the_console(
    default_factory: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    """As on a Pi (real pins, someone pressing): seat 4 never answers,
    nobody presses the host buttons. The map has no buzzer, so nothing
    waits on the wall clock."""
    pins = tmp_path / "club.toml"
    pins.write_text(DEFAULT.read_text(encoding="utf-8").split("[buzzer]")[0], encoding="utf-8")
    config = tmp_path / "config.toml"
    config.write_text(
        f'[seats]\nmode = "gpio"\npin_map = "{pins}"\n'
        f'[paths]\njournals = "{tmp_path / "data" / "journals"}"\n'
    )
    monkeypatch.setenv("COMPANION_CONFIG", str(config))
    monkeypatch.setattr(selftest_command, "_simulated", lambda factory: False)
    Device.pin_factory = answering_factory(load_pinmap(pins), lambda n: None if n == 4 else n)
    status = cli.main(["selftest", "--captions", "--timeout", "0"])
    out = capsys.readouterr().out.splitlines()
    kept = tmp_path / "data" / "selftest.json"
    assert status == 1
    assert out[0].endswith("club.toml, 10 seats, 0 s per button")  # not simulated: no such line
    assert out[-5:] == [
        "Не ответили: 4 — проверьте кнопку, лампу и провод.",
        "Кнопки ведущего ответили: —.",
        "Кнопки ведущего не ответили: дальше, пауза, нарушение — проверьте кнопку и провод.",
        "Зуммера в схеме выводов нет.",
        f"selftest: the host's keys stand in for the buttons of seats 4 in the console ({kept})",
    ]
    found = load_record(kept)
    assert found is not None and found.silent == (4,) and found.hosts_silent == HOSTS
    assert found.digest == hashlib.sha256(pins.read_bytes()).hexdigest()
    assert silent_seats_for(load_config()) == {4}

    # Rewired and tested again: every seat answers, and the mark is gone.
    Device.pin_factory.close()
    Device.pin_factory = answering_factory(load_pinmap(pins), lambda n: n)
    assert cli.main(["selftest", "--captions", "--timeout", "0"]) == 1  # the host buttons still
    assert capsys.readouterr().out.splitlines()[-1] == (
        f"selftest: every seat's button is listened to in the console ({kept})"
    )
    assert silent_seats_for(load_config()) == frozenset()


# --- the table leaves the button alone ------------------------------------------------


def test_the_table_leaves_a_silent_seats_button_unopened(default_factory: None) -> None:
    """What the console's table builds from its spec (``TableSpec.silent_seats``)."""
    factory = Device.pin_factory = MockFactory(pin_class=MockPWMPin)
    spec = TableSpec(seats="gpio", silent_seats=frozenset({4}))
    seats: Any = open_seats(spec, 10, GameClock())
    events: list[ButtonEvent] = []
    seats.start(events.append)
    pinmap = load_pinmap("default")
    try:
        assert seats.muted == {4} and "seat 4" not in seats.buttons and "seat 5" in seats.buttons
        for seat in (4, 5):
            factory.pin(pinmap.seat(seat).button.pin).drive_low()
        assert seats.held_now(4) is False  # its pin is low, but nobody listens
    finally:
        seats.close()
    assert [(e.seat, e.pressed) for e in events] == [(5, True)]


def speaking(table: SeatTable) -> int:
    turn = current_turn(table.game)
    assert turn is not None
    return turn.seat


class TableApp(App[None]):
    """The console's table screen alone, over a table on mock pins."""

    CSS_PATH = CONSOLE / "console.tcss"

    def __init__(self, table: SeatTable) -> None:
        super().__init__()
        self.seats = table

    def on_mount(self) -> None:
        screen = TableScreen(self.seats.table, Words("ru"), "Кнопки: настоящие", [], 10)
        self.seats.listeners.append(screen.show_update)  # as the app's TableUpdated does
        self.push_screen(screen)


async def test_the_screen_marks_the_seat_its_button_is_ignored_and_its_key_plays() -> None:
    table = SeatTable(silent=frozenset({4}))
    app = TableApp(table)
    try:
        async with app.run_test(size=(150, 45)) as pilot:
            await pilot.pause()
            table.start()
            table.wait(60 + 20)  # night zero
            await pilot.pause()
            card, other = (app.screen.query_one(f"#seat-{n}", SeatCard) for n in (4, 5))
            assert card.border_title == "кнопка не отвечает" and other.border_title is None
            assert card.has_class("-silent") and not other.has_class("-silent")
            assert "⌨ клавиша 4" in str(card.render()) and "⌨" not in str(other.render())
            screen = app.screen
            assert isinstance(screen, TableScreen)
            line = (
                "Кнопка места 4 не ответила на самопроверке: её нажатия не слушаются,"
                " за неё — клавиша 4."
            )
            assert screen.log_lines[0] == (line, False)  # in the log, shown with the roles hidden

            # Seats 1-3 end their speeches by their buttons: the pins play.
            for seat in (1, 2, 3):
                assert speaking(table) == seat
                table.press(seat)
                table.release(seat)
            assert speaking(table) == 4
            # Seat 4's button, however it is pressed (a stuck one, chatter), plays nothing.
            for _ in range(3):
                table.press(4)
                table.wait(0.01)
                table.release(4)
            table.press(4)
            table.wait(31)  # held past the stuck time: not even reported
            table.release(4)
            assert speaking(table) == 4 and not table.seats.stuck_reports
            assert "⌨ клавиша 4" in str(card.render())  # still marked while it speaks
            # The host's key stands in: «Пас» for seat 4.
            await pilot.press("4")
            await pilot.pause()
            assert speaking(table) == 5
    finally:
        table.close()
