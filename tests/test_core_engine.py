"""The engine's own mechanics, which the rule tests do not reach: timer
generations, undo, the lights it sends, setting up a table, and illegal
inputs leaving the game as it was (after h11's "an illegal event raises and
changes nothing")."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import fields

import pytest

from companion.config.rulesets import load_ruleset
from companion.core import views
from companion.core.effects import Effect, Ignored, Say, StartTimer
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
    TimerExpired,
    Undone,
)
from companion.core.rules import Ruleset
from companion.core.sports.state import current_turn, table_seat
from companion.core.sports.state import table as table_state
from companion.core.state import Game
from companion.core.step import IllegalInput
from companion.protocol import report
from tests.helpers import TOURNAMENT_ROLES

TOURNAMENT = load_ruleset("tournament")
CLUB = load_ruleset("club")
CLUB_ROLES = [
    "civilian", "putana", "mafia", "civilian", "sheriff",
    "don", "doctor", "mafia", "maniac", "civilian",
]  # fmt: skip
NEXT = HostAdvanced()


def start(rules: Ruleset = TOURNAMENT, roles: list[str] | None = None) -> Game:
    roles = roles or (TOURNAMENT_ROLES if rules is TOURNAMENT else CLUB_ROLES)
    game, _ = new_game(GameSetUp(rules, len(roles), tuple(roles)))
    return game


def go(game: Game, *events: Event) -> tuple[Game, tuple[Effect, ...]]:
    """Apply the events in order; the effects are the last one's."""
    effects: tuple[Effect, ...] = ()
    for event in events:
        game, effects = step(game, event)
    return game, effects


def day_one(rules: Ruleset = TOURNAMENT) -> Game:
    """Night 0 skipped by the host: seat 1 is speaking on day 1."""
    game, _ = go(start(rules), NEXT, NEXT)
    assert views.phase_name(game) == "speech" and current_turn(game) is not None
    assert current_turn(game).seat == 1
    return game


def night_one(rules: Ruleset = TOURNAMENT) -> Game:
    """Day 1 spoken through without nominations: night 1 has begun."""
    game = day_one(rules)
    while game.phase == "speeches":
        game, _ = step(game, NEXT)
    assert game.phase == "night" and game.day == 1
    return game


def timer(game: Game, name: str) -> TimerExpired:
    """The expiry of the running timer ``name``."""
    generations = [g for n, g in game.timers if n == name]
    assert generations, f"no {name} timer is running: {game.timers}"
    return TimerExpired(name, generations[0])


def lights(before: Game | None, after: Game) -> list[tuple[int, str]]:
    """What the seat shell would set after an input (lights are a view)."""
    return views.light_changes(before, after)


def cues(effects: tuple[Effect, ...]) -> list[str]:
    return [e.cue for e in effects if isinstance(e, Say)]


def snapshot(game: Game) -> tuple[object, ...]:
    return tuple(getattr(game, f.name) for f in fields(game))


def assert_rejected(game: Game, event: Event, match: str | None = None) -> None:
    """The input raises IllegalInput and the game is exactly as it was."""
    before = snapshot(game)
    summary = report.summary(game)
    protocol = report.protocol(game)
    with pytest.raises(IllegalInput, match=match):
        step(game, event)
    after = snapshot(game)
    assert all(a is b for a, b in zip(after, before, strict=True))
    assert report.summary(game) == summary
    assert report.protocol(game) == protocol


# --- timers ---------------------------------------------------------------------


def test_a_timer_expiry_carries_the_generation_of_its_start() -> None:
    game, effects = new_game(GameSetUp(TOURNAMENT, 10, tuple(TOURNAMENT_ROLES)))
    started = [e for e in effects if isinstance(e, StartTimer)]
    assert started == [StartTimer("night", 60, 1)]
    assert game.timers == (("night", 1),)


