"""What the table can read off a game: rights, speech lengths, lights.

All derived from ``Game``; nothing here changes state.
"""

from __future__ import annotations

from .state import Game, Seat
from .step import rights_day


def _playing(game: Game, seat: Seat) -> bool:
    return seat.out is None and game.phase != "ended"


def may_speak(game: Game, seat: Seat) -> bool:
    return _playing(game, seat) and seat.silenced_day != rights_day(game)


def may_nominate(game: Game, seat: Seat) -> bool:
    day = rights_day(game)
    return _playing(game, seat) and seat.no_nomination_day != day and seat.nominated_day != day


def may_vote(game: Game, seat: Seat) -> bool:
    return _playing(game, seat) and seat.no_vote_day != rights_day(game)


def regular_speech_s(game: Game, seat: Seat) -> float:
    """Seconds the seat's next regular speech gets (0 when it has lost it)."""
    if not may_speak(game, seat):
        return 0
    return game.rules.timings.speech_s


def tie_speech_s(game: Game, seat: Seat) -> float:
    timings = game.rules.timings
    if seat.out is not None:
        return 0
    if seat.silenced_day == game.day:
        return timings.silenced_tie_speech_s
    return timings.tie_speech_s


def next_speech_s(game: Game, seat: Seat) -> float:
    """Seconds the seat's next speech would get: a tie speech if one is queued
    for it, else its regular speech."""
    if not _playing(game, seat):
        return 0
    if game.phase == "speeches":
        for turn in game.turns[game.turn_at :]:
            if turn.seat == seat.number and turn.kind == "tie_speech":
                return tie_speech_s(game, seat)
    return regular_speech_s(game, seat)


def phase_name(game: Game) -> str:
    """The detailed phase: setup, night, last_word, speech, tie_speech, vote,
    count, all_leave_vote, all_leave_count, ended."""
    if game.phase == "speeches":
        turn = game.turn
        return turn.kind if turn else "speech"
    if game.phase == "voting" and game.ballot is not None:
        base = "all_leave_" if game.ballot.kind == "all_leave" else ""
        return base + ("count" if game.ballot.counting else "vote")
    return game.phase


# The light language (docs/lights.md). One mode per seat, derived from state.
OFF, STEADY, SLOW_BLINK, FAST_BLINK = "off", "steady", "slow_blink", "fast_blink"
PENALISED, MAY_VOTE, HOLDING, IDLE = "penalised", "may_vote", "holding", "idle"


def lights(game: Game) -> tuple[str, ...]:
    """Each seat's light. Lights are a view of the state, not orders: the
    seat shell renders them after each accepted input (``light_changes``),
    and a restarted table renders them once from the resumed state."""
    day = rights_day(game)
    turn = game.turn
    speaker = turn.seat if turn is not None else 0
    speaker_light = FAST_BLINK if game.turn_over else SLOW_BLINK if game.turn_warned else STEADY
    ballot = game.ballot if game.phase == "voting" else None
    held = game.held if ballot is not None else frozenset()
    out: list[str] = []
    for seat in game.seats:
        if seat.number == speaker:  # a last word is spoken from out of the game
            out.append(speaker_light)
        elif seat.out is not None:
            out.append(OFF)
        elif seat.number in held:
            out.append(HOLDING)
        elif ballot is not None and seat.no_vote_day != day:
            out.append(MAY_VOTE)
        elif day in (seat.silenced_day, seat.no_nomination_day, seat.no_vote_day):
            out.append(PENALISED)
        else:
            out.append(IDLE)
    return tuple(out)


def light_changes(before: Game | None, after: Game) -> list[tuple[int, str]]:
    """(seat, mode) for every seat whose light differs between two states;
    every seat when there is no state before."""
    now = lights(after)
    old = lights(before) if before is not None else ()
    if len(old) != len(now):
        return list(enumerate(now, 1))
    return [(n, mode) for n, (was, mode) in enumerate(zip(old, now, strict=True), 1) if was != mode]
