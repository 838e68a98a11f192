"""The forum game's day: the vote and its count (docs/forum-rules-catalogue.md
4.4), the Lawyer and the Bouncer, and every deadline of section 6, through
table scripts (tests/forum_table.py) and the replay JSON. Each test names
its clause and quotes the text.
"""

from __future__ import annotations

import pytest
from forum_table import Table, dead, role, said

from companion.runner.script import ScriptError

#: 1 Lawyer, 2 Bouncer, 3 Cop, 4 Doctor, 5-7 МЖ, 8 Don, 9 маф, 10 МЖ
DAY = [
    "lawyer", "bouncer", "cop", "doctor", "civilian", "civilian",
    "civilian", "don", "mafia", "civilian",
]  # fmt: skip


def votes(**tally: list[int]) -> dict[int, int]:
    """``votes(s5=[1, 2, 3])``: seats 1, 2 and 3 vote for seat 5."""
    return {voter: int(key[1:]) for key, voters in tally.items() for voter in voters}


# --- the count (4.4) -------------------------------------------------------------------


def test_plain_leader_leaves() -> None:
    """vote.5 «Выбывает из игры игрок, который набрал наибольшее количество
    голосов»; deadline.vote.5: the tally is posted; deadline.vote.6 «Роль
    ушедшего не объявляется»."""
    j = Table(DAY).day(votes=votes(s5=[1, 2, 3, 4, 6, 7], s6=[5, 8, 9, 10])).json()
    assert dead(j) == {5: "voted"}
    assert said(j, "vote_tally", tally="5:6,6:4")
    assert said(j, "forum_voted_out", seat=5)
    assert not said(j, "child_killed")


def test_tie_nobody_leaves() -> None:
    """vote.6 «При итоговом равенстве голосов, с учетом выбора ролевых, никто
    не покидает игру»."""
    j = Table(DAY).day(votes=votes(s5=[1, 2, 3, 4, 6], s6=[5, 7, 8, 9, 10])).json()
    assert dead(j) == {}
    assert said(j, "nobody_voted_out")


def test_protected_leader_the_next_leaves() -> None:
    """vote.7 «Если лидирующего в голосовании игрока защищает Адвокат, то
    игру покидает следующий игрок с большинством голосов»; roles.lawyer.3;
    deadline.vote.5: the Lawyer's choice is posted."""
    j = (
        Table(DAY)
        .day((1, "protect", 5), votes=votes(s5=[1, 2, 3, 4, 6], s6=[5, 8, 9], s7=[10]))
        .json()
    )
    assert dead(j) == {6: "voted"}
    assert said(j, "lawyer_protected", seat=5)


def test_protected_leader_with_a_tie_behind() -> None:
    """vote.6, vote.7: a protected leader with two tied behind him: nobody."""
    j = (
        Table(DAY)
        .day((1, "protect", 5), votes=votes(s5=[1, 2, 3, 7], s6=[5, 8, 9], s7=[4, 6, 10]))
        .json()
    )
    assert dead(j) == {}


def test_tie_with_one_protected() -> None:
    """amb.7: protection first, then the tie test: the other leaves."""
    j = (
        Table(DAY)
        .day((1, "protect", 5), votes=votes(s5=[1, 2, 3, 4, 6], s6=[5, 7, 8, 9, 10]))
        .json()
    )
    assert dead(j) == {6: "voted"}


def test_bouncer_breaks_a_tie() -> None:
    """roles.bouncer.3 «Голос выбранного им игрока аннулируется при дневном
    голосовании»; roles.bouncer.4 «Об этом сообщается по итогам дня»."""
    j = Table(DAY).day((2, "annul", 3), votes=votes(s5=[1, 2, 3, 4, 6], s6=[5, 7, 8, 9, 10])).json()
    assert dead(j) == {6: "voted"}
    assert said(j, "bouncer_annulled", seat=3)
    assert said(j, "vote_tally", tally="6:5,5:4")


def test_a_non_voter_leaves_beside_the_loser() -> None:
    """duty.1 «набравший на голосовании наибольшее число голосов игрок все
    равно покидает игру»; deadline.autokill.2 «Опоздавшему объявляется
    «автокилл»»; vote.8."""
    j = Table(DAY).day(votes=votes(s5=[1, 2, 3, 4, 6, 7], s6=[5, 8, 9]), silent=[10]).json()
    assert dead(j) == {5: "voted", 10: "removed"}
    assert said(j, "autokill", seat=10)


