"""What the shells read off a sports table game: the detailed phase and the
seat lights (docs/lights.md).

All derived from ``Game``; nothing here changes state.
"""

from __future__ import annotations

from ..lights import FAST_BLINK, HOLDING, IDLE, MAY_VOTE, OFF, PENALISED, SLOW_BLINK, STEADY
from ..state import Game
from ..step import rights_day
from .state import queued_turn, table, table_seats


def phase_name(game: Game) -> str:
    """The detailed phase: setup, night, last_word, speech, tie_speech, vote,
    count, all_leave_vote, all_leave_count, ended."""
    if game.phase == "speeches":
        turn = queued_turn(game)
        return turn.kind if turn else "speech"
    ballot = table(game).ballot
    if game.phase == "voting" and ballot is not None:
        base = "all_leave_" if ballot.kind == "all_leave" else ""
        return base + ("count" if ballot.counting else "vote")
    return game.phase


def lights(game: Game) -> tuple[str, ...]:
    """Each seat's light. Lights are a view of the state, not orders: the
    seat shell renders them after each accepted input (``light_changes``),
    and a restarted table renders them once from the resumed state."""
    day = rights_day(game)
    state = table(game)
    turn = queued_turn(game)
    speaker = turn.seat if turn is not None else 0
    speaker_light = FAST_BLINK if state.turn_over else SLOW_BLINK if state.turn_warned else STEADY
    ballot = state.ballot if game.phase == "voting" else None
    held = state.held if ballot is not None else ()
    out: list[str] = []
    for seat, marks in zip(game.seats, table_seats(game), strict=True):
        if seat.number == speaker:  # a last word is spoken from out of the game
            out.append(speaker_light)
        elif seat.out is not None:
            out.append(OFF)
        elif seat.number in held:
            out.append(HOLDING)
        elif ballot is not None and seat.no_vote_day != day:
            out.append(MAY_VOTE)
        elif day in (marks.silenced_day, seat.no_nomination_day, seat.no_vote_day):
            out.append(PENALISED)
        else:
            out.append(IDLE)
    return tuple(out)
