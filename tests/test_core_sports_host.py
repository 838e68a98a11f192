"""The sports table's answers the console only shows (issue 25, part 3):
what the host's "next" leads to (``core/sports/ahead.py``) and the
night's choice keyed in (``core/sports/night_choice.py``)."""

from __future__ import annotations

import pytest

from companion.config.rulesets import load_ruleset
from companion.core.engine import new_game, step
from companion.core.events import GameSetUp, GameStopped, HostAdvanced, NightChoiceMade, Undone
from companion.core.sports.ahead import Ahead, after_next, ahead
from companion.core.sports.night_choice import actors, choice, choice_step
from companion.core.sports.state import table
from companion.core.state import Game
from tests.helpers import TOURNAMENT_ROLES

TOURNAMENT = load_ruleset("tournament")
NEXT = HostAdvanced()
MAFIA = (3, 6, 8)  # the mafia and the don in TOURNAMENT_ROLES: the shot's actors


def start() -> Game:
    game, _ = new_game(GameSetUp(TOURNAMENT, 10, tuple(TOURNAMENT_ROLES)))
    return game


def go(game: Game, times: int) -> Game:
    for _ in range(times):
        game, _ = step(game, NEXT)
    return game


def night_one() -> Game:
    game = go(start(), 2)  # night 0 skipped: day 1
    while game.phase == "speeches":
        game = go(game, 1)
    assert game.phase == "night" and game.day == 1
    return game


def test_next_in_the_day_is_the_next_speech() -> None:
    day = go(start(), 2)
    assert ahead(day) == Ahead("speech", seat=2)
    last = go(day, 9)  # seat 10 speaks, nobody nominated
    assert ahead(last) == Ahead("night")


def test_next_at_night_is_the_next_step_then_the_morning() -> None:
    night = night_one()
    assert ahead(night) == Ahead("night_step", step="Проверка Дона")
    while table(night).night_step < len(table(night).tonight) - 1:
        night = go(night, 1)
    assert ahead(night) == Ahead("morning")  # never who died


def test_next_is_what_the_engine_would_do() -> None:
    day = go(start(), 2)
    after = after_next(day)
    assert after is not None and after == step(day, NEXT)[0]


def test_nothing_comes_after_the_end() -> None:
    ended, _ = step(go(start(), 2), GameStopped("a fire"))
    assert ended.phase == "ended"
    assert after_next(ended) is None and ahead(ended) is None


def test_a_forum_game_has_no_next() -> None:
    forum = load_ruleset("forum")
    seats = forum.deals[0][0]
    game, _ = new_game(GameSetUp(forum, seats, None, seed=1, start="2026-12-05"))
    assert game.phase not in ("setup", "ended") and ahead(game) is None


def test_the_shot_is_for_all_who_act_and_one_undo() -> None:
    """One target typed is one input (seat 0): every living shooter's
    choice, and one undo takes all of them back (session 32's trap)."""
    night = night_one()
    shot = choice_step(night)
    assert shot is not None and shot.id == "shot"
    assert actors(night, shot) == MAFIA
    made = choice([4])
    assert made == NightChoiceMade(0, 4)
    chosen, _ = step(night, made)
    assert {(seat, target) for _, seat, target in table(chosen).choices} == {(s, 4) for s in MAFIA}
    undone, _ = step(chosen, Undone())
    assert table(undone).choices == ()
    again, _ = step(step(chosen, NightChoiceMade(6, 1))[0], made)  # all agree again
    assert sorted(seat for _, seat, _ in table(again).choices) == sorted(MAFIA)


def test_a_seat_and_its_target_is_one_choice() -> None:
    night = night_one()
    shot = choice_step(night)
    assert shot is not None
    assert choice([6, 1]) == NightChoiceMade(6, 1)
    with pytest.raises(ValueError, match="a target"):
        choice([6, 1, 2])


def test_the_dead_do_not_act() -> None:
    night = night_one()
    night, _ = step(night, choice([3]))  # the mafia shoots seat 3, one of its own
    while night.phase == "night":
        night = go(night, 1)
    assert night.seat(3).out is not None
    night = go(night, 1)
    while night.phase != "night":
        night = go(night, 1)
    shot = choice_step(night)
    assert shot is not None and actors(night, shot) == (6, 8)
    night, _ = step(night, choice([1]))
    assert {seat for _, seat, _ in table(night).choices} == {6, 8}


def test_no_choice_by_day_or_after_the_night_s_steps() -> None:
    day = go(start(), 2)
    assert choice_step(day) is None
    night = night_one()
    while night.phase == "night" and table(night).night_step < len(table(night).tonight):
        night = go(night, 1)
    assert choice_step(night) is None
