"""The rules engine: ``new_game(setup)`` and ``step(game, event)``.

Rules of this module (after h11's state machine):

* Pure: standard library only; no clock, no threads, no I/O, no global
  random (the deal uses the seed the setup carries).
* ``step`` returns a new ``Game`` and the effects to carry out, in order.
* An illegal input raises ``IllegalInput`` and the game is unchanged (the
  objects are immutable, so there is nothing to roll back).
* Every accepted input that changes the game links the new state to the old
  one (``Game.prev``), which is what ``Undone`` walks back.
* Seat lights are not effects: they are a view of the state
  (``views.lights``), which the seat shell renders after each input.
* Which handler takes an input is a table: (coarse phase, event type).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from . import day, discipline, night, outcome, timing, views, voting
from .effects import Effect, Ignored, TellHost
from .events import (
    WORD_KIND,
    WORD_REASON,
    BestMoveMade,
    Event,
    GameSetUp,
    GameStopped,
    HostAdvanced,
    NightChoiceMade,
    Nominated,
    OffenceCancelled,
    OffenceGiven,
    ProposalDismissed,
    SeatPressed,
    SeatReleased,
    SpeechFlagged,
    SpeechPassed,
    TeamSurrendered,
    TimeAdjusted,
    TimerExpired,
    TimersPaused,
    TimersResumed,
    Undone,
)
from .state import Game, Seat
from .step import IllegalInput, Step, require, seat_in_range

__all__ = ["IllegalInput", "apply", "new_game", "step"]

Handler = Callable[[Step, Event], None]


def new_game(setup: GameSetUp) -> tuple[Game, tuple[Effect, ...]]:
    """Seat the table, deal or take the roles, and begin night 0."""
    rules = setup.ruleset
    require(
        rules.min_seats <= setup.seats <= rules.max_seats,
        f"ruleset {rules.name!r} plays with {rules.min_seats}–{rules.max_seats} seats, not {setup.seats}",
    )
    require(
        setup.first_speaker <= setup.seats,
        f"first_speaker {setup.first_speaker} is not at the table",
    )
    if setup.roles is not None:
        roles = list(setup.roles)
    else:
        deal = rules.deal_for(setup.seats)
        require(
            deal is not None,
            f"ruleset {rules.name!r} has no deal for {setup.seats} seats: give the roles",
        )
        roles = [role for role, n in deal or () for _ in range(n)]
        random.Random(setup.seed).shuffle(roles)
    known = {r.id: r.team for r in rules.roles}
    for number, role in enumerate(roles, 1):
        require(role in known, f"seat {number}: no role {role!r} in ruleset {rules.name!r}")
    names = setup.names or ("",) * len(roles)
    seats = tuple(
        Seat(n, role, known[role], name=name)
        for n, (role, name) in enumerate(zip(roles, names, strict=True), 1)
    )
    t = Step(Game(rules=rules, seats=seats, seed=setup.seed, first_speaker=setup.first_speaker))
    t.record("setup", ruleset=rules.name, seats=setup.seats, roles=",".join(roles), seed=setup.seed)
    for seat in seats:
        t.tell("role", seat=seat.number, role=seat.role)
    night.start(t)
    return _finish(None, t)


def apply(game: Game | None, event: Event) -> tuple[Game, tuple[Effect, ...]]:
    """``new_game`` for the table's first input, ``step`` for every other."""
    if isinstance(event, GameSetUp):
        require(game is None, "the table is already set up")
        return new_game(event)
    require(game is not None, "the first input must be a setup")
    assert game is not None
    return step(game, event)


def step(game: Game, event: Event) -> tuple[Game, tuple[Effect, ...]]:
    """Apply one input. Raises IllegalInput (game unchanged) if it is not allowed now."""
    if isinstance(event, Undone):
        require(game.prev is not None, "there is nothing to undo")
        previous = game.prev
        assert previous is not None
        t = Step(previous)
        # The protocol keeps a trace of what the host took back.
        taken_back = []
        entry = game.log
        while entry is not None and entry is not previous.log:
            taken_back.append(entry.kind)
            entry = entry.prev
        t.record("undone", records=",".join(reversed(taken_back)))
        t.say("undone")
        return _finish(game, t, link=False)
    handler = _HANDLERS.get((game.phase, type(event))) or _ANY_PHASE.get(type(event))
    if handler is None:
        # No input's name here: the shell prefixes the script's own (``nominate``).
        raise IllegalInput(f"not allowed in phase {views.phase_name(game)}")
    t = Step(game)
    handler(t, event)
    return _finish(game, t)


def _finish(before: Game | None, t: Step, link: bool = True) -> tuple[Game, tuple[Effect, ...]]:
    """The step's result; a changed game remembers the one before it (undo)."""
    game = t.game
    if t.changed:
        # This step's own copy (t.changed), so it is safe to write.
        game.__dict__["prev"] = before if link else game.prev
    return game, tuple(t.effects)


# --- handlers ----------------------------------------------------------------


def _host_advanced(t: Step, event: Event) -> None:
    phase = t.game.phase
    if phase == "speeches":
        day.end_turn(t)
    elif phase == "voting":
        voting.advance(t)
    else:
        night.next_step(t)


def _timer(t: Step, event: Event) -> None:
    assert isinstance(event, TimerExpired)
    key = (event.name, event.generation)
    require(key in t.game.timers, f"timer {event.name!r} #{event.generation} is not running")
    t.set(timers=tuple([x for x in t.game.timers if x != key]))
    phase = t.game.phase
    if event.name == "turn" and phase == "speeches":
        day.time_up(t)
    elif event.name == "warning" and phase == "speeches":
        day.warn(t)
    elif event.name in ("vote", "count") and phase == "voting":
        voting.advance(t)
    elif event.name == "night" and phase == "night":
        night.next_step(t)


