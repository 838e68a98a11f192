"""The forum game's roles at night, one test per rule of the text
(docs/forum-rules-catalogue.md 2.3 and the interaction table 3.3), each
through a table script (tests/forum_table.py) and the replay JSON.

Each test names its clause id and quotes a few words of the sentence it
checks. The Tin Man's rules are in test_forum_tin_man.py, the
«форс-мажоры» in test_forum_clashes.py.
"""

from __future__ import annotations

import pytest
from forum_table import THREE, TWO, Table, cues, dead, notes, role, roles, said, told

from companion.runner.script import ScriptError

# --- the deal ------------------------------------------------------------------------


def test_the_deal_is_told_privately() -> None:
    """deal.2 «сообщает роль по ЛС каждому из игроков»; spirit.3: each MM
    team knows its members; roles.cop_assistant.2 «С начала игры находится
    в одном ЛС с Копом»; roles.mafia_child.5 «играет как МЖ»: he is told
    «мирный»."""
    j = Table(roles(THREE, s5="cop_assistant")).json()
    deal = [(p["to"], p["cue"], p["args"]) for p in j["private"] if p["day"] == 0]
    assert (6, "your_role", {"role": "civilian"}) in deal
    assert (1, "cops", {"seats": "1,5"}) in deal and (5, "cops", {"seats": "1,5"}) in deal
    assert (8, "team_members", {"team": "mafia", "seats": "7,8"}) in deal
    assert (10, "team_members", {"team": "maniacs", "seats": "9,10"}) in deal
    assert j["public"][0]["cue"] == "forum_balance"


# --- the Cop -----------------------------------------------------------------


@pytest.mark.parametrize("target", [8, 10])
def test_cop_kills_an_mm_member(target: int) -> None:
    """roles.cop.3 «Может убить любого члена мм»: either team's member dies."""
    j = Table(THREE).day().night((1, "shoot", target)).json()
    assert dead(j) == {target: "killed"}
    assert said(j, "forum_killed", seat=target)
    assert not said(j, "cop_missed")


@pytest.mark.parametrize(
    ("case", "posts"),
    [
        ("healed", [(2, "heal", 8)]),
        ("hidden", [(7, "hide", 8)]),
    ],
)
def test_cop_misses_a_healed_or_hidden_mm(case: str, posts: list[tuple[int, str, int]]) -> None:
    """roles.cop.3 «если жертва не спрятана мафоманами в подвал … или если
    Доктор не лечил»; roles.cop.5 «При попадании в подвального,
    защищенного или мирного, Ведущий объявляет, что Коп промахнулся»."""
    j = Table(THREE).day().night((1, "shoot", 8), *posts).json()
    assert dead(j) == {}
    assert said(j, "cop_missed")


def test_cop_checks_a_civilian() -> None:
    """roles.cop.4 «При попадании в Мирного, считается, что Коп проверил
    игрока»; roles.cop.5 «… или мирного … Коп промахнулся». amb.8: the Cop
    is told nothing privately."""
    j = Table(THREE).day().night((1, "shoot", 5)).json()
    assert dead(j) == {}
    assert said(j, "cop_missed")
    assert notes(j, 1) == []


def test_cop_on_the_sniper() -> None:
    """roles.sniper.9 «Если Коп попадает в Снайпера, он остается жить и роли
    не лишается»; roles.sniper.10 «Коп промахнулся как обычно»."""
    j = Table(THREE).day().night((1, "shoot", 3)).json()
    assert dead(j) == {}
    assert role(j, 3) == ("sniper", "civilians")
    assert said(j, "cop_missed")


def test_cop_on_the_kamikaze() -> None:
    """roles.kamikaze.8 «Пуля Копа не убивает и не лишает Камикадзе роли»;
    roles.kamikaze.9 «Коп промахнулся»; his victim lives (amb.14)."""
    j = Table(THREE).day().night((1, "shoot", 4), (4, "mark", 8)).json()
    assert dead(j) == {}
    assert role(j, 4) == ("kamikaze", "civilians")
    assert said(j, "cop_missed")


