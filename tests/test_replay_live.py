"""``replay --realtime`` ends where its script ends, as the fake-clock replay
does, however late the loop comes round to the stop after the last line
(a loaded machine): a timer that ran out meanwhile on the real clock is not
journaled, so a journal of the realtime path resumes to the uninterrupted
state (bench/crash.py, the realtime path's kill near the script's end)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from helpers import TOURNAMENT_ROLES

from companion.config.rulesets import load_ruleset
from companion.core.effects import Effect
from companion.core.events import GameSetUp, HostAdvanced
from companion.runner.clock import FakeClock
from companion.runner.loop import LiveLoop

ROOT = Path(__file__).resolve().parent.parent

# The night's timer runs out at 20.9, the very moment of the last input
# (which it precedes); the next deadline after that is the script's no more.
SCRIPT = [
    '{"at": 0, "input": "setup", "ruleset": "tournament", "seats": 10, "seed": 8}',
    '{"at": 0.9, "input": "next"}',
    '{"at": 20.9, "input": "press", "seat": 5}',
]

# The realtime replay with the loop held up for 0.3 s (300 game-seconds at
# --speed 1000) right after it took the last input, before the stop behind it.
SLOW_LAST_INPUT = """
import sys, time
from companion import cli
from companion.runner.session import GameSession

take = GameSession.take

def slow(self, event, at, **where):
    effects = take(self, event, at, **where)
    if where.get("line") == 3:
        time.sleep(0.3)
    return effects

GameSession.take = slow
sys.exit(cli.main(sys.argv[1:]))
"""


def companion(*args: str | Path, code: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}  # fmt: skip
    start = ["-c", code] if code else ["-m", "companion.cli"]
    argv = [sys.executable, *start, *map(str, args)]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)


def test_a_realtime_replay_late_to_its_stop_journals_no_timer_after_the_script(
    tmp_path: Path,
) -> None:
    script = tmp_path / "script.jsonl"
    script.write_text("\n".join(SCRIPT) + "\n", encoding="utf-8")
    reference = tmp_path / "reference.jsonl"
    done = companion("replay", script, "--journal", reference, "--json")
    assert done.returncode == 0, done.stderr
    path, host = tmp_path / "journal.jsonl", tmp_path / "host.json"
    late = companion(
        "replay", script, "--journal", path, "--json", "--realtime", "--speed", "1000",
        "--captions", "--captions-to", tmp_path / "captions.txt", "--host-log", host,
        code=SLOW_LAST_INPUT,
    )  # fmt: skip
    assert late.returncode == 0, late.stderr
    records = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    assert [(r["at"], r["input"]) for r in records[-2:]] == [(20.9, "timer"), (20.9, "press")]
    assert path.read_bytes() == reference.read_bytes()
    assert json.loads(host.read_text()) == json.loads(done.stdout)
    resumed = companion("resume", path, "--script", script, "--json")
    assert resumed.returncode == 0 and json.loads(resumed.stdout) == json.loads(done.stdout)


def test_the_live_loop_fires_no_timer_due_after_its_end() -> None:
    clock = FakeClock()
    said: list[float] = []

    def effects(at: float, _effects: tuple[Effect, ...]) -> None:
        said.append(at)

    loop = LiveLoop(clock, effects)
    loop.end_at(30.0)
    loop.submit(GameSetUp(load_ruleset("tournament"), 10, tuple(TOURNAMENT_ROLES)), at=0.0)
    loop.submit(HostAdvanced(), at=30.0)  # night 0's agreement ends: a timer at 50
    clock.set(400)  # the loop comes round late
    loop.stop()
    loop.run()
    assert loop.timers.deadlines["night"][0] == 50
    assert said == [0.0, 30.0]
    loop.run_pending()
    assert said == [0.0, 30.0] and "night" in loop.timers.deadlines


# The realtime replay's feeder held up for 0.3 s (300 game-seconds at
# --speed 1000) before it hands over the script's third line.
LATE_FEEDER = """
import sys, time
from companion import cli
from companion.live.assembly import LiveTable

submit = LiveTable.submit

def late(self, event, **where):
    if where.get("line") == 3:
        time.sleep(0.3)
    submit(self, event, **where)

LiveTable.submit = late
sys.exit(cli.main(sys.argv[1:]))
"""


def test_a_realtime_replay_keeps_the_scripts_order_when_its_feeder_is_late(
    tmp_path: Path,
) -> None:
    # The press comes 0.05 s before night 0's timer runs out (20.9), and the
    # script goes on after it: a feeder late by more than that must not let
    # the timer go first.
    script = tmp_path / "script.jsonl"
    lines = [
        *SCRIPT[:2],
        '{"at": 20.85, "input": "press", "seat": 5}',
        '{"at": 30, "input": "wait"}',
    ]
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    reference = tmp_path / "reference.jsonl"
    done = companion("replay", script, "--journal", reference, "--json")
    assert done.returncode == 0, done.stderr
    path = tmp_path / "journal.jsonl"
    late = companion(
        "replay", script, "--journal", path, "--json", "--realtime", "--speed", "1000",
        "--captions", "--captions-to", tmp_path / "captions.txt", code=LATE_FEEDER,
    )  # fmt: skip
    assert late.returncode == 0, late.stderr
    assert path.read_bytes() == reference.read_bytes()


def test_the_live_loop_holds_a_timer_due_after_the_scripts_next_input() -> None:
    clock = FakeClock()
    loop = LiveLoop(clock, lambda at, effects: None)
    loop.end_at(0.0)
    loop.submit(GameSetUp(load_ruleset("tournament"), 10, tuple(TOURNAMENT_ROLES)), at=0.0, next_at=30.0)  # fmt: skip
    loop.submit(HostAdvanced(), at=30.0, next_at=45.0)  # night 0's agreement ends: a timer at 50
    clock.set(400)  # the loop is late, and the script's input at 45 is not here yet
    loop.run_pending()
    assert loop.timers.deadlines["night"][0] == 50  # held until that input comes
    loop.submit(HostAdvanced(), at=45.0, next_at=500.0)  # the host asks for the timer's end early
    loop.run_pending()
    assert loop.timers.deadlines.get("night", (None,))[0] != 50
