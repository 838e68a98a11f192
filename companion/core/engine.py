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
* Which handler takes an input is a table: (coarse phase, event type),
  the procedure's own (``Procedure.handlers``) before the shared ones here.
* The procedure the ruleset names (``companion.core.procedures``) runs the
  phases; this module holds what every procedure shares: set-up, undo,
  timers, discipline, the host's proposals, the end.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from . import discipline, outcome, procedures, timing, views
from .effects import Effect, TellHost
from .events import (
    WORD_KIND,
    WORD_REASON,
    Event,
    GameSetUp,
    GameStopped,
    OffenceCancelled,
    OffenceGiven,
    ProposalDismissed,
    SpeechFlagged,
    TeamSurrendered,
    TimeAdjusted,
    TimerExpired,
    TimersPaused,
    TimersResumed,
    Undone,
)
from .state import Game, Seat
from .step import IllegalInput, Procedure, Step, require, seat_in_range

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
    own = rules.procedure_rules
    require(
        not setup.options or (own is not None and bool(own.options)),
        # the words the refusal table knows (console/refusals/core_words.py)
        f"ruleset {rules.name!r} takes no options (the forum game's)",
    )
    if setup.roles is not None:
        roles = list(setup.roles)
    else:
        deal = rules.deal_for(setup.seats, setup.options)
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
    procedure = procedures.named(rules.procedure)
    state = procedure.new_state(setup)
    t = Step(Game(rules=rules, seats=seats, seed=setup.seed, procedure_state=state), procedure)
    options = {"options": ",".join(setup.options)} if setup.options else {}
    t.record(
        "setup",
        ruleset=rules.name,
        seats=setup.seats,
        roles=",".join(roles),
        seed=setup.seed,
        **options,
    )
    for seat in seats:
        t.tell("role", seat=seat.number, role=seat.role)
    procedure.begin(t)
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
        return _undo(game, event)
    dispatch = _DISPATCH.get(game.rules.procedure)
    procedure, handlers = dispatch if dispatch is not None else _dispatch_of(game)
    handler = handlers.get((game.phase, type(event)))
    if handler is None:
        # No input's name here: the shell prefixes the script's own (``nominate``).
        raise IllegalInput(f"not allowed in phase {views.phase_name(game)}")
    t = Step(game, procedure)
    handler(t, event)
    return t.seal(game), tuple(t.effects)


def _undo(game: Game, event: Undone) -> tuple[Game, tuple[Effect, ...]]:
    """The state before the last accepted input. A timer that input stopped
    (a vote window's or a night step's end, the host's «next», a pause)
    comes back with the time the shell says it had left then
    (``Undone.remaining``): paused, so that the host looks and corrects
    before it runs again, or, when the undone input was the pause itself,
    running. Without ``remaining`` (an old journal) the timers come back as
    they ran. ``past_flags``: the microphone's flags after that input are
    passed over and proposed again on the state restored (those that still
    apply there)."""
    flags = views.trailing_flags(game) if event.past_flags else ()
    undone = game
    for _ in flags:
        assert undone.prev is not None
        undone = undone.prev
    restored, effects = _take_back(undone, event)
    for flag in flags:
        try:
            restored, more = step(restored, flag)
        except IllegalInput:  # no longer heard where the table stands again
            continue
        effects += more
    return restored, effects


def _take_back(game: Game, event: Undone) -> tuple[Game, tuple[Effect, ...]]:
    """``game`` (made by the input taken back) undone."""
    require(game.prev is not None, "there is nothing to undo")
    previous = game.prev
    assert previous is not None
    t = Step(previous, procedures.of(previous))
    # The protocol keeps a trace of what the host took back.
    taken_back = []
    entry = game.log
    while entry is not None and entry is not previous.log:
        if entry.kind != "undone":  # an undo before this one: not the input's
            taken_back.append(entry.kind)
        entry = entry.prev
    records = ",".join(reversed(taken_back))
    left = _time_left(game, previous, event.remaining)
    if left is None:
        t.record("undone", records=records)
        t.say("undone")
    elif taken_back == ["paused"]:  # the pause itself taken back
        for name, seconds in left:
            t.start_timer(name, seconds)
        t.record("undone", records=records)
        t.say("undone")
    else:
        t.cancel_all_timers()
        t.set(paused=timing.consistent(t, left))
        t.record("undone", records=records, left=timing.left_text(t.game.paused))
        t.say("undone_paused")
    return _finish(game, t, link=False)


