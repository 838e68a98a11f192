"""How the forum game ends (docs/forum-rules-catalogue.md 5.2-5.4), through
table scripts (tests/forum_table.py) and the replay JSON's ``result``.
Each test names its clause and quotes the text.
"""

from __future__ import annotations

import pytest
from forum_table import Table, dead

from companion.runner.script import ScriptError


def result(j: dict[str, object]) -> tuple[list[str], str] | None:
    r = j["result"]
    if r is None:
        return None
    assert isinstance(r, dict)
    return r["winners"], r["clause"]


# --- two-sided (5.2) ---------------------------------------------------------------------

#: 1 Cop, 2-5 МЖ, 6 Don, 7 the lone Maniac, 8 МЖ
TWO = ["cop", "civilian", "civilian", "civilian", "civilian", "don", "maniac", "civilian"]


def test_end_two_1_the_civilians_win() -> None:
    """end.two.1 «Победой Мирных - если Мирные нашли всех мафов и Маньяка»."""
    table = Table(TWO, "two_sided").day(out=6)
    assert result(table.json()) is None
    j = table.night((1, "shoot", 7)).json()
    assert dead(j) == {6: "voted", 7: "killed"}
    assert result(j) == (["civilians"], "end.two.1")
    assert j["phase"] == "ended"


def test_end_two_2_parity_is_the_hosts_to_declare() -> None:
    """end.two.2 «Победой Мафии - если количество Мирных сравняется или
    окажется меньше, чем количество мафов и ман вне игры»; end.two.3 «НО,
    Мирные могут продолжить игру» (amb.1, amb.42: the host declares it)."""
    roles = ["cop", "civilian", "civilian", "civilian", "don", "mafia"]
    table = Table(roles, "two_sided")
    with pytest.raises(ScriptError, match=r"end\.two\.3"):
        table.feed({"input": "declare_win", "teams": ["mafia"]})
    table.day(out=4).night((5, "shoot", 3))
    assert result(table.json()) is None  # 2 civilians, 2 mafia: play on until the host says
    j = table.feed({"input": "declare_win", "teams": ["mafia"]}).json()
    assert result(j) == (["mafia"], "end.two.3")


def test_end_two_4_the_maniac_and_one_more() -> None:
    """end.two.4 «Победой Маньяка - если в игре остались Маньяк и любой
    другой игрок, кроме Копа и Дона»."""
    roles = ["cop", "civilian", "civilian", "civilian", "don", "maniac"]
    table = Table(roles, "two_sided").day(out=5).night((6, "shoot", 2), (1, "shoot", 3))
    j = table.day(out=1).json()
    assert result(j) is None  # three alive
    j = table.night((6, "shoot", 3)).json()
    assert dead(j) == {5: "voted", 2: "killed", 1: "voted", 3: "killed"}
    assert result(j) == (["maniac"], "end.two.4")


@pytest.mark.parametrize("other", ["cop", "don"])
def test_end_two_4_not_against_the_cop_or_the_don(other: str) -> None:
    """end.two.4 «кроме Копа и Дона»: the Maniac and the Cop (or the Don)
    alone: the Maniac does not win. Against the Cop, play on
    (end.playon.1); against the Don, the one on one of end.final.3
    («побеждает тот, у кого подвал», amb.37 names the Maniac against the
    Don): the Don's team wins while it has its basement."""
    roles = ["civilian", "civilian", "civilian", "civilian", other, "maniac"]
    if other == "don":
        roles[0] = "cop"
    table = Table(roles).day(out=1).night((6, "shoot", 2))
    j = table.day(out=3).night((6, "shoot", 4)).json()
    assert sorted(s["seat"] for s in j["seats"] if s["alive"]) == [5, 6]
    if other == "don":
        assert result(j) == (["mafia"], "end.final.3")
    else:
        assert result(j) is None


# --- three-sided (5.3) -------------------------------------------------------------------

#: 1 Cop, 2-4 МЖ, 5 Don, 6 маф, 7 Don of the маны, 8 ман
THREE = ["cop", "civilian", "civilian", "civilian", "don", "mafia", "maniacs_don", "maniacs_member"]


def test_end_three_1_the_civilians_win() -> None:
    """end.three.1 «Победой мирных - Если Мирные перебили всех мафов и манов
    до единого»."""
    table = Table(THREE).day(out=5).night((1, "shoot", 6), (7, "shoot", 2))
    table.day(out=7)
    j = table.night((1, "shoot", 8)).json()
    assert result(j) == (["civilians"], "end.three.1")