def test_a_stale_timer_expiry_is_rejected() -> None:
    game = start()
    old = timer(game, "night")
    game, effects = step(game, NEXT)  # the host moves on: a new night timer
    new = timer(game, "night")
    assert new.generation > old.generation
    assert StartTimer("night", 20, new.generation) in effects
    assert_rejected(game, old, match="not running")
    assert_rejected(game, TimerExpired("night", new.generation + 1), match="not running")
    assert_rejected(game, TimerExpired("vote", new.generation), match="not running")
    game, _ = step(game, new)  # the running one is taken
    assert game.phase == "speeches"
    assert_rejected(game, new, match="not running")  # and only once


def test_a_cancelled_timer_expiry_is_rejected() -> None:
    game = day_one()
    warning, turn = timer(game, "warning"), timer(game, "turn")
    game, _ = step(game, NEXT)  # seat 1 done: its timers are cancelled, seat 2's started
    assert_rejected(game, warning)
    assert_rejected(game, turn)
    assert timer(game, "turn").generation > turn.generation


def test_the_turn_timer_does_not_end_the_speech() -> None:
    game = day_one()
    game, effects = step(game, timer(game, "turn"))
    assert current_turn(game) is not None and current_turn(game).seat == 1
    assert table_state(game).turn_over
    assert "time_up" in cues(effects)
    assert all(name != "turn" for name, _ in game.timers)


# --- undo -----------------------------------------------------------------------


def test_undo_restores_the_exact_previous_game() -> None:
    g0 = start()
    g1, _ = step(g0, NEXT)
    g2, _ = step(g1, NEXT)
    g3, _ = step(g2, Nominated(1, 3))
    g4, _ = step(g3, SpeechPassed(1))
    games = [g0, g1, g2, g3, g4]
    game = g4
    for expected in reversed(games[:-1]):
        game, effects = step(game, Undone())
        assert game == expected
        assert snapshot(game)[:-2] == snapshot(expected)[:-2]  # all but log and prev
        assert game.prev is expected.prev
        assert report.summary(game) == report.summary(expected)
        assert "undone" in cues(effects)
    assert_rejected(game, Undone(), match="nothing to undo")


def test_undo_brings_back_the_timers_of_the_game_it_restores() -> None:
    game = day_one()
    before = game.timers
    game, _ = step(game, NEXT)
    assert game.timers != before
    game, _ = step(game, Undone())
    assert game.timers == before


def test_an_input_that_changes_nothing_is_not_an_undo_step() -> None:
    g1, _ = step(start(), NEXT)
    g2, _ = step(g1, NEXT)
    same, _ = step(g2, SeatPressed(5))  # pressed out of turn: ignored
    assert same is g2 and lights(g2, same) == []
    back, _ = step(same, Undone())
    assert back == g1


def test_undo_walks_back_from_the_end_of_the_game() -> None:
    game = day_one()
    ended, _ = step(game, TeamSurrendered("black"))
    assert ended.phase == "ended"
    back, _ = step(ended, Undone())
    assert back == game


# --- lights (a view of the state: docs/lights.md) --------------------------------


def test_setup_lights_every_seat_then_only_changes() -> None:
    game, _ = new_game(GameSetUp(TOURNAMENT, 10, tuple(TOURNAMENT_ROLES)))
    assert lights(None, game) == [(n, "idle") for n in range(1, 11)]
    before = game
    game, _ = step(game, NEXT)  # free seating: no seat's light changes
    assert lights(before, game) == []


def test_the_lights_of_a_speech() -> None:
    game = go(start(), NEXT)[0]
    before, (game, _) = game, go(game, NEXT)
    assert lights(before, game) == [(1, "steady")]
    before, (game, _) = game, step(game, timer(game, "warning"))
    assert lights(before, game) == [(1, "slow_blink")]
    before, (game, _) = game, step(game, timer(game, "turn"))
    assert lights(before, game) == [(1, "fast_blink")]
    before, (game, _) = game, step(game, NEXT)
    assert lights(before, game) == [(1, "idle"), (2, "steady")]


