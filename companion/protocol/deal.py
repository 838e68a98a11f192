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
from ..textfiles.printable import printable

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


#: what a check found, in words (``Verdict.text``); the arguments are the verdict's
VERDICTS: dict[str, dict[str, str]] = {
    "en": {
        "fair": "the commitment {commitment}… matches seed {seed}{mixed}, and that seed deals "
        "exactly these {count} roles",
        "mixed": " mixed with the players' value {players!r}",
        "changed_seed": "the commitment {shown}… is not the sha256 of seed {seed} "
        "({expected}…): the seed was changed after it was shown",
        "other_roles": "the roles at the table are not the ruleset's deal for this table",
        "not_dealt": "seed {seed} deals {want!r} to seat {seat}, the protocol says {got!r}: "
        "the roles were not dealt from this seed",
        "given": "the host gave the roles at setup (from the cards)",
        "count": "the deal lists {order} roles for a table of {seats} seats",
        "not_ruleset": "deal.order is not ruleset {ruleset!r}'s deal for {seats} seats ({want})",
        "no_deal": "it has none",
        "not_shown": "the protocol's commitment {shown}… is not the hash shown before the deal "
        "({noted}…)",
        "no_ruleset": "ruleset {ruleset!r} is not here, and without it the deal cannot be "
        "checked (put its file in the rulesets folder: docs/protocol.md)",
        # what the game played, against the deal (played.py)
        "field": "{key}: not a field of a protocol",
        "hashed": "deal.hashed {got!r} is not the line of seed {seed}",
        "title": "game.title {got!r} is not ruleset {ruleset!r}'s title",
        "seats": "game.seats is {got}, but seats[] lists {want}",
        "seat_number": "seats[{index}] is seat {got}, not seat {want}",
        "no_setup": "the events do not begin with the game's setup record",
        "setup_field": "the setup record's {key} is {got!r}, not {want!r}",
        "setup_roles": "the setup record deals {got!r} to seat {seat}, the seed {want!r}",
        "never_changes": "events[{index}]: a role change, but ruleset {ruleset!r} "
        "never changes roles",
        "change_from": "events[{index}]: seat {seat}'s role changes from {got!r}, "
        "but it held {want!r}",
        "unknown_role": "events[{index}]: {got!r} is not a role or team of ruleset {ruleset!r}",
        "played": "seats[] gives seat {seat} {got!r}, but the game dealt it and played it "
        "as {want!r}",
        "unchanged": "seats[] gives seat {seat} a dealt_role {got!r}, but its role never changed",
        "team": "seats[] puts seat {seat} in team {got!r}, but the game played it in {want!r}",
        "role_name": "seats[] names seat {seat}'s role {got!r}, the ruleset {want!r}",
        "team_name": "seats[] names seat {seat}'s team {got!r}, the ruleset {want!r}",
        "record": "events[{index}]: not a record of this game ({why})",
        "text": "events[{index}].text {got!r} is not what its record says ({want!r})",
        "event_role": "events[{index}]: seat {seat} holds {got!r} there, but it held {want!r}",
        "told_role": "events[{index}]: seat {seat} is told role {got!r}, which it never held",
    },
    "ru": {
        "fair": "хеш {commitment}… — это хеш зерна {seed}{mixed}, и это зерно раздаёт "
        "ровно эти роли ({count})",
        "mixed": " со значением игроков «{players}»",
        "changed_seed": "хеш {shown}… — не sha256 зерна {seed} ({expected}…): "
        "зерно изменили после того, как хеш был показан",
        "other_roles": "роли за столом — не раздача правил для такого стола",
        "not_dealt": "зерно {seed} даёт месту {seat} роль «{want}», а в протоколе «{got}»: "
        "роли раздавались не по этому зерну",
        "given": "роли назначил ведущий при рассадке (по картам)",
        "count": "в раздаче ролей: {order}, а мест за столом: {seats}",
        "not_ruleset": "роли раздачи — не раздача правил «{ruleset}» на {seats} мест ({want})",
        "no_deal": "у правил её нет",
        "not_shown": "хеш протокола {shown}… — не тот, что показали до раздачи ({noted}…)",
        "no_ruleset": "правил «{ruleset}» здесь нет, а без них раздачу не проверить "
        "(их файл кладут в папку правил: docs/protocol.md)",
        "field": "{key}: такого поля в протоколе нет",
        "hashed": "deal.hashed «{got}» — не строка зерна {seed}",
        "title": "game.title «{got}» — не название правил «{ruleset}»",
        "seats": "game.seats — {got}, а в seats[] мест {want}",
        "seat_number": "seats[{index}] — место {got}, а не {want}",
        "no_setup": "события не начинаются с рассадки",
        "setup_field": "в записи рассадки {key} — «{got}», а не «{want}»",
        "setup_roles": "по записи рассадки место {seat} получило роль «{got}», "
        "а зерно даёт «{want}»",
        "never_changes": "events[{index}]: смена роли, а в правилах «{ruleset}» роли не меняются",
        "change_from": "events[{index}]: место {seat} меняет роль «{got}», а у него была «{want}»",
        "unknown_role": "events[{index}]: «{got}» — не роль и не команда правил «{ruleset}»",
        "played": "в seats[] у места {seat} роль «{got}», а по раздаче и ходу игры — «{want}»",
        "unchanged": "в seats[] у места {seat} роль при раздаче «{got}», а его роль не менялась",
        "team": "в seats[] место {seat} в команде «{got}», а по ходу игры — «{want}»",
        "role_name": "в seats[] роль места {seat} названа «{got}», а в правилах — «{want}»",
        "team_name": "в seats[] команда места {seat} названа «{got}», а в правилах — «{want}»",
        "record": "events[{index}]: не запись этой игры ({why})",
        "text": "events[{index}].text «{got}» — не то, что говорит запись («{want}»)",
        "event_role": "events[{index}]: у места {seat} там роль «{got}», а была «{want}»",
        "told_role": "events[{index}]: месту {seat} сказана роль «{got}», которой у него не было",
    },
}


