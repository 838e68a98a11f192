"""The irregular roles («Нерегулярные роли», roles.irregular): the
Vampire, the Bomzh and the Zombie, one test per rule of the text and per
open case the catalogue decides (docs/forum-rules-catalogue.md 2.3, 3.3,
amb.22, amb.29, amb.30), through table scripts (tests/forum_table.py) and
the replay JSON. Each test names its clause and quotes the text.
"""

from __future__ import annotations

import pytest
from forum_table import THREE, TWO, Table, dead, notes, role, roles, said, told

from companion.runner.script import ScriptError

# --- the Vampire ---------------------------------------------------------------------


V = roles(THREE, s5="vampire", s10="civilian", s9="cop_assistant")


def test_vampire_takes_a_civilian_role() -> None:
    """roles.vampire.3 «Любой укушенный мирный включая ДМ, превращается в МЖ,
    а сам Вампир забирает роль»; roles.vampire.7 «"Укушенный" не должен
    знать кто его укусил»."""
    j = Table(V).day().night((5, "bite", 2)).json()
    assert role(j, 5) == ("doctor", "civilians")
    assert role(j, 2) == ("civilian", "civilians")
    assert told(j, 2, "lost_role")
    assert all("seat" not in args for _, args in notes(j, 2))
    assert told(j, 5, "your_role", role="doctor")


def test_vampire_biting_a_plain_civilian_becomes_one() -> None:
    """roles.vampire.3 «Любой укушенный мирный … превращается в МЖ»: a plain
    МЖ bitten, the Vampire is a МЖ."""
    j = Table(V).day().night((5, "bite", 10)).json()
    assert role(j, 5) == ("civilian", "civilians")
    assert role(j, 10) == ("civilian", "civilians")


def test_vampire_biting_the_child_takes_it() -> None:
    """roles.vampire.3 «включая ДМ»."""
    j = Table(V).day().night((5, "bite", 6)).json()
    assert role(j, 5) == ("mafia_child", "civilians")
    assert role(j, 6) == ("civilian", "civilians")


def test_vampire_biting_an_mm_member_joins_the_team() -> None:
    """roles.vampire.4 «Если Вампир укусил любого ММ, то переходит к ним»."""
    j = Table(V).day().night((5, "bite", 8), (7, "shoot", 3)).json()
    assert role(j, 5) == ("mafia", "mafia")
    assert role(j, 8) == ("mafia", "mafia")
    assert told(j, 5, "joined_team", team="mafia")


def test_vampire_biting_the_cop_takes_his_place_in_the_cops_chat() -> None:
    """roles.vampire.6 «Если Вампир кусает одного из пары Коп/Пом при жизни
    обоих, то укушенный исключается из копской, а вместо него добавляется
    Вампир»."""
    j = Table(V).day().night((5, "bite", 1)).json()
    assert role(j, 5) == ("cop", "civilians")
    assert role(j, 1) == ("civilian", "civilians")
    assert told(j, 9, "cops", seats="5,9")
    assert told(j, 5, "cops", seats="5,9")


def test_vampire_bites_the_child_the_cop_shot() -> None:
    """roles.vampire.5 «в итогах объявляется, что Вампир укусил ДМ, но
    выстрел Копа лишил его этой роли, и Вампир продолжает игру как мж»."""
    j = Table(V).day().night((5, "bite", 6), (1, "shoot", 6)).json()
    assert said(j, "vampire_bit_child")
    assert role(j, 5) == ("civilian", "civilians")
    assert role(j, 6) == ("civilian", "civilians")


def test_vampire_without_a_bite_is_autokilled() -> None:
    """roles.vampire.2 «Пропуск хода - Автокилл»: he leaves (removed); the
    morning names him as any night death, since «автокилл» at night could
    only be the Vampire's and a dead player's role is not named (3.5)."""
    j = Table(V).day().night((7, "shoot", 3)).json()
    assert dead(j) == {3: "killed", 5: "removed"}
    assert said(j, "forum_killed", seat=5) and not said(j, "autokill", seat=5)


def test_vampire_bites_on_the_first_night_only() -> None:
    """roles.vampire.1 «Выбор - НОЧНОЙ, только в первую ночь»: after it he
    is what his bite made him; roles.vampire.8 «дабы при опоздании ночного
    выбора тот был принят как окончательный»: an early choice stands."""
    table = Table(V).day()
    table.post(5, "bite", 2, at="21:00:30").post(5, "bite", 3, at="22:01:00")
    j = table.night().json()
    assert role(j, 5) == ("doctor", "civilians")
    assert dead(j) == {}


