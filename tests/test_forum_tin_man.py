"""The Tin Man (ЖД, roles.tin_woodman.*): his one block, the guns he takes
from whoever shoots him and fires the next night, his vulnerability while
he holds one, and the mourning when he is voted out; through table scripts
(tests/forum_table.py) and the replay JSON. Each test names its clause and
quotes the text.
"""

from __future__ import annotations

import pytest
from forum_table import Table, dead, role, said, told

from companion.runner.script import ScriptError

#: 1 Cop, 2 Doctor, 3 Sniper, 4 ЖД, 5 МЖ, 6 ДМ, 7 Don, 8 маф, 9 Don of the маны, 10 ман
TM = [
    "cop", "doctor", "sniper", "tin_woodman", "civilian", "mafia_child",
    "don", "mafia", "maniacs_don", "maniacs_member",
]  # fmt: skip
#: two-sided: the lone Maniac at 9, a МЖ at 10
TM2 = [*TM[:8], "maniac", "civilian"]


# --- the block -----------------------------------------------------------------------


def test_block_on_a_player_without_a_gun_misses_and_is_spent() -> None:
    """roles.tin_woodman.2 «только 1 раз за всю игру»; roles.tin_woodman.4
    «Если ЖД выбрал любого игрока без пушки, то промахивается» (amb.17: he
    alone is told)."""
    table = Table(TM).day().night((4, "block", 5), (2, "heal", 5))
    j = table.json()
    assert told(j, 4, "block_missed", seat=5)
    table.day()
    with pytest.raises(ScriptError, match="one block is spent"):
        table.post(4, "block", 1)


@pytest.mark.parametrize(
    ("blocked", "shot", "target"),
    [(1, (1, "shoot", 8), 8), (7, (7, "shoot", 5), 5), (3, (3, "shoot", 5), 5)],
)
def test_block_voids_a_gun(blocked: int, shot: tuple[int, str, int], target: int) -> None:
    """roles.tin_woodman.3 «Если выбранный - ролевой с пушкой (Коп, Дон,
    Снайпер), то ЖД блокирует его ход этой ночью» (deadline.night.6: the
    Don's block is his team's); amb.17: the blocked Cop is not «промахнулся»."""
    j = Table(TM).day().night((4, "block", blocked), shot).json()
    assert target not in dead(j)
    assert told(j, 4, "block_hit", seat=blocked)
    assert not said(j, "cop_missed")


# --- the guns he takes -----------------------------------------------------------------


def test_a_shot_at_him_gives_him_the_gun_for_the_next_night() -> None:
    """roles.tin_woodman.5 «Если ночью в ЖД стреляют, то ЖД не умирает, а
    отбирает ружьё … на одну, следующую ночь»: the team has no shot that
    night; he fires theirs."""
    table = Table(TM).day().night((7, "shoot", 4), (2, "heal", 1))
    j = table.json()
    assert dead(j) == {}
    assert told(j, 4, "gun_taken", gun="mafia")
    j = table.day().night((7, "shoot", 3), (4, "fire", 5, "mafia"), (2, "heal", 2)).json()
    assert dead(j) == {5: "killed"}


@pytest.mark.parametrize(("shooter", "gun"), [(1, "1"), (3, "3")])
def test_the_cop_and_the_sniper_lose_their_guns_to_him(shooter: int, gun: str) -> None:
    """roles.sniper.8 «ЖД. Если ЖД неуязвим в ту ночь»; amb.16: the Cop's
    gun too, and the public hears «Коп промахнулся»."""
    j = Table(TM).day().night((shooter, "shoot", 4)).json()
    assert dead(j) == {}
    assert told(j, 4, "gun_taken", gun=gun)
    assert said(j, "cop_missed") == (shooter == 1)


def test_he_cannot_kill_the_guns_own_team() -> None:
    """roles.tin_woodman.6 «ЖД не может убить члена той команды, за которую
    стреляет»."""
    table = Table(TM).day().night((7, "shoot", 4), (2, "heal", 1))
    j = table.day().night((4, "fire", 8, "mafia"), (2, "heal", 2)).json()
    assert dead(j) == {}


def test_the_heal_and_the_cops_check_work_as_for_the_owner() -> None:
    """roles.tin_woodman.7 «Лечение Дока и Проверка копа действуют так же как
    действовали бы в случае выстрела истинного владельца пушки» (amb.53 e)."""
    table = Table(TM).day().night((7, "shoot", 4), (2, "heal", 1))
    j = table.day().night((4, "fire", 5, "mafia"), (2, "heal", 5)).json()
    assert dead(j) == {}
    table = Table(TM).day().night((7, "shoot", 4), (2, "heal", 1))
    j = table.day().night((4, "fire", 5, "mafia"), (1, "shoot", 5), (2, "heal", 2)).json()
    assert dead(j) == {}


def test_holding_a_team_gun_he_dies_as_its_owner() -> None:
    """roles.tin_woodman.8 «ЖД с отнятой пушкой в руках становится уязвим для
    пуль, точно также, как и истинный владелец»: holding the Mafia's gun,
    the Cop's shot kills him."""
    table = Table(TM).day().night((7, "shoot", 4), (2, "heal", 1))
    j = table.day().night((1, "shoot", 4), (2, "heal", 2)).json()
    assert dead(j) == {4: "killed"}


def test_holding_a_team_gun_the_other_team_kills_him() -> None:
    """roles.tin_woodman.8; roles.tin_woodman.10 «нестреляющий ЖД ночью вновь
    неуязвим» only when he holds nothing."""
    table = Table(TM).day().night((7, "shoot", 4), (2, "heal", 1))
    j = table.day().night((9, "shoot", 4), (2, "heal", 2)).json()
    assert dead(j) == {4: "killed"}