#: the verdicts whose ``want`` and ``got`` are role ids (team ids: "team"),
#: shown in Russian as the ruleset's names
_ROLE_IDS = ("not_dealt", "not_ruleset", "setup_roles", "change_from", "played", "team",
             "event_role", "told_role", "unchanged")  # fmt: skip


@dataclass(frozen=True, slots=True)
class Verdict:
    fair: bool
    reason: str  # a key of VERDICTS
    args: tuple[tuple[str, object], ...] = ()
    #: False: there was no deal to check (the roles came from the cards)
    checked: bool = True
    #: a further remark (a key of VERDICTS) added at the end
    note: str = ""

    def text(self, lang: str = "en") -> str:
        """Why, in one line of ``lang``'s words."""
        words = VERDICTS.get(lang, VERDICTS["en"])
        args = dict(self.args)
        if self.reason == "fair":
            mixed = args.get("players")
            args["mixed"] = words["mixed"].format(players=mixed) if mixed is not None else ""
        if lang == "ru" and self.reason in _ROLE_IDS:
            from .names import role_name, team_name  # the bundled rulesets' names

            name = team_name if self.reason == "team" else role_name
            for key in ("want", "got"):
                ids = str(args.get(key, "")).split()
                if ids:
                    args[key] = ", ".join(name(role, lang) for role in ids)
        if self.reason == "not_ruleset" and not args.get("want"):
            args["want"] = words["no_deal"]
        line = words[self.reason].format(**args)
        line += words[self.note].format(**args) if self.note else ""
        return printable(line)  # what came from the file reaches a terminal as text

    @property
    def why(self) -> str:
        """Why, in English."""
        return self.text("en")


def verdict(fair: bool, reason: str, *, checked: bool = True, **args: object) -> Verdict:
    return Verdict(fair, reason, tuple(args.items()), checked)


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
        return verdict(
            False, "changed_seed", shown=shown.strip()[:16], seed=seed, expected=expected[:16]
        )
    used = mixed_seed(seed, players) if players is not None else seed
    if sorted(order) != sorted(roles):
        return verdict(False, "other_roles")
    dealt = deal(order, used)
    for number, (want, got) in enumerate(zip(dealt, roles, strict=True), 1):
        if want != got:
            return verdict(False, "not_dealt", seed=used, want=want, seat=number, got=got)
    return verdict(
        True, "fair", commitment=expected[:16], seed=seed, players=players, count=len(roles)
    )
