"""bench/soak.py runs as a user runs it: a short night (the warm-up game and
one more) through the console and each game's table process; it prints
both processes' figures, and the console's open files and threads are the
same at the end as after the warm-up game. Nothing here measures time or
memory (those are the bench's figures, not behaviour)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: "  game 2 over   1:27:08   75.1   15    5 |   32377   161.2   20   11 | ..."
MARK = re.compile(
    r"^  game (\d+) (set up|over) +\d+:\d\d:\d\d +([\d.]+) +(\d+) +(\d+) \| +(\d+) +([\d.]+) +(\d+) +(\d+) \|",
    re.M,
)
CONSOLE = re.compile(
    r"console \(pid \d+\): resident memory ([\d.]+) -> ([\d.]+) MB \([+-][\d.]+ MB\), "
    r"open files (\d+) -> (\d+) \([+-]\d+\), threads (\d+) -> (\d+) \([+-]\d+\)"
)
TABLE = re.compile(r"table process \(a new one each game\): .*open files (\d+) -> (\d+) ")


#: the bench's own run, two games of ~30 game minutes: slow however fast its clock
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def night() -> str:
    # At x90 (the bench's default: x30) the night takes ~40 s, not ~2 min:
    # what is checked here (every game set up and over in a process of its
    # own, nothing left open) does not depend on the clock's speed.
    run = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "soak.py"), "--hours", "0.2", "--speed", "90"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=1800,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return run.stdout


def test_the_night_is_played_game_after_game_through_the_console(night: str) -> None:
    marks = [(int(m[1]), m[2]) for m in MARK.finditer(night)]
    games = max(number for number, _ in marks)
    assert games >= 2  # the warm-up game and at least one measured game
    assert marks == [(n, what) for n in range(1, games + 1) for what in ("set up", "over")]
    assert re.search(rf"^games: {games} \(", night, re.M)
    assert "0 errors" in night


def test_each_game_has_a_table_process_of_its_own(night: str) -> None:
    tables = {int(m[1]): int(m[6]) for m in MARK.finditer(night) if m[2] == "set up"}
    over = {int(m[1]): int(m[6]) for m in MARK.finditer(night) if m[2] == "over"}
    assert tables == over  # the same process from set-up to game over
    assert len(set(tables.values())) == len(tables)  # a new one for every game
    assert "zombies: 0" in night
    left = re.search(r"^child processes left after the console quit: (.*)$", night, re.M)
    assert left is not None
    assert "table" not in left[1]  # every table process has ended


def test_open_files_and_threads_do_not_grow_over_the_night(night: str) -> None:
    console = CONSOLE.search(night)
    assert console is not None, night
    assert console[3] == console[4]  # the console's open files
    assert console[5] == console[6]  # the console's threads
    table = TABLE.search(night)
    assert table is not None, night
    assert table[1] == table[2]  # a table process's open files at game over
    # A table process's threads are not compared across games: each game has
    # a new process, and its threads depend on its own game (the first cue
    # rendered while it plays, a list of nominees, starts the renderer's).