def test_holding_the_cops_gun_the_sniper_cannot_kill_him() -> None:
    """amb.53 a: holding the Cop's gun, the Sniper's shot does not kill him
    (roles.sniper.4 «Коп при попадании не умирает»), and the Sniper keeps
    his role (the Cop's side effects are not the Tin Man's)."""
    table = Table(TM).day().night((1, "shoot", 4), (2, "heal", 1))
    j = table.day().night((3, "shoot", 4), (2, "heal", 2)).json()
    assert dead(j) == {}
    assert role(j, 3) == ("sniper", "civilians")
    gun_taken = [p["args"] for p in j["private"] if p["to"] == 4 and p["cue"] == "gun_taken"]
    assert gun_taken == [{"gun": "1"}]  # amb.53 b: holding, he takes no gun again


def test_invulnerable_again_when_he_holds_nothing() -> None:
    """roles.tin_woodman.10 «При этом для уточнения, нестреляющий ЖД ночью
    вновь неуязвим»: the gun was for one night; the next, a shot is taken
    again."""
    table = Table(TM).day().night((7, "shoot", 4), (2, "heal", 1))
    table.day().night((4, "fire", 5, "mafia"), (2, "heal", 2))
    j = table.day().night((7, "shoot", 4), (2, "heal", 1)).json()
    assert 4 not in dead(j)
    assert sum(1 for p in j["private"] if p["to"] == 4 and p["cue"] == "gun_taken") == 2


def test_several_sides_shot_him_he_fires_for_all() -> None:
    """roles.tin_woodman.11 «он отбирает все пушки и на следующую ночь
    стреляет за всех»; roles.tin_woodman.12 «должен написать какой пушкой в
    кого стреляет»."""
    table = Table(TM).day().night((7, "shoot", 4), (9, "shoot", 4), (3, "shoot", 4))
    j = table.json()
    assert {a["gun"] for c, a in [(p["cue"], p["args"]) for p in j["private"] if p["to"] == 4]
            if c == "gun_taken"} == {"mafia", "maniacs", "3"}  # fmt: skip
    j = table.day().night(
        (4, "fire", 5, "mafia"), (4, "fire", 8, "maniacs"), (4, "fire", 2, "3"),
        (7, "shoot", 1), (9, "shoot", 1), (3, "shoot", 10),
    ).json()  # fmt: skip
    assert dead(j) == {5: "killed", 8: "killed", 2: "killed"}


def test_an_unnamed_gun_is_not_fired() -> None:
    """amb.53 d: firing is optional; the owner still has no shot."""
    table = Table(TM).day().night((3, "shoot", 4), (2, "heal", 1))
    j = table.day().night((3, "shoot", 5), (2, "heal", 2)).json()
    assert dead(j) == {}


def test_the_gun_leaves_when_its_owner_dies_by_day() -> None:
    """roles.tin_woodman.9 «Если истинный владелец пушки … днем погибает, то
    пушка в руках ЖД уходит вместе с ним»."""
    table = Table(TM).day().night((3, "shoot", 4), (2, "heal", 1))
    j = table.day(out=3).night((4, "fire", 5, "3"), (2, "heal", 2)).json()
    assert dead(j) == {3: "voted"}


def test_a_team_gun_stays_while_the_team_lives() -> None:
    """roles.tin_woodman.9 «(или мм сторона)», amb.18: the team's gun leaves
    only with the whole team; the Don voted out, it still fires."""
    table = Table(TM).day().night((7, "shoot", 4), (2, "heal", 1))
    j = table.day(out=7).night((4, "fire", 5, "mafia"), (2, "heal", 2)).json()
    assert dead(j) == {7: "voted", 5: "killed"}


def test_a_gun_taken_from_an_owner_killed_that_night_still_fires() -> None:
    """amb.18: «An owner's death in the same night changes nothing (P1)»;
    only a death by day takes the gun back (roles.tin_woodman.9 «днем»)."""
    table = Table(TM).day().night((3, "shoot", 4), (7, "shoot", 3))
    assert dead(table.json()) == {3: "killed"}
    j = table.day().night((4, "fire", 5, "3"), (2, "heal", 2)).json()
    assert dead(j) == {3: "killed", 5: "killed"}


# --- mourning ------------------------------------------------------------------------


def test_mourning_when_he_is_voted_out() -> None:
    """roles.tin_woodman.13 «Если ЖД умирает на голосовании днем, ночные
    отменяются в тот день из-за траура» (amb.19: every choice void, no
    skip counted, announced)."""
    table = Table(TM).day(out=4)
    j = table.night((7, "shoot", 5), (9, "shoot", 6), (3, "shoot", 8)).json()
    assert dead(j) == {4: "voted"}
    assert said(j, "mourning", day=1)
    assert j["proposals"] == []  # no MM sanction on a mourning night
    # the Doctor's skips: none counted on the mourning night, one free on night 2
    j = table.day().night((7, "shoot", 5)).json()
    assert role(j, 2) == ("doctor", "civilians")


def test_mourning_moves_the_vampires_night() -> None:
    """amb.19, amb.23: the Vampire's first night, if it is a mourning night,
    is the next night."""
    table = Table([*TM[:4], "vampire", *TM[5:]]).day(out=4)
    table.night((5, "bite", 2))
    j = table.json()
    assert dead(j) == {4: "voted"}
    j = table.day().night((5, "bite", 2), (7, "shoot", 6)).json()
    assert role(j, 5) == ("doctor", "civilians")
