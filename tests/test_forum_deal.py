"""The forum game's deal (issue 11 item 4): the balance table's deal for N
players, three-sided or two-sided, shuffled with the seed, and checked by
``companion verify-deal`` the way a user runs it, after a game in which
roles changed (a Sniper converted, the ДМ joined the Mafia)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.config.rulesets import load_ruleset
from companion.core.engine import new_game
from companion.core.events import GameSetUp
from companion.protocol import deal as fair
from tests.protocol_games import companion


@pytest.mark.parametrize("seats", range(20, 26))
@pytest.mark.parametrize("options", [(), ("two_sided",)])
def test_the_balance_table_is_dealt_for_20_to_25(seats: int, options: tuple[str, ...]) -> None:
    rules = load_ruleset("forum")
    game, _ = new_game(GameSetUp(rules, seats, seed=11, options=options))
    roles = [seat.role for seat in game.seats]
    assert roles == fair.deal(fair.laid_out(rules, seats, options) or [], 11)
    teams = {seat.team for seat in game.seats}
    mm = sum(1 for seat in game.seats if seat.team in ("mafia", "maniacs"))
    if options:  # balance.1: the mafia nearest n/3, and the lone Maniac (sides.3)
        assert "maniac" in teams and "maniacs" not in teams
        assert mm == round(seats / 3)
    else:  # balance.20-25: two MM teams of 4 or 5 (по 4 мм / по 5 мм)
        assert mm == (8 if seats < 24 else 10)
        assert "maniacs" in teams
    assert roles.count("mafia_child") == 1  # «мж(дм)», amb.50


def test_26_players_need_their_roles_given() -> None:
    rules = load_ruleset("forum")
    with pytest.raises(ValueError, match="no deal for 26 seats"):
        new_game(GameSetUp(rules, 26, seed=1))


def _script(path: Path, options: list[str]) -> Path:
    """A dealt 20-player game: one day's vote, one night."""
    rules = load_ruleset("forum")
    opts = tuple(options)
    game, _ = new_game(GameSetUp(rules, 20, seed=5, options=opts))
    by_role = {seat.role: seat.number for seat in game.seats}
    lines = [
        {"at": 0, "input": "setup", "ruleset": "forum", "seats": 20, "seed": 5, "options": options}
    ]
    victim = next(s.number for s in game.seats if s.role == "civilian")
    for voter in range(1, 21):
        target = victim if voter != victim else by_role["cop"]
        lines.append({"at": 1, "input": "vote", "voter": voter, "target": target})
    lines.append({"at": 2, "input": "deadline", "name": "vote"})
    child = by_role["mafia_child"]
    lines.append(
        {"at": 3, "input": "post", "seat": by_role["don"], "action": "shoot", "target": child}
    )
    lines.append({"at": 4, "input": "deadline", "name": "night"})
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("options", [[], ["two_sided"]])
def test_verify_deal_says_fair_after_roles_changed(tmp_path: Path, options: list[str]) -> None:
    script = _script(tmp_path / "forum.jsonl", options)
    journal = tmp_path / "forum.game.jsonl"
    run = companion("replay", script, "--journal", journal)
    assert run.returncode == 0, run.stderr
    protocol = tmp_path / "forum.json"
    run = companion("protocol", journal, "--format", "json", "-o", protocol)
    assert run.returncode == 0, run.stderr
    seats = json.loads(protocol.read_text(encoding="utf-8"))["seats"]
    changed = [s for s in seats if "dealt_role" in s]
    assert [(s["dealt_role"], s["role"], s["team"]) for s in changed] == [
        ("mafia_child", "mafia", "mafia")
    ]  # roles.mafia_child.2: the ДМ shot by the Mafia joins it
    run = companion("verify-deal", protocol, "--lang", "en")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "deals exactly these 20 roles" in run.stdout
