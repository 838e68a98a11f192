"""Table scripts (docs/table-script.md): parsing lines into timed inputs, and
how the fake clock runs them."""

from __future__ import annotations

import gc
import json
from typing import Any

import pytest
from helpers import TOURNAMENT_ROLES

from companion.config.rulesets import load_ruleset
from companion.core.events import (
    BestMoveMade,
    GameSetUp,
    HostAdvanced,
    NightChoiceMade,
    Nominated,
    OffenceGiven,
    ProposalDismissed,
    SeatPressed,
    SeatReleased,
    SpeechPassed,
    TeamSurrendered,
    TimerExpired,
    Undone,
)
from companion.core.sports.state import table as table_state
from companion.core.state import Game
from companion.runner.codec import encode as event_fields
from companion.runner.replay import ScriptReplay
from companion.runner.script import ScriptError, ScriptLine, parse_line, parse_lines

SETUP = {"input": "setup", "ruleset": "tournament", "roles": TOURNAMENT_ROLES}


def parse(*lines: dict[str, Any] | str) -> list[ScriptLine]:
    texts = [line if isinstance(line, str) else json.dumps(line) for line in lines]
    return parse_lines(texts, "t.jsonl", load_ruleset)


def error(*lines: dict[str, Any] | str) -> ScriptError:
    with pytest.raises(ScriptError) as caught:
        parse(*lines)
    return caught.value


def run(*lines: dict[str, Any] | str) -> Game:
    game = ScriptReplay().run(parse(*lines))
    assert game is not None
    return game


# --- lines and their inputs --------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "event"),
    [
        ({"input": "next"}, HostAdvanced()),
        ({"input": "undo"}, Undone()),
        ({"input": "wait"}, None),
        ({"input": "press", "seat": 3}, SeatPressed(3)),
        ({"input": "release", "seat": 3}, SeatReleased(3)),
        ({"input": "pass", "seat": 4}, SpeechPassed(4)),
        ({"input": "nominate", "by": 1, "target": 3}, Nominated(1, 3)),
        ({"input": "offence", "seat": 2, "offence": "4.6.1"}, OffenceGiven(2, "4.6.1")),
        ({"input": "offence", "seat": 2, "offence": "insults"}, OffenceGiven(2, "insults")),
        ({"input": "dismiss", "index": 0}, ProposalDismissed(0)),
        ({"input": "shot", "seat": 3, "target": 5}, NightChoiceMade(3, 5, "shoot")),
        ({"input": "check", "seat": 6, "target": 5}, NightChoiceMade(6, 5, "check")),
        ({"input": "heal", "seat": 5, "target": 1}, NightChoiceMade(5, 1, "heal")),
        ({"input": "block", "seat": 7, "target": 1}, NightChoiceMade(7, 1, "block")),
        ({"input": "kill", "seat": 9, "target": 1}, NightChoiceMade(9, 1, "kill")),
        ({"input": "choice", "seat": 9, "target": 1}, NightChoiceMade(9, 1, None)),
        ({"input": "best_move", "seat": 1, "suspects": [3, 6, 8]}, BestMoveMade(1, (3, 6, 8))),
        ({"input": "surrender", "team": "black"}, TeamSurrendered("black")),
        ({"input": "timer", "name": "turn", "generation": 7}, TimerExpired("turn", 7)),
    ],
)
def test_every_input_has_its_event(line: dict[str, Any], event: object) -> None:
    (parsed,) = parse(line)
    assert parsed.event == event
    assert parsed.fields == line  # the object as written, time keys aside


def test_setup() -> None:
    (line,) = parse({**SETUP, "seed": 3, "first_speaker": 4})
    event = line.event
    assert isinstance(event, GameSetUp)
    assert event.ruleset.name == "tournament"
    assert (event.seats, event.roles, event.seed, event.first_speaker) == (
        10,
        tuple(TOURNAMENT_ROLES),
        3,
        4,
    )


@pytest.mark.parametrize(
    ("extra", "seats"),
    [({}, 10), ({"seats": 8}, 8), ({"roles": TOURNAMENT_ROLES[:9]}, 9)],
)
def test_setup_seats_default_to_the_roles_or_ten(extra: dict[str, Any], seats: int) -> None:
    (line,) = parse({"input": "setup", "ruleset": "club", **extra})
    assert isinstance(line.event, GameSetUp) and line.event.seats == seats


def test_journal_keys_are_allowed() -> None:
    (line,) = parse({**SETUP, "journal": True, "ruleset_sha256": "ab" * 32, "line": 2})
    assert line.fields["journal"] is True and line.fields["line"] == 2