def test_a_non_voter_who_leads_leaves_once() -> None:
    """amb.36: votes for a non-voter count; if he leads he leaves once."""
    j = Table(DAY).day(votes=votes(s10=[1, 2, 3, 4, 6, 7], s6=[5, 8, 9]), silent=[10]).json()
    assert dead(j) == {10: "voted"}


def test_self_vote_is_an_autokill_and_not_counted() -> None:
    """forbid.8 «Голосовать на дневных голосованиях против себя … не
    допускается» (sanction.8: автокилл); amb.36: not counted."""
    j = Table(DAY).day(votes=votes(s5=[1, 2, 3, 5], s6=[4, 7, 8, 9, 10], s7=[6])).json()
    assert dead(j) == {6: "voted", 5: "removed"}
    assert said(j, "vote_tally", tally="6:5,5:3,7:1")


def test_a_vote_for_a_dead_player_counts_as_voted() -> None:
    """amb.36: a vote for a dead nick counts as voted, for nobody."""
    table = Table(DAY).day(out=10)
    j = table.night((8, "shoot", 7), (4, "heal", 4)).day(votes={5: 10}).json()
    assert dead(j) == {10: "voted", 7: "killed"}


def test_the_lawyer_does_not_stop_an_autokill() -> None:
    """amb.36: the Lawyer's protection does not prevent an autokill."""
    j = Table(DAY).day((1, "protect", 10), silent=[10]).json()
    assert dead(j) == {10: "removed"}


def test_the_bouncers_target_must_still_vote() -> None:
    """amb.28: the target is not told before and must still vote."""
    j = Table(DAY).day((2, "annul", 10), silent=[10]).json()
    assert dead(j) == {10: "removed"}


def test_one_vote_post_edited_not_replaced() -> None:
    """vote.1 «каждый игрок может оставить только один пост»; vote.2 «Менять
    впоследствии свой выбор нельзя»; vote.3 «Редактировать можно»: the edit
    counts, a second post does not (amb.35)."""
    table = Table(DAY)
    table.vote(1, 5, at="19:00:00").vote(1, 6, at="19:10:00")  # a second post: refused
    table.vote(2, 5, at="19:00:00").vote(2, 7, at="19:10:00", edit=True)  # an edit
    j = table.day(votes=votes(s5=[3, 4], s6=[8, 9, 10], s7=[5, 6], s8=[7]), silent=[1, 2]).json()
    assert said(j, "vote_tally", tally="5:3,6:3,7:3,8:1")
    assert dead(j) == {}


# --- the Lawyer and the Bouncer ------------------------------------------------------------


def test_lawyer_may_protect_himself_not_twice_running() -> None:
    """roles.lawyer.4 «Адвокат имеет право защищать одного и того же игрока
    (в том числе и себя) через 1 игровой день»."""
    table = Table(DAY).day((1, "protect", 1), votes=votes(s1=[2, 3, 4, 5, 6, 7], s6=[1, 8, 9, 10]))
    assert dead(table.json()) == {6: "voted"}
    table.night((8, "shoot", 7), (4, "heal", 4))
    with pytest.raises(ScriptError, match="not twice running"):
        table.post(1, "protect", 1, at="10:00:00")


def test_bouncer_not_the_same_player_twice_running_nor_himself() -> None:
    """roles.bouncer.5 «Вышибала имеет право выбивать ход одного и того же
    игрока через 1 игровой день»; amb.28: not himself."""
    table = Table(DAY)
    with pytest.raises(ScriptError, match="may not choose himself"):
        table.post(2, "annul", 2, at="10:00:00")
    table.day((2, "annul", 9)).night((8, "shoot", 7), (4, "heal", 4))
    with pytest.raises(ScriptError, match="not twice running"):
        table.post(2, "annul", 9, at="10:00:00")


@pytest.mark.parametrize(
    ("seat", "name", "skipped", "lost"),
    [
        (1, "lawyer", "lawyer_skipped", "lawyer_lost_role"),
        (2, "bouncer", "bouncer_skipped", "bouncer_lost_role"),
    ],
)
def test_day_role_skips_once_then_loses_the_role(
    seat: int, name: str, skipped: str, lost: str
) -> None:
    """roles.lawyer.5-7 «один раз за игру пропустить ход … Адвокат никого не
    защищал … При втором пропуске выбора, теряет роль и превращается в МЖ»;
    roles.bouncer.6-8 «Вышибала пропустил ход»; amb.27: the second skip
    announced as the Doctor's."""
    other = (2, "annul", 5) if seat == 1 else (1, "protect", 5)
    table = Table(DAY).day(other)
    j = table.json()
    assert said(j, skipped, day=1)
    assert role(j, seat) == (name, "civilians")
    table.night((8, "shoot", 7), (4, "heal", 4))
    other = (2, "annul", 6) if seat == 1 else (1, "protect", 6)
    j = table.day(other).json()
    assert said(j, lost, day=2)
    assert role(j, seat) == ("civilian", "civilians")