def test_the_lights_of_a_vote_and_of_a_seat_that_is_out() -> None:
    game = day_one()
    game, _ = go(game, Nominated(1, 3), NEXT, Nominated(2, 4))
    for _ in range(8):
        game, _ = step(game, NEXT)
    before, (game, _) = game, step(game, NEXT)  # seat 10 done: the vote on seat 3 opens
    assert views.phase_name(game) == "vote"
    assert lights(before, game) == [(n, "may_vote") for n in range(1, 11)]
    before, (game, _) = game, step(game, SeatPressed(5))
    assert lights(before, game) == [(5, "holding")]
    before, (game, _) = game, step(game, SeatPressed(5))  # pressed again: no change
    assert lights(before, game) == []
    before, (game, _) = game, step(game, SeatReleased(5))
    assert lights(before, game) == [(5, "may_vote")]
    # «Спасибо», «Принято»: the rest vote for seat 4, who leaves with a last word.
    before, (game, _) = game, go(game, NEXT, NEXT)
    assert (
        game.seat(4).out is not None
        and current_turn(game) is not None
        and current_turn(game).seat == 4
    )
    assert dict(lights(before, game)) == {
        4: "steady",
        **{n: "idle" for n in range(1, 11) if n != 4},
    }
    before, (game, _) = game, step(game, NEXT)  # the last word ends: night
    assert game.phase == "night"
    assert lights(before, game) == [(4, "off")]


def test_the_light_of_a_seat_that_lost_its_speech() -> None:
    game = day_one()
    before, (game, _) = game, go(game, OffenceGiven(9, "4.6.1"), OffenceGiven(9, "4.6.1"))
    assert lights(before, game) == []
    before, (game, _) = game, step(game, OffenceGiven(9, "4.6.1"))  # 4.4: the third foul
    assert lights(before, game) == [(9, "penalised")]
    assert table_seat(game, 9).silenced_day == 1


# --- setting up a table ---------------------------------------------------------


@pytest.mark.parametrize("rules", [TOURNAMENT, CLUB], ids=lambda r: r.name)
@pytest.mark.parametrize("seats", [3, 13])
def test_a_table_outside_the_rulesets_seat_range_is_refused(rules: Ruleset, seats: int) -> None:
    assert (rules.min_seats, rules.max_seats) == (4, 12)
    with pytest.raises(IllegalInput, match=f"plays with 4–12 seats, not {seats}"):
        new_game(GameSetUp(rules, seats, ("civilian",) * seats))


@pytest.mark.parametrize("seats", [0, 1, -3, True])
def test_a_table_needs_two_seats_to_be_an_event(seats: int) -> None:
    with pytest.raises(BadEvent, match="seats must be"):
        GameSetUp(TOURNAMENT, seats)


def test_an_unknown_role_is_refused() -> None:
    roles = (*TOURNAMENT_ROLES[:9], "maniac")  # the club's, not the tournament's
    with pytest.raises(IllegalInput, match="seat 10: no role 'maniac'"):
        new_game(GameSetUp(TOURNAMENT, 10, roles))


@pytest.mark.parametrize("count", [9, 11])
def test_the_roles_must_match_the_seats(count: int) -> None:
    roles = tuple((TOURNAMENT_ROLES * 2)[:count])
    with pytest.raises(BadEvent, match=f"roles lists {count} seats, the table has 10"):
        GameSetUp(TOURNAMENT, 10, roles)


def test_the_first_speaker_must_be_at_the_table() -> None:
    with pytest.raises(BadEvent):
        GameSetUp(TOURNAMENT, 10, first_speaker=0)
    with pytest.raises(IllegalInput, match="first_speaker 11"):
        new_game(GameSetUp(TOURNAMENT, 10, first_speaker=11))