@pytest.mark.parametrize(("team", "clause"), [("mafia", "end.three.2"), ("maniacs", "end.three.3")])
def test_end_three_2_3_an_mm_team_alone(team: str, clause: str) -> None:
    """end.three.2 «Победой мафов - Если Мафы перебили мирных и манов до
    единого»; end.three.3 «Победой манов - Если Маны перебили всех мирных и
    мафов»."""
    roles = ["cop", "civilian", "don", "mafia", "maniacs_don", "maniacs_member"]
    winners, losers = ((3, 4), (5, 6)) if team == "mafia" else ((5, 6), (3, 4))
    table = Table(roles).day(out=losers[0])
    j = table.night((winners[0], "shoot", losers[1]), (1, "shoot", 2)).json()
    table.day(out=1)
    j = table.night((winners[0], "shoot", 2)).json()
    assert result(j) == ([team], clause)


def test_end_three_4_the_joint_mm_win() -> None:
    """end.three.4 «Возможна совместная победа ММ сторон по договоренности»;
    end.three.5 «С мирными это невозможно»."""
    roles = ["cop", "civilian", "don", "mafia", "maniacs_don", "maniacs_member"]
    table = Table(roles)
    with pytest.raises(ScriptError, match=r"end\.three\.4"):
        table.feed({"input": "declare_win", "teams": ["mafia", "maniacs"]})
    table.day(out=1).night((3, "shoot", 2), (5, "shoot", 3), (3, "hide", 3))
    assert result(table.json()) is None
    j = table.feed({"input": "declare_win", "teams": ["mafia", "maniacs"]}).json()
    assert result(j) == (["mafia", "maniacs"], "end.three.4")


# --- the morning awards (5.4) ---------------------------------------------------------------


def _to_two(day_role: str, choices: tuple[tuple[int, str, int], ...]) -> Table:
    """Seat 1 (``day_role``) and the Don (5) are left in the morning of day 3:
    day 1 the маф (6) leaves, night 1 the Don kills 2, day 2 seat 3
    leaves, night 2 the Don kills 4. ``choices``: seat 1's, one a day."""
    table = Table([day_role, "civilian", "civilian", "civilian", "don", "mafia"])
    table.day(choices[0], out=6).night((5, "shoot", 2))
    return table.day(choices[1], out=3).night((5, "shoot", 4))


def test_end_final_1_the_bouncer_against_one_mm() -> None:
    """end.final.1 «Если на утро в живых остался дневной ролевой против одного
    ММ, то победа присуждается мирным»; end.final.2 «Вышибала вышибает
    голос»."""
    j = _to_two("bouncer", ((1, "annul", 5), (1, "annul", 4))).json()
    assert result(j) == (["civilians"], "end.final.1")


def test_end_final_2_not_if_the_bouncer_annulled_him_yesterday() -> None:
    """amb.39: a Bouncer who annulled that same MM the previous day may not
    annul him again (roles.bouncer.5): no award."""
    j = _to_two("bouncer", ((1, "annul", 4), (1, "annul", 5))).json()
    assert result(j) is None


def test_end_final_2_the_lawyer_saves_himself() -> None:
    """end.final.2 «Адвокат спасает себя (при условии, что в предыдущий день
    себя не спасал)»."""
    j = _to_two("lawyer", ((1, "protect", 1), (1, "protect", 4))).json()
    assert result(j) == (["civilians"], "end.final.1")
    j = _to_two("lawyer", ((1, "protect", 4), (1, "protect", 1))).json()
    assert result(j) is None


@pytest.mark.parametrize("hidden", [False, True])
def test_end_final_3_one_on_one_with_a_shooter(hidden: bool) -> None:
    """end.final.3 «Оставшись один на один со стрелком побеждает тот, у кого
    подвал» (amb.37: the MM with his basement unused wins; without it, play
    on)."""
    table = Table(["cop", "civilian", "civilian", "civilian", "don", "mafia"]).day(out=6)
    table.night((5, "shoot", 2), *([(5, "hide", 5)] if hidden else []))
    j = table.day(out=3).night((5, "shoot", 4)).json()
    assert result(j) == (None if hidden else (["mafia"], "end.final.3"))


def test_end_final_4_the_mm_against_the_tin_man() -> None:
    """end.final.4 «В случае, если в конце игры остались 2 игрока - ММ и ЖД,
    победа присуждается ММ»."""
    table = Table(["tin_woodman", "civilian", "civilian", "civilian", "don", "mafia"]).day(out=6)
    j = table.night((5, "shoot", 2)).day(out=3).night((5, "shoot", 4)).json()
    assert result(j) == (["mafia"], "end.final.4")


def test_nobody_left_is_a_draw() -> None:
    """amb.40: the last two shoot each other: a draw."""
    table = Table(["civilian", "civilian", "civilian", "civilian", "don", "maniac"]).day(out=1)
    table.night((5, "shoot", 2), (6, "shoot", 3)).day(out=4)
    j = table.night((5, "shoot", 6), (6, "shoot", 5)).json()
    assert dead(j) == {1: "voted", 2: "killed", 3: "killed", 4: "voted", 5: "killed", 6: "killed"}
    assert result(j) == ([], "amb.40")
