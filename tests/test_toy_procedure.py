"""A third procedure needs no line of companion/ (issue 25 part 3's
proof): the toy game of tests/toy_game/ is registered by this test
(``registry.register``: the lines a built-in has in each registry), its ruleset file read by the ruleset reader
(its own ``[toy]`` section through its ``read_rules``), played by the
engine from set-up to its end, and replayed from a table script to the
replay JSON, in this process and by ``companion replay`` in another."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest

from companion.config.rulesets import load_ruleset
from companion.core import procedures, views
from companion.core.engine import apply, new_game, step
from companion.core.events import (
    Event,
    GameSetUp,
    HostAdvanced,
    LineField,
    Nominated,
    OffenceGiven,
    ProcedureEvent,
    TimerExpired,
    Undone,
)
from companion.core.ruleset_load import DataFileError, parse_ruleset
from companion.core.state import Game, Result
from companion.core.step import IllegalInput, Step
from companion.protocol import report
from companion.runner import codec
from companion.runner.journal import Journal
from companion.runner.replay import ScriptReplay
from companion.runner.script import read_script
from tests.toy_game import procedure as toy
from tests.toy_game import registry

ROOT = Path(__file__).resolve().parent.parent
TOY = ROOT / "tests" / "toy_game" / "toy.toml"
ROLES = ("red", "blue", "red", "blue")


@pytest.fixture(autouse=True, scope="module")
def registered() -> Iterator[None]:
    registry.register()
    yield
    registry.unregister()


def _rules_text() -> str:
    return TOY.read_text(encoding="utf-8")


def test_the_ruleset_file_names_the_toy_and_its_section_is_read_by_it() -> None:
    rules = load_ruleset(TOY)
    assert (rules.name, rules.procedure) == ("toy", "toy")
    assert rules.procedure_rules == toy.ToyRules(rounds=2, talk_s=30.0)
    assert rules.night == () and rules.deal_for(4) == (("red", 2), ("blue", 2))


def test_its_section_is_checked_as_any_other_part_of_a_ruleset() -> None:
    text = _rules_text().replace("rounds = 2", "rounds = 0")
    with pytest.raises(DataFileError, match=r"toy\.toml:\d+: toy\.rounds: must be at least 1"):
        parse_ruleset(text, "tests/toy_game/toy.toml")
    text = _rules_text().replace('cost = "count"', 'cost = "demotion"')
    with pytest.raises(DataFileError, match=r"'demotion' is the forum game's"):
        parse_ruleset(text, "tests/toy_game/toy.toml")


def test_a_name_nobody_registered_is_refused() -> None:
    text = _rules_text().replace('procedure = "toy"', 'procedure = "chess"')
    with pytest.raises(DataFileError, match=r"procedure: 'chess' is not one of .*toy"):
        parse_ruleset(text, "tests/toy_game/toy.toml")


def _play(game: Game, *events: object) -> Game:
    for event in events:
        game, _ = step(game, event)  # type: ignore[arg-type]
    return game


def test_the_engine_plays_it_from_set_up_to_its_end() -> None:
    rules = load_ruleset(TOY)
    game, _ = new_game(GameSetUp(rules, 4, roles=ROLES))
    assert (game.phase, game.day, views.phase_name(game)) == ("talk", 1, "talk")
    assert [t for t, _ in game.timers] == ["talk"]
    # the host's «next» ends the talk; the timer would have (below)
    game = _play(game, HostAdvanced(), Nominated(1, 2), Nominated(2, 1))
    assert views.lights(game) == ("steady", "steady", "idle", "idle")
    with pytest.raises(IllegalInput, match="seat 1 has picked"):
        step(game, Nominated(1, 3))
    # the shared discipline works on the toy's seats: a count on the ladder
    game = _play(game, OffenceGiven(3, "chatter"))
    assert game.seat(3).count == 1
    game = _play(game, Nominated(3, 2), Nominated(4, 2))
    assert game.seat(2).out is not None and (game.phase, game.day) == ("talk", 2)
    ((name, generation),) = game.timers
    game = _play(game, TimerExpired(name, generation), Nominated(1, 4), Nominated(3, 1))
    game = _play(game, Nominated(4, 1))
    # seat 1 (red) leaves: one red, one blue left after the last round: a draw
    assert game.phase == "ended" and game.result == Result((), (), "rounds_played")
    assert [seat.out is None for seat in game.seats] == [False, False, True, True]
    # undo walks back through the toy's states as through any other
    back, _ = apply(game, Undone())
    assert back.phase == "pick" and back.result is None and back.seat(1).out is None


SCRIPT = [
    {"at": 0, "input": "setup", "ruleset": str(TOY), "roles": list(ROLES)},
    {"at": 5, "input": "next"},
    {"after": 1, "input": "nominate", "by": 1, "target": 2},
    {"after": 1, "input": "nominate", "by": 2, "target": 1},
    {"after": 1, "input": "nominate", "by": 3, "target": 2},
    {"after": 1, "input": "nominate", "by": 4, "target": 2},
    # day 2: the talk's timer runs out by itself (30 s)
    {"after": 40, "input": "nominate", "by": 1, "target": 3},
    {"after": 1, "input": "nominate", "by": 3, "target": 1},
    {"after": 1, "input": "nominate", "by": 4, "target": 1},
]


def _script(folder: Path) -> Path:
    path = folder / "toy.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in SCRIPT), encoding="utf-8")
    return path


def _expected_end(summary: dict[str, object]) -> None:
    assert summary["ruleset"] == "toy"
    assert summary["phase"] == "ended" and summary["day"] == 2
    seats = summary["seats"]
    assert isinstance(seats, list)
    assert [seat["alive"] for seat in seats] == [False, False, True, True]
    assert summary["result"] == {
        "winners": [],
        "losers": [],
        "reason": "rounds_played",
        "clause": None,
    }


def test_a_table_script_replays_to_the_replay_json(tmp_path: Path) -> None:
    lines = read_script(_script(tmp_path), load_ruleset)
    table = ScriptReplay(source="toy.jsonl")
    table.run(lines)
    assert table.game is not None
    summary = report.summary(table.game, ignored=table.ignored)
    _expected_end(json.loads(json.dumps(summary)))


#: ``companion replay --json``, its command line's own main, in a process
#: whose only addition is the toy's registry lines: the real command cannot
#: register a procedure by itself (no plug-in lookup), so the lines run first
REPLAY = """
import sys
from tests.toy_game import registry
registry.register()
from companion.cli import main
sys.exit(main(["replay", sys.argv[1], "--json", "--lang", "en"]))
"""


def test_companion_replay_plays_it_in_a_process_of_its_own(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-c", REPLAY, str(_script(tmp_path))],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    _expected_end(json.loads(run.stdout))


@dataclass(frozen=True, slots=True)
class Bell(ProcedureEvent):
    """A toy's input of its own: a seat rings the table's bell, with a note."""

    seat: int
    note: str = ""

    INPUT: ClassVar[str] = "bell"
    LINE: ClassVar[tuple[LineField, ...]] = (
        LineField("seat", "seat"),
        LineField("note", "text", key="tune", optional=True),
    )


def _ring(t: Step, event: Event) -> None:
    pass


#: the toy with an input of its own, registered beside it
BELL_TOY = dataclasses.replace(
    toy.PROCEDURE, name="toy_bell", events=(Bell,), handlers_any_phase={Bell: _ring}
)


@pytest.fixture
def bell_toy(tmp_path: Path) -> Iterator[Path]:
    procedures.register(BELL_TOY)
    path = tmp_path / "toy_bell.toml"
    text = _rules_text().replace('procedure = "toy"', 'procedure = "toy_bell"')
    path.write_text(text.replace('name = "toy"', 'name = "toy_bell"'), "utf-8")
    yield path
    procedures.PROCEDURES.pop(BELL_TOY.name, None)


def test_a_procedures_own_input_goes_through_a_journal(bell_toy: Path, tmp_path: Path) -> None:
    """The codec finds the toy's ``bell`` through the registry: a script
    line reads as the toy's event, the journal writes it, and the journal
    reads back to the same inputs."""
    script = tmp_path / "bell.jsonl"
    bells = [
        {"at": 0, "input": "setup", "ruleset": str(bell_toy), "roles": list(ROLES)},
        {"at": 1, "input": "bell", "seat": 2, "tune": "la"},
        {"at": 2, "input": "bell", "seat": 3},
        {"at": 5, "input": "next"},
    ]
    script.write_text("".join(json.dumps(line) + "\n" for line in bells), encoding="utf-8")
    path = tmp_path / "journal.jsonl"
    table = ScriptReplay(journal=Journal.create(path))
    table.run(read_script(script, load_ruleset))
    assert table.game is not None and table.game.phase == "pick"
    written = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    rung = [{k: v for k, v in r.items() if k != "sum"} for r in written if r["input"] == "bell"]
    assert rung == [
        {"at": 1.0, "input": "bell", "seat": 2, "tune": "la", "line": 2},
        {"at": 2.0, "input": "bell", "seat": 3, "line": 3},
    ]
    again = [line.event for line in read_script(path, load_ruleset)]
    assert [e for e in again if isinstance(e, Bell)] == [Bell(2, "la"), Bell(3)]
    assert codec.encode(Bell(2, "la")) == {"input": "bell", "seat": 2, "tune": "la"}
    assert codec.input_name(Bell(3)) == "bell"


def test_a_procedures_input_checks_its_keys_as_any_other(bell_toy: Path) -> None:
    assert codec.shapes()["bell"] == (("seat",), ("tune",))
    with pytest.raises(ValueError, match=r"'seat' must be a seat number"):
        codec.decode("bell", {"input": "bell", "seat": 0}, load_ruleset)


def test_an_input_name_taken_twice_is_refused(bell_toy: Path) -> None:
    @dataclass(frozen=True, slots=True)
    class Clash(ProcedureEvent):
        seat: int
        INPUT: ClassVar[str] = "nominate"
        LINE: ClassVar[tuple[LineField, ...]] = (LineField("seat", "seat"),)

    procedures.register(dataclasses.replace(toy.PROCEDURE, name="toy_clash", events=(Clash,)))
    try:
        with pytest.raises(ValueError, match=r"procedure 'toy_clash': input 'nominate' is taken"):
            codec.shapes()
    finally:
        procedures.PROCEDURES.pop("toy_clash", None)
