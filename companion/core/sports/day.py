"""The day: last words, speeches in seat order, nominations, the best move.

A day is a queue of speaking turns (``TableState.turns``) followed by what
``TableState.after`` says: the vote, a revote, or the night. When the queue
is done the day names its ending (``speeches_done``, ``revote_due``,
``day_over``) and the sports table's transition table goes on from there.
"""

from __future__ import annotations

from .. import outcome
from ..events import BestMoveMade, Nominated
from ..state import Out
from ..step import Step, living_seat, require, seat_in_range
from . import rights
from .state import After, Turn, mark_seat, queued_turn, table, table_seat, table_seats

_TURN_CUES = {
    "speech": "speech_start",
    "last_word": "last_word_start",
    "tie_speech": "tie_speech_start",
}


def start(t: Step, victims: tuple[int, ...]) -> None:
    """Morning: the city wakes, the night's victims speak, then everyone else."""
    game = t.game
    day = game.day + 1
    t.set(day=day)
    t.set_state(nominees=(), ballot=None, choices=())
    t.record("day", number=day)
    t.say("city_wakes", day=day)
    # Club: an unintentional peek at night removes the seat «как только Ведущий объявит в городе Утро».
    for seat, marks in zip(game.seats, table_seats(game), strict=True):
        if seat.out is None and marks.removal_at_morning:
            t.update_seat(seat.number, out=Out("removed", day, 0))
            mark_seat(t, seat.number, removal_at_morning=False)
            t.record("out", seat=seat.number, how="removed", clause="at_morning")
            t.say("removed", seat=seat.number, reason="morning")
    if outcome.check(t):
        return
    opener = _opener(t)
    t.set_state(opener=opener)
    count = len(game.seats)
    order = [(opener - 1 + i) % count + 1 for i in range(count)]
    turns = [Turn(v, "last_word", _last_word_s(t, v)) for v in victims if _last_word_s(t, v) > 0]
    turns += [_speech(n) for n in order if t.seat(n).out is None]
    queue(t, tuple(turns), "vote")


#: Each seat's speech turn, made once: the same value every day (a Turn is
#: immutable), so a day's queue makes no new objects for the collector to
#: walk in a long game's undo chain.
_SPEECHES: dict[int, Turn] = {}


def _speech(number: int) -> Turn:
    turn = _SPEECHES.get(number)
    if turn is None:
        turn = _SPEECHES[number] = Turn(number, "speech")
    return turn


def _last_word_s(t: Step, number: int) -> float:
    out = t.seat(number).out
    return out.last_word_s if out is not None else 0


def _opener(t: Step) -> int:
    """Day 1 opens at the first speaker; each later day at the next living seat."""
    game = t.game
    state = table(game)
    count = len(game.seats)
    # 0-based index of the first candidate: the first speaker, or the seat after the last opener
    start_at = state.first_speaker - 1 if state.opener == 0 else state.opener
    for i in range(count):
        number = (start_at + i) % count + 1
        if game.seats[number - 1].out is None:
            return number
    return 1


def queue(t: Step, turns: tuple[Turn, ...], after: After) -> None:
    t.set(phase="speeches")
    t.set_state(turns=turns, turn_at=0, after=after, ballot=None)
    _begin_turn(t)


