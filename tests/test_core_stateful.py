"""Random inputs, legal and illegal, thrown at the core (issue 2, item 6).

A hypothesis state machine sets up a table (either ruleset, dealt by a random
seed or with random roles given) and then feeds it host steps, timer expiries
(running and stale), seat presses and releases (out-of-range seats too),
passes, nominations, offences (unknown ids too), night choices, best moves,
undo and dismissals. After every input it checks:

* an illegal input raises ``IllegalInput`` (or ``BadEvent`` when the event is
  built) and leaves the game as it was;
* a seat that is out never starts a speech, never gets a vote added and never
  nominates; no nominee has more votes than there were voters;
* a ladder count goes up by one per ``count`` offence, and comes down (to 0)
  only at a morning of a ruleset that resets after the night;
* an ended game stays ended (only the host's undo walks back from it);
* undo gives back exactly the game before the last change;
* the lights the engine sends are the seats whose light changed;
* an input accepted without changing the game comes with an ``Ignored``
  effect saying why, and only such an input (issue 8: nothing is silently
  swallowed, and the replay lists exactly the inputs that did nothing);
* the same inputs replayed from scratch give the same games, effects and JSON.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import fields as dataclass_fields
from typing import Any

from helpers import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from companion.config.rulesets import load_ruleset
from companion.core import views
from companion.core.effects import Effect, Ignored, Say
from companion.core.engine import new_game, step
from companion.core.events import (
    BadEvent,
    BestMoveMade,
    Event,
    GameSetUp,
    HostAdvanced,
    NightChoiceMade,
    Nominated,
    OffenceGiven,
    ProposalDismissed,
    SeatPressed,
    SeatReleased,
    SpeechPassed,
    TeamSurrendered,
    TimeAdjusted,
    TimerExpired,
    TimersPaused,
    TimersResumed,
    Undone,
)
from companion.core.rules import Ruleset
from companion.core.sports import rights
from companion.core.sports.night import steps as night_steps
from companion.core.sports.state import Ballot, current_turn
from companion.core.sports.state import table as table_state
from companion.core.state import Game
from companion.core.step import IllegalInput
from companion.protocol import report
from companion.runner.script import ScriptError
from tests.helpers import play

RULESETS: dict[str, Ruleset] = {name: load_ruleset(name) for name in ("tournament", "club")}
TIMER_NAMES = ("turn", "warning", "vote", "count", "night", "no_such_timer")
NIGHT_ACTIONS = (None, "shoot", "check", "heal", "block", "kill", "dance")
SPEECH_CUES = ("speech_start", "tie_speech_start")

# Where a replayed game is compared with the recorded one.
REPLAY_EVERY = 40


def _fields(game: Game) -> tuple[object, ...]:
    """Every field of the game, to see that none was rebound in place."""
    return tuple(getattr(game, f.name) for f in dataclass_fields(game))


def _unchanged(game: Game, fields: tuple[object, ...]) -> bool:
    now = _fields(game)
    return all(a is b for a, b in zip(now, fields, strict=True)) and now == fields


def _args(effect: Say) -> dict[str, int | str]:
    return dict(effect.args)


def _same_ballot(a: Ballot | None, b: Ballot | None) -> bool:
    """Whether two ballots are one round of voting at two moments."""
    return (
        a is not None
        and b is not None
        and (a.kind, a.candidates, a.tied) == (b.kind, b.candidates, b.tied)
    )


def _eligible(game: Game) -> frozenset[int]:
    return frozenset(s.number for s in game.seats if rights.may_vote(game, s))


def replay(setup: GameSetUp, events: list[Event]) -> tuple[Game, list[object]]:
    """Run the inputs from scratch; outcomes are effects or the error's class."""
    game, effects = new_game(setup)
    outcomes: list[object] = [effects]
    for event in events:
        try:
            game, effects = step(game, event)
        except IllegalInput:
            outcomes.append(IllegalInput)
        else:
            outcomes.append(effects)
    return game, outcomes


class CoreMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.setup: GameSetUp | None = None
        self.game: Game | None = None
        self.events: list[Event] = []  # every input that reached the engine
        self.outcomes: list[object] = []
        #: the game before each accepted change, with what the machine knew then
        self.undo_stack: list[tuple[Game, frozenset[int]]] = []
        self.ballot_voters: frozenset[int] = frozenset()  # eligible when the ballot opened
        self.accepted = 0
        self.troublemaker = 1  # the seat most offences go to

    # --- the table ------------------------------------------------------------
    @initialize(data=st.data())
    def set_up(self, data: st.DataObject) -> None:
        name = data.draw(st.sampled_from(sorted(RULESETS)), label="ruleset")
        rules = RULESETS[name]
        dealt = [count for count, _ in rules.deals]
        seed = data.draw(st.integers(0, 2**32), label="seed")
        if data.draw(st.integers(0, 3), label="give_roles") == 0:
            seats = data.draw(st.integers(rules.min_seats, rules.max_seats), label="seats")
            role_ids = [r.id for r in rules.roles]
            roles: tuple[str, ...] | None = tuple(
                data.draw(st.lists(st.sampled_from(role_ids), min_size=seats, max_size=seats))
            )
        else:
            seats = data.draw(st.sampled_from(dealt), label="seats")
            roles = None
        first = data.draw(st.integers(1, seats), label="first_speaker")
        self.troublemaker = data.draw(st.integers(1, seats), label="troublemaker")
        self.setup = GameSetUp(rules, seats, roles, seed, first)
        self.game, effects = new_game(self.setup)
        self.outcomes.append(effects)
        assert self.game.phase == "night" and self.game.day == 0
        assert [n for n, _ in views.light_changes(None, self.game)] == list(range(1, seats + 1))

    # --- helpers --------------------------------------------------------------
    @property
    def g(self) -> Game:
        assert self.game is not None
        return self.game

    def seat_st(self) -> st.SearchStrategy[int]:
        """Seats at the table, mostly, and 0 / one past the end sometimes."""
        n = len(self.g.seats)
        return st.one_of(st.integers(1, n), st.sampled_from([0, n + 1, 11]))

    def living_st(self) -> st.SearchStrategy[int]:
        living = [s.number for s in self.g.seats if s.out is None]
        return st.sampled_from(living) if living else self.seat_st()

    def send(self, make: Callable[..., Event], *args: object) -> None:
        """Build the event (it may refuse) and apply it, checking everything."""
        try:
            event = make(*args)
        except BadEvent:
            return
        self.apply(event)

    def apply(self, event: Event) -> None:
        before = self.g
        snapshot = report.summary(before)
        fields = _fields(before)
        self.events.append(event)
        try:
            after, effects = step(before, event)
        except IllegalInput as error:
            self.outcomes.append(IllegalInput)
            assert str(error)
            assert self.game is before
            assert report.summary(before) == snapshot
            assert _unchanged(before, fields)
            if isinstance(event, TimerExpired):
                assert (event.name, event.generation) not in before.timers
            if isinstance(event, Undone):
                assert not self.undo_stack
            return
        self.outcomes.append(effects)
        self.accepted += 1
        if isinstance(event, TimerExpired):
            assert (event.name, event.generation) in before.timers
        # Keep the machine's record whole before checking, so that a failed
        # check is reported as itself (the teardown replays the record).
        self.game = after
        if isinstance(event, Undone):
            expected, self.ballot_voters = self.undo_stack.pop()
            assert after == expected
            assert report.summary(after) == report.summary(expected)
            # The protocol goes back too, keeping a trace of the undo.
            kept = report.records(expected)
            assert report.records(after)[: len(kept)] == kept
        elif after is not before:
            self.undo_stack.append((before, self.ballot_voters))
        self.check_step(before, event, after, effects)

    # --- what every accepted input must respect --------------------------------
    def check_step(
        self, before: Game, event: Event, after: Game, effects: tuple[Effect, ...]
    ) -> None:
        rules = after.rules
        ignored = any(isinstance(e, Ignored) for e in effects)
        assert ignored == (after is before), (
            f"{event}: ignored {ignored}, changed {after is not before}"
        )
        # Lights (a view of the state): an out seat is dark unless it is
        # speaking its own last word; a seat's hand shows only while voting.
        turn = current_turn(after)
        for number, mode in enumerate(views.lights(after), 1):
            seat = after.seat(number)
            speaking = turn is not None and turn.seat == number
            if seat.out is not None and not speaking:
                assert mode == "off"
            if mode == "holding":
                assert after.phase == "voting" and table_state(after).ballot is not None
                assert number in table_state(after).held
        # The phase and the result agree.
        assert (after.result is not None) == (after.phase == "ended")
        # A seat that is out never starts a speech.
        for effect in effects:
            if isinstance(effect, Say) and effect.cue in SPEECH_CUES:
                number = _args(effect)["seat"]
                assert isinstance(number, int)
                assert after.seat(number).out is None, f"out seat {number} speaks"
        turn = current_turn(after)
        if turn is not None and turn.kind != "last_word":
            assert after.seat(turn.seat).out is None, f"out seat {turn.seat} holds the floor"
            assert turn.seconds > 0
        # Timers: one of each name.
        names = [name for name, _ in after.timers]
        assert len(names) == len(set(names))
        if isinstance(event, Undone):
            return  # the rest compares a step forward; undo is checked against the stack

        # The ended game stays ended.
        if before.phase == "ended":
            assert after.phase == "ended"
            assert after.result == before.result
            assert after.seats == before.seats
        # Nobody comes back, days do not go back.
        assert after.day >= before.day
        for old, new in zip(before.seats, after.seats, strict=True):
            if old.out is not None:
                assert new.out == old.out
        # Nominations: only the living speaker, in their own speech (or a
        # silenced seat during the day's speeches).
        added = [n for n in table_state(after).nominees if n not in table_state(before).nominees]
        if added and after.day == before.day:
            assert isinstance(event, Nominated), f"nominees {added} came from {event}"
            assert added == [event.target]
            by = before.seat(event.by)
            assert by.out is None and rights.may_nominate(before, by)
            turn = current_turn(before)
            assert turn is not None and turn.kind == "speech"
            # the speaker in their own minute, or a seat that lost its speech
            # but kept its nomination (club ladder.3), in anyone's
            assert turn.seat == event.by or not rights.may_speak(before, by)
            assert after.seat(event.target).out is None
        assert len(set(table_state(after).nominees)) == len(table_state(after).nominees)
        # Votes.
        self.check_ballot(before, after)
        # The ladder.
        reset = (
            rules.ladder.reset_after_night and before.phase == "night" and after.phase != "night"
        )
        counted = (
            event.seat
            if isinstance(event, OffenceGiven) and rules.offence(event.offence).cost == "count"
            else None
        )
        for old, new in zip(before.seats, after.seats, strict=True):
            if new.count < old.count:
                assert reset and new.count == 0, f"seat {new.number}: count went down"
            elif new.count > old.count:
                assert new.number == counted and new.count == old.count + 1, (
                    f"seat {new.number}: count {old.count} -> {new.count} on {event}"
                )
            if new.number == counted and not reset:
                assert new.count == old.count + 1

    def check_ballot(self, before: Game, after: Game) -> None:
        ballot = table_state(after).ballot
        if ballot is None:
            return
        assert after.phase == "voting"
        if not _same_ballot(table_state(before).ballot, ballot):
            self.ballot_voters = _eligible(after)
            old_votes: tuple[frozenset[int], ...] = tuple(frozenset() for _ in ballot.votes)
        else:
            assert table_state(before).ballot is not None
            old_votes = tuple(frozenset(v) for v in table_state(before).ballot.votes)
        assert len(ballot.votes) == len(ballot.candidates)
        living = {s.number for s in after.seats if s.out is None}
        for voted, old in zip(ballot.votes, old_votes, strict=True):
            assert list(voted) == sorted(set(voted)), "voters are kept in seat order, once each"
            votes = frozenset(voted)
            new = votes - old
            # A vote is only ever added for a living seat that may vote.
            assert new <= living, f"out seats {sorted(new - living)} counted"
            assert new <= _eligible(after), f"seats {sorted(new - _eligible(after))} may not vote"
            assert votes <= self.ballot_voters
            assert len(votes) <= len(self.ballot_voters)
        if ballot.kind != "all_leave":
            # A voter votes once per round.
            total = sum(len(v) for v in ballot.votes)
            assert total == len(frozenset().union(*ballot.votes))
        if not ballot.counting and ballot.index < len(ballot.votes):
            assert set(ballot.votes[ballot.index]) <= living

    # --- inputs ---------------------------------------------------------------
    @rule(times=st.integers(1, 6))
    def host_next(self, times: int) -> None:
        for _ in range(times):
            self.apply(HostAdvanced())

    @rule(data=st.data(), times=st.integers(1, 20))
    def play_along(self, data: st.DataObject, times: int) -> None:
        """Inputs a real table would give now, so that games reach votes,
        ties, kills and last words (random inputs alone rarely do)."""
        for _ in range(times):
            game = self.g
            if game.phase == "ended":
                return
            living = [s.number for s in game.seats if s.out is None]
            turn = current_turn(game)
            nominate = data.draw(st.integers(0, 2), label="nominate") == 0
            if turn is not None and turn.kind == "speech" and nominate:
                free = [n for n in living if n not in table_state(game).nominees]
                if free and not table_state(game).turn_over:
                    target = data.draw(st.sampled_from(free), label="nominee")
                    self.apply(Nominated(turn.seat, target))
                    continue
            if (
                game.phase == "voting"
                and table_state(game).ballot is not None
                and not table_state(game).ballot.counting
            ):
                # Even shares make ties, and ties make revotes and all-leave votes.
                ballot = table_state(game).ballot
                voted = frozenset().union(*ballot.votes[: ballot.index])
                free = [n for n in living if n not in voted]
                share = len(free) // (len(ballot.candidates) - ballot.index)
                half = len(free) // 2
                shares = [0, 1, share, share, half, half + 1, len(free)]
                k = data.draw(st.sampled_from(shares), label="votes")
                voters = data.draw(st.permutations(free), label="voters")[:k]
                for voter in voters:
                    self.apply(SeatPressed(voter))
                self.apply(HostAdvanced())  # «Спасибо»
                for voter in voters:
                    self.apply(SeatReleased(voter))
            elif game.phase == "night":
                all_steps = night_steps(game)
                if table_state(game).night_step < len(all_steps):
                    night_step = all_steps[table_state(game).night_step]
                    actors = [s.number for s in game.seats if s.role in night_step.roles]
                    target = data.draw(st.sampled_from(living), label="target")
                    for actor in actors:
                        if night_step.action != "none" and game.seat(actor).out is None:
                            self.apply(NightChoiceMade(actor, target))
                if self.g is game:
                    self.apply(HostAdvanced())
            else:
                self.apply(HostAdvanced())

    @precondition(lambda self: bool(self.g.timers))
    @rule(data=st.data())
    def timer_fires(self, data: st.DataObject) -> None:
        name, generation = data.draw(st.sampled_from(self.g.timers), label="timer")
        self.apply(TimerExpired(name, generation))

    @rule(data=st.data())
    def stale_timer(self, data: st.DataObject) -> None:
        name = data.draw(st.sampled_from(TIMER_NAMES), label="name")
        generation = data.draw(st.integers(0, self.g.timer_generation + 1), label="generation")
        self.apply(TimerExpired(name, generation))

    @rule(data=st.data())
    def press(self, data: st.DataObject) -> None:
        seat = data.draw(self.seat_st(), label="seat")
        self.send(SeatPressed, seat)

    @rule(data=st.data())
    def release(self, data: st.DataObject) -> None:
        seat = data.draw(self.seat_st(), label="seat")
        self.send(SeatReleased, seat)

    @rule(data=st.data())
    def speech_passed(self, data: st.DataObject) -> None:
        turn = current_turn(self.g)
        speaker = st.just(turn.seat) if turn is not None else self.seat_st()
        seat = data.draw(st.one_of(speaker, self.seat_st()), label="seat")
        self.send(SpeechPassed, seat)

    @rule(data=st.data())
    def nominate(self, data: st.DataObject) -> None:
        turn = current_turn(self.g)
        speaker = st.just(turn.seat) if turn is not None else self.seat_st()
        by = data.draw(st.one_of(speaker, speaker, self.seat_st()), label="by")
        target = data.draw(st.one_of(self.living_st(), self.seat_st()), label="target")
        self.send(Nominated, by, target)

    @rule(data=st.data(), times=st.integers(1, 3))
    def offence(self, data: st.DataObject, times: int) -> None:
        rules = self.g.rules
        # Mostly fouls / remarks, so that the ladder is climbed; the rest by id
        # and by clause; team losses (which end the game) only now and then.
        counts = [o.id for o in rules.offences if o.cost == "count"]
        others = [o for o in rules.offences if o.cost != "team_loss"]
        keys = [
            *counts * 4,
            *(o.id for o in others),
            *(o.clause for o in others),
            "no_such_offence",
        ]
        losses = [o.id for o in rules.offences if o.cost == "team_loss"]
        # The same troublemaker again and again climbs the ladder.
        again = st.just(self.troublemaker)
        for _ in range(times):
            rare = data.draw(st.integers(0, 9), label="team_loss") == 7
            key = data.draw(st.sampled_from(losses if rare else keys), label="offence")
            seat = data.draw(
                st.one_of(again, again, self.living_st(), self.seat_st()), label="seat"
            )
            self.send(OffenceGiven, seat, key)

    @rule(data=st.data())
    def night_choice(self, data: st.DataObject) -> None:
        game = self.g
        all_steps = night_steps(game) if game.phase == "night" else ()
        actors: list[int] = []
        if table_state(game).night_step < len(all_steps):
            roles = all_steps[table_state(game).night_step].roles
            actors = [s.number for s in game.seats if s.role in roles and s.out is None]
        actor = st.sampled_from(actors) if actors else self.seat_st()
        # 0: one target for all who act (the host's «c 2»)
        seat = data.draw(st.one_of(actor, actor, self.seat_st(), st.just(0)), label="seat")
        target = data.draw(st.one_of(self.living_st(), self.seat_st()), label="target")
        action = data.draw(st.sampled_from(NIGHT_ACTIONS), label="action")
        self.send(NightChoiceMade, seat, target, action)

    @rule(data=st.data())
    def best_move(self, data: st.DataObject) -> None:
        victim = table_state(self.g).first_victim
        seat = data.draw(
            st.one_of(st.just(victim) if victim else self.seat_st(), self.seat_st()), label="seat"
        )
        suspects = data.draw(st.lists(self.seat_st(), min_size=0, max_size=4), label="suspects")
        self.send(BestMoveMade, seat, tuple(suspects))

    @rule(data=st.data())
    def pause(self, data: st.DataObject) -> None:
        names = [name for name, _ in self.g.timers]
        if data.draw(st.booleans(), label="wrong timers"):
            names = data.draw(st.lists(st.sampled_from(TIMER_NAMES), max_size=2), label="names")
        left = tuple((name, data.draw(st.floats(0, 90), label=name)) for name in names)
        self.apply(TimersPaused(left))

    @rule()
    def resume(self) -> None:
        self.apply(TimersResumed())

    @rule(data=st.data())
    def adjust(self, data: st.DataObject) -> None:
        seconds = data.draw(st.sampled_from([-30, -10, -1, 5, 10, 30]), label="seconds")
        left = tuple((name, data.draw(st.floats(0, 90), label=name)) for name, _ in self.g.timers)
        self.apply(TimeAdjusted(seconds, left))

    @rule()
    def undo(self) -> None:
        self.apply(Undone())

    @rule(index=st.integers(-1, 3))
    def dismiss(self, index: int) -> None:
        self.apply(ProposalDismissed(index))

    @rule(data=st.data())
    def surrender(self, data: st.DataObject) -> None:
        # Mostly an unknown team: a real surrender ends the game at once.
        teams = [t.id for t in self.g.rules.teams]
        real = data.draw(st.integers(0, 99), label="real") == 57
        team = data.draw(st.sampled_from(teams), label="team") if real else "spectators"
        self.apply(TeamSurrendered(team))

    # --- determinism ----------------------------------------------------------
    @invariant()
    def replays_the_same(self) -> None:
        if self.setup is None or not self.events or len(self.events) % REPLAY_EVERY:
            return
        self.check_replay()

    def check_replay(self) -> None:
        assert self.setup is not None
        game, outcomes = replay(self.setup, self.events)
        assert outcomes == self.outcomes
        assert game == self.g
        assert report.summary(game) == report.summary(self.g)
        assert report.protocol(game) == report.protocol(self.g)

    def teardown(self) -> None:
        if self.setup is not None:
            self.check_replay()