def _paused(t: Step, event: Event) -> None:
    assert isinstance(event, TimersPaused)
    timing.pause(t, event)


def _resumed(t: Step, event: Event) -> None:
    timing.resume(t)


def _adjusted(t: Step, event: Event) -> None:
    assert isinstance(event, TimeAdjusted)
    timing.adjust(t, event)


def _speech_pressed(t: Step, event: Event) -> None:
    assert isinstance(event, SeatPressed)
    seat_in_range(t.game, event.seat)
    game = t.game
    turn = game.turn
    if turn is not None and turn.seat == event.seat:
        t.record("passed", seat=event.seat)
        if event.seat not in game.held:  # so that its release is not "nothing held"
            t.set(held=game.held | {event.seat})
        day.end_turn(t)  # «Пас»: the speaker's own button ends the minute
    else:
        t.effects.append(Ignored(f"seat {event.seat} pressed out of turn"))


def _passed(t: Step, event: Event) -> None:
    assert isinstance(event, SpeechPassed)
    turn = t.game.turn
    require(turn is not None and turn.seat == event.seat, f"seat {event.seat} is not speaking")
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
    held = t.game.held
    if event.seat in held:
        t.set(held=held - {event.seat})
    else:
        t.effects.append(Ignored(f"seat {event.seat} released outside a vote, nothing held"))


def _press_ignored(t: Step, event: Event) -> None:
    assert isinstance(event, SeatPressed)
    seat_in_range(t.game, event.seat)
    t.effects.append(Ignored(f"seat {event.seat} pressed in phase {views.phase_name(t.game)}"))


def _offence(t: Step, event: Event) -> None:
    assert isinstance(event, OffenceGiven)
    discipline.give(t, event.seat, event.offence)


def _dismiss(t: Step, event: Event) -> None:
    assert isinstance(event, ProposalDismissed)
    proposals = t.game.proposals
    require(0 <= event.index < len(proposals), f"there is no proposal #{event.index}")
    gone = proposals[event.index]
    t.set(proposals=proposals[: event.index] + proposals[event.index + 1 :])
    t.record("proposal_dismissed", seat=gone.seat, offence=gone.offence)


def _heard(t: Step, event: Event) -> None:
    """A microphone's flag: the ruleset's offence for it proposed to the
    host (who confirms or dismisses; seat 0: the host says whose), or,
    for a kind the ruleset maps to none, told to the host. A forbidden
    phrase proposes its ``[listening.words]`` entry's offence, the words
    heard in the reason (``heard_word:<words>``) for the host to judge."""
    assert isinstance(event, SpeechFlagged)
    if event.seat:
        seat_in_range(t.game, event.seat)
    rules = t.game.rules
    if event.kind == WORD_KIND:
        entry = next((w for w in rules.forbidden_words if w.id == event.phrase), None)
        require(
            entry is not None, f"ruleset {rules.name!r} lists no forbidden words {event.phrase!r}"
        )
        assert entry is not None
        t.record(
            "speech_flagged",
            kind=event.kind,
            seat=event.seat,
            confidence=event.confidence,
            phrase=event.phrase,
            words=event.words,
        )
        t.propose(event.seat, entry.offence, f"{WORD_REASON}{event.words}")
        return
    t.record("speech_flagged", kind=event.kind, seat=event.seat, confidence=event.confidence)
    offence = dict(rules.listening).get(event.kind)
    if offence is None:
        t.effects.append(TellHost("speech_flagged", (("kind", event.kind), ("seat", event.seat))))
    else:
        t.propose(event.seat, offence, f"heard_{event.kind}")


def _cancel_offence(t: Step, event: Event) -> None:
    assert isinstance(event, OffenceCancelled)
    discipline.cancel(t, event.seat, event.offence)


def _stop(t: Step, event: Event) -> None:
    assert isinstance(event, GameStopped)
    require(t.game.phase != "ended", "the game is over")
    outcome.stop(t, event.reason)


def _surrender(t: Step, event: Event) -> None:
    assert isinstance(event, TeamSurrendered)
    rules = t.game.rules
    require(
        any(team.id == event.team for team in rules.teams),
        f"no team {event.team!r} in ruleset {rules.name!r}",
    )
    # A team that was not dealt into this game cannot lose it (outcome.playing_teams).
    require(
        event.team in outcome.playing_teams(t.game),
        f"team {event.team!r} has no player at this table",
    )
    require(t.game.phase != "ended", "the game is over")
    t.record("surrender", team=event.team)
    outcome.team_loss(t, (event.team,), "surrender", None)


def _nominated(t: Step, event: Event) -> None:
    assert isinstance(event, Nominated)
    day.nominate(t, event)


def _night_choice(t: Step, event: Event) -> None:
    assert isinstance(event, NightChoiceMade)
    night.choose(t, event)


def _best_move(t: Step, event: Event) -> None:
    assert isinstance(event, BestMoveMade)
    day.best_move(t, event)


def _setup_again(t: Step, event: Event) -> None:
    raise IllegalInput("the table is already set up")


_HANDLERS: dict[tuple[str, type], Handler] = {
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

#: Inputs taken in every phase but the end (the handlers check further).
_ANY_PHASE: dict[type, Handler] = {
    TimerExpired: _timer,
    TimersPaused: _paused,
    TimersResumed: _resumed,
    TimeAdjusted: _adjusted,
    SeatPressed: _press_ignored,
    SeatReleased: _released,
    OffenceGiven: _offence,
    ProposalDismissed: _dismiss,
    TeamSurrendered: _surrender,
    OffenceCancelled: _cancel_offence,
    GameStopped: _stop,
    GameSetUp: _setup_again,
    SpeechFlagged: _heard,
}
