"""``[forum]``: the forum game's roles, deadlines and two-sided deals.

Read for ``ruleset_load`` (the procedure's ``read_rules``) when a ruleset
names ``procedure = "forum"``;
the layout is in docs/rulesets.md ("The forum game").
"""

from __future__ import annotations

import re
from dataclasses import fields
from typing import cast, get_args

from ...textfiles.toml_table import TomlTable
from ..rules import Deals, Role, RulesetReader
from .rules import DEADLINES, FORUM_ROLES, Acts, AfterSkips, ForumAction, ForumRole, ForumRules

_TOP = ("deadlines", "warning_minutes", "roles", "two_sided_deals", "cop_private_result")
_TIME = re.compile(r"([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\Z")
#: an hour: the host moves a deadline rather than hear of it hours ahead
_MAX_WARNING_MINUTES = 180


def read_forum(t: TomlTable, reader: RulesetReader) -> ForumRules:
    """``[forum]`` of a ruleset that plays the forum game (the procedure's
    ``read_rules``): its two-sided deals laid out as ``[deals]``."""
    two_sided = reader.parse_deals(t.table("two_sided_deals", None, required=False))
    return parse_forum(t, reader.roles, two_sided)


def parse_forum(t: TomlTable, roles: tuple[Role, ...], two_sided_deals: Deals) -> ForumRules:
    """``t``: the ``[forum]`` table; ``two_sided_deals`` as ``ruleset_load``
    read ``[forum.two_sided_deals]`` (the same layout as ``[deals]``)."""
    role_ids = [role.id for role in roles]
    for role_id in role_ids:
        if role_id not in FORUM_ROLES:
            t.ctx.fail(("roles", role_id), f"the forum game knows no role {role_id!r}")
    deadlines = t.table("deadlines", DEADLINES, required=True)
    assert deadlines is not None
    times = []
    for name in DEADLINES:
        value = deadlines.str_(name, required=True)
        if not _TIME.match(value):
            deadlines.fail(name, f'a time of day "HH:MM:SS", got {value!r}')
        times.append((name, value))
    forum_roles = []
    allowed = [f.name for f in fields(ForumRole)][1:]
    for ident, r in t.entries("roles", allowed):
        if ident not in role_ids:
            t.ctx.fail((*r.path,), f"no [roles.{ident}] for it")
        free = r.int_("free_skips", 0, maximum=5)
        forum_roles.append(
            ForumRole(
                id=ident,
                acts=cast(Acts, r.choice("acts", get_args(Acts))),
                action=cast(ForumAction, r.choice("action", get_args(ForumAction))),
                clause=r.str_("clause", required=True),
                self_target=r.bool_("self_target", False),
                not_twice_running=r.bool_("not_twice_running", False),
                free_skips=free,
                after_skips=cast(AfterSkips, r.choice("after_skips", get_args(AfterSkips), "none")),
                after_skips_clause=r.str_("after_skips_clause", ""),
                gun=r.bool_("gun", False),
                don=r.bool_("don", False),
            )
        )
    described = {role.id for role in forum_roles}
    missing = [role_id for role_id in role_ids if role_id not in described]
    if missing:
        t.fail("roles", f"no [forum.roles.{missing[0]}] for role {missing[0]!r}")
    return ForumRules(
        roles=tuple(forum_roles),
        deadlines=tuple(times),
        warning_minutes=t.int_("warning_minutes", 10, maximum=_MAX_WARNING_MINUTES),
        two_sided_deals=two_sided_deals,
        cop_private_result=t.bool_("cop_private_result", False),
    )
