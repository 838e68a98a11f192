"""bench/faults.py keeps working: the service's real command in a
pseudo-terminal, killed with its table's process by SIGKILL at a handful of
moments and started again until its script is played, ends with the
uninterrupted run's journal and state: nothing lost, nothing taken twice.
Where a kill lands is set by journal lines here, not by time; nothing here
measures time."""

from __future__ import annotations

import dataclasses
import json

import pytest

from bench import faults, kill_parts
from testkit.crash_game import crash_game

#: seconds a start of the service may take to play the game (a loaded machine)
LIMIT = 240.0

#: eight kills of the real service, each played to the end again: ~1 min
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> kill_parts.Setup:
    """The bench's game (86 inputs, it ends) and its uninterrupted replay; at
    a tenth of the bench's speed the game lasts ~11 s, so that a kill set
    for a journal line lands about there and not at the end."""
    return kill_parts.make_setup(
        tmp_path_factory.mktemp("faults"), crash_game(12, calm_inputs=0), 10
    )


def test_kills_anywhere_lose_nothing_and_take_nothing_twice(setup: kill_parts.Setup) -> None:
    lines = setup.journal_lines
    moments = [
        faults.Moment(0, delay=0.0),  # before anything: no journal yet
        faults.Moment(1, line=1),  # the setup line journaled, the script not yet fed
        faults.Moment(2, line=lines // 4),
        faults.Moment(3, line=lines // 2),
        faults.Moment(4, line=3 * lines // 4),
        faults.Moment(5, line=lines - 2),  # the last lines come fast: maybe all in
        faults.Moment(6, line=lines),  # played: the restart must not begin it again
        faults.Moment(7, line=lines // 3),
    ]
    said: list[str] = []
    outcomes = faults.run_moments(moments, setup, workers=2, limit=LIMIT, say=said.append)
    assert [o.problems for o in outcomes] == [[]] * len(moments), said
    assert all(o.identical and o.same_journal and o.journal_ok for o in outcomes)
    assert [(o.lost, o.duplicated, o.failed_starts) for o in outcomes] == [(0, 0, 0)] * 8
    assert outcomes[0].lines_at_kill == -1
    for outcome in outcomes[1:5] + outcomes[7:]:  # killed mid-game, where the test said
        assert outcome.moment.line <= outcome.lines_at_kill < lines, outcome
        assert not outcome.done_before_kill
    assert outcomes[5].lines_at_kill >= lines - 2
    assert outcomes[6].done_before_kill and outcomes[6].lines_at_kill == lines
    figures = faults.figures(outcomes, 0.0, lines)
    assert (
        figures[0]
        == "faults: 8/8 identical, 0 lost, 0 duplicated, 0 failed restarts (of 8 restarts)"
    )
    assert not setup.failures.exists()


def test_a_run_that_differs_is_counted_and_kept(setup: kill_parts.Setup) -> None:
    # Tell the bench the uninterrupted run ended otherwise.
    wrong = dataclasses.replace(setup, reference={**setup.reference, "day": -1})
    outcome = faults.fault_once(faults.Moment(9, line=5), wrong, LIMIT)
    assert not outcome.identical and outcome.same_journal
    assert outcome.problems == ["resume printed another state (status 0)"]
    kept = wrong.failures / "moment-0009"
    assert {p.name for p in kept.iterdir()} >= {
        "crashed.jsonl", "journals", "companion.log", "moment.json", "script.jsonl",
        "screen-0.txt", "screen-1.txt", "resume.out",
    }  # fmt: skip
    assert json.loads((kept / "moment.json").read_text())["moment"]["line"] == 5
