"""The forum game's sanctions (issue 11 item 5): the text's forbidden acts
as offences the host gives (rulesets/forum.toml), each costing what its
sanction clause says, through table scripts as the other rule tests.

Seats (``THREE``): 1 Cop, 2 Doctor, 3 Sniper, 4 Kamikaze, 5 МЖ, 6 ДМ,
7 Don, 8 маф, 9 Don of the маны, 10 ман."""

from __future__ import annotations

from typing import Any

import pytest
from forum_table import THREE, Table, dead, role, roles, said

from companion.runner.script import ScriptError


def offence(table: Table, seat: int, key: str) -> Table:
    return table.feed({"input": "offence", "seat": seat, "offence": key})


def skips(j: dict[str, Any]) -> list[str]:
    return [p["cue"] for p in j["public"] if p["cue"].endswith(("_skipped", "_lost_role"))]


def test_a_lost_move_voids_the_nights_choice_and_is_no_skip() -> None:
    """sanction.7 «лишение хода на одну ночь»: the Doctor's heal that night
    counts for nothing (the Mafia's victim dies), and it is not a skip: his
    next missing choice is still his free one (roles.doctor.4)."""
    table = offence(Table(THREE).day(), 2, "provocation")
    j = table.night((2, "heal", 5), (7, "shoot", 5), (9, "shoot", 10)).json()
    assert dead(j) == {5: "killed", 10: "killed"}
    table.day().night((7, "shoot", 1), (9, "shoot", 8))  # the Doctor skips: his first
    j = table.json()
    assert role(j, 2) == ("doctor", "civilians") and skips(j) == []
    j = table.day().night((7, "shoot", 3), (9, "shoot", 6)).json()  # the second
    assert role(j, 2) == ("civilian", "civilians")
    assert said(j, "doctor_lost_role")  # roles.doctor.5-6


def test_a_lost_move_given_to_a_day_role_waits_for_its_day() -> None:
    """A Lawyer's lost move given at night takes his next day's protection,
    not the night's (he has none); it is no skip (roles.lawyer.6 is not said)."""
    base = roles(THREE, s5="lawyer")
    table = offence(Table(base).day(), 5, "role_reveal_lost_move")
    table.night((7, "shoot", 10), (9, "shoot", 8))
    j = table.day((5, "protect", 1), votes={n: 1 for n in (2, 3, 4, 5, 6, 7, 9)}).json()
    assert dead(j)[1] == "voted"  # the protection did not count
    assert not said(j, "lawyer_protected", day=2) and not said(j, "lawyer_skipped", day=2)


def test_demotion_makes_a_plain_civilian_whose_posts_are_refused() -> None:
    """sanction.2 «от разжалования ролевого до простого мирного»."""
    table = offence(Table(THREE).day(), 2, "role_reveal")
    assert role(table.json(), 2) == ("civilian", "civilians")
    with pytest.raises(ScriptError, match="does not heal"):
        table.post(2, "heal", 5)


def test_a_demoted_cop_hands_the_gun_to_the_pom() -> None:
    """sanction.2 on the Cop: the Pom takes the Cop's functions
    (roles.cop_assistant.3) as when the Cop dies."""
    table = offence(Table(roles(THREE, s5="cop_assistant")).day(), 1, "role_reveal")
    j = table.json()
    assert role(j, 1) == ("civilian", "civilians") and role(j, 5) == ("cop", "civilians")


def test_an_mm_team_without_a_choice_is_proposed_for_the_morgue() -> None:
    """deadline.night.5 «вплоть до перемещения одного кабинетного в морг с
    конца по списку»: the companion proposes the last living member (amb.34);
    the host's confirmation removes him."""
    table = Table(THREE).day().night((9, "shoot", 5))
    j = table.json()
    assert j["proposals"] == [{"seat": 8, "offence": "mm_no_choice", "reason": "deadline.night.5"}]
    j = offence(table, 8, "mm_no_choice").json()
    assert dead(j)[8] == "removed" and j["proposals"] == []


def test_publishing_private_messages_removes_and_disqualifies() -> None:
    """sanction.4 «игрок покидает текущую игру без предупреждения ...
    дисквалификация»."""
    j = offence(Table(THREE).day(), 3, "pm_publish").json()
    assert dead(j)[3] == "removed"