def _begin_turn(t: Step) -> None:
    """Start the turn at ``turn_at``, skipping seats that cannot speak."""
    while True:
        game = t.game
        state = table(game)
        if state.turn_at >= len(state.turns):
            t.cancel_timers("turn", "warning")
            t.ended(_ENDINGS[state.after])
            return
        turn = state.turns[state.turn_at]
        seat = game.seat(turn.seat)
        if turn.kind == "last_word":
            seconds = turn.seconds
        elif seat.out is not None:
            t.set_state(turn_at=state.turn_at + 1)
            continue
        elif turn.kind == "speech":
            seconds = rights.regular_speech_s(game, seat)
        else:
            seconds = rights.tie_speech_s(game, seat)
        if seconds <= 0:
            t.record("speech_lost", seat=turn.seat, kind=turn.kind)
            t.say("speech_lost", seat=turn.seat)
            t.set_state(turn_at=state.turn_at + 1)
            continue
        t.set_state(turn_seconds=seconds, turn_over=False, turn_warned=False)
        if turn.kind == "speech":
            mark_seat(t, turn.seat, spoke_day=game.day)
        t.say(_TURN_CUES[turn.kind], seat=turn.seat, seconds=int(seconds))
        # A StartTimer replaces the running timer of its name: the previous
        # turn's timers need no cancelling when the next turn starts.
        t.start_timer("turn", seconds)
        warning = game.rules.timings.warning_s
        if seconds > warning > 0:
            t.start_timer("warning", seconds - warning)
        else:
            t.cancel_timers("warning")
        return


def end_turn(t: Step) -> None:
    """The current speaker is done (passed, host moved on, or removed)."""
    t.set_state(turn_at=table(t.game).turn_at + 1, turn_over=False, turn_warned=False)
    _begin_turn(t)


def time_up(t: Step) -> None:
    t.set_state(turn_over=True)
    turn = queued_turn(t.game)
    t.say("time_up", urgent=True, seat=turn.seat if turn else 0)
    t.record("overrun", seat=turn.seat if turn else 0)


def warn(t: Step) -> None:
    t.set_state(turn_warned=True)
    t.say("time_warning", seconds=int(t.game.rules.timings.warning_s))


#: The queue's ending, by what the day said follows it.
_ENDINGS: dict[After, str] = {"vote": "speeches_done", "revote": "revote_due", "night": "day_over"}


def nominate(t: Step, event: Nominated) -> None:
    game = t.game
    state = table(game)
    turn = queued_turn(game)
    by = seat_in_range(game, event.by, "by")
    regular = turn is not None and turn.kind == "speech"
    own = regular and turn is not None and turn.seat == event.by
    # A seat that lost today's speech but kept its nomination (club ladder.3: «имеет
    # право только на выставление кандидатуры и голосование») has no minute of its
    # own: the host takes its nomination during the day's regular speeches.
    silenced = regular and by.out is None and not rights.may_speak(game, by)
    require(own or silenced, "seat {} may nominate only in their own speech", event.by)
    require(
        silenced or not state.turn_over,
        "seat {}'s time is up: the nomination comes too late",
        event.by,
    )
    nominated = table_seat(game, event.by).nominated_day
    require(nominated != game.day, "seat {} has already nominated today", event.by)
    require(rights.may_nominate(game, by), "seat {} may not nominate today", event.by)
    living_seat(game, event.target, "target")
    require(event.target not in state.nominees, "seat {} is already nominated", event.target)
    mark_seat(t, event.by, nominated_day=game.day)
    t.set_state(nominees=(*state.nominees, event.target))
    t.record("nomination", by=event.by, target=event.target)
    t.say("nomination_accepted", seat=event.target)


def best_move(t: Step, event: BestMoveMade) -> None:
    game = t.game
    state = table(game)
    turn = queued_turn(game)
    require(game.rules.best_move, f"ruleset {game.rules.name!r} has no best move")
    require(
        turn is not None and turn.kind == "last_word" and turn.seat == event.seat,
        f"seat {event.seat} may make a best move only in their last word",
    )
    require(event.seat == state.first_victim, "only the first night's victim makes a best move")
    require(not state.best_move, "the best move has already been made")
    for suspect in event.suspects:
        seat_in_range(game, suspect, "suspect")
        require(suspect != event.seat, "a best move names other seats")
    black = sum(1 for s in event.suspects if game.rules.team(game.seat(s).team).color == "black")
    t.set_state(best_move=event.suspects)
    t.record("best_move", seat=event.seat, suspects=list(event.suspects), black=black)
    t.tell("best_move", seat=event.seat, black=black)
