"""The live table in a process of its own (``table_process``), as the
console runs it: a real spawned process on the real clock, captions for the
voice and simulated seats. The tests wait for what the table says (never
for a time), with a generous limit for a loaded machine."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import TOURNAMENT_ROLES

from companion.config.rulesets import load_ruleset
from companion.console.refusals.lines import error_line
from companion.core.events import GameSetUp, HostAdvanced
from companion.core.sports.state import table as table_state
from companion.core.state import Game, Record
from companion.live.assembly import TableSpec, Update
from companion.live.table_messages import TableFailed, TableOrder
from companion.live.table_process import TableProcess, TableWorker
from companion.live.table_serve import failure
from companion.live.table_wire import StateReceiver, StateSender
from companion.runner.journal import read
from companion.runner.journal_check import JournalDamaged
from companion.runner.resume import resume_journal
from companion.runner.script import ScriptError
from companion.textfiles.regular_file import FileRefused
from companion.textfiles.toml_table import DataFileError
from companion.voice.settings import VoiceSettings

ROLES_10 = tuple(TOURNAMENT_ROLES)

PATIENCE_S = 60.0
SPEC = TableSpec(voice=VoiceSettings(captions_only=True), seats="simulated")


class Heard:
    """What the table's process told the console, with a wait for a state."""

    def __init__(self) -> None:
        self.updates: list[Update] = []
        self.refused: list[str] = []
        self.lost: list[str] = []
        self._changed = threading.Condition()

    def update(self, update: Update) -> None:
        with self._changed:
            self.updates.append(update)
            self._changed.notify_all()

    def refusal(self, reason: str, line: int | None) -> None:
        with self._changed:
            self.refused.append(reason)
            self._changed.notify_all()

    def lost_table(self, reason: str) -> None:
        with self._changed:
            self.lost.append(reason)
            self._changed.notify_all()

    def wait(self, what: Callable[[], bool]) -> None:
        with self._changed:
            assert self._changed.wait_for(what, PATIENCE_S), "the table never said it"

    def game(self) -> Game | None:
        return self.updates[-1].game if self.updates else None


def build(order: TableOrder, heard: Heard) -> TableProcess:
    return TableWorker().build(order, heard.update, heard.refusal, heard.lost_table)


def new_game(tmp_path: Path) -> tuple[TableProcess, Heard, Path]:
    journal = tmp_path / "game.jsonl"
    heard = Heard()
    rules = load_ruleset("tournament")
    table = build(TableOrder(TableSpec(**{**_fields(SPEC), "journal": journal}), rules, 10), heard)
    table.submit(GameSetUp(rules, 10, ROLES_10))
    heard.wait(lambda: (g := heard.game()) is not None and g.phase != "setup")
    return table, heard, journal


def first_day(table: TableProcess, heard: Heard) -> None:
    """Night 0 over by the host's key: the mafia's agreement, then the free
    seating (the tournament's 20 s, not waited out), then the first day."""
    table.submit(HostAdvanced())
    heard.wait(lambda: (g := heard.game()) is not None and table_state(g).night_step == 1)
    table.submit(HostAdvanced())
    heard.wait(lambda: (g := heard.game()) is not None and g.phase == "speeches")


def _fields(spec: TableSpec) -> dict[str, Any]:
    return {name: getattr(spec, name) for name in spec.__slots__}


def test_inputs_go_to_the_table_and_states_come_back(tmp_path: Path) -> None:
    table, heard, journal = new_game(tmp_path)
    try:
        assert table.simulated_seats is not None and not table.sound
        game = heard.game()
        assert game is not None and table.game is game
        setup_records = _kinds(game)
        first_day(table, heard)
        speaker = table_state(heard.game()).turns[table_state(heard.game()).turn_at].seat  # type: ignore[union-attr]
        table.simulated_seats.press(speaker)  # the speaker's «Пас»: the seat's button
        table.simulated_seats.release(speaker)
        heard.wait(lambda: table_state(heard.game()).turn_at == 1)  # type: ignore[union-attr]
        after = heard.game()
        assert after is not None
        assert _kinds(after)[: len(setup_records)] == setup_records  # records rebuilt in order
        assert 0.0 < table.now() < PATIENCE_S * 3  # the same game clock as the table's
    finally:
        table.close()
    lines = read(journal).lines
    assert any('"press"' in line for line in lines)  # the seat's press was journaled
    assert any('"next"' in line for line in lines)


def test_a_refused_input_is_said(tmp_path: Path) -> None:
    table, heard, _ = new_game(tmp_path)
    try:
        table.submit(GameSetUp(load_ruleset("tournament"), 10, ROLES_10))  # set up twice
        heard.wait(lambda: bool(heard.refused))
    finally:
        table.close()
    assert heard.lost == []  # a close is not a loss


def test_a_killed_table_is_reported_and_resumes_from_its_journal(tmp_path: Path) -> None:
    table, heard, journal = new_game(tmp_path)
    first_day(table, heard)
    before = heard.game()
    table.crash()
    heard.wait(lambda: bool(heard.lost))
    table.submit(HostAdvanced())  # a key pressed before the console resumed: no exception
    table.close()
    assert "exit code" in heard.lost[0]
    again = Heard()
    resumed = build(TableOrder(SPEC, None, 0, resume=journal), again)
    try:
        game = resumed.game
        assert game is not None and before is not None
        assert (game.phase, game.day, table_state(game).turn_at) == (
            before.phase,
            before.day,
            table_state(before).turn_at,
        )
        assert _kinds(game) == _kinds(before)
    finally:
        resumed.close()


