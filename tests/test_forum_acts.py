"""Who may choose now in the forum game (``core/forum/acts.py``): the
choices the open windows take, which the console lists for the host."""

from __future__ import annotations

from companion.core.forum.acts import Act, acts
from tests.forum_table import THREE, Table, roles


def test_by_day_the_lawyer_chooses() -> None:
    table = Table(roles(THREE, s5="lawyer"))
    assert acts(table.game) == [Act(5, "protect")]


def test_by_night_each_role_s_move_and_the_teams_shots_and_basements() -> None:
    table = Table(THREE).day()
    found = acts(table.game)
    for act in (Act(1, "shoot"), Act(2, "heal"), Act(3, "shoot"), Act(4, "mark")):
        assert act in found
    for member in (7, 8, 9, 10):  # both MM teams: a shot and a basement each
        assert Act(member, "shoot") in found and Act(member, "hide") in found
    assert not [act for act in found if act.seat == 5]  # the civilian posts nothing


def test_no_basement_when_the_game_has_none() -> None:
    table = Table(THREE, "no_basements").day()
    assert not [act for act in acts(table.game) if act.action == "hide"]


def test_the_dead_choose_nothing() -> None:
    table = Table(THREE).day().night((1, "shoot", 7))
    assert table.game.seat(7).out is not None
    table.day()  # the next night's windows
    assert acts(table.game)
    assert not [act for act in acts(table.game) if act.seat == 7]