@pytest.mark.parametrize(("rules", "seats"), [(TOURNAMENT, 6), (CLUB, 9)], ids=["t6", "c9"])
def test_no_deal_for_the_table_needs_the_roles(rules: Ruleset, seats: int) -> None:
    assert rules.deal_for(seats) is None
    with pytest.raises(IllegalInput, match="no deal"):
        new_game(GameSetUp(rules, seats, seed=1))


DEALS = [(rules, count) for rules in (TOURNAMENT, CLUB) for count, _ in rules.deals]


@pytest.mark.parametrize(("rules", "seats"), DEALS, ids=lambda x: getattr(x, "name", x))
def test_a_deal_follows_the_ruleset_and_the_seed(rules: Ruleset, seats: int) -> None:
    deal = dict(rules.deal_for(seats) or ())
    dealt = set()
    for seed in range(12):
        game, effects = new_game(GameSetUp(rules, seats, seed=seed))
        roles = tuple(seat.role for seat in game.seats)
        assert Counter(roles) == Counter(deal)
        again, again_effects = new_game(GameSetUp(rules, seats, seed=seed))
        assert again == game and again_effects == effects
        assert [seat.team for seat in game.seats] == [rules.role(r).team for r in roles]
        dealt.add(roles)
    assert len(dealt) > 1, "different seeds give different deals"


def test_given_roles_are_seated_as_given() -> None:
    game = start()
    assert [seat.role for seat in game.seats] == TOURNAMENT_ROLES
    assert game.phase == "night" and game.day == 0


def test_a_table_is_set_up_once() -> None:
    assert_rejected(start(), GameSetUp(TOURNAMENT, 10, tuple(TOURNAMENT_ROLES)))


# --- illegal inputs leave the game as it was ------------------------------------


def _ended() -> Game:
    game, _ = step(day_one(), TeamSurrendered("red"))
    return game


def _counting() -> Game:
    game, _ = go(day_one(), Nominated(1, 3), NEXT, Nominated(2, 4), *[NEXT] * 9, NEXT)
    assert views.phase_name(game) == "count"
    return game


ILLEGAL: list[tuple[str, Callable[[], Game], Event]] = [
    ("nominate at night", start, Nominated(1, 2)),
    ("pass at night", start, SpeechPassed(1)),
    ("a choice on night 0", start, NightChoiceMade(3, 1)),
    ("best move at night", start, BestMoveMade(1, (2, 3))),
    ("unknown offence", start, OffenceGiven(1, "no_such_offence")),
    ("offence to seat 11", start, OffenceGiven(11, "warning")),
    ("press of seat 11", start, SeatPressed(11)),
    ("release of seat 11", start, SeatReleased(11)),
    ("no proposal to dismiss", start, ProposalDismissed(0)),
    ("negative proposal index", start, ProposalDismissed(-1)),
    ("unknown team", start, TeamSurrendered("spectators")),
    ("a timer never started", start, TimerExpired("turn", 1)),
    ("nominate outside one's speech", day_one, Nominated(2, 3)),
    ("nominate seat 11", day_one, Nominated(1, 11)),
    ("pass another's speech", day_one, SpeechPassed(2)),
    ("a night choice by day", day_one, NightChoiceMade(3, 1)),
    ("best move by day 1", day_one, BestMoveMade(1, (2,))),
    ("a shot by the sheriff", night_one, NightChoiceMade(5, 1)),
    ("a check at the shot", night_one, NightChoiceMade(3, 1, "check")),
    ("a shot at seat 11", night_one, NightChoiceMade(3, 11)),
    ("nominate at the count", _counting, Nominated(1, 5)),
    ("next after the end", _ended, NEXT),
    ("offence after the end", _ended, OffenceGiven(1, "warning")),
    ("surrender after the end", _ended, TeamSurrendered("black")),
]