def test_cop_on_the_child_makes_him_a_civilian_untold() -> None:
    """roles.cop.6 «При попадании в ДМ, последний превращается в МЖ»;
    roles.mafia_child.3 «не узнает, что был ДМ»; amb.21 f: «Коп промахнулся»."""
    j = Table(THREE).day().night((1, "shoot", 6)).json()
    assert dead(j) == {}
    assert role(j, 6) == ("civilian", "civilians")
    assert notes(j, 6) == []
    assert said(j, "cop_missed")


def test_cop_takes_a_multifunctional_child() -> None:
    """roles.mafia_child.7 «Коп, попав в него, забирает Дитя к себе и тот
    становится полноправным членом Копской»; roles.mafia_child.9 «узнает о
    своей роли в случае попадания в него Копа»."""
    j = Table(THREE, "multi_child").day().night((1, "shoot", 6)).json()
    assert said(j, "forum_balance", child="multi")  # roles.mafia_child.8
    assert role(j, 6) == ("cop_assistant", "civilians")
    assert told(j, 6, "joined_cops")


def test_cop_kills_the_lone_maniac_unless_healed() -> None:
    """roles.maniac.4 «Пуля Комиссара и мафов смертельна для Маньяка, но
    лечение Дока может спасти»."""
    j = Table(TWO).day().night((1, "shoot", 9)).json()
    assert dead(j) == {9: "killed"}
    j = Table(TWO).day().night((1, "shoot", 9), (2, "heal", 9)).json()
    assert dead(j) == {}
    j = Table(TWO).day().night((7, "shoot", 9)).json()
    assert dead(j) == {9: "killed"}


def test_cop_kills_a_zombie() -> None:
    """roles.cop.3 «(и зомби, если есть)»; amb.30 b: a recruit too."""
    table = Table(roles(THREE, s10="zombie", s9="civilian"))
    table.day().night((10, "bite", 5), (2, "heal", 3), (4, "mark", 3))
    assert role(table.json(), 5) == ("zombie_member", "zombie")
    j = table.day().night((1, "shoot", 5), (2, "heal", 4), (4, "mark", 3)).json()
    assert dead(j) == {5: "killed"}


# --- the Pom -----------------------------------------------------------------


def test_pom_takes_over_when_the_cop_dies() -> None:
    """roles.cop_assistant.3 «После смерти копа берет все функции Копа на
    себя»: told, and the next night his shot is the Cop's."""
    table = Table(roles(THREE, s5="cop_assistant"))
    j = table.day().night((7, "shoot", 1), (9, "shoot", 3), (4, "mark", 3)).json()
    assert dead(j) == {1: "killed", 3: "killed"}
    assert role(j, 5) == ("cop", "civilians")
    assert told(j, 5, "now_cop")
    j = table.day().night((5, "shoot", 8), (7, "shoot", 6), (2, "heal", 6), (4, "mark", 6)).json()
    assert dead(j)[8] == "killed"


@pytest.mark.parametrize("took_over", [False, True])
def test_sniper_kills_the_pom(took_over: bool) -> None:
    """roles.cop_assistant.4 «за исключением того, что при выстреле Снапа в
    Пома, Пом умирает» (also once he holds the Cop's functions)."""
    table = Table(roles(THREE, s5="cop_assistant")).day(out=1 if took_over else 0)
    if took_over:
        assert role(table.json(), 5) == ("cop", "civilians")
    j = table.night((3, "shoot", 5)).json()
    assert dead(j).get(5) == "killed"
    assert role(j, 3) == ("sniper", "civilians")


def test_the_pom_as_cop_kills_the_maniac_who_shoots_him() -> None:
    """amb.48: the Pom as the Cop has «все функции Копа»: the lone Maniac
    who shoots him dies (roles.maniac.3 «При попадании в Комиссара, Маньяк
    погибает сам»)."""
    table = Table(roles(TWO, s5="cop_assistant")).day(out=1)
    j = table.night((9, "shoot", 5)).json()
    assert dead(j) == {1: "voted", 9: "killed"}


# --- the Doctor --------------------------------------------------------------


