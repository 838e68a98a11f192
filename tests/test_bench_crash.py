"""bench/crash.py keeps working: its game, its counts, and a handful of kills
on each path, each resumed as a user would (real processes, real SIGKILL).
Nothing here measures time."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter

import pytest

from bench import crash, kill_parts
from testkit.crash_game import MARGIN, clearance, crash_game


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> kill_parts.Setup:
    """A short game (nobody leaves; it does not end) and its uninterrupted replay."""
    script = crash_game(seed=8, calm_inputs=40, finish=False)
    return kill_parts.make_setup(tmp_path_factory.mktemp("crash"), script, speed=50)


def test_the_bench_game_is_long_ends_and_keeps_clear_of_deadlines() -> None:
    script = crash_game()
    gap, phase, _ = clearance(script)
    assert len(script) >= 300
    assert phase == "ended"
    assert gap >= MARGIN - 1e-6


def test_clearance_sees_an_input_close_to_a_deadline() -> None:
    # Two nominees; the vote window opens at 14 and closes at 16 (tournament:
    # 2 s); the press at 15.5 comes half a second before it.
    script = [
        '{"at": 0, "input": "setup", "ruleset": "tournament", "seats": 10, "seed": 1}',
        '{"at": 1, "input": "next"}',
        '{"at": 2, "input": "next"}',
        '{"at": 3, "input": "nominate", "by": 1, "target": 5}',
        '{"at": 4, "input": "next"}',
        '{"at": 5, "input": "nominate", "by": 2, "target": 6}',
        *[f'{{"at": {5 + n}, "input": "next"}}' for n in range(1, 10)],
        '{"at": 15.5, "input": "press", "seat": 3}',
    ]
    gap, phase, _ = clearance(script)
    assert phase == "voting"
    assert gap == pytest.approx(0.5)
    # A press the moment the window opens is a whole window before «Спасибо».
    on_time = [*script[:-1], '{"at": 14, "input": "press", "seat": 3}']
    assert clearance(on_time)[0] == pytest.approx(2.0)


@pytest.mark.parametrize(
    ("expected", "got", "lost", "duplicated"),
    [
        ({1: 1, 2: 1, 3: 1}, {1: 1, 2: 1, 3: 1}, 0, 0),
        ({1: 1, 2: 1, 3: 1}, {1: 1, 3: 1}, 1, 0),
        ({1: 1, 2: 1, 3: 1}, {1: 1, 2: 2, 3: 1}, 0, 1),
        ({1: 1, 2: 1, 3: 1}, {1: 3, 3: 1}, 1, 2),
    ],
)
def test_lost_and_duplicated(
    expected: dict[int, int], got: dict[int, int], lost: int, duplicated: int
) -> None:
    assert kill_parts.lost_and_duplicated(Counter(expected), Counter(got)) == (lost, duplicated)


def test_late_inputs_are_those_journaled_after_their_time() -> None:
    records = [
        {"at": 0.0, "input": "setup", "line": 1},
        {"at": 2.0, "input": "timer", "name": "vote"},
        {"at": 2.0, "input": "press", "line": 2},  # its script time is 1.5
        {"at": 3.0, "input": "next", "line": 3},
    ]
    assert kill_parts.late_inputs(records, {1: 0.0, 2: 1.5, 3: 3.0}) == [2]


@pytest.mark.slow  # the bench's uninterrupted run, then real kills and resumes
def test_a_handful_of_kills_on_each_path_resume_to_the_same_state(setup: kill_parts.Setup) -> None:
    lines = setup.journal_lines
    for path in crash.PATHS:
        moments = [
            crash.Moment(path, 0, "external", delay=0.0),  # before the journal exists
            crash.Moment(path, 1, "external", delay=2.5),  # somewhere in the run
            crash.Moment(path, 2, "hook", line=1, where="after"),  # the setup line
            crash.Moment(path, 3, "hook", line=lines // 2, where="mid"),
            crash.Moment(path, 4, "hook", line=lines, where="after"),  # the last line
        ]
        said: list[str] = []
        outcomes = crash.run_path(moments, setup, workers=3, say=said.append)
        assert [o.problems for o in outcomes] == [[]] * len(moments), said
        assert all(o.identical and o.same_journal and o.journal_ok for o in outcomes)
        assert [o.lines_at_kill for o in outcomes[::2]] == [-1, 1, lines]
        assert outcomes[3].torn and outcomes[3].lines_at_kill == lines // 2 - 1
        figures = crash.figures(path, outcomes, 0.0)
        assert figures[0].startswith(
            f"{path} path: 5/5 identical, 0 lost, 0 duplicated, 0 resume failures "
            "(2 external kills, 3 hook kills; "
        )
    assert not setup.failures.exists()


@pytest.mark.slow  # the same bench run (the module's ``setup``)
def test_a_resume_that_differs_is_counted_and_kept(setup: kill_parts.Setup) -> None:
    # Tell the bench the uninterrupted run went otherwise: another state, and
    # one input more in its journal (a script line the game never reaches).
    extra = b'{"at":9999.0,"input":"next","line":9999}\n'
    wrong = dataclasses.replace(
        setup, reference={**setup.reference, "day": -1}, journal=setup.journal + extra
    )
    moment = crash.Moment("replay", 9, "hook", line=5, where="after")
    outcome = crash.crash_once(moment, wrong)
    assert not outcome.identical and not outcome.same_journal
    assert (outcome.lost, outcome.duplicated) == (1, 0)
    assert outcome.problems == [
        "resume printed another state than the uninterrupted run",
        "inputs lost: 1, duplicated: 0",
    ]
    kept = wrong.failures / "replay-0009"
    assert {p.name for p in kept.iterdir()} >= {
        "journal.jsonl", "crashed.jsonl", "script.jsonl", "moment.json", "resume.out",
    }  # fmt: skip
    assert json.loads((kept / "moment.json").read_text())["moment"]["line"] == 5
    assert len((kept / "crashed.jsonl").read_bytes().splitlines()) == 5
