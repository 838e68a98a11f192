"""A seat's rights on the sports table, as discipline has left them: may it
speak, nominate, vote, and for how long does its next speech run.

All derived from ``Game``; nothing here changes state.
"""

from __future__ import annotations

from ..state import Game, Seat
from ..step import rights_day
from .state import table, table_seat


def _playing(game: Game, seat: Seat) -> bool:
    return seat.out is None and game.phase != "ended"


def may_speak(game: Game, seat: Seat) -> bool:
    return _playing(game, seat) and table_seat(game, seat.number).silenced_day != rights_day(game)


def may_nominate(game: Game, seat: Seat) -> bool:
    day = rights_day(game)
    if not _playing(game, seat) or seat.no_nomination_day == day:
        return False
    return table_seat(game, seat.number).nominated_day != day


def may_vote(game: Game, seat: Seat) -> bool:
    # _playing written out: asked for every hand in a vote and every seat at its count
    return seat.out is None and game.phase != "ended" and seat.no_vote_day != rights_day(game)


def regular_speech_s(game: Game, seat: Seat) -> float:
    """Seconds the seat's next regular speech gets (0 when it has lost it)."""
    if not may_speak(game, seat):
        return 0
    return game.rules.timings.speech_s


def tie_speech_s(game: Game, seat: Seat) -> float:
    timings = game.rules.timings
    if seat.out is not None:
        return 0
    if table_seat(game, seat.number).silenced_day == game.day:
        return timings.silenced_tie_speech_s
    return timings.tie_speech_s


def next_speech_s(game: Game, seat: Seat) -> float:
    """Seconds the seat's next speech would get: a tie speech if one is queued
    for it, else its regular speech."""
    if not _playing(game, seat):
        return 0
    if game.phase == "speeches":
        state = table(game)
        for turn in state.turns[state.turn_at :]:
            if turn.seat == seat.number and turn.kind == "tie_speech":
                return tie_speech_s(game, seat)
    return regular_speech_s(game, seat)