def test_comments_and_blank_lines_keep_the_line_numbers() -> None:
    lines = parse_lines(
        ["# a game", "", json.dumps(SETUP), "   # indented comment", "  ", '{"input": "next"}'],
        "t",
        load_ruleset,
    )
    assert [line.number for line in lines] == [3, 6]


# --- time -------------------------------------------------------------------------


def test_time_keys() -> None:
    lines = parse(
        {"at": 5, "input": "wait"},
        {"input": "wait"},  # the same time as the line before
        {"after": 2.5, "input": "wait"},
        {"after": 0, "input": "wait"},
        {"at": 10, "input": "wait"},
        {"at": 10, "input": "wait"},  # the same time again is fine
    )
    assert [line.at for line in lines] == [5, 5, 7.5, 7.5, 10, 10]
    assert all("at" not in line.fields and "after" not in line.fields for line in lines)


def test_start_at() -> None:
    (line,) = parse_lines(['{"after": 1, "input": "wait"}'], "t", load_ruleset, start_at=99)
    assert line.at == 100


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (
            ['{"at": 10, "input": "wait"}', '{"at": 9, "input": "wait"}'],
            "'at' must be a number of seconds not before 10",
        ),
        (['{"at": -1, "input": "wait"}'], "'at' must be a number of seconds not before 0"),
        (['{"at": "5", "input": "wait"}'], "'at' must be a number"),
        (['{"at": true, "input": "wait"}'], "'at' must be a number"),
        (['{"at": NaN, "input": "wait"}'], "'at' must be a number"),
        (['{"at": Infinity, "input": "wait"}'], "'at' must be a number"),
        (['{"after": -1, "input": "wait"}'], "'after' must be a number of seconds from 0"),
        (['{"after": NaN, "input": "wait"}'], "'after' must be a number"),
        (['{"at": 1, "after": 1, "input": "wait"}'], "give either 'at' or 'after', not both"),
    ],
)
def test_bad_time(lines: list[str], message: str) -> None:
    caught = error(*lines)
    assert caught.line == len(lines) and message in caught.message


def test_timers_fire_before_an_input_at_the_same_time() -> None:
    """Night 0's agreement (60 s) runs out at 60: a «next» at 60 then skips
    free seating, not the agreement, and the day begins."""
    table = ScriptReplay()
    table.run(parse(SETUP, {"at": 60, "input": "next"}))
    assert table.game is not None and table.game.phase == "speeches"
    table = ScriptReplay()
    table.run(parse(SETUP, {"at": 59.5, "input": "next"}))
    assert table.game is not None and table.game.phase == "night"


def test_timers_fire_in_deadline_order_at_their_deadlines() -> None:
    table = ScriptReplay()
    seen: list[tuple[float, str, int]] = []

    def watch(now: float, _effects: object) -> None:
        assert table.game is not None
        seen.append((now, table.game.phase, table.game.day))

    table.on_effects = watch
    table.run(parse(SETUP, {"at": 135, "input": "wait"}))
    # setup at 0; agreement ends at 60; free seating at 80 (day 1, seat 1's minute);
    # the warning at 130 (10 s before the end)
    assert [now for now, _, _ in seen] == [0, 60, 80, 130]
    assert seen[-1][1:] == ("speeches", 1)
    assert (
        table.game is not None
        and table_state(table.game).turn_warned
        and not table_state(table.game).turn_over
    )


def test_wait_moves_the_clock_only() -> None:
    table = ScriptReplay()
    table.run(parse(SETUP, {"at": 30, "input": "wait"}))
    assert (table.now, table.inputs) == (30, 1)


