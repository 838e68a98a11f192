"""The «форс-мажоры» (fm.1-fm.16, docs/forum-rules-catalogue.md 3.4), one
test each, through table scripts (tests/forum_table.py) and the replay
JSON. Each test names its clause and quotes the text.
"""

from __future__ import annotations

import pytest
from forum_table import Table, dead, role, said, told

#: two-sided: 1 Cop, 2 Doctor, 3 Sniper, 4 Kamikaze, 5 МЖ, 6 ДМ, 7 Don, 8 маф,
#: 9 the lone Maniac, 10 Vampire
TWO = [
    "cop", "doctor", "sniper", "kamikaze", "civilian", "mafia_child",
    "don", "mafia", "maniac", "vampire",
]  # fmt: skip
#: three-sided: 1 Cop, 2 Doctor, 3 Sniper, 4 Kamikaze, 5 Bomzh, 6 ДМ, 7 Don,
#: 8 маф, 9 Don of the маны, 10 ман
THREE = [
    "cop", "doctor", "sniper", "kamikaze", "tramp", "mafia_child",
    "don", "mafia", "maniacs_don", "maniacs_member",
]  # fmt: skip
#: the Tin Man's guns: 1 Cop, 2 Doctor, 3 Sniper, 4 ЖД, 5 МЖ, 6 ДМ, 7 Don,
#: 8 маф, 9 Don of the маны, 10 Zombie, 11 МЖ
TM = [
    "cop", "doctor", "sniper", "tin_woodman", "civilian", "mafia_child",
    "don", "mafia", "maniacs_don", "zombie", "civilian",
]  # fmt: skip

#: the Vampire's bite, somewhere harmless, in the two-sided table's nights
BITE = (10, "bite", 5)


def test_fm_1_mafia_and_maniac_on_the_cop() -> None:
    """fm.1 «Если Мафия и Маньяк стреляли одновременно в Копа, то Коп
    погибает, а Маньяк продолжает игру. (в двухсторонке)»."""
    j = Table(TWO, "two_sided").day().night((7, "shoot", 1), (9, "shoot", 1), BITE).json()
    assert dead(j) == {1: "killed"}


def test_fm_2_the_cops_bullet_saves_from_the_mafia() -> None:
    """fm.2 «Если Мафия и Коп стреляют в одного и того же Мирного, то Коп
    «спасает» его от выстрела Мафии» (roles.mafia.5 «Пуля Копа спасает
    мирного»)."""
    j = Table(TWO).day().night((7, "shoot", 3), (1, "shoot", 3), BITE).json()
    assert dead(j) == {}
    assert said(j, "cop_missed")


def test_fm_2_not_from_the_sniper() -> None:
    """amb.11: the Cop's hit protects from MM shots only, not the Sniper's."""
    j = Table(TWO).day().night((3, "shoot", 5), (1, "shoot", 5), BITE).json()
    assert dead(j) == {5: "killed"}


def test_fm_3_cop_and_mm_on_the_child() -> None:
    """fm.3 «Если Коп и ММ одновременно стреляют в Дитя Мафии (ДМ), то он
    погибает»."""
    j = Table(THREE).day().night((1, "shoot", 6), (9, "shoot", 6)).json()
    assert dead(j) == {6: "killed"}


def test_fm_3_healed_the_child_lives() -> None:
    """amb.21 d: the Cop, an MM team and the Doctor on the ДМ: he lives and
    stays the ДМ."""
    j = Table(THREE).day().night((1, "shoot", 6), (7, "shoot", 6), (2, "heal", 6)).json()
    assert dead(j) == {}
    assert role(j, 6) == ("mafia_child", "civilians")


def test_fm_4_the_healed_child_still_joins_the_mafia() -> None:
    """fm.4 «Если Мафия попадает в ДМ и его лечил Доктор, то ДМ все равно
    уходит к Мафии и сообщается, что Доктор лечил здорового»;
    roles.doctor.8."""
    j = Table(THREE).day().night((7, "shoot", 6), (2, "heal", 6)).json()
    assert role(j, 6) == ("mafia", "mafia")
    assert said(j, "doctor_healed_healthy")
    assert told(j, 6, "joined_team", team="mafia")


def test_fm_5_the_maniac_dies_on_the_cop() -> None:
    """fm.5 «Если Маньяк в двусторонке попадает в Копа, то Маньяк умирает»
    (roles.maniac.3)."""
    j = Table(TWO).day().night((9, "shoot", 1), BITE).json()
    assert dead(j) == {9: "killed"}


