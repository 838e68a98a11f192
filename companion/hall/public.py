"""What a table shows the hall: a game's public state as plain data.

Pure: ``public_state`` reads a ``Game`` and returns the ``state`` payload of
``topics.py``. It reads seats' numbers, names, outs and discipline, the
detailed phase, the speaker, the nominees and a ballot's counts once the
host closed it; it never reads a seat's role or team, the night's choices,
a check's answer or the host's proposals, so nothing of them can leak
(tests/test_hall_public.py changes all of them under a whole game and finds
every payload the same). The result (who won) is the one team-word it
carries, and only once the game has ended.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.sports.state import TableState, queued_turn, table_seat
from ..core.state import Game, Seat
from ..core.step import rights_day
from ..core.views import phase_name

#: the payload's schema version (docs/hall.md, "Payloads")
SCHEMA = 1

#: a seat's rights lost for the day, by the seat's field that takes each
#: the rights a seat can lose for a day, with the day it lost each (the
#: speech is the sports table's own mark, the others the shared seat's)
_RIGHTS: tuple[tuple[str, Callable[[Game, Seat], int]], ...] = (
    ("speak", lambda game, seat: table_seat(game, seat.number).silenced_day),
    ("nominate", lambda game, seat: seat.no_nomination_day),
    ("vote", lambda game, seat: seat.no_vote_day),
)


def public_state(
    game: Game,
    *,
    game_id: str,
    seq: int,
    deadline: float | None,
    paused_left: float | None = None,
    announcement: str = "",
) -> dict[str, Any]:
    """The ``state`` payload. ``deadline``: wall-clock epoch seconds when
    the running timer ends (None: none runs); ``paused_left``: seconds
    left on a paused timer; ``announcement``: the last public caption."""
    procedure = game.procedure_state
    sports = procedure if isinstance(procedure, TableState) else None
    turn = queued_turn(game) if sports is not None and game.phase == "speeches" else None
    day = rights_day(game) if game.phase not in ("setup", "ended") else 0
    return {
        "schema": SCHEMA,
        "game": game_id,
        "seq": seq,
        "phase": phase_name(game),
        "day": game.day,
        "speaker": turn.seat if turn is not None else None,
        "deadline": deadline,
        "paused_left": paused_left,
        "out": _out(game),
        "fouls": {str(s.number): s.count for s in game.seats if s.count},
        "rights_lost": _rights_lost(game, day),
        "nominations": list(sports.nominees) if sports is not None else [],
        "votes": _votes(game, sports),
        "result": _result(game),
        "announcement": announcement,
        "seats": len(game.seats),
        "players": {str(s.number): s.name for s in game.seats if s.name},
    }


def _out(game: Game) -> list[dict[str, Any]]:
    """Who is out and why. A kill of the night still running is the
    night's secret until the morning says it."""
    night = game.phase == "night"
    return [
        {"seat": s.number, "why": s.out.how}
        for s in game.seats
        if s.out is not None and not (night and s.out.how == "killed" and s.out.day == game.day)
    ]


def _rights_lost(game: Game, day: int) -> dict[str, list[str]]:
    if not day:
        return {}
    lost: dict[str, list[str]] = {}
    for seat in game.seats:
        if seat.out is None:
            rights = [right for right, lost_on in _RIGHTS if lost_on(game, seat) == day]
            if rights:
                lost[str(seat.number)] = rights
    return lost


def _votes(game: Game, sports: TableState | None) -> dict[str, int] | None:
    """Each candidate's count once the host has closed the vote («Спасибо»);
    None while hands are still going up."""
    ballot = sports.ballot if sports is not None and game.phase == "voting" else None
    if ballot is None or not ballot.counting:
        return None
    return {str(c): len(v) for c, v in zip(ballot.candidates, ballot.votes, strict=False)}


def _result(game: Game) -> dict[str, Any] | None:
    if game.result is None or game.phase != "ended":
        return None
    return {"winner": list(game.result.winners), "reason": game.result.reason}
