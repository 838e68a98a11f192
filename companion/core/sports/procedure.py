"""The sports table: the procedure of the club and tournament texts.

Timed speeches in seat order with nominations, hands on the table in vote
windows closed by «Спасибо» and counted at «Принято», ties and revotes,
last words, and timed night steps. The phases live in ``day``, ``voting``
and ``night``; this module wires them to the engine (``Procedure``): which
function takes an input in which phase, and the transition table that says
what follows each phase's named ending.
"""

from __future__ import annotations

from collections.abc import Callable

from .. import outcome
from ..effects import Ignored
from ..events import (
    BestMoveMade,
    Event,
    GameSetUp,
    HostAdvanced,
    NightChoiceMade,
    Nominated,
    SeatPressed,
    SeatReleased,
    SpeechPassed,
)
from ..step import Handler, Procedure, Step, require, seat_in_range
from . import answers, day, listening, night, voting
from . import views as table_views
from .state import PHASES, TableState, Turn, queued_turn, table, with_seat, without_seat

# --- the transition table ----------------------------------------------------


def _day_over(t: Step) -> None:
    """The day is done (its vote, or no vote): the night, if the game goes on."""
    if not outcome.check(t):
        night.start(t)


def _voted_out(t: Step, last_words: tuple[Turn, ...]) -> None:
    day.queue(t, last_words, "night")


def _tie(t: Step, tie_speeches: tuple[Turn, ...]) -> None:
    day.queue(t, tie_speeches, "revote")


ENDINGS: dict[str, Callable[..., None]] = {
    "speeches_done": voting.start,  # the day's speeches: the vote
    "revote_due": voting.start_revote,  # the tie speeches: the revote
    "day_over": _day_over,
    "night_falls": night.start,  # no vote today: straight to the night
    "voted_out": _voted_out,
    "tie": _tie,
    "morning": day.start,  # the night's victims: the day
}


# --- inputs ------------------------------------------------------------------


def _host_advanced(t: Step, event: Event) -> None:
    phase = t.game.phase
    if phase == "speeches":
        day.end_turn(t)
    elif phase == "voting":
        voting.advance(t)
    else:
        night.next_step(t)


def _speech_pressed(t: Step, event: Event) -> None:
    assert isinstance(event, SeatPressed)
    seat_in_range(t.game, event.seat)
    turn = queued_turn(t.game)
    if turn is not None and turn.seat == event.seat:
        t.record("passed", seat=event.seat)
        held = table(t.game).held
        if event.seat not in held:  # so that its release is not "nothing held"
            t.set_state(held=with_seat(held, event.seat))
        day.end_turn(t)  # «Пас»: the speaker's own button ends the minute
    else:
        t.effects.append(Ignored(f"seat {event.seat} pressed out of turn"))


def _passed(t: Step, event: Event) -> None:
    assert isinstance(event, SpeechPassed)
    turn = queued_turn(t.game)
    require(turn is not None and turn.seat == event.seat, "seat {} is not speaking", event.seat)
    t.record("passed", seat=event.seat)
    day.end_turn(t)


def _vote_pressed(t: Step, event: Event) -> None:
    assert isinstance(event, SeatPressed)
    seat_in_range(t.game, event.seat)
    voting.pressed(t, event.seat)


def _vote_released(t: Step, event: Event) -> None:
    assert isinstance(event, SeatReleased)
    seat_in_range(t.game, event.seat)
    voting.released(t, event.seat)


def _released(t: Step, event: Event) -> None:
    """A button let go outside a vote: a hand lifted after the last count or
    after «Пас» (it was held), else nothing."""
    assert isinstance(event, SeatReleased)
    seat_in_range(t.game, event.seat)
    held = table(t.game).held
    if event.seat in held:
        t.set_state(held=without_seat(held, event.seat))
    else:
        t.effects.append(Ignored(f"seat {event.seat} released outside a vote, nothing held"))


