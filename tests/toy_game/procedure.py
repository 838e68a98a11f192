"""The toy game's procedure: two phases, «talk» (a timer, or the host's
«next») and «pick» (each living seat names another with ``Nominated``);
the seat named most leaves; after ``[toy] rounds`` rounds the team with
more seats left wins. Its own ruleset section, state and lights; the
shared discipline, timers, undo and end are the engine's."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import cast

from companion.core import outcome
from companion.core.events import Event, GameSetUp, HostAdvanced, Nominated
from companion.core.lights import IDLE, OFF, STEADY
from companion.core.rules import ProcedureRules, RulesetReader
from companion.core.state import Game, Out, ProcedureState, Result
from companion.core.step import MicrophoneRule, Procedure, Step, living, living_seat, require
from companion.textfiles.toml_table import TomlTable


@dataclass(frozen=True, slots=True)
class ToyRules(ProcedureRules):
    rounds: int
    talk_s: float


@dataclass(frozen=True)  # no slots: copied dict to dict (``state.evolve``)
class ToyState(ProcedureState):
    #: this round's picks: (by, target)
    picks: tuple[tuple[int, int], ...] = ()


def _rules(game: Game) -> ToyRules:
    return cast(ToyRules, game.rules.procedure_rules)


def _read(t: TomlTable, reader: RulesetReader) -> ToyRules:
    return ToyRules(
        rounds=t.int_("rounds", 3, minimum=1, maximum=10),
        talk_s=t.float_("talk_s", 60, minimum=1, maximum=600),
    )


def _new_state(setup: GameSetUp) -> ToyState:
    return ToyState()


def _talk(t: Step) -> None:
    t.set(phase="talk", day=t.game.day + 1)
    t.set_state(picks=())
    t.start_timer("talk", _rules(t.game).talk_s)


def _pick_time(t: Step) -> None:
    t.cancel_timers("talk")
    t.set(phase="pick")


def _next(t: Step, event: Event) -> None:
    _pick_time(t)


def _pick(t: Step, event: Event) -> None:
    assert isinstance(event, Nominated)
    game = t.game
    living_seat(game, event.by, "by")
    living_seat(game, event.target, "target")
    picks = cast(ToyState, game.procedure_state).picks
    require(all(by != event.by for by, _ in picks), "seat {} has picked", event.by)
    require(event.by != event.target, "a seat picks another")
    picks = (*picks, (event.by, event.target))
    t.set_state(picks=picks)
    t.record("toy_pick", by=event.by, target=event.target)
    if len(picks) == len(living(game)):
        _round_over(t, picks)


def _round_over(t: Step, picks: tuple[tuple[int, int], ...]) -> None:
    (most, votes), (_, next_votes) = [*Counter(t for _, t in picks).most_common(2), (0, 0)][:2]
    if votes > next_votes:  # a tie sends nobody out
        t.update_seat(most, out=Out("voted", t.game.day, 0))
        t.record("out", seat=most, how="voted", clause="toy.3")
    if outcome.check(t):
        return
    if t.game.day < _rules(t.game).rounds:
        _talk(t)
        return
    left = Counter(seat.team for seat in living(t.game)).most_common()
    if len(left) > 1 and left[0][1] == left[1][1]:
        outcome.end(t, Result((), (), "rounds_played"))
    else:
        losers = tuple(team.id for team in t.game.rules.teams if team.id != left[0][0])
        outcome.end(t, Result((left[0][0],), losers, "rounds_played"))


def _decide(game: Game) -> Result | None:
    """The game ends early when one team alone is left."""
    teams = {seat.team for seat in living(game)}
    if len(teams) != 1:
        return None
    (winner,) = teams
    return Result((winner,), tuple(t.id for t in game.rules.teams if t.id != winner), "eliminated")


def _nothing(t: Step, *args: object) -> None:
    pass


def _lights(game: Game) -> tuple[str, ...]:
    picked = {by for by, _ in cast(ToyState, game.procedure_state).picks}
    return tuple(
        OFF if seat.out is not None else STEADY if seat.number in picked else IDLE
        for seat in game.seats
    )


PROCEDURE = Procedure(
    name="toy",
    phases=("talk", "pick"),
    new_state=_new_state,
    begin=_talk,
    handlers={("talk", HostAdvanced): _next, ("pick", Nominated): _pick},
    handlers_any_phase={},
    endings={},
    timers={("talk", "talk"): _pick_time},
    main_timers={"talk": ("talk",)},
    seat_removed=_nothing,
    removed_speaker=_nothing,
    game_over=_nothing,
    decide=_decide,
    sanction=_nothing,
    phase_name=lambda game: game.phase,
    lights=_lights,
    microphone=MicrophoneRule(broken=lambda game, seat: None, running_over=lambda game: None),
    title="the toy game",
    rules_section="toy",
    read_rules=_read,
    night_steps=False,
)
