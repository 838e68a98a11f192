"""The host's corrections that are inputs of their own: an offence taken
back (its count and the rights it cost come back) and the game ended early.
Undo, pause and ±time have their own tests (test_timing.py, test_core_engine.py)."""

from __future__ import annotations

from typing import Any

import pytest
from helpers import TOURNAMENT_ROLES, play, setup

from companion.core.sports.state import table_seat
from companion.protocol.report import protocol, records
from companion.runner.replay import ScriptReplay
from companion.runner.script import ScriptError

SETUP = setup("tournament", TOURNAMENT_ROLES)


def fouls(seat: int, n: int) -> list[dict[str, Any]]:
    return [{"input": "offence", "seat": seat, "offence": "speech_out_of_turn"}] * n


def test_a_cancelled_third_foul_gives_the_speech_back() -> None:
    before = play(SETUP, {"input": "next"}, *fouls(5, 3))
    assert before.seat(5).count == 3
    assert table_seat(before, 5).silenced_day == 1  # 4.4: today's speech, still ahead
    game = play(
        SETUP,
        {"input": "next"},
        *fouls(5, 3),
        {"input": "cancel_offence", "seat": 5, "offence": "4.6.1"},
    )
    seat = game.seat(5)
    assert (seat.count, table_seat(game, 5).silenced_day, seat.offences) == (
        2,
        0,
        ("speech_out_of_turn",) * 2,
    )
    assert records(game)[-1].kind == "offence_cancelled"
    assert any("нарушение снято" in line for line in protocol(game))


def test_a_cancelled_warning_leaves_the_count() -> None:
    game = play(
        SETUP,
        {"input": "next"},
        *fouls(2, 1),
        {"input": "offence", "seat": 2, "offence": "warning"},
        {"input": "cancel_offence", "seat": 2, "offence": "warning"},
    )
    assert (game.seat(2).count, game.seat(2).offences) == (1, ("speech_out_of_turn",))


@pytest.mark.parametrize(
    ("lines", "offence", "message"),
    [
        ([], "speech_out_of_turn", "seat 3 has no offence 'speech_out_of_turn' to cancel"),
        (
            fouls(3, 4),
            "speech_out_of_turn",
            "seat 3 has left the table: only an undo brings them back",
        ),
        (
            [{"input": "offence", "seat": 3, "offence": "leaving_the_table"}],
            "leaving_the_table",
            "seat 3 has left the table: only an undo brings them back",
        ),
        ([], "no_such", "no offence 'no_such' in ruleset 'tournament'"),
    ],
)
def test_what_cannot_be_cancelled(lines: list[dict[str, Any]], offence: str, message: str) -> None:
    cancel = {"input": "cancel_offence", "seat": 3, "offence": offence}
    with pytest.raises(ScriptError) as caught:
        play(SETUP, {"input": "next"}, *lines, cancel)
    assert caught.value.message == f"cancel_offence: {message}"


def test_the_host_stops_the_game() -> None:
    table = ScriptReplay()
    game = play(
        SETUP, {"input": "next"}, {"input": "stop", "reason": "пожарная тревога"}, table=table
    )
    assert game.phase == "ended"
    assert game.result is not None and (game.result.winners, game.result.reason) == ((), "stopped")
    assert not table.timers  # every timer cancelled
    assert "Ведущий остановил игру: пожарная тревога" in "\n".join(protocol(game))
    with pytest.raises(ScriptError, match="stop: the game is over"):
        play({"input": "stop", "reason": "again"}, table=table)


def test_names_reach_the_seats() -> None:
    names = ["Аня", "", "Борис", "Ё", "a", "b", "c", "d", "e", "Фёдор"]
    game = play(setup("tournament", TOURNAMENT_ROLES, names=names))
    assert [seat.name for seat in game.seats] == names
    with pytest.raises(ScriptError, match="names lists 2 seats, the table has 10"):
        play(setup("tournament", TOURNAMENT_ROLES, names=["a", "b"]))
    with pytest.raises(ScriptError, match="'names' must be printable text of at most 40"):
        play(setup("tournament", TOURNAMENT_ROLES, names=["x" * 41] * 10))