@pytest.mark.parametrize("shooter", [7, 3, 1])
def test_doctor_saves_from_a_bullet(shooter: int) -> None:
    """roles.mafia.4 «за исключением двух случаев: если того же самого
    игрока лечил Доктор»; roles.sniper.3 with fm.13 «нелеченного Доком»;
    roles.cop.3 «или если Доктор не лечил того же самого игрока»."""
    target = 8 if shooter == 1 else 5
    j = Table(THREE).day().night((shooter, "shoot", target), (2, "heal", target)).json()
    assert dead(j) == {}


def test_doctor_may_heal_himself_but_not_twice_running() -> None:
    """roles.doctor.3 «Лечить одного и того же игрока, в том числе и себя,
    может через 1 игровой день» (amb.6: not two nights running). A refused
    choice is refused when posted (amb.33)."""
    table = Table(THREE).day().night((2, "heal", 2), (7, "shoot", 2), (4, "mark", 8))
    assert dead(table.json()) == {}
    table.day()
    with pytest.raises(ScriptError, match="not twice running"):
        table.post(2, "heal", 2)
    table.night((2, "heal", 5), (4, "mark", 8)).day()
    j = table.night((2, "heal", 2), (7, "shoot", 2), (4, "mark", 8)).json()
    assert dead(j) == {}


def test_doctor_skips_once_then_loses_his_role() -> None:
    """roles.doctor.4 «Имеет право пропустить ход один раз за игру»;
    roles.doctor.5 «При втором пропуске превращается в МЖ»; roles.doctor.6
    «Доктор никого не лечил и потерял роль». amb.26: the first skip is not
    announced."""
    table = Table(THREE).day().night((4, "mark", 5))
    j = table.json()
    assert role(j, 2) == ("doctor", "civilians")
    assert not said(j, "doctor_lost_role")
    j = table.day().night((4, "mark", 5)).json()
    assert role(j, 2) == ("civilian", "civilians")
    assert said(j, "doctor_lost_role", day=2)


# --- the Sniper ----------------------------------------------------------------


@pytest.mark.parametrize("target", [5, 8, 10])
def test_sniper_kills_anyone(target: int) -> None:
    """roles.sniper.3 «Пуля Снайпера убивает любого игрока»."""
    j = Table(THREE).day().night((3, "shoot", target)).json()
    assert dead(j) == {target: "killed"}


def test_sniper_on_the_cop() -> None:
    """roles.sniper.4 «Коп при попадании не умирает, а Снап лишается оружия и
    превращается в обычного МЖ и узнает копа»; amb.24: not announced."""
    j = Table(THREE).day().night((3, "shoot", 1)).json()
    assert dead(j) == {}
    assert role(j, 3) == ("civilian", "civilians")
    assert told(j, 3, "found_cop", seat=1)
    assert not said(j, "sniper_joined_mm")


@pytest.mark.parametrize(
    ("don", "team", "member"), [(7, "mafia", "mafia"), (9, "maniacs", "maniacs_member")]
)
def test_sniper_on_a_don_joins_his_team(don: int, team: str, member: str) -> None:
    """roles.sniper.5 «При попадании в Дона, он не умирает, а Снайпер
    переходит в команду ММ»; roles.sniper.6 «Снайпер теперь в стане ММ»;
    amb.20: an ordinary member of the Don's team."""
    j = Table(THREE).day().night((3, "shoot", don)).json()
    assert dead(j) == {}
    assert role(j, 3) == (member, team)
    assert said(j, "sniper_joined_mm")
    assert told(j, 3, "joined_team", team=team)
    assert told(j, don, "team_members", team=team)


def test_sniper_on_a_hidden_member_misses() -> None:
    """roles.mafia.7 «объявляется, что Комиссар, Снайпер, Маньяк или
    Камикадзе промахнулись»; roles.mafia.9: the basement itself is never
    told."""
    j = Table(THREE).day().night((3, "shoot", 8), (7, "hide", 8)).json()
    assert dead(j) == {}
    assert said(j, "shooter_missed", shooter="sniper")
    assert not any("basement" in cue for cue, _ in cues(j, day=1))


# --- the Kamikaze --------------------------------------------------------------


def test_kamikaze_killed_takes_his_victim() -> None:
    """roles.kamikaze.5 «При смерти ночью, забирает с собой любого игрока,
    которого выбрал ночью»."""
    j = Table(THREE).day().night((7, "shoot", 4), (4, "mark", 9)).json()
    assert dead(j) == {4: "killed", 9: "killed"}


