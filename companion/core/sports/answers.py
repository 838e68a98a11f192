"""What the sports table answers the shared discipline and the host's clock
(``Procedure``'s hooks; core/discipline.py and core/timing.py ask them):
who speaks now, whether a seat's speech is still ahead today, what added
time means to a speaker over time, where the speaker's warning falls, and
what an undo asks again.
"""

from __future__ import annotations

from ..state import Game
from ..step import Step
from .state import mark_seat, queued_turn, table, table_seat


def speaking(game: Game) -> int:
    """The seat whose turn runs now (a last word is spoken from out of the
    game), 0 for none."""
    turn = queued_turn(game)
    return turn.seat if turn is not None else 0


def speech_ahead(game: Game, number: int) -> bool:
    """Tournament 4.4: the seat's regular speech is still ahead in this
    round of speeches, not begun: a «this round or next» step bites today."""
    if game.phase != "speeches":
        return False
    state = table(game)
    ahead = any(
        turn.seat == number and turn.kind == "speech" for turn in state.turns[state.turn_at :]
    )
    return ahead and speaking(game) != number and table_seat(game, number).spoke_day != game.day


def lose_speech(t: Step, number: int, day: int) -> None:
    """The ladder takes the seat's speech of ``day`` (0: gives it back)."""
    mark_seat(t, number, silenced_day=day)


def leave_at_morning(t: Step, number: int, leaves: bool) -> None:
    """The seat leaves without a last word when the host announces the
    morning (club: a peek at night), or no longer does."""
    if table_seat(t.game, number).removal_at_morning != leaves:
        mark_seat(t, number, removal_at_morning=leaves)


def more_time(t: Step, seconds: float) -> str | None:
    """Only a speaker over time can be given more without a running timer:
    the turn's timer, its time no longer over."""
    if t.game.phase != "speeches" or not table(t.game).turn_over or seconds <= 0:
        return None
    t.set_state(turn_over=False)
    return "turn"


def time_moved(t: Step, left: dict[str, float]) -> None:
    """The warning sounds ``warning_s`` before the end of the turn, wherever
    the end has moved."""
    if t.game.phase != "speeches":
        return
    warning = t.game.rules.timings.warning_s
    turn_left = left["turn"]
    state = table(t.game)
    if turn_left > warning > 0:
        left["warning"] = turn_left - warning
        t.set_state(turn_warned=False)
    else:
        left.pop("warning", None)
        if not state.turn_warned and turn_left > 0:
            t.set_state(turn_warned=True)
            t.say("time_warning", seconds=int(turn_left))


def ran_over(game: Game, name: str) -> bool:
    """The turn is over time already: nothing more to say when it is taken."""
    return name == "turn" and table(game).turn_over


def ask_again(t: Step) -> None:
    """What an undo brought back is asked again as it runs on: the night
    step wakes its players once more (the table heard the next one wake),
    a vote window asks its question again."""
    game = t.game
    state = table(game)
    if game.phase == "night" and state.night_step < len(state.tonight):
        t.say(state.tonight[state.night_step].cue)
    elif game.phase == "voting" and state.ballot is not None and not state.ballot.counting:
        ballot = state.ballot
        if ballot.kind == "all_leave":
            t.say("all_leave_question", seats=",".join(map(str, ballot.tied)))
        else:
            t.say("vote_question", seat=ballot.candidates[ballot.index])