def _press_ignored(t: Step, event: Event) -> None:
    assert isinstance(event, SeatPressed)
    seat_in_range(t.game, event.seat)
    t.effects.append(
        Ignored(f"seat {event.seat} pressed in phase {table_views.phase_name(t.game)}")
    )


def _nominated(t: Step, event: Event) -> None:
    assert isinstance(event, Nominated)
    day.nominate(t, event)


def _night_choice(t: Step, event: Event) -> None:
    assert isinstance(event, NightChoiceMade)
    night.choose(t, event)


def _best_move(t: Step, event: Event) -> None:
    assert isinstance(event, BestMoveMade)
    day.best_move(t, event)


HANDLERS: dict[tuple[str, type], Handler] = {
    ("speeches", HostAdvanced): _host_advanced,
    ("voting", HostAdvanced): _host_advanced,
    ("night", HostAdvanced): _host_advanced,
    ("speeches", SeatPressed): _speech_pressed,
    ("voting", SeatPressed): _vote_pressed,
    ("voting", SeatReleased): _vote_released,
    ("speeches", SpeechPassed): _passed,
    ("speeches", Nominated): _nominated,
    ("speeches", BestMoveMade): _best_move,
    ("night", NightChoiceMade): _night_choice,
}

#: Buttons outside their phases: a press changes nothing, a release lifts a held hand.
ANY_PHASE: dict[type, Handler] = {SeatPressed: _press_ignored, SeatReleased: _released}

TIMERS = {
    ("turn", "speeches"): day.time_up,
    ("warning", "speeches"): day.warn,
    ("vote", "voting"): voting.advance,
    ("count", "voting"): voting.advance,
    ("night", "night"): night.next_step,
}


def _new_state(setup: GameSetUp) -> TableState:
    return TableState(first_speaker=setup.first_speaker, host_closes_votes=setup.host_closes_votes)


def _no_sanction(t: Step, number: int, cost: str) -> None:
    raise AssertionError(f"the ruleset loader keeps {cost!r} to the forum game")


def _seat_removed(t: Step, number: int) -> None:
    """Discipline removed a seat: tidy the nominees, the hands and the turn."""
    game = t.game
    state = table(game)
    # Tournament 5.1 keeps a removed nominee on the ballot; otherwise they are dropped
    # (once the vote is under way the ballot stands and a removed winner just stays out).
    stays = game.rules.voting.removed_nominee_stays
    if not stays and number in state.nominees and game.phase != "voting":
        t.set_state(nominees=tuple(n for n in state.nominees if n != number))
    voting.take_back(t, number)


def _removed_speaker(t: Step, number: int) -> None:
    """A removed seat's turn ends: its speech, or a last word cut short by
    an offence given while it was spoken."""
    turn = queued_turn(t.game)
    if turn is not None and turn.seat == number:
        day.end_turn(t)


def _game_over(t: Step) -> None:
    t.set_state(ballot=None)


PROCEDURE = Procedure(
    name="sports_table",
    phases=PHASES,
    new_state=_new_state,
    begin=night.start,
    handlers=HANDLERS,
    handlers_any_phase=ANY_PHASE,
    endings=ENDINGS,
    timers=TIMERS,
    main_timers={"speeches": ("turn",), "voting": ("vote", "count"), "night": ("night",)},
    seat_removed=_seat_removed,
    removed_speaker=_removed_speaker,
    game_over=_game_over,
    decide=outcome.decide,
    sanction=_no_sanction,
    phase_name=table_views.phase_name,
    lights=table_views.lights,
    microphone=listening.RULE,
    speaking=answers.speaking,
    speech_ahead=answers.speech_ahead,
    more_time=answers.more_time,
    time_moved=answers.time_moved,
    ran_over=answers.ran_over,
    ask_again=answers.ask_again,
    lose_speech=answers.lose_speech,
    leave_at_morning=answers.leave_at_morning,
)