def test_a_table_that_cannot_be_built_says_why_in_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.jsonl"
    with pytest.raises(TableFailed) as failure:
        build(TableOrder(SPEC, None, 0, resume=missing), Heard())
    assert str(missing) in str(failure.value) and "\n" not in str(failure.value)


def test_a_table_that_cannot_be_built_is_worded_as_the_console_words_its_error(
    tmp_path: Path,
) -> None:
    """The table's process words nothing: the error it met crosses the pipe
    and the console words it as it words that error anywhere."""
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text("not a journal line\n", encoding="utf-8")
    with pytest.raises(JournalDamaged) as direct:
        resume_journal(damaged, load_ruleset)
    with pytest.raises(TableFailed) as failure_seen:
        build(TableOrder(SPEC, None, 0, resume=damaged), Heard())
    said = error_line(failure_seen.value, "ru")
    assert said == error_line(direct.value, "ru") != str(direct.value)
    assert "продолжать игру по нему нельзя" in said


@pytest.mark.parametrize(
    "error",
    [
        ScriptError("game.jsonl", 3, '{"input": "x"}', "unknown input 'x'"),
        JournalDamaged("game.jsonl", 2, "checksum does not match"),
        DataFileError("pins.toml", "seats.1", 4, "must be a pin number"),
        FileRefused("/dev/zero", "device"),
        FileNotFoundError(2, "No such file or directory", "/nowhere"),
    ],
)
def test_the_errors_a_table_meets_cross_the_pipe_whole(error: BaseException) -> None:
    line, reason = failure(error)
    assert line == str(error) and reason is not None
    assert type(reason) is type(error) and error_line(reason, "ru") == error_line(error, "ru")


def test_an_error_that_cannot_cross_the_pipe_goes_as_its_line() -> None:
    class Odd(RuntimeError):
        def __init__(self, a: int, b: int) -> None:
            super().__init__(f"odd {a} and {b}\nsecond line")

    assert failure(Odd(1, 2)) == ("odd 1 and 2 second line", None)


def test_the_wire_keeps_the_records_through_an_undo() -> None:
    rules = load_ruleset("club")
    sender, receiver = StateSender(), StateReceiver()

    def game(*kinds: str) -> Game:
        log = None
        for kind in kinds:
            log = Record(0, kind, (), log)
        return Game(rules, log=log)

    first = game("a", "b")
    longer = Game(rules, log=Record(0, "c", (), first.log))  # one record more
    undone = first  # an undo: back to a state the console had
    branched = Game(rules, log=Record(0, "d", (), first.log))
    shown = []
    for state in (first, longer, undone, branched, Game(rules)):
        wire = sender.pack(state)
        assert wire is not None and wire.bare.log is None and wire.bare.prev is None
        shown.append(_kinds(receiver.unpack(wire)))
    assert shown == [["a", "b"], ["a", "b", "c"], ["a", "b"], ["a", "b", "d"], []]
    fresh = StateSender()
    fresh.pack(first)
    assert fresh.pack(longer).records == ((0, "c", ()),)  # type: ignore[union-attr]  # only what is new


def _kinds(game: Game | None) -> list[str]:
    out = []
    entry = game.log if game is not None else None
    while entry is not None:
        out.append(entry.kind)
        entry = entry.prev
    return out[::-1]


async def test_the_console_resumes_a_table_whose_process_died(tmp_path: Path) -> None:
    """The console as ``companion`` builds it (the table in its own process,
    the real clock): the table's process is killed mid-day; the console says
    so and goes on from the journal, where the game was."""
    import time

    from console_driver import SIZE, WHEN, config

    from companion.console.app import ConsoleApp
    from companion.console.sports.screen import TableScreen

    app = ConsoleApp(config(tmp_path), now=lambda: WHEN, seed=7)
    assert app.own_process

    async def until(what: Callable[[], bool]) -> None:
        end = time.monotonic() + PATIENCE_S
        while not what():
            assert time.monotonic() < end, "the console never showed it"
            await pilot.pause(0.05)

    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f5", "enter")  # the set-up screen's defaults, confirmed: a dealt game
        await until(lambda: isinstance(app.screen, TableScreen) and app.table is not None)
        first = app.table
        assert isinstance(first, TableProcess)
        await until(lambda: first.game is not None and first.game.phase == "night")
        await pilot.press("space")  # the agreement over: the free seating
        await until(lambda: first.game is not None and table_state(first.game).night_step == 1)
        await pilot.press("space")  # the first day (the seating's 20 s not waited out)
        await until(lambda: first.game is not None and first.game.phase == "speeches")
        before = first.game
        first.crash()
        await until(lambda: app.table is not None and app.table is not first)
        again = app.table
        assert isinstance(again, TableProcess) and again.game is not None and before is not None
        assert (again.game.phase, again.game.day) == (before.phase, before.day)
        assert isinstance(app.screen, TableScreen)
        await pilot.press("space")  # the game goes on in the new process
        await until(lambda: again.game is not None and table_state(again.game).turn_at == 1)
        await app.action_quit()