def test_kamikaze_alive_takes_nobody() -> None:
    """amb.14: nothing happens unless the Kamikaze is killed that night."""
    j = Table(THREE).day().night((7, "shoot", 5), (4, "mark", 9)).json()
    assert dead(j) == {5: "killed"}


def test_kamikaze_voted_out_takes_nobody() -> None:
    """amb.15: he takes his victim only when killed at night, not voted out."""
    table = Table(THREE).day(out=4)
    j = table.json()
    assert dead(j) == {4: "voted"}


def test_a_kamikaze_takes_a_kamikaze() -> None:
    """amb.15: a victim who is himself a Kamikaze takes his own victim."""
    table = Table(roles(THREE, s5="kamikaze"))
    j = table.day().night((7, "shoot", 4), (4, "mark", 5), (5, "mark", 9)).json()
    assert dead(j) == {4: "killed", 5: "killed", 9: "killed"}


def test_kamikaze_explodes_alone_on_his_second_skip() -> None:
    """roles.kamikaze.3 «Может один раз пропустить ход»; roles.kamikaze.4
    «При втором пропуске хода, "взрывается" в одиночку»."""
    table = Table(THREE).day().night((2, "heal", 5))
    assert dead(table.json()) == {}
    j = table.day().night((2, "heal", 6)).json()
    assert dead(j) == {4: "killed"}


def test_kamikaze_victim_in_the_basement() -> None:
    """roles.kamikaze.6 «Исключение: жертва в подвале»; roles.kamikaze.7
    «Камикадзе ее не убивает и погибает в одиночку»; roles.mafia.8
    «Камикадзе в этом случае покидает игру, не забрав с собой кого либо»."""
    j = Table(THREE).day().night((9, "shoot", 4), (4, "mark", 8), (7, "hide", 8)).json()
    assert dead(j) == {4: "killed"}
    assert said(j, "shooter_missed", shooter="kamikaze")


@pytest.mark.parametrize("saver", [(2, "heal", 4), (1, "shoot", 4)])
def test_kamikaze_saved_from_the_mm_bullet(saver: tuple[int, str, int]) -> None:
    """roles.kamikaze.10 «При смертельном выстреле в Камикадзе, которого
    лечил Док или Коп, Кам остается жить, не теряя роль и жертву не
    забирает»; roles.kamikaze.11 «Коп или Док спасли от пули ММ» (amb.25:
    literally, not which)."""
    j = Table(THREE).day().night((7, "shoot", 4), (4, "mark", 9), saver).json()
    assert dead(j) == {}
    assert role(j, 4) == ("kamikaze", "civilians")
    assert said(j, "kamikaze_saved")


# --- the MM teams --------------------------------------------------------------


def test_mafia_shot_kills_a_civilian() -> None:
    """roles.mafia.4 «Мафы могут «стрелять» в любого мирного игрока, который
    будет считаться убитым»; amb.3: the маны likewise."""
    j = Table(THREE).day().night((7, "shoot", 5), (9, "shoot", 3)).json()
    assert dead(j) == {5: "killed", 3: "killed"}


def test_the_dons_last_post_stands() -> None:
    """roles.mafia.2 «Окончательный выбор оставляет Дон»; amb.33: the last
    post before the deadline stands."""
    j = Table(THREE).day().night((8, "shoot", 5), (7, "shoot", 3), (7, "shoot", 2)).json()
    assert dead(j) == {2: "killed"}


def test_without_the_don_the_members_majority_decides() -> None:
    """roles.mafia.3 «или же жертва определяется мнением большинства мафов»
    (amb.31: a dead Don has no successor)."""
    table = Table(roles(THREE, s6="mafia", s5="mafia")).day(out=7)
    j = table.night((5, "shoot", 3), (6, "shoot", 2), (8, "shoot", 2)).json()
    assert dead(j) == {7: "voted", 2: "killed"}


