"""The sports table's microphone rule (docs/listening.md, "What it flags"):
who may speak in each of its phases.

- at night nobody: one word at night can remove a player (the club text),
  so the ears flag it at its onset;
- in a vote nobody;
- in the speeches the speaker whose turn runs, and only within their time;
  nobody between two turns (after a speaker's time, before the host gives
  the next the floor).

Before the setup and after the end anyone may talk.
"""

from __future__ import annotations

from ..state import Game
from ..step import Breach, MicrophoneRule
from .state import current_turn, table_or_blank


def broken(game: Game, seat: int | None) -> Breach | None:
    """What speech heard now (from ``seat``, if known) breaks, and whose it
    is; None when it may be spoken."""
    if game.phase == "night":
        return "night", seat
    if game.phase == "voting":
        return "vote", seat
    if game.phase != "speeches":
        return None  # before the setup, after the end
    turn = current_turn(game)
    if turn is None:
        return "between", seat
    if seat is not None and seat != turn.seat:
        return "out_of_turn", seat
    if table_or_blank(game).turn_over:
        return ("last_word_overrun" if turn.kind == "last_word" else "overrun"), turn.seat
    return None


def running_over(game: Game) -> tuple[int | str, ...] | None:
    """The turn whose time has run out (its place in the day's turns, its
    kind, its seat), or None while every turn is within its time."""
    turn = current_turn(game)
    state = table_or_blank(game)
    if turn is None or not state.turn_over:
        return None
    return (state.turn_at, turn.kind, turn.seat)


RULE = MicrophoneRule(broken=broken, running_over=running_over)
