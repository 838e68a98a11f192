"""The forum game's part of a ruleset (``[forum]`` in ``rulesets/forum.toml``).

What each role does is data here (when it chooses, its action, its limits,
what a skip beyond the free ones costs, its clause); how the actions meet
in one night is the text's «форс-мажоры», written once in
``companion.core.forum.night`` with the clause of each case beside it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..rules import Deals, ProcedureRules, Ruleset

#: When a role chooses. ``night``: every night; ``first_night``: only the
#: first night the game resolves (the Vampire); ``day``: every day until
#: the day deadline (Lawyer, Bouncer); ``team``: one choice per MM team
#: each night (the Don's last post, else the members'); ``once``: one
#: night of its choosing in the game (the Tin Man's block); ``never``:
#: no choice of its own (МЖ, ДМ, Бомж, the Pom while the Cop lives).
Acts = Literal["night", "first_night", "day", "team", "once", "never"]

#: What a choice does. ``shoot``: a gun (Cop, Sniper, lone Maniac, a
#: team); ``bite``: the Vampire's theft or the Zombie's recruit-or-kill;
#: ``mark``: the Kamikaze's victim, who dies with him; ``protect``: the
#: Lawyer's; ``annul``: the Bouncer's.
ForumAction = Literal["none", "shoot", "heal", "block", "bite", "mark", "protect", "annul"]
FORUM_ACTIONS: tuple[str, ...] = (
    "shoot", "heal", "block", "bite", "mark", "protect", "annul",
)  # fmt: skip

#: What a missing choice costs once the free skips are used: ``none``:
#: nothing (the Cop, the Sniper: amb.9); ``lose_role``: the role becomes a
#: plain МЖ (Doctor, Lawyer, Bouncer); ``die``: the Kamikaze explodes alone;
#: ``autokill``: the Vampire; ``sanction``: an MM team or the lone Maniac,
#: whom the host sanctions (deadline.night.5, amb.10).
AfterSkips = Literal["none", "lose_role", "die", "autokill", "sanction"]

#: The role ids the resolution knows (docs/forum-rules-catalogue.md, 2.2).
FORUM_ROLES: tuple[str, ...] = (
    "civilian", "cop", "cop_assistant", "doctor", "mafia_child", "lawyer", "bouncer",
    "sniper", "tin_woodman", "kamikaze", "tramp", "mafia", "don", "maniac",
    "maniacs_member", "maniacs_don", "vampire", "zombie", "zombie_member",
)  # fmt: skip

#: The deadlines of a game day, in the order they fall.
DEADLINES: tuple[str, ...] = ("day_choices", "vote", "night")

#: Options a game is set up with (``GameSetUp.options``), announced with
#: the balance: the two-sided deal; no basements; the multi-function ДМ.
FORUM_OPTIONS: tuple[str, ...] = ("two_sided", "no_basements", "multi_child")


@dataclass(frozen=True, slots=True)
class ForumRole:
    id: str
    acts: Acts
    action: ForumAction
    clause: str  # the sentence that gives the role its move
    #: may choose himself (the Doctor, the Lawyer: amb.54)
    self_target: bool = False
    #: not the same target on two nights (days) running (roles.doctor.3)
    not_twice_running: bool = False
    free_skips: int = 0
    after_skips: AfterSkips = "none"
    after_skips_clause: str = ""
    #: holds a gun the Tin Man can block or take (amb.16)
    gun: bool = False
    #: a Don: his team's final say and the Don's immunities
    don: bool = False


@dataclass(frozen=True, slots=True)
class ForumRules(ProcedureRules):
    roles: tuple[ForumRole, ...]
    #: deadline name -> the first refused time of day, "HH:MM:SS" (amb.32)
    deadlines: tuple[tuple[str, str], ...]
    #: the companion warns this long before each deadline
    warning_minutes: int = 10
    #: seat count -> the two-sided deal (balance.1, amb.4)
    two_sided_deals: Deals = ()
    #: the Cop is told «мирный» privately when his shot meets a civilian (amb.8)
    cop_private_result: bool = False

    def role(self, role_id: str) -> ForumRole:
        for role in self.roles:
            if role.id == role_id:
                return role
        raise KeyError(role_id)

    def deadline(self, name: str) -> str:
        return dict(self.deadlines)[name]

    @property
    def options(self) -> tuple[str, ...]:
        return FORUM_OPTIONS

    def deals(self, options: tuple[str, ...]) -> Deals | None:
        """The two-sided deal when the setup asks for it (balance.1)."""
        return self.two_sided_deals if "two_sided" in options else None


def forum_rules(rules: Ruleset) -> ForumRules | None:
    """The forum game's part of a ruleset (``[forum]``), or None: the
    ruleset plays another procedure."""
    own = rules.procedure_rules
    return own if isinstance(own, ForumRules) else None


def the_forum_rules(rules: Ruleset) -> ForumRules:
    """``forum_rules`` of a ruleset known to be the forum game's."""
    own = forum_rules(rules)
    if own is None:
        raise ValueError(f"ruleset {rules.name!r} is not the forum game's")
    return own