def test_an_mm_team_may_not_skip() -> None:
    """deadline.night.4 «ММ пропускать ход не могут»; deadline.night.5
    «вплоть до перемещения одного кабинетного в морг с конца по списку»
    (amb.34: proposed to the host for the last member)."""
    j = Table(THREE).day().night((7, "shoot", 5)).json()
    assert {"seat": 10, "offence": "mm_no_choice", "reason": "deadline.night.5"} in [
        dict(p) for p in j["proposals"]
    ]


def test_both_mm_teams_on_one_civilian() -> None:
    """amb.3: both MM teams shooting the same ordinary target: it dies."""
    j = Table(THREE).day().night((7, "shoot", 5), (9, "shoot", 5)).json()
    assert dead(j) == {5: "killed"}


def test_basement_once_per_game_and_announced_with_the_balance() -> None:
    """roles.mafia.6 «один раз за игру использовать Подвал»; roles.mafia.10
    «О наличии или отсутствии Подвала сообщается при составлении баланса»."""
    table = Table(THREE).day().night((7, "hide", 8), (7, "shoot", 5), (9, "shoot", 6))
    assert said(table.json(), "forum_balance", basements="yes")
    table.day()
    with pytest.raises(ScriptError, match=r"roles\.mafia\.6"):
        table.post(7, "hide", 7)
    no = Table(THREE, "no_basements").day()
    assert said(no.json(), "forum_balance", basements="no")
    with pytest.raises(ScriptError, match="no basements"):
        no.post(7, "hide", 8)


# --- the lone Maniac (two-sided) -------------------------------------------------


def test_maniac_kills() -> None:
    """roles.maniac.2 «Выбор - НОЧНОЙ»: his shot kills (roles.maniac.5)."""
    j = Table(TWO).day().night((9, "shoot", 5)).json()
    assert dead(j) == {5: "killed"}


def test_the_maniac_may_not_skip() -> None:
    """amb.10: «ММ пропускать ход не могут» (deadline.night.4) covers the lone
    Maniac: no choice is proposed to the host as a sanction."""
    j = Table(TWO).day().night((7, "shoot", 5)).json()
    assert any(p["seat"] == 9 and p["offence"] == "mm_no_choice" for p in j["proposals"])


def test_maniac_on_a_hidden_member_misses() -> None:
    """roles.mafia.7 «… Маньяк … промахнулись»."""
    j = Table(TWO).day().night((9, "shoot", 8), (7, "hide", 8)).json()
    assert dead(j) == {}
    assert said(j, "shooter_missed", shooter="maniac")


# --- the ДМ ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("don", "team", "member"), [(7, "mafia", "mafia"), (9, "maniacs", "maniacs_member")]
)
def test_mm_shot_makes_the_child_one_of_them(don: int, team: str, member: str) -> None:
    """roles.mafia_child.2 «При попадании мафов или манов в него становится
    тоже мафом/маном»; roles.mafia_child.4 «Узнает о своей роли … если в
    него выстрелят ММ»."""
    j = Table(THREE).day().night((don, "shoot", 6)).json()
    assert dead(j) == {}
    assert role(j, 6) == (member, team)
    assert told(j, 6, "joined_team", team=team)


def test_child_voted_out_is_announced() -> None:
    """roles.mafia_child.10 «ДМ может быть убит на дневном голосовании»;
    roles.mafia_child.11 «объявляется, что было убито Дитя»; .4 «либо будет
    слит на голосовании»: he learns his role."""
    j = Table(THREE).day(out=6).json()
    assert dead(j) == {6: "voted"}
    assert said(j, "child_killed", seat=6)
    assert told(j, 6, "your_role", role="mafia_child")


@pytest.mark.parametrize(
    ("table", "posts"),
    [
        ("two", [(9, "shoot", 6)]),  # amb.21 a: the lone Maniac
        ("three", [(7, "shoot", 6), (9, "shoot", 6)]),  # amb.21 b: both teams
        ("three", [(3, "shoot", 6)]),  # amb.21 c: the Sniper
    ],
)
def test_child_dies_to_other_shots(table: str, posts: list[tuple[int, str, int]]) -> None:
    """amb.21 a-c: the lone Maniac, both MM teams together, the Sniper kill
    the ДМ («внебрачное Дитя Дона», roles.mafia_child.1)."""
    j = Table(TWO if table == "two" else THREE).day().night(*posts).json()
    assert dead(j) == {6: "killed"}
