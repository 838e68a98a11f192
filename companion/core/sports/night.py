"""The night: steps from the ruleset, the choices the host enters, the morning.

Steps run in ruleset order, each timed (``Ruleset.night`` / ``night0``). A
step ends only when its timer runs out or the host moves on: never because
its actors have chosen, are out or are blocked. A step therefore sounds and
lasts the same whoever is still playing, so the table cannot hear who is
dead, who is blocked or who has chosen (issue 8, item 7). Choices go to the
host alone (records, ``TellHost``), never to a ``Say``.

At morning each step's choices go to the resolver its action names
(``night_actions.RESOLVERS``), in the order the ruleset gives
(``Ruleset.night_resolution``); the night then ends in ``morning`` with
its victims, and the transition table opens the day.
"""

from __future__ import annotations

from .. import outcome
from ..events import NightChoiceMade
from ..rules import NightStep
from ..state import Game, Out, Result, evolve
from ..step import Step, living_seat, require
from .night_actions import RESOLVERS, Night
from .night_choice import actors
from .state import mark_seat, table, table_seat


def steps(game: Game) -> tuple[NightStep, ...]:
    """Tonight's steps (fixed when the night falls)."""
    return table(game).tonight


def _tonight(game: Game) -> tuple[NightStep, ...]:
    """Night 0's steps, or those of the later nights that have begun."""
    if game.day == 0:
        return game.rules.night0
    return tuple(s for s in game.rules.night if s.from_night <= game.day)


def start(t: Step) -> None:
    t.set(phase="night")
    t.set_state(
        night_step=0, choices=(), ballot=None, turns=(), turn_at=0, tonight=_tonight(t.game)
    )
    t.record("night", number=t.game.day)
    t.say("night_falls", night=t.game.day)
    _begin_step(t)


def _begin_step(t: Step) -> None:
    state = table(t.game)
    if state.night_step >= len(state.tonight):
        t.cancel_timers("night")
        _morning(t)
        return
    step = state.tonight[state.night_step]
    t.say(step.cue)
    t.start_timer("night", step.seconds)


def next_step(t: Step) -> None:
    state = table(t.game)
    if state.night_step < len(state.tonight) and state.tonight[state.night_step].end_cue:
        t.say(state.tonight[state.night_step].end_cue)
    t.set_state(night_step=state.night_step + 1)
    _begin_step(t)


def choose(t: Step, event: NightChoiceMade) -> None:
    game = t.game
    state = table(game)
    require(state.night_step < len(state.tonight), "the night is over")
    step = state.tonight[state.night_step]
    require(step.action != "none", "night step {!r} takes no choices", step.id)
    require(
        event.action in (None, step.action),
        "night step {!r} takes a {}, not a {}",
        step.id,
        step.action,
        event.action,
    )
    if event.seat == 0:
        seats = actors(game, step)
        require(bool(seats), "nobody living acts in night step {!r}", step.id)
    else:
        seat = living_seat(game, event.seat)
        require(
            seat.role in step.roles,
            "seat {} ({}) does not act in night step {!r}",
            event.seat,
            seat.role,
            step.id,
        )
        seats = (event.seat,)
    living_seat(game, event.target, "target")
    for actor in seats:
        _chosen(t, step, actor, event.target)


def _chosen(t: Step, step: NightStep, actor: int, target: int) -> None:
    """``actor``'s choice of ``target`` in ``step``: it replaces the one before."""
    kept = [c for c in table(t.game).choices if c[0] != step.id or c[1] != actor]
    t.set_state(choices=(*kept, (step.id, actor, target)))
    t.record("night_choice", step=step.id, seat=actor, target=target)
    if step.action == "check" and step.reveals:
        answer = _reveals(t.game, step.reveals, target)
        t.record("check", seat=actor, target=target, answer=answer)
        t.tell("check", seat=actor, target=target, reveals=step.reveals, answer=answer)


def _reveals(game: Game, reveals: str, target: int) -> str:
    kind, _, value = reveals.partition(":")
    seat = game.seat(target)
    if kind == "role":
        return "yes" if seat.role == value else "no"
    return "yes" if game.rules.team(seat.team).color == value else "no"


def _morning(t: Step) -> None:
    game = t.game
    victims = _resolve(t) if game.day > 0 else ()
    last_word_s = game.rules.timings.last_word_s
    for victim in victims:
        # Club removal.3: a seat that peeked leaves «без права последнего слова» at
        # morning, and being killed the same night does not give the word back.
        removed = table_seat(game, victim).removal_at_morning
        granted = 0 if removed else last_word_s
        t.update_seat(victim, out=Out("killed", game.day, granted))
        if removed:
            mark_seat(t, victim, removal_at_morning=False)
        t.record("out", seat=victim, how="killed")
    if victims and game.day == 1 and table(game).first_victim == 0 and game.rules.best_move:
        t.set_state(first_victim=victims[0])
    ladder = game.rules.ladder
    if ladder.reset_after_night and any(s.count for s in game.seats):
        # Club: «После каждой ночи замечания аннулируются».
        t.set(seats=tuple(s if s.count == 0 else evolve(s, {"count": 0}) for s in t.game.seats))
        t.record("counts_reset", clause=ladder.reset_clause or "")
    if _miss_rule(t, shot_killed=bool(set(victims) & _shot_targets(t.game))):
        return
    if outcome.check(t):
        return
    t.ended("morning", victims)


def _shot_targets(game: Game) -> set[int]:
    choices = table(game).choices
    return {target for step_id, _, target in choices if _step(game, step_id).action == "shoot"}


def _step(game: Game, step_id: str) -> NightStep:
    for step in steps(game):
        if step.id == step_id:
            return step
    raise KeyError(step_id)


def _resolve(t: Step) -> tuple[int, ...]:
    """Who dies tonight: each step's choices through its action's resolver,
    in the ruleset's order of actions (a block before what it blocks), then
    the kills that no heal saved."""
    game = t.game
    # A seat removed during the night (speaking at night, say) is out of the
    # game: its own choices that night go with it.
    choices = [c for c in table(game).choices if game.seat(c[1]).out is None]
    order = game.rules.night_resolution
    tonight = sorted(
        steps(game),
        key=lambda s: order.index(s.action) if s.action in order else len(order),
    )
    night = Night()
    for step in tonight:
        picks = [(seat, target) for sid, seat, target in choices if sid == step.id]
        RESOLVERS[step.action](t, step, picks, night)
    victims: list[int] = []
    for target in night.kills:
        # A target removed during the night has already left, without a last word.
        if target not in night.healed and target not in victims and game.seat(target).out is None:
            victims.append(target)
    return tuple(victims)


def _miss_rule(t: Step, shot_killed: bool) -> bool:
    """Tournament 5.2: with four players, three black misses in a row give red the game."""
    rule = t.game.rules.miss_rule
    if rule is None or t.game.day == 0:
        return False
    alive_at_night = sum(
        1 for s in t.game.seats if s.out is None or _died_tonight(t.game, s.number)
    )
    if alive_at_night != rule.alive or shot_killed:
        t.set_state(misses=0)
        return False
    misses = table(t.game).misses + 1
    t.set_state(misses=misses)
    if misses < rule.nights:
        return False
    losers = tuple(team for team in outcome.playing_teams(t.game) if team != rule.winner)
    outcome.end(t, Result((rule.winner,), losers, "misses", rule.clause))
    return True


def _died_tonight(game: Game, number: int) -> bool:
    out = game.seat(number).out
    return out is not None and out.how == "killed" and out.day == game.day
