"""A provably fair deal: a fresh seed, its commitment, and the check.

Before the roles are known the host's screen shows (and the protocol keeps)
the **commitment**: the sha256 of the seed's text form

    companion-deal-v1 SEED\\n

(the words ``companion-deal-v1``, one space, the seed in decimal without
leading zeros, one newline; UTF-8, which for these characters is ASCII).
Anyone can check it with ``echo "companion-deal-v1 SEED" | sha256sum``.

After the game the seed is revealed (the protocol holds it). The deal is fair
when the commitment matches the seed **and** dealing that seed gives exactly
the roles the protocol lists: the ruleset's deal for that many seats laid out
role by role in the ruleset's order, then ``random.Random(seed).shuffle``
(Python 3; seat 1 gets the first role). ``verify`` checks both.

What a commitment cannot stop: the host may try many seeds before
committing and keep one that deals them what they like ("grinding"). The
cure is a value the players give *after* the commitment is shown
(``mixed_seed``): the deal then comes from both, so neither side chose it.
See docs/protocol.md.
"""

from __future__ import annotations

import hashlib
import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from ..core.rules import Ruleset

#: seeds are drawn below this (the input codec bounds them below 2**64)
SEED_LIMIT = 2**63
#: the prefix of the hashed text; a new form of it gets a new version
FORM = "companion-deal-v1"


def fresh_seed() -> int:
    """A seed nobody can guess, from the operating system's random source."""
    return secrets.randbelow(SEED_LIMIT)


def seed_text(seed: int) -> str:
    """The exact text whose sha256 is the commitment."""
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**64:
        raise ValueError(f"a seed is a whole number from 0 to 2**64-1, got {seed!r}")
    return f"{FORM} {seed}\n"


def commitment(seed: int) -> str:
    """sha256 hex of ``seed_text(seed)``: shown before the roles are known."""
    return hashlib.sha256(seed_text(seed).encode("ascii")).hexdigest()


def mixed_seed(host_seed: int, players: str) -> int:
    """The deal's seed from the host's committed seed and a value the players
    give after seeing the commitment (a few digits called out, a die roll).

    The host cannot grind (the players' value comes later and changes
    everything); the players cannot steer (they do not know the host's
    seed). Hashed text: ``companion-deal-v1 HOST_SEED PLAYERS\\n``; the seed
    is the first 16 hex digits of its sha256, below 2**63.
    """
    text = f"{seed_text(host_seed)[:-1]} {players.strip()}\n"
    return int(hashlib.sha256(text.encode("utf-8")).hexdigest()[:16], 16) % SEED_LIMIT


def laid_out(rules: Ruleset, seats: int, options: tuple[str, ...] = ()) -> list[str] | None:
    """The ruleset's deal for ``seats`` role by role, before the shuffle (the
    engine's order: companion/core/engine.py ``new_game``); None without one.
    ``options``: the forum game's (``two_sided`` picks its other deal)."""
    deal = rules.deal_for(seats, options)
    if deal is None:
        return None
    return [role for role, count in deal for _ in range(count)]


def deal(order: Sequence[str], seed: int) -> list[str]:
    """The roles, seat 1 first, that ``seed`` deals from ``order``."""
    roles = list(order)
    random.Random(seed).shuffle(roles)
    return roles


@dataclass(frozen=True, slots=True)
class Verdict:
    fair: bool
    why: str  # one line, English (the CLI's words)
    #: False: there was no deal to check (the roles came from the cards)
    checked: bool = True


def verify(
    *,
    seed: int,
    shown: str,
    order: Sequence[str],
    roles: Sequence[str],
    players: str | None = None,
) -> Verdict:
    """Fair when ``shown`` is the commitment of ``seed`` and dealing (the
    seed, mixed with the players' value if there was one) from ``order``
    gives exactly ``roles``."""
    expected = commitment(seed)
    if shown.strip().lower() != expected:
        return Verdict(
            False,
            f"the commitment {shown.strip()[:16]}… is not the sha256 of seed {seed} "
            f"({expected[:16]}…): the seed was changed after it was shown",
        )
    used = mixed_seed(seed, players) if players is not None else seed
    if sorted(order) != sorted(roles):
        return Verdict(False, "the roles at the table are not the ruleset's deal for this table")
    dealt = deal(order, used)
    for number, (want, got) in enumerate(zip(dealt, roles, strict=True), 1):
        if want != got:
            return Verdict(
                False,
                f"seed {used} deals {want!r} to seat {number}, the protocol says {got!r}: "
                "the roles were not dealt from this seed",
            )
    mixed = f" mixed with the players' value {players!r}" if players is not None else ""
    return Verdict(
        True,
        f"the commitment {expected[:16]}… matches seed {seed}{mixed}, and that seed deals "
        f"exactly these {len(roles)} roles",
    )