@pytest.mark.parametrize("who", ["sniper", "vampire"])
def test_fm_6_a_don_in_the_basement_still_converts(who: str) -> None:
    """fm.6 «Если Вампир или Снайпер попадают в Дона, спрятанного в Подвале,
    то он переходят в стан Мафии»; roles.sniper.7 «переход в команду ММ все
    равно неминуем»."""
    post = (3, "shoot", 7) if who == "sniper" else (10, "bite", 7)
    seat = 3 if who == "sniper" else 10
    j = Table(TWO).day().night((7, "hide", 7), (7, "shoot", 5), post).json()
    assert role(j, seat) == ("mafia", "mafia")
    assert 7 not in dead(j)
    assert said(j, "sniper_joined_mm") == (who == "sniper")


@pytest.mark.parametrize("shooter", [3, 9])
def test_fm_7_duel_with_the_vampire(shooter: int) -> None:
    """fm.7 «При дуэли Снап/Вампир или Ман-одиночка/Вампир, игру покидает
    Вампир»; fm.7.2 «Считается что они защитили свои роли»."""
    j = Table(TWO).day().night((10, "bite", shooter), (shooter, "shoot", 10)).json()
    assert dead(j) == {10: "killed"}
    assert role(j, shooter) == (("sniper", "civilians") if shooter == 3 else ("maniac", "maniac"))


@pytest.mark.parametrize("healed", [False, True])
def test_fm_8_the_sniper_dies_as_a_maf(healed: bool) -> None:
    """fm.8 «Если Маньяк попадает в Снайпера, который попал в Дона, то
    Снайпер умирает как маф, если не лечил Док» (amb.52: the conversion is
    announced)."""
    posts = [(3, "shoot", 7), (9, "shoot", 3), (7, "shoot", 5), BITE]
    if healed:
        posts.append((2, "heal", 3))
    j = Table(TWO).day().night(*posts).json()
    assert role(j, 3) == ("mafia", "mafia")
    assert said(j, "sniper_joined_mm")
    assert (3 in dead(j)) is not healed


def test_fm_9_sniper_and_maniac_on_the_don() -> None:
    """fm.9 «Если Снайпер и Маньяк оба попадают в Дона Мафии, Дон покидает
    игру, а Снайпер переходит в стан Мафии»."""
    j = Table(TWO).day().night((3, "shoot", 7), (9, "shoot", 7), (7, "shoot", 5), BITE).json()
    assert dead(j) == {7: "killed", 5: "killed"}
    assert role(j, 3) == ("mafia", "mafia")
    assert said(j, "sniper_joined_mm")
    assert told(j, 3, "joined_team", team="mafia")


def _holding(gun: str) -> Table:
    """The Tin Man (4) holds ``gun`` on night 2: its owner shot him on night 1."""
    owner = {"mafia": 7, "maniacs": 9, "3": 3, "10": 10}[gun]
    action = "bite" if gun == "10" else "shoot"
    table = Table(TM).day().night((owner, action, 4), (2, "heal", 2))
    assert told(table.json(), 4, "gun_taken", gun=gun)
    return table.day()


@pytest.mark.parametrize(("gun", "member"), [("mafia", "mafia"), ("maniacs", "maniacs_member")])
def test_fm_10_the_tin_man_finds_the_mm_their_child(gun: str, member: str) -> None:
    """fm.10 «Если ЖД мафоманской пушкой попадает в ДМ, то тот становится
    мафоманом»; fm.10.2 «мафоманы (за которых стрелял ЖД) нашли свое дитя»;
    fm.10.3 «ЖД будет знать, кто новый мафоман»."""
    j = _holding(gun).night((4, "fire", 6, gun), (2, "heal", 5)).json()
    assert role(j, 6) == (member, gun)
    assert said(j, "mm_found_child")
    assert told(j, 4, "new_member", seat=6, team=gun)


def test_fm_11_the_tin_man_recruits_for_the_zombie() -> None:
    """fm.11 «Если ЖД стреляет за Зомби и попадает в МЖ, то МЖ переходит в ЛС
    к Зомби»; fm.11.2 «ЖД будет знать, кто новый зомби»."""
    j = _holding("10").night((4, "fire", 5, "10"), (2, "heal", 1)).json()
    assert role(j, 5) == ("zombie_member", "zombie")
    assert told(j, 4, "new_member", seat=5, team="zombie")
    assert told(j, 5, "joined_team", team="zombie")