def test_vampire_killed_that_night_bites_nobody() -> None:
    """amb.22 a: a Vampire killed that night by anyone bites nobody."""
    j = Table(V).day().night((5, "bite", 2), (7, "shoot", 5)).json()
    assert dead(j) == {5: "killed"}
    assert role(j, 2) == ("doctor", "civilians")


# --- the Bomzh -----------------------------------------------------------------------


B = roles(THREE, s5="tramp")


def test_cop_takes_the_bomzh_vote_and_orders_it() -> None:
    """roles.tramp.3 «они забирают его голос и при следующем голосовании Бомж
    голосует так, как ему прикажет стрелявший»; roles.tramp.4 «Решение Бомжу
    сообщает Ведущий»; roles.tramp.5 «Роль Бомжа не раскрывается никому,
    кроме забравших его голос»; amb.29 h: «Коп промахнулся»."""
    table = Table(B).day().night((1, "shoot", 5))
    j = table.json()
    assert dead(j) == {}
    assert said(j, "cop_missed")
    assert told(j, 1, "tramp_is", seat=5)
    # day 2: the Cop orders a vote for seat 8; the Bomzh posts seat 3, it counts for 8
    table.post(1, "order", 8, at="12:00:00")
    j = table.day(votes={5: 3, 1: 8, 2: 8, 8: 2, 9: 2}).json()
    assert told(j, 5, "tramp_order", seat=8)
    assert dead(j) == {8: "voted"}


def test_mm_takes_the_bomzh_vote() -> None:
    """roles.tramp.3 «Если в него ночью стреляет Комиссар, Мафы или Маньяк»:
    an MM team takes it, each member told (roles.tramp.5)."""
    j = Table(B).day().night((7, "shoot", 5)).json()
    assert dead(j) == {}
    assert told(j, 7, "tramp_is", seat=5)
    assert told(j, 8, "tramp_is", seat=5)
    assert notes(j, 9) == []


def test_maniac_takes_the_bomzh_vote() -> None:
    """roles.tramp.3 «… или Маньяк»."""
    j = Table(roles(TWO, s5="tramp")).day().night((9, "shoot", 5)).json()
    assert dead(j) == {}
    assert told(j, 9, "tramp_is", seat=5)


def test_bomzh_with_no_order_votes_freely() -> None:
    """amb.29 f: no order by 13:00 → he votes freely; an order for himself is
    refused (forbid.8), he votes freely."""
    table = Table(B).day().night((7, "shoot", 5))
    with pytest.raises(ScriptError, match=r"amb\.29 f"):
        table.post(7, "order", 5, at="12:00:00")
    j = table.day(votes={5: 3, 1: 3, 2: 3, 8: 1}).json()
    assert dead(j) == {3: "voted"}
    assert not told(j, 5, "tramp_order")


def test_the_sniper_kills_the_bomzh() -> None:
    """amb.29 d: the Sniper is not in roles.tramp.3's list: he dies as anyone."""
    j = Table(B).day().night((3, "shoot", 5)).json()
    assert dead(j) == {5: "killed"}


# --- the Zombie ----------------------------------------------------------------------

Z = roles(THREE, s10="zombie", s9="civilian")


def test_zombie_recruits_a_plain_civilian() -> None:
    """roles.zombie.5 «Если попадёт в мж - тот переходит к нему в команду»;
    roles.doctor.7: the heal does not stop a change of team."""
    j = Table(Z).day().night((10, "bite", 5), (2, "heal", 5), (7, "shoot", 3)).json()
    assert role(j, 5) == ("zombie_member", "zombie")
    assert told(j, 5, "joined_team", team="zombie")


@pytest.mark.parametrize("target", [3, 8, 6])
def test_zombie_kills_anyone_else(target: int) -> None:
    """roles.zombie.6 «Если попадает в любого другого, за исключением Донов и
    Копа - убивает» (amb.30 d: the ДМ too)."""
    j = Table(Z).day().night((10, "bite", target)).json()
    assert dead(j) == {target: "killed"}


@pytest.mark.parametrize("target", [1, 7])
def test_zombie_dies_on_the_cop_or_a_don(target: int) -> None:
    """roles.zombie.7 «Попав в Копа или Дона - сам умирает»."""
    j = Table(Z).day().night((10, "bite", target)).json()
    assert dead(j) == {10: "killed"}


def test_a_new_head_zombie() -> None:
    """roles.zombie.8 «Если главный Зомби мертв, то из числа собранных мж
    выбирается новый глава Зомби» (amb.30 a: the earliest recruit)."""
    table = Table(Z).day().night((10, "bite", 5))
    j = table.day(out=10).json()
    assert role(j, 5) == ("zombie", "zombie")
    assert told(j, 5, "now_head")