# --- deadlines (6) -------------------------------------------------------------------------


@pytest.mark.parametrize(("at", "counted"), [("21:00:59", True), ("21:01:00", False)])
def test_vote_deadline(at: str, counted: bool) -> None:
    """deadline.vote.1 «ГОЛОСОВАНИЕ - с момента открытия до 21:00
    включительно»; deadline.vote.2 «Голос данный в 21:01:00 учитываться не
    будет»; deadline.autokill.1-2: a player without a counted vote is
    autokilled."""
    table = Table(DAY).vote(10, 5, at=at)
    j = table.day(silent=[10]).json()
    assert (10 in dead(j)) is not counted
    assert said(j, "autokill", seat=10) is not counted


@pytest.mark.parametrize(("at", "counted"), [("22:00:59", True), ("22:01:00", False)])
def test_night_deadline(at: str, counted: bool) -> None:
    """deadline.night.1 «до 22:00 включительно»; deadline.night.2 «В 22:01:00
    выбор приниматься не будет … последний на тот момент выбор данный в
    кабинете»: the earlier choice stands."""
    table = Table(DAY).day()
    table.post(8, "shoot", 5, at="21:10:00").post(8, "shoot", 6, at=at)
    j = table.night((4, "heal", 4)).json()
    assert dead(j) == ({6: "killed"} if counted else {5: "killed"})


def test_a_late_choice_alone_is_no_choice() -> None:
    """deadline.night.2 «будет засчитан пропуск хода (у мирных ролевых)»: the
    Doctor's late heal does not save, and counts as a skip (the second
    makes him a МЖ, roles.doctor.5)."""
    table = Table(DAY).day()
    table.post(4, "heal", 5, at="22:01:00")
    j = table.night((8, "shoot", 5)).json()
    assert dead(j) == {5: "killed"}
    j = table.day().night((8, "shoot", 6)).json()
    assert role(j, 4) == ("civilian", "civilians")
    assert said(j, "doctor_lost_role", day=2)


@pytest.mark.parametrize(("at", "counted"), [("13:00:00", True), ("13:00:01", False)])
def test_day_choice_deadline(at: str, counted: bool) -> None:
    """deadline.day.1 «ДНЕВНОЙ ВЫБОР - с начала игрового дня до 13:00
    включительно»; deadline.day.2 «Выбор в 13:00:01 приниматься не будет»
    (amb.32: a late day choice is a skip)."""
    table = Table(DAY).post(1, "protect", 5, at=at)
    j = table.day(votes=votes(s5=[1, 2, 3, 4, 6, 7], s6=[5, 8, 9, 10])).json()
    assert dead(j) == ({6: "voted"} if counted else {5: "voted"})
    assert said(j, "lawyer_protected", seat=5) is counted
    assert said(j, "lawyer_skipped") is not counted


def test_the_last_day_choice_in_time_stands() -> None:
    """amb.33, amb.32: a late day choice counts for nothing; the last one
    posted in time stands."""
    table = Table(DAY).post(1, "protect", 5, at="10:00:00").post(1, "protect", 6, at="13:00:01")
    j = table.day(votes=votes(s5=[1, 2, 3, 4, 6, 7], s6=[5, 8, 9, 10])).json()
    assert said(j, "lawyer_protected", seat=5)
    assert dead(j) == {6: "voted"}


def test_the_day_choices_close_at_their_own_deadline() -> None:
    """deadline.day.1: the day choices' window closes before the vote's; a
    choice after it is refused by the window, the vote goes on."""
    table = Table(DAY).post(2, "annul", 3, at="11:00:00").deadline("day_choices")
    with pytest.raises(ScriptError, match="no day choices window"):
        table.post(1, "protect", 5, at="12:00:00")
    j = table.day(votes=votes(s5=[1, 2, 3, 4, 6], s6=[5, 7, 8, 9, 10])).json()
    assert dead(j) == {6: "voted"}


def test_a_moved_deadline() -> None:
    """deadline.change.1 «Дни, ночи, время выбора - могут быть изменены или
    укорочены»; deadline.change.2 «Это объявляется Ведущим»."""
    table = Table(DAY).feed({"input": "move_deadline", "name": "vote", "to": "21:30:00"})
    table.vote(10, 5, at="21:20:00")
    j = table.day(silent=[10]).json()
    assert 10 not in dead(j)
    assert said(j, "deadline_moved", name="vote")