CoreMachine.TestCase.settings = settings(
    max_examples=examples(60),
    stateful_step_count=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestCore = CoreMachine.TestCase


# --- scripts replayed twice give the same JSON ----------------------------------

_SCRIPT_SEATS = 10


def _script_line() -> st.SearchStrategy[dict[str, Any]]:
    seat = st.integers(1, _SCRIPT_SEATS)
    line = st.one_of(
        st.just({"input": "next"}),
        st.just({"input": "next"}),
        st.just({"input": "wait"}),
        st.just({"input": "undo"}),
        st.builds(lambda s: {"input": "press", "seat": s}, seat),
        st.builds(lambda s: {"input": "release", "seat": s}, seat),
        st.builds(lambda s: {"input": "pass", "seat": s}, seat),
        st.builds(lambda b, t: {"input": "nominate", "by": b, "target": t}, seat, seat),
        st.builds(lambda s, t: {"input": "choice", "seat": s, "target": t}, seat, seat),
        st.builds(
            lambda s, o: {"input": "offence", "seat": s, "offence": o},
            seat,
            st.sampled_from(["speech_out_of_turn", "excessive_gestures", "warning"]),
        ),
    )
    return st.tuples(line, st.sampled_from([0, 0, 1, 3, 15, 61])).map(
        lambda pair: {**pair[0], "after": pair[1]}
    )


def _legal_prefix(setup: dict[str, Any], lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Keep the lines the table accepts, in order (dropped lines leave no trace
    because times are absolute)."""
    at = 0.0
    timed = []
    for line in lines:
        at += line.pop("after")
        timed.append({**line, "at": at})
    kept = [setup]
    for line in timed:
        try:
            play(*kept, line)
        except ScriptError:
            continue
        kept.append(line)
    return kept


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ruleset=st.sampled_from(sorted(RULESETS)),
    seed=st.integers(0, 10_000),
    lines=st.lists(_script_line(), min_size=5, max_size=40),
)
def test_scripts_replay_to_the_same_json(
    ruleset: str, seed: int, lines: list[dict[str, Any]]
) -> None:
    setup = {"input": "setup", "ruleset": ruleset, "seats": _SCRIPT_SEATS, "seed": seed}
    script = _legal_prefix(setup, lines)
    first = json.dumps(report.summary(play(*script)), sort_keys=True)
    second = json.dumps(report.summary(play(*script)), sort_keys=True)
    assert first == second
    assert report.protocol(play(*script)) == report.protocol(play(*script))