def test_recruit_killed_the_same_night_is_dead_not_recruited() -> None:
    """amb.30 c: a plain МЖ bitten by the Zombie and killed by a shot the
    same night is dead (a death beats a recruiting)."""
    j = Table(Z).day().night((10, "bite", 5), (7, "shoot", 5)).json()
    assert dead(j) == {5: "killed"}
    assert role(j, 5) == ("civilian", "civilians")
    assert not told(j, 5, "joined_team")


def test_the_heal_stops_the_zombies_kill() -> None:
    """amb.12: the Zombie's kill is a bullet the Doctor stops
    (roles.doctor.7 «Доктор спасает только от пули»)."""
    j = Table(Z).day().night((10, "bite", 3), (2, "heal", 3)).json()
    assert dead(j) == {}


# --- the open cases the catalogue decides ------------------------------------------


def test_cop_on_the_vampire() -> None:
    """amb.22 b: the Cop's shot on the Vampire: no effect, «Коп промахнулся»."""
    j = Table(V).day().night((5, "bite", 3), (1, "shoot", 5)).json()
    assert dead(j) == {}
    assert said(j, "cop_missed")
    assert role(j, 5) == ("sniper", "civilians")


def test_vampire_bites_the_lone_maniac() -> None:
    """amb.22 c: a bite on the lone Maniac: the Vampire becomes the Maniac,
    the Maniac a МЖ (a role's theft, roles.vampire.3)."""
    j = Table(roles(TWO, s10="vampire")).day().night((10, "bite", 9), (9, "shoot", 5)).json()
    assert role(j, 10) == ("maniac", "maniac")
    assert role(j, 9) == ("civilian", "civilians")


def test_cop_and_one_mm_team_on_the_bomzh() -> None:
    """amb.29 a: the Cop and one MM team: the Cop gets the vote (fm.14's
    priority, «Пуля Копа спасает мирного»)."""
    j = Table(B).day().night((1, "shoot", 5), (7, "shoot", 5)).json()
    assert dead(j) == {}
    assert told(j, 1, "tramp_is", seat=5)
    assert not told(j, 7, "tramp_is")


def test_mafia_and_the_maniac_on_the_bomzh() -> None:
    """amb.29 b: the Mafia and the lone Maniac (two-sided): he dies, nobody
    gets his vote (the two-sided twin of fm.15)."""
    j = Table(roles(TWO, s5="tramp")).day().night((7, "shoot", 5), (9, "shoot", 5)).json()
    assert dead(j) == {5: "killed"}
    assert not any(p["cue"] == "tramp_is" for p in j["private"])


def test_the_ordered_bomzh_must_still_vote() -> None:
    """amb.29 g: his post is counted as ordered, and he still must post
    (deadline.autokill.2)."""
    table = Table(B).day().night((1, "shoot", 5))
    table.post(1, "order", 8, at="12:00:00")
    j = table.day(silent=[5]).json()
    assert dead(j) == {5: "removed"}


def test_the_bouncer_annuls_the_bomzhs_directed_vote() -> None:
    """amb.28: the Bouncer may target the Bomzh: his directed vote is
    annulled (roles.bouncer.3 «Голос выбранного им игрока аннулируется»)."""
    table = Table(roles(B, s4="bouncer")).day((4, "annul", 3)).night((1, "shoot", 5))
    table.post(1, "order", 8, at="12:00:00").post(4, "annul", 5, at="12:00:00")
    j = table.day(votes={5: 3, 1: 8, 2: 8, 7: 2, 8: 2, 9: 2}).json()
    assert dead(j) == {2: "voted"}  # 3 to 2: the Bomzh's vote for 8 did not count
    assert said(j, "bouncer_annulled", seat=5, day=2)


def test_the_tin_man_with_an_mm_gun_takes_the_bomzhs_vote() -> None:
    """amb.29 d: a borrowed MM gun takes the Bomzh's vote for the Tin Man."""
    table = Table(roles(B, s4="tin_woodman")).day().night((7, "shoot", 4), (2, "heal", 1))
    table.day().night((4, "fire", 5, "mafia"), (2, "heal", 2))
    j = table.json()
    assert dead(j) == {}
    assert told(j, 4, "tramp_is", seat=5)
    table.post(4, "order", 8, at="12:00:00")
    j = table.day(votes={5: 3, 1: 8, 2: 8, 8: 2, 9: 2}).json()
    assert dead(j) == {8: "voted"}