def _time_left(
    game: Game, previous: Game, remaining: tuple[tuple[str, float], ...] | None
) -> tuple[tuple[str, float], ...] | None:
    """What each timer of ``previous`` had left, when the undone input
    stopped one of them and the shell said how much; else None."""
    if remaining is None or not previous.timers:
        return None
    running = set(game.timers)
    if all(timer in running for timer in previous.timers):
        return None  # the input stopped no timer: they run on as they were
    given = dict(remaining)
    names = [name for name, _ in previous.timers]
    if not all(name in given for name in names):
        return None
    return tuple((name, max(0.0, float(given[name]))) for name in names)


def _finish(before: Game | None, t: Step, link: bool = True) -> tuple[Game, tuple[Effect, ...]]:
    """The step's result; a changed game remembers the one before it (undo)."""
    return t.seal(before if link else t.game.prev), tuple(t.effects)


# --- handlers ----------------------------------------------------------------


def _timer(t: Step, event: Event) -> None:
    assert isinstance(event, TimerExpired)
    key = (event.name, event.generation)
    timers = t.game.timers
    if key not in timers:  # not ``require``: no message to format for every expiry
        raise IllegalInput(f"timer {event.name!r} #{event.generation} is not running")
    t.set(timers=tuple([x for x in timers if x != key]))
    expired = t.procedure.timers.get((event.name, t.game.phase))
    if expired is not None:
        expired(t)


def _paused(t: Step, event: Event) -> None:
    assert isinstance(event, TimersPaused)
    timing.pause(t, event)


def _resumed(t: Step, event: Event) -> None:
    timing.resume(t)


def _adjusted(t: Step, event: Event) -> None:
    assert isinstance(event, TimeAdjusted)
    timing.adjust(t, event)


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


def _setup_again(t: Step, event: Event) -> None:
    raise IllegalInput("the table is already set up")


#: Inputs taken in every phase but the end (the handlers check further).
_ANY_PHASE: dict[type, Handler] = {
    TimerExpired: _timer,
    TimersPaused: _paused,
    TimersResumed: _resumed,
    TimeAdjusted: _adjusted,
    OffenceGiven: _offence,
    ProposalDismissed: _dismiss,
    TeamSurrendered: _surrender,
    OffenceCancelled: _cancel_offence,
    GameStopped: _stop,
    GameSetUp: _setup_again,
    SpeechFlagged: _heard,
}


def _dispatch(procedure: Procedure) -> dict[tuple[str, type], Handler]:
    """(phase, input) -> handler for every phase of a procedure, merged once:
    the procedure's own for its phase, else its any-phase one, else the
    engine's (one lookup per input: replay speed is bound by the engine)."""
    table: dict[tuple[str, type], Handler] = {}
    for phase in ("setup", *procedure.phases, "ended"):
        for kind in {*procedure.handlers_any_phase, *_ANY_PHASE}:
            handler = procedure.handlers_any_phase.get(kind) or _ANY_PHASE[kind]
            table[(phase, kind)] = handler
    table.update(procedure.handlers)
    return table


#: procedure name -> (the procedure, its dispatch table), made on its first
#: game: a procedure registered after this module's import (a test's toy
#: game) is found as the built-in ones
_DISPATCH: dict[str, tuple[Procedure, dict[tuple[str, type], Handler]]] = {}


def _dispatch_of(game: Game) -> tuple[Procedure, dict[tuple[str, type], Handler]]:
    procedure = procedures.of(game)
    made = _DISPATCH[procedure.name] = (procedure, _dispatch(procedure))
    return made