@pytest.mark.parametrize(("target", "note"), [(1, "found_cop"), (7, "found_don")])
def test_fm_12_the_tin_man_dies_on_the_cop_or_a_don(target: int, note: str) -> None:
    """fm.12 «Если ЖД стреляет за Зомби и попадает в Копа или Дона, сам
    умирает»; fm.12.2 «ЖД будет знать, кто Коп или Дон»."""
    j = _holding("10").night((4, "fire", target, "10"), (2, "heal", 5)).json()
    assert dead(j) == {4: "killed"}
    assert target not in dead(j)
    assert told(j, 4, note, seat=target)


@pytest.mark.parametrize("healed", [False, True])
def test_fm_13_the_tin_man_with_the_snipers_gun(healed: bool) -> None:
    """fm.13 «Если ЖД стреляет за Снапа, то может убить любого нелеченного
    Доком игрока»."""
    posts = [(4, "fire", 8, "3"), (2, "heal", 8 if healed else 5)]
    j = _holding("3").night(*posts).json()
    assert (8 in dead(j)) is not healed


def test_fm_13_1_the_tin_man_hits_the_cop() -> None:
    """fm.13.1 «Копа (попав в Копа, превращается в обычного МЖ … При этом
    ЖД, ставший простым МЖ, узнает Копа»."""
    j = _holding("3").night((4, "fire", 1, "3"), (2, "heal", 5)).json()
    assert dead(j) == {}
    assert role(j, 4) == ("civilian", "civilians")
    assert told(j, 4, "found_cop", seat=1)
    assert role(j, 3) == ("sniper", "civilians")


@pytest.mark.parametrize(
    ("don", "member", "team"), [(7, "mafia", "mafia"), (9, "maniacs_member", "maniacs")]
)
def test_fm_13_2_the_tin_man_hits_a_don(don: int, member: str, team: str) -> None:
    """fm.13.2 «Дона любой из плохих команд (попав в Дона, переходит в ту мм
    команду, в Дона которой попал. При этом настоящий Снап не лишается своей
    роли)» (amb.52: «Снайпер теперь в стане ММ» is announced)."""
    j = _holding("3").night((4, "fire", don, "3"), (2, "heal", 5)).json()
    assert role(j, 4) == (member, team)
    assert role(j, 3) == ("sniper", "civilians")
    assert said(j, "sniper_joined_mm")
    assert don not in dead(j)


def test_fm_14_the_cop_gets_the_bomzh_vote() -> None:
    """fm.14 «Если в Бомжа попадают Коп и обе мм команды, то голос Бомжа
    уходит Копу»."""
    table = Table(THREE).day().night((1, "shoot", 5), (7, "shoot", 5), (9, "shoot", 5))
    j = table.json()
    assert dead(j) == {}
    assert told(j, 1, "tramp_is", seat=5)
    assert not told(j, 7, "tramp_is")
    table.post(1, "order", 8, at="12:59:00")
    j = table.day(votes={5: 3, 1: 8, 2: 8, 9: 2}).json()
    assert told(j, 5, "tramp_order", seat=8)
    assert dead(j) == {8: "voted"}


def test_fm_15_both_mm_teams_kill_the_bomzh() -> None:
    """fm.15 «Если в Бомжа попадают обе мм команды, то Бомж умирает, не отдав
    голос никому»."""
    j = Table(THREE).day().night((7, "shoot", 5), (9, "shoot", 5)).json()
    assert dead(j) == {5: "killed"}
    assert not any(p["cue"] == "tramp_is" for p in j["private"])


def test_fm_15_healed_the_bomzh_lives_and_nobody_gets_his_vote() -> None:
    """amb.29 e: the heal saves him in fm.15; then nobody gets the vote."""
    j = Table(THREE).day().night((7, "shoot", 5), (9, "shoot", 5), (2, "heal", 5)).json()
    assert dead(j) == {}
    assert not any(p["cue"] == "tramp_is" for p in j["private"])


def test_fm_16_the_kamikazes_victim_dies_though_healed() -> None:
    """fm.16 «Если жертва Камикадзе совпадает с выбором Дока, то игрок
    погибает, даже если Доктор его лечил» (roles.doctor.9)."""
    j = Table(THREE).day().night((7, "shoot", 4), (4, "mark", 9), (2, "heal", 9)).json()
    assert dead(j) == {4: "killed", 9: "killed"}