# --- errors ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"input": "next"', "not JSON (Expecting ',' delimiter at column 17)"),
        ("[1, 2]", "a line must be a JSON object"),
        ('{"seat": 1}', "'input' must be one of adjust, best_move, block, cancel_offence, check"),
        ('{"input": "raise_hand", "seat": 1}', "'input' must be one of"),
        ('{"input": "press", "seat": 1, "sea": 2}', "unknown key 'sea' for input 'press'"),
        ('{"input": "press"}', "input 'press' needs 'seat'"),
        ('{"input": "nominate", "by": 1}', "input 'nominate' needs 'target'"),
        ('{"input": "press", "seat": "1"}', "'seat' must be a seat number (1, 2, ...), got '1'"),
        ('{"input": "press", "seat": 1.0}', "'seat' must be a seat number (1, 2, ...), got 1.0"),
        ('{"input": "press", "seat": true}', "'seat' must be a seat number (1, 2, ...), got True"),
        ('{"input": "press", "seat": 0}', "'seat' must be a seat number (1, 2, ...), got 0"),
        (
            '{"input": "offence", "seat": 1, "offence": 4}',
            "'offence' must be a non-empty string, got 4",
        ),
        (
            '{"input": "offence", "seat": 1, "offence": ""}',
            "'offence' must be a non-empty string, got ''",
        ),
        (
            '{"input": "best_move", "seat": 1, "suspects": 3}',
            "'suspects' must be a list of seat numbers",
        ),
        (
            '{"input": "best_move", "seat": 1, "suspects": [2, 2]}',
            "a best move names one to three different seats",
        ),
        (
            '{"input": "setup", "ruleset": "tournament", "roles": "civilian"}',
            "'roles' must be a list of role ids",
        ),
        (
            '{"input": "setup", "ruleset": "tournament", "seats": 1}',
            "'seats' must be a whole number from 2 to 1000, got 1",
        ),
        (
            '{"input": "setup", "ruleset": "tournament", "journal": "yes"}',
            "'journal' must be true or false",
        ),
        ('{"input": "setup", "ruleset": "nope"}', "no ruleset named 'nope'"),
        ('{"input": "next", "line": 0}', "'line' must be a whole number from 1"),
        ('{"input": "next", "line": "3"}', "'line' must be a whole number"),
    ],
)
def test_bad_lines(line: str, message: str) -> None:
    caught = error("# first line", line)
    assert caught.line == 2 and caught.source == "t.jsonl"
    assert message in caught.message
    text = str(caught)
    assert "\n" not in text
    assert text.startswith(f"t.jsonl:2: {line[:77]}")
    assert text.endswith(caught.message)


def test_a_long_line_is_shortened_in_the_message() -> None:
    line = json.dumps({"input": "wait", "junk": "x" * 200})
    text = str(error(line))
    assert text.startswith("t.jsonl:1: " + line[:77] + "...: unknown key 'junk'")


def test_parse_line_alone() -> None:
    line = parse_line('{"after": 2, "input": "pass", "seat": 4}', 7, "s", 10.0, load_ruleset)
    assert (line.number, line.at, line.event) == (7, 12.0, SpeechPassed(4))


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([{"input": "next"}], "the first input must be a setup"),
        ([SETUP, SETUP], "the table is already set up"),
        ([SETUP, {"input": "press", "seat": 11}], "seat 11 is not at this table (1–10)"),
        (
            [SETUP, {"input": "offence", "seat": 1, "offence": "9.9.9"}],
            "no offence '9.9.9' in ruleset 'tournament'",
        ),
        (
            [SETUP, {"input": "nominate", "by": 1, "target": 2}],
            "not allowed in phase night",
        ),
        (
            [SETUP, {"input": "shot", "seat": 3, "target": 1}],
            "night step 'agreement' takes no choices",
        ),
        (
            [SETUP, {"input": "surrender", "team": "green"}],
            "no team 'green' in ruleset 'tournament'",
        ),
        ([SETUP, {"input": "dismiss", "index": 0}], "there is no proposal #0"),
        (
            [SETUP, {"input": "timer", "name": "turn", "generation": 99}],
            "timer 'turn' #99 is not running",
        ),
    ],
)
def test_illegal_inputs_name_their_line(lines: list[dict[str, Any]], message: str) -> None:
    table = ScriptReplay(source="t.jsonl")
    parsed = parse("# a comment", *lines)
    with pytest.raises(ScriptError) as caught:
        table.run(parsed)
    assert caught.value.line == len(lines) + 1
    # Refusals name the input as scripts do: ``nominate: ...``, never a class.
    message = f"{lines[-1]['input']}: {message}"
    assert caught.value.message == message
    text = json.dumps(lines[-1])
    shown = text if len(text) <= 80 else text[:77] + "..."
    assert str(caught.value) == f"t.jsonl:{len(lines) + 1}: {shown}: {message}"


def test_bulk_work_gives_the_collector_back() -> None:
    """Parsing and replaying switch the cyclic collector off for speed; it is
    on again afterwards, a refused line included, and left off if it was off."""
    with pytest.raises(ScriptError):
        parse(json.dumps(SETUP), "not json")
    assert gc.isenabled()
    with pytest.raises(ScriptError):
        ScriptReplay().run(parse(json.dumps(SETUP), json.dumps({"input": "dismiss", "index": 0})))
    assert gc.isenabled()
    gc.disable()
    try:
        ScriptReplay().run(parse(json.dumps(SETUP)))
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_event_fields() -> None:
    assert event_fields(TimerExpired("vote", 3)) == {
        "input": "timer",
        "name": "vote",
        "generation": 3,
    }
    assert event_fields(HostAdvanced()) == {"input": "next"}  # tests/test_event_fields.py: all
