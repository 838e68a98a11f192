"""The fair deal: the commitment is what docs/protocol.md says is hashed,
the check's deal is the engine's, and a changed seed, role or commitment is
caught."""

from __future__ import annotations

import hashlib
import subprocess

import pytest
from helpers import EXAMPLES
from protocol_games import GAMES, SEEDS

from companion.config.rulesets import load_ruleset
from companion.core.engine import new_game
from companion.core.events import GameSetUp
from companion.protocol import deal
from companion.runner.script import read_script


def test_the_commitment_is_the_sha256_of_the_documented_line() -> None:
    # What docs/protocol.md tells a player to type, run through the real sha256sum.
    typed = subprocess.run(
        ["sh", "-c", 'echo "companion-deal-v1 8046378118209513" | sha256sum'],
        capture_output=True,
        text=True,
        check=True,
    )
    assert typed.stdout.split()[0] == deal.commitment(8046378118209513)
    assert deal.commitment(0) == hashlib.sha256(b"companion-deal-v1 0\n").hexdigest()
    assert deal.commitment(1) != deal.commitment(10)


@pytest.mark.parametrize("bad", [-1, 2**64, True, 1.0, "5"])
def test_seeds_out_of_range_are_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="seed"):
        deal.seed_text(bad)  # type: ignore[arg-type]


def test_fresh_seeds_are_in_range_and_differ() -> None:
    seeds = {deal.fresh_seed() for _ in range(50)}
    assert len(seeds) == 50
    assert all(0 <= s < 2**63 for s in seeds)


@pytest.mark.parametrize("ruleset", ["tournament", "club"])
def test_the_check_deals_as_the_engine_does(ruleset: str) -> None:
    """If the engine's deal changes, the check must change with it."""
    rules = load_ruleset(ruleset)
    for count, _ in rules.deals:
        order = deal.laid_out(rules, count)
        assert order is not None
        for seed in (0, 1, 7, 4123, 2**63 - 1, 2**64 - 1):
            game, _ = new_game(GameSetUp(rules, count, seed=seed))
            assert [s.role for s in game.seats] == deal.deal(order, seed)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_test_games_seeds_deal_the_examples_roles(game: str) -> None:
    example, ruleset, _ = GAMES[game]
    setup = read_script(EXAMPLES / example, load_ruleset)[0].fields
    order = deal.laid_out(load_ruleset(ruleset), 10)
    assert order is not None
    assert deal.deal(order, SEEDS[ruleset]) == setup["roles"]


def _case() -> tuple[int, list[str], list[str]]:
    order = deal.laid_out(load_ruleset("tournament"), 10)
    assert order is not None
    seed = 987654321
    return seed, order, deal.deal(order, seed)


def test_a_true_deal_is_fair() -> None:
    seed, order, roles = _case()
    verdict = deal.verify(seed=seed, shown=deal.commitment(seed), order=order, roles=roles)
    assert verdict.fair, verdict.why
    assert "matches seed 987654321" in verdict.why


def test_a_seed_other_than_the_committed_one_is_caught() -> None:
    seed, order, roles = _case()
    verdict = deal.verify(seed=seed + 1, shown=deal.commitment(seed), order=order, roles=roles)
    assert not verdict.fair
    assert "not the sha256 of seed 987654322" in verdict.why


def test_roles_swapped_after_the_deal_are_caught() -> None:
    seed, order, roles = _case()
    black = roles.index("don")
    red = roles.index("sheriff")
    roles[black], roles[red] = roles[red], roles[black]
    verdict = deal.verify(seed=seed, shown=deal.commitment(seed), order=order, roles=roles)
    assert not verdict.fair
    assert f"to seat {min(black, red) + 1}" in verdict.why


def test_roles_not_of_the_deal_are_caught() -> None:
    seed, order, roles = _case()
    roles[roles.index("sheriff")] = "civilian"
    verdict = deal.verify(seed=seed, shown=deal.commitment(seed), order=order, roles=roles)
    assert not verdict.fair
    assert "not the ruleset's deal" in verdict.why


def test_the_players_value_is_mixed_in() -> None:
    host = 123456789
    _, order, _ = _case()
    mixed = deal.mixed_seed(host, "4 7 1")
    assert mixed != host and 0 <= mixed < 2**63
    assert deal.mixed_seed(host, " 4 7 1 ") == mixed  # spaces around do not count
    assert deal.mixed_seed(host, "4 7 2") != mixed
    roles = deal.deal(order, mixed)
    shown = deal.commitment(host)
    assert deal.verify(seed=host, shown=shown, order=order, roles=roles, players="4 7 1").fair
    wrong = deal.verify(seed=host, shown=shown, order=order, roles=roles, players="4 7 2")
    assert not wrong.fair