@pytest.mark.parametrize(("what", "make", "event"), ILLEGAL, ids=[w for w, _, _ in ILLEGAL])
def test_an_illegal_input_leaves_the_game_as_it_was(
    what: str, make: Callable[[], Game], event: Event
) -> None:
    assert_rejected(make(), event)


def test_a_second_nomination_and_a_late_one_are_refused() -> None:
    game, _ = step(day_one(), Nominated(1, 3))
    assert_rejected(game, Nominated(1, 4), match="already nominated")
    game, _ = step(game, NEXT)
    assert_rejected(game, Nominated(2, 3), match="already nominated")
    game, _ = step(game, timer(game, "turn"))
    assert_rejected(game, Nominated(2, 4), match="too late")


def test_after_a_refusal_the_game_goes_on_as_if_nothing_happened() -> None:
    game = day_one()
    straight, straight_effects = step(game, Nominated(1, 3))
    for event in (Nominated(2, 3), SpeechPassed(4), ProposalDismissed(2), OffenceGiven(1, "x")):
        with pytest.raises(IllegalInput):
            step(game, event)
    again, again_effects = step(game, Nominated(1, 3))
    assert again == straight and again_effects == straight_effects


# --- inputs taken without a change say why (issue 8) -----------------------------


def _window() -> Game:
    """The vote window for seat 3 is open (nominees 3 and 4)."""
    game, _ = go(day_one(), Nominated(1, 3), NEXT, Nominated(2, 4), *[NEXT] * 9)
    assert views.phase_name(game) == "vote"
    return game


def _voted() -> Game:
    game, _ = step(_window(), SeatPressed(5))
    return game


IGNORED: list[tuple[str, Callable[[], Game], Event, str]] = [
    ("a press at night", start, SeatPressed(4), "seat 4 pressed in phase night"),
    ("a press out of turn", day_one, SeatPressed(4), "seat 4 pressed out of turn"),
    ("a press after the end", _ended, SeatPressed(4), "seat 4 pressed in phase ended"),
    ("a second press in one window", _voted, SeatPressed(5), "seat 5 has already voted"),
    ("a press after «Спасибо»", _counting, SeatPressed(6), "seat 6 pressed after «Спасибо»"),
    ("a release at night", start, SeatReleased(4), "seat 4 released outside a vote, nothing held"),
    ("a release in a speech", day_one, SeatReleased(4), "seat 4 released outside a vote, nothing held"),
    ("a release in a window", _window, SeatReleased(4), "seat 4 released with nothing held"),
]  # fmt: skip


@pytest.mark.parametrize(("what", "make", "event", "reason"), IGNORED, ids=[i[0] for i in IGNORED])
def test_an_input_that_changes_nothing_says_why(
    what: str, make: Callable[[], Game], event: Event, reason: str
) -> None:
    before = make()
    after, effects = step(before, event)
    assert [e for e in effects if isinstance(e, Ignored)] == [Ignored(reason)]
    assert table_state(after).ballot == table_state(before).ballot and report.summary(
        after
    ) == report.summary(before)


def test_lifting_a_hand_after_its_count_or_after_a_pass_is_not_ignored() -> None:
    """Only a release with nothing held is ignored: a hand stays on the table
    past the end of the vote, and a «Пас» button is let go after the turn."""
    game, _ = go(_voted(), NEXT, NEXT)  # «Спасибо», «Принято»: the rest send 4 out
    assert game.phase == "speeches" and table_state(game).held == (5,)
    lifted, effects = step(game, SeatReleased(5))
    assert not any(isinstance(e, Ignored) for e in effects) and table_state(lifted).held == ()
    _, effects = step(lifted, SeatReleased(5))
    assert Ignored("seat 5 released outside a vote, nothing held") in effects
    passed, _ = step(day_one(), SeatPressed(1))  # the speaker's own button: «Пас»
    assert current_turn(passed) is not None and current_turn(passed).seat == 2
    _, effects = step(passed, SeatReleased(1))
    assert not any(isinstance(e, Ignored) for e in effects)


