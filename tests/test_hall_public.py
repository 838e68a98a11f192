"""A table's public state for the hall (companion/hall/public.py): every
state of a whole game of each ruleset, and none of them tells a role, a
team, a night choice, a check or a proposal before the end."""

from __future__ import annotations

import dataclasses
import json

import pytest
from helpers import EXAMPLES

from companion.config.rulesets import load_ruleset
from companion.core.sports.state import TableState
from companion.core.state import Game, Proposal
from companion.hall.public import public_state
from companion.runner.replay import ScriptReplay
from companion.runner.script import parse_lines

GAMES = {
    "tournament": "tournament-red-win.jsonl",
    "club": "club-maniac-wins.jsonl",
    "forum": "forum-two-sided.jsonl",
}
KEYS = {
    "schema", "game", "seq", "phase", "day", "speaker", "deadline", "paused_left", "out",
    "fouls", "rights_lost", "nominations", "votes", "result", "announcement", "seats", "players",
}  # fmt: skip


def _states(example: str) -> list[Game]:
    """Every state of the game, oldest first (the undo chain keeps them)."""
    path = EXAMPLES / example
    lines = parse_lines(path.read_text(encoding="utf-8").splitlines(), str(path), load_ruleset)
    replay = ScriptReplay(source=str(path))
    game = replay.run(lines)
    assert game is not None
    # the forum example stops mid-game: its states up to there
    assert game.phase == "ended" or example.startswith("forum"), example
    chain: list[Game] = []
    at: Game | None = game
    while at is not None:
        chain.append(at)
        at = at.prev
    return chain[::-1]


def _public(game: Game) -> dict[str, object]:
    return public_state(game, game_id="g", seq=1, deadline=None)


def _scrambled(game: Game) -> Game:
    """The same game with every secret changed: roles and teams swapped
    round, the night's choices aimed elsewhere, the host's proposals and
    the protocol's records (checks, choices) gone."""
    seats = game.seats
    roles = [(s.role, s.team) for s in seats]
    roles = roles[1:] + roles[:1]
    seats = tuple(
        dataclasses.replace(s, role=r, team=t) for s, (r, t) in zip(seats, roles, strict=False)
    )
    procedure = game.procedure_state
    if isinstance(procedure, TableState):
        choices = tuple(
            (step, seat, target % len(seats) + 1) for step, seat, target in procedure.choices
        )
        procedure = dataclasses.replace(procedure, choices=choices)
    proposals = (Proposal(1, "x", "y"),) if not game.proposals else ()
    return dataclasses.replace(
        game, seats=seats, procedure_state=procedure, proposals=proposals, log=None
    )


@pytest.mark.parametrize("ruleset", sorted(GAMES))
def test_no_secret_changes_a_public_state(ruleset: str) -> None:
    states = _states(GAMES[ruleset])
    assert len(states) > 20
    for game in states:
        if game.phase == "ended":
            continue  # the result names the winning team
        assert _public(game) == _public(_scrambled(game)), game.phase


@pytest.mark.parametrize("ruleset", sorted(GAMES))
def test_no_role_or_team_word_before_the_end(ruleset: str) -> None:
    states = _states(GAMES[ruleset])
    rules = states[-1].rules
    secret = {role.id for role in rules.roles} | {team.id for team in rules.teams}
    phases = set()
    for game in states:
        state = _public(game)
        assert set(state) == KEYS
        json.dumps(state)  # plain data
        phases.add(state["phase"])
        if game.phase == "ended":
            assert state["result"] is not None
            continue
        assert state["result"] is None
        words = _strings(state)
        assert not words & secret, (game.phase, words & secret)
    assert len(phases) >= 3, phases


def _strings(value: object) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return (
            set().union(*(_strings(v) | _strings(k) for k, v in value.items())) if value else set()
        )
    if isinstance(value, list):
        return set().union(*(_strings(v) for v in value)) if value else set()
    return set()


def test_what_the_hall_sees_of_a_day() -> None:
    """Speakers, nominations, outs and fouls as the table has them."""
    states = _states(GAMES["tournament"])
    seen = [_public(g) for g in states]
    assert any(s["speaker"] is not None for s in seen)
    assert any(s["nominations"] for s in seen)
    assert any(s["out"] for s in seen)
    assert seen[-1]["phase"] == "ended" and seen[-1]["result"]["winner"]


def test_a_night_kill_waits_for_the_morning() -> None:
    states = _states(GAMES["tournament"])
    for game in states:
        if game.phase == "night":
            killed_tonight = {
                s.number for s in game.seats
                if s.out is not None and s.out.how == "killed" and s.out.day == game.day
            }  # fmt: skip
            shown = {o["seat"] for o in _public(game)["out"]}  # type: ignore[attr-defined]
            assert not killed_tonight & shown
