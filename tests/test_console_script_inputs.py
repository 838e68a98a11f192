"""The console's scripted source (``console --inputs``): which lines a
journal already holds, whose game a journal is, and the thread that hands
the rest to the table. The whole thing under SIGKILL: tests/test_bench_faults.py."""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from companion.config.rulesets import load_ruleset
from companion.console.script_inputs import (
    ScriptFeeder,
    ScriptInputs,
    journal_records,
    line_number,
    played_in,
)
from companion.core.events import Event, GameSetUp, HostAdvanced
from companion.runner.journal import Journal
from companion.runner.replay import ScriptReplay
from companion.runner.script import ScriptError, read_script
from testkit.crash_game import crash_game


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def journaled(script: Path, journal: Path) -> list[dict[str, Any]]:
    """The script replayed into a journal, as the console's table writes it."""
    writer = Journal.create(journal)
    try:
        ScriptReplay(writer).run(read_script(script, load_ruleset))
    finally:
        writer.close()
    return journal_records(journal)


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> tuple[ScriptInputs, list[dict[str, Any]]]:
    folder = tmp_path_factory.mktemp("inputs")
    script = write(folder / "script.jsonl", crash_game(12, calm_inputs=0))
    return ScriptInputs.read(script), journaled(script, folder / "journal.jsonl")


def test_rest_after_any_cut_of_the_journal_gives_every_input_once(
    game: tuple[ScriptInputs, list[dict[str, Any]]],
) -> None:
    inputs, records = game
    everything = Counter(line_number(ln) for ln in inputs.lines if ln.event is not None)
    assert len(records) > 80
    for cut in range(1, len(records) + 1):  # a kill after each line the journal got
        head = records[:cut]
        fed = [line_number(ln) for ln in inputs.rest(head) if ln.event is not None]
        taken = Counter(r["line"] for r in head if "line" in r)
        assert taken + Counter(fed) == everything, cut
        assert fed == sorted(fed)


def test_a_journal_is_the_scripts_game_only_if_its_setup_line_is(
    game: tuple[ScriptInputs, list[dict[str, Any]]], tmp_path: Path
) -> None:
    inputs, records = game
    assert inputs.began(records)
    assert inputs.began(records[:1])
    assert not inputs.began([])
    other = write(tmp_path / "other.jsonl", crash_game(8, calm_inputs=0))  # another seed
    assert not inputs.began(journaled(other, tmp_path / "other-journal.jsonl"))
    moved = [{**records[0], "line": 2}, *records[1:]]  # begun from another line
    assert not inputs.began(moved)


def test_a_journal_of_another_script_is_refused_naming_its_line(
    game: tuple[ScriptInputs, list[dict[str, Any]]],
) -> None:
    inputs, records = game
    changed = [dict(r) for r in records[:6]]
    index = next(i for i, r in enumerate(changed) if r["input"] == "next" and "line" in r)
    changed[index]["input"] = "undo"
    with pytest.raises(ScriptError, match=rf"journal's line {index + 1} \('undo'\)"):
        inputs.rest(changed)
    beyond = [*records[:3], {"at": 1.0, "input": "next", "line": 9999}]
    with pytest.raises(ScriptError, match="its line 9999"):
        inputs.rest(beyond)


def test_a_journal_or_a_script_without_setup_is_not_an_input_source(tmp_path: Path) -> None:
    script = write(tmp_path / "s.jsonl", crash_game(12, calm_inputs=0)[:5])
    journal = tmp_path / "j.jsonl"
    journaled(script, journal)
    with pytest.raises(ScriptError, match="a journal; use 'companion resume"):
        ScriptInputs.read(journal)
    no_setup = write(tmp_path / "n.jsonl", ['{"at": 1, "input": "next"}'])
    with pytest.raises(ScriptError, match="no setup line"):
        ScriptInputs.read(no_setup)


def test_the_played_game_is_found_past_an_empty_journal(
    game: tuple[ScriptInputs, list[dict[str, Any]]], tmp_path: Path
) -> None:
    inputs, _ = game
    folder = tmp_path / "journals"
    folder.mkdir()
    assert played_in(folder, inputs) is None
    full = folder / "2026-12-01_20-00-00.jsonl"
    journaled(inputs.path, full)
    empty = folder / "2026-12-01_20-00-01.jsonl"  # a start killed before its setup line
    empty.touch()
    assert empty.stat().st_mtime_ns >= full.stat().st_mtime_ns
    assert played_in(folder, inputs) == full
    other = write(tmp_path / "other.jsonl", crash_game(8, calm_inputs=0)[:3])
    newer = folder / "2026-12-01_21-00-00.jsonl"
    journaled(other, newer)  # another game, newer: the script's is not the last played
    assert played_in(folder, inputs) is None


class FakeTable:
    """Records what is submitted; ``reached`` is set at the ``until``-th input."""

    def __init__(self, until: int = 0) -> None:
        self.got: list[tuple[Event, float | None, int | None, str | None]] = []
        self.until = until
        self.reached = threading.Event()

    def submit(
        self,
        event: Event,
        *,
        at: float | None = None,
        line: int | None = None,
        ruleset: str | None = None,
    ) -> None:
        self.got.append((event, at, line, ruleset))
        if len(self.got) == self.until:
            self.reached.set()


def test_the_feeder_hands_over_every_input_with_its_time_line_and_ruleset(
    game: tuple[ScriptInputs, list[dict[str, Any]]],
) -> None:
    inputs, _ = game
    table, done = FakeTable(), threading.Event()
    feeder = ScriptFeeder(inputs.lines, table, when=lambda at: 0.0, on_done=done.set)
    feeder.start()
    feeder.join(30)
    assert done.is_set()
    wanted = [ln for ln in inputs.lines if ln.event is not None]  # "wait" lines are not inputs
    assert [(e, at, line) for e, at, line, _ in table.got] == [
        (ln.event, ln.at, line_number(ln)) for ln in wanted
    ]
    assert isinstance(table.got[0][0], GameSetUp) and table.got[0][3] == "tournament"
    assert {ruleset for *_, ruleset in table.got[1:]} == {None}


def test_the_feeder_hands_a_line_over_lag_seconds_before_its_time_and_stops(
    tmp_path: Path,
) -> None:
    lines = [
        '{"at": 0, "input": "setup", "ruleset": "tournament", "seats": 10, "seed": 1}',
        '{"at": 3, "input": "next"}',
        '{"at": 300, "input": "next"}',  # due at 300 - 2: far from 4
        '{"at": 301, "input": "next"}',
    ]
    inputs = ScriptInputs.read(write(tmp_path / "s.jsonl", lines))
    table, done = FakeTable(until=2), threading.Event()
    # The table's clock reads its game time on the monotonic clock, which
    # stands at 4 (made up: nothing here waits for real time to pass).
    feeder = ScriptFeeder(
        inputs.lines, table, when=lambda at: at, lag=2.0, on_done=done.set, monotonic=lambda: 4.0
    )
    feeder.start()
    assert table.reached.wait(30)
    feeder.stop()  # the table was closed: the lines not handed over stay the journal's to say
    feeder.join(30)
    assert [(type(e), at) for e, at, *_ in table.got] == [(GameSetUp, 0.0), (HostAdvanced, 3.0)]
    assert not done.is_set()