def test_illegal_input_is_a_value_error() -> None:
    assert issubclass(IllegalInput, ValueError)
    assert issubclass(BadEvent, ValueError)


# --- regressions found by the state machine (tests/test_core_stateful.py) --------


def test_a_shot_seat_removed_during_the_night_stays_removed() -> None:
    """Found by hypothesis: the shot picked seat 1, the judge then removed
    seat 1 at night (4.7.2), and the morning killed seat 1 again, turning
    "removed" (no last word) into "killed" with a minute's last word."""
    game = night_one()
    game, _ = go(game, NightChoiceMade(3, 1), NightChoiceMade(6, 1), NightChoiceMade(8, 1))
    game, _ = step(game, OffenceGiven(1, "night_touching"))
    out = game.seat(1).out
    assert out is not None and out.how == "removed" and out.last_word_s == 0
    while game.phase == "night":
        game, _ = step(game, NEXT)
    assert game.seat(1).out == out
    assert game.day == 2 and views.phase_name(game) == "speech"
    assert all(turn.kind == "speech" and turn.seat != 1 for turn in table_state(game).turns)
    assert table_state(game).first_victim == 0  # no best move for a seat that was removed


def test_a_maniac_kill_of_a_seat_removed_during_the_night_is_void() -> None:
    """The same for the club's Maniac: his target left the table (removal.4)
    before the morning."""
    game = night_one(CLUB)
    while table_state(game).night_step < 3:  # putana, shot, don check: skipped
        game, _ = step(game, NEXT)
    game, _ = step(game, NightChoiceMade(9, 4, "kill"))
    game, _ = step(game, OffenceGiven(4, "night_gestures_talk_touch"))
    out = game.seat(4).out
    assert out is not None and out.how == "removed"
    while game.phase == "night":
        game, _ = step(game, NEXT)
    assert game.seat(4).out == out
    assert views.phase_name(game) == "speech"


@pytest.mark.parametrize(
    ("rules", "offence"), [(CLUB, "insults"), (TOURNAMENT, "insults")], ids=["club", "tournament"]
)
def test_a_removal_in_ones_last_word_cuts_it_short(rules: Ruleset, offence: str) -> None:
    """Found by hypothesis: an offence given during one's own last word that
    costs a removal rewrote the seat's "voted" to "removed" and left it
    speaking (the turn, its timers and its steady light went on)."""
    game, _ = go(day_one(rules), Nominated(1, 3), NEXT, Nominated(2, 4))
    while game.phase == "speeches":
        game, _ = step(game, NEXT)
    game, _ = go(game, NEXT, NEXT)  # nobody pressed for seat 3: the rest send 4 out
    assert current_turn(game) is not None and (
        current_turn(game).seat,
        current_turn(game).kind,
    ) == (4, "last_word")
    out = game.seat(4).out
    assert out is not None and out.how == "voted"
    before, (game, effects) = game, step(game, OffenceGiven(4, offence))
    assert game.seat(4).out == out
    assert game.phase == "night" and not any(name == "turn" for name, _ in game.timers)
    assert "removed" in cues(effects)
    assert (4, "off") in lights(before, game)


def test_the_shot_of_a_shooter_removed_during_the_night_does_not_count() -> None:
    """A black seat removed at night (4.7.3, hints at night) is out of the
    game: its shot goes with it, and the two shooters left, who agree, kill."""
    game = night_one()
    game, _ = go(game, NightChoiceMade(3, 5))
    game, _ = step(game, OffenceGiven(3, "night_hints"))
    game, _ = go(game, NightChoiceMade(6, 7), NightChoiceMade(8, 7))
    while game.phase == "night":
        game, _ = step(game, NEXT)
    out = game.seat(7).out
    assert out is not None and out.how == "killed"
    assert game.seat(5).out is None
