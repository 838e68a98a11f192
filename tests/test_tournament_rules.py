"""The tournament text (seed 002, «Дисциплинарный регламент») through the engine.

Every test names the clause it checks (4.x / 5.x of the seed text, or the
table procedure of design.md where the text is silent: "procedure"). Games are
played as table scripts on the fake clock (``tests/helpers.play``), so these
tests run the same path as ``companion replay``.

The table used unless a test says otherwise (``TOURNAMENT_ROLES``)::

    seat  1   2   3      4   5        6    7   8      9   10
          civ civ mafia  civ sheriff  don  civ mafia  civ civ
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from companion.config.rulesets import load_ruleset
from companion.core.effects import Effect, TellHost
from companion.core.engine import step
from companion.core.events import BestMoveMade, NightChoiceMade, Undone
from companion.core.sports.night import steps as night_steps
from companion.core.sports.state import current_turn, table_seat
from companion.core.sports.state import table as table_state
from companion.core.state import Game
from companion.core.step import IllegalInput
from companion.protocol.report import protocol, records, summary
from companion.runner.replay import ScriptReplay
from companion.runner.script import ScriptError, parse_lines
from tests.helpers import TOURNAMENT_ROLES, play, setup

RULES = load_ruleset("tournament")
NIGHT0_S = sum(s.seconds for s in RULES.night0)  # agreement 60 s + free seating 20 s

Line = dict[str, Any]


class Script:
    """A tournament game written line by line with realistic times.

    Speeches end with the speaker's «Пас» ``length`` seconds in; votes press
    half a second into the window and lift the hand after «Принято»; nights
    enter every choice a few seconds apart and let the host skip a step that
    nobody will finish.
    """

    def __init__(self, roles: list[str] | None = None, **extra: Any) -> None:
        roles = roles or TOURNAMENT_ROLES
        self.lines: list[Line] = [
            {"at": 0, **setup("tournament", roles, **extra)},
            {"at": NIGHT0_S, "input": "wait"},  # night 0 runs its timers: day 1 begins
        ]

    def add(self, after: float = 0, **line: Any) -> Script:
        self.lines.append({"after": after, **line})
        return self

    def speech(self, seat: int, nominate: int | None = None, length: float = 50) -> Script:
        if nominate is not None:
            self.add(10, input="nominate", by=seat, target=nominate)
            length -= 10
        return self.add(length, input="pass", seat=seat)

    def speeches(self, *seats: int, **nominations: int) -> Script:
        """Regular speeches in this order; ``s3=6`` means seat 3 nominates 6."""
        for seat in seats:
            self.speech(seat, nominations.get(f"s{seat}"))
        return self

    def host_next(self, after: float = 30) -> Script:
        return self.add(after, input="next")

    def vote(self, *groups: tuple[int, ...]) -> Script:
        """Hands for every nominee but the last (the rest go to the last one).

        Each group presses 0.5 s into its window and lifts after «Принято»
        (window 2 s + count 2 s), 0.2 s into the next window.
        """
        lag = 0.0  # how far the script's clock is into the current window
        for group in groups:
            for i, seat in enumerate(group):
                self.add(0.5 - lag if i == 0 else 0, input="press", seat=seat)
            for i, seat in enumerate(group):
                self.add(3.7 if i == 0 else 0, input="release", seat=seat)
            if not group:
                self.add(4.2 - lag, input="wait")
            lag = 0.2
        return self

    def night(
        self,
        shots: dict[int, int],
        complete: bool = True,
        don: tuple[int, int] | None = None,
        sheriff: tuple[int, int] | None = None,
    ) -> Script:
        """One night. A step never ends by itself when its actors have chosen
        (issue 8: its length would tell who is alive): the host moves on. With
        ``complete`` (every living black seat shot) at once, otherwise 5 s later.
        A check the host moves on from at once; one left out 5 s later."""
        self.shots(shots)
        self.host_next(0 if complete else 5)
        for who in (don, sheriff):
            if who is None:
                self.host_next(5)
            else:
                self.add(5, input="check", seat=who[0], target=who[1]).host_next(0)
        return self

    def shots(self, shots: dict[int, int]) -> Script:
        for shooter, target in shots.items():
            self.add(3, input="shot", seat=shooter, target=target)
        return self

    def play(self, table: ScriptReplay | None = None) -> Game:
        return play(*self.lines, table=table)


def seat_json(game: Game, number: int) -> dict[str, Any]:
    seat: dict[str, Any] = summary(game)["seats"][number - 1]
    return seat


def kinds(game: Game, kind: str) -> list[dict[str, object]]:
    """The protocol records of one kind, as dicts."""
    return [dict(r.data) for r in records(game) if r.kind == kind]


def effects_of(script: Script) -> tuple[Game, list[Effect]]:
    seen: list[Effect] = []
    table = ScriptReplay(on_effects=lambda _now, effects: seen.extend(effects))
    return script.play(table), seen


def to_four() -> Script:
    """Ten seats down to four (don 6 and red 1, 2, 5) by the end of night 3,
    without a single foul. Day 4 begins with seat 7's last word."""
    s = Script()
    # Day 1: 1 nominates 3, 2 nominates 8; 3 gets 7 hands and leaves.
    s.speeches(*range(1, 11), s1=3, s2=8).vote((1, 2, 4, 5, 7, 9, 10)).host_next(40)
    s.night({6: 10, 8: 10}, don=(6, 5), sheriff=(5, 8))  # 10 killed
    # Day 2 (opener 2): last word of 10; 2 nominates 8, 8 leaves.
    s.host_next(50).speeches(2, 4, 5, 6, 7, 8, 9, 1, s2=8).host_next(40)
    s.night({6: 9}, sheriff=(5, 6))  # 9 killed (the Don checks nobody)
    # Day 3 (opener 4): 4 nominates 1, 5 nominates 4; only 6 votes for 1, the rest
    # (1, 2, 4, 5, 7) go to 4.
    s.host_next(50).speeches(4, 5, 6, 7, 1, 2, s4=1, s5=4).vote((6,)).host_next(40)
    s.night({6: 7}, sheriff=(5, 1))  # 7 killed: four left
    return s


# --- every offence entry --------------------------------------------------------------


@pytest.mark.parametrize("offence", RULES.offences, ids=lambda o: f"{o.clause}-{o.id}")
@pytest.mark.parametrize("key", ["id", "clause"])
def test_every_offence_entry_costs_what_the_ruleset_says(offence: Any, key: str) -> None:
    """4.3, 4.6.x, 4.7.x, 4.8.x: each entry given to seat 4 (red) in seat 2's minute,
    ten at the table, by id and by clause."""
    s = Script().speech(1).add(10, input="offence", seat=4, offence=getattr(offence, key))
    game = s.play()
    four = seat_json(game, 4)
    assert game.seat(4).offences == (offence.id,)
    if offence.cost == "warning":  # 4.3 «устно предупреждён»
        assert four["offences"] == 0 and four["alive"] and game.result is None
    elif offence.cost == "count":  # 4.6 «получают фолы»
        assert four["offences"] == 1 and four["alive"] and four["next_speech_s"] == 60
    elif offence.cost == "removal":  # 4.7 + 4.5: out, no last word
        assert four["out"] == {"how": "removed", "day": 1, "last_word_s": 0}
        assert game.result is None and summary(game)["phase"] == "speech"
    else:  # 4.8: the offender's team loses, the others win
        assert offence.cost == "team_loss"
        assert summary(game)["result"] == {
            "winners": ["black"],
            "losers": ["red"],
            "reason": "team_loss",
            "clause": offence.clause,
        }
        assert summary(game)["phase"] == "ended"
    assert game.seat(4).excluded == offence.excluded  # 5.3: 4.8.2 also excludes from the club


def test_team_loss_offence_by_a_black_seat_gives_red_the_game() -> None:
    """4.8.3: a hint from the audience to the Don (seat 6) costs black the game."""
    game = Script().speech(1).add(5, input="offence", seat=6, offence="4.8.3").play()
    result = summary(game)["result"]
    assert result is not None and (result["winners"], result["losers"]) == (["red"], ["black"])


# --- the ladder: 4.4, 4.5, 4.8.4 -------------------------------------------------------


def fouls(seat: int, n: int, after: float = 5) -> list[Line]:
    return [
        {"after": after if i == 0 else 1, "input": "offence", "seat": seat, "offence": "4.6.1"}
        for i in range(n)
    ]


def test_third_foul_before_the_seats_speech_costs_todays_speech() -> None:
    """4.4 «лишается права слова на данном кругу»: seat 5 gets its 3rd foul in seat 2's
    minute; its speech is skipped today (so it has no minute to nominate in), but it
    still votes; day 2 is a new round and its speech is back."""
    s = Script().speech(1, nominate=3)
    s.lines += fouls(5, 3)
    before = s.play()
    assert seat_json(before, 5)["offences"] == 3
    assert seat_json(before, 5)["next_speech_s"] == 0
    s.speeches(2, 3, 4)  # seat 5 is skipped: seat 6 speaks next
    game = s.play()
    assert current_turn(game) is not None and current_turn(game).seat == 6
    assert kinds(game, "speech_lost") == [{"seat": 5, "kind": "speech"}]
    assert seat_json(game, 5)["may_vote"]
    s.speeches(6, 7, 8, 9, 10, s6=8).vote((5, 6, 9))
    voted = s.play()
    assert kinds(voted, "votes")[0]["voters"] == [5, 6, 9]
    s.host_next(30).night({3: 1, 6: 1}, don=(6, 2), sheriff=(5, 6))  # 8 was voted out
    night = s.play()
    assert seat_json(night, 5)["next_speech_s"] == 60  # day 2 is a new round


def test_third_foul_after_speaking_costs_the_next_days_speech() -> None:
    """4.4 «... или последующем»: seat 2 gets its 3rd foul after its own minute; today
    nothing changes (its nomination stands and it votes), on day 2 its speech is lost."""
    s = Script().speeches(1, 2, s2=8)
    s.lines += fouls(2, 3)
    game = s.play()
    two = seat_json(game, 2)
    assert two["offences"] == 3 and two["may_vote"]
    assert summary(game)["nominees"] == [8]  # its nomination stands
    assert two["next_speech_s"] == 60  # nothing more to lose today
    s.speeches(3, 4, 5, 6, 7, 8, 9, 10, s3=3).vote((2, 4, 5, 6, 7, 9))
    voted = s.play()
    assert kinds(voted, "votes")[0] == {"nominee": 8, "votes": 6, "voters": [2, 4, 5, 6, 7, 9]}
    assert seat_json(voted, 8)["out"] == {"how": "voted", "day": 1, "last_word_s": 60}
    s.host_next(30)
    night = s.play()
    assert summary(night)["phase"] == "night"
    assert seat_json(night, 2)["next_speech_s"] == 0
    s.night({3: 10, 6: 10}, don=(6, 5), sheriff=(5, 3))
    # Day 2 opens at seat 2: its speech is lost, seat 3 speaks first after the last word.
    s.host_next(40)
    day2 = s.play()
    assert current_turn(day2) is not None and (
        current_turn(day2).seat,
        current_turn(day2).kind,
    ) == (3, "speech")
    assert kinds(day2, "speech_lost") == [{"seat": 2, "kind": "speech"}]


def test_third_foul_while_speaking_costs_the_next_days_speech() -> None:
    """4.4: a seat fouled three times in its own minute has begun this round's speech;
    the sanction falls on the next round."""
    s = Script().speech(1).add(10, input="offence", seat=2, offence="4.6.7")
    s.add(1, input="offence", seat=2, offence="4.6.8").add(
        1, input="offence", seat=2, offence="4.6.3"
    )
    game = s.play()
    assert current_turn(game) is not None and current_turn(game).seat == 2  # the minute goes on
    assert table_seat(game, 2).silenced_day == 2


def test_fourth_foul_removes_without_last_word() -> None:
    """4.5 «При получении четвёртого фола ... покидает игру без последнего слова»."""
    s = Script().speech(1)
    s.lines += fouls(7, 4)
    game = s.play()
    assert seat_json(game, 7)["out"] == {"how": "removed", "day": 1, "last_word_s": 0}
    assert seat_json(game, 7)["offences"] == 4
    assert [r["clause"] for r in kinds(game, "ladder")] == ["4.4", "4.5"]
    assert game.result is None


def test_fourth_foul_removes_the_speaker_and_the_next_seat_speaks() -> None:
    """4.5: removed mid-minute, the speaker's turn ends at once."""
    s = Script().speech(1)
    s.lines += fouls(2, 4)
    game = s.play()
    assert current_turn(game) is not None and current_turn(game).seat == 3
    assert not seat_json(game, 2)["alive"]


def test_four_alive_reached_by_play() -> None:
    """The table the 4.8.4 and 5.2 tests start from: four alive, one black, no fouls."""
    game = to_four().play()
    alive = [s["seat"] for s in summary(game)["seats"] if s["alive"]]
    assert alive == [1, 2, 5, 6] and game.result is None
    assert summary(game)["phase"] == "last_word" and game.day == 4


@pytest.mark.parametrize(
    ("seat", "loser", "winner"),
    [(6, "black", "red"), (1, "red", "black")],
)
def test_fourth_foul_with_four_alive_loses_the_game(seat: int, loser: str, winner: str) -> None:
    """4.8.4 «зарабатывание 4-го фола при ситуации 4-х игроков за столом»."""
    s = to_four()
    s.lines += fouls(seat, 3, after=10)
    three = s.play()
    assert three.result is None and seat_json(three, seat)["offences"] == 3
    s.lines += fouls(seat, 1)
    game = s.play()
    assert summary(game)["result"] == {
        "winners": [winner],
        "losers": [loser],
        "reason": "team_loss",
        "clause": "4.8.4",
    }
    assert seat_json(game, seat)["alive"]  # nobody is removed: the game is over


def test_fourth_foul_with_five_alive_is_a_plain_removal() -> None:
    """4.5 vs 4.8.4: with five at the table the 4th foul only removes."""
    s = Script(roles=["civilian", "civilian", "don", "sheriff", "civilian"])
    s.lines += fouls(5, 4, after=10)
    game = s.play()
    assert seat_json(game, 5)["out"] == {"how": "removed", "day": 1, "last_word_s": 0}
    assert game.result is None


@pytest.mark.parametrize("alive", [4, 5])
def test_leaving_the_table(alive: int) -> None:
    """4.7.1 «покидание игрового стола» is a removal; 4.8.4 «... или вставания с игрового
    стола» with four at the table costs the team the game."""
    roles = ["civilian", "sheriff", "don", "civilian", "civilian"][:alive]
    game = Script(roles=roles).add(10, input="offence", seat=4, offence="4.7.1").play()
    if alive == 4:
        assert summary(game)["result"] == {
            "winners": ["black"],
            "losers": ["red"],
            "reason": "team_loss",
            "clause": "4.8.4",
        }
    else:
        assert game.result is None
        assert seat_json(game, 4)["out"] == {"how": "removed", "day": 1, "last_word_s": 0}


def test_fouls_are_not_reset_by_the_night() -> None:
    """The tournament text has no reset: fouls count for the whole game (4.4, 4.5)."""
    s = Script().speech(1)
    s.lines += fouls(4, 2)
    s.speeches(2, 3, 4, 5, 6, 7, 8, 9, 10).night({3: 1, 6: 1, 8: 1}, sheriff=(5, 3), don=(6, 5))
    game = s.play()
    assert game.day == 2 and seat_json(game, 4)["offences"] == 2


# --- voting: 4.6.4, 5.1, procedure -----------------------------------------------------


def test_hand_lifted_before_thanks_is_proposed_and_the_vote_counts() -> None:
    """4.6.4 «Отрыв руки при голосовании до ... "Спасибо"»: the table proposes the foul,
    the vote stands; the host confirms one proposal and dismisses another."""
    s = Script().speeches(1, 2, s1=3, s2=6).speeches(*range(3, 11))
    s.add(0.5, input="press", seat=1).add(0, input="press", seat=2).add(0, input="press", seat=4)
    s.add(0.5, input="release", seat=1).add(0, input="release", seat=2)  # before «Спасибо»
    s.add(0, input="release", seat=4)  # the same moment
    proposed = s.play()
    assert summary(proposed)["proposals"] == [
        {
            "seat": seat,
            "offence": "hand_release_before_thanks",
            "reason": "hand lifted before «Спасибо»",
        }
        for seat in (1, 2, 4)
    ]
    s.add(3, input="offence", seat=1, offence="4.6.4").add(1, input="dismiss", index=0)
    game = s.play()
    assert kinds(game, "votes")[0]["voters"] == [1, 2, 4]
    assert summary(game)["proposals"] == [
        {
            "seat": 4,
            "offence": "hand_release_before_thanks",
            "reason": "hand lifted before «Спасибо»",
        }
    ]
    assert [seat_json(game, n)["offences"] for n in (1, 2, 4)] == [1, 0, 0]


def test_hand_lifted_after_thanks_proposes_nothing() -> None:
    """4.6.4 names only «до ... "Спасибо"»: a hand lifted during the count is no foul."""
    s = Script().speeches(1, 2, s1=3, s2=6).speeches(*range(3, 11))
    s.add(0.5, input="press", seat=1).add(2, input="release", seat=1)  # 2.5 s: after «Спасибо»
    s.add(2, input="wait")  # «Принято»
    game = s.play()
    assert summary(game)["proposals"] == []
    assert kinds(game, "votes")[0]["voters"] == [1]


def test_removed_nominee_is_still_voted_on_and_nobody_else_leaves() -> None:
    """5.1 «был удален из игры до самого проведения голосования ... его кандидатура
    голосуется»: seat 3 is removed (4.7.4) after being nominated; it tops the vote, so
    nobody leaves the table by vote."""
    s = Script().speeches(1, 2, 3, s1=3, s2=6)
    s.add(2, input="offence", seat=3, offence="insults")
    s.speeches(4, 5, 6, 7, 8, 9, 10)
    game_before_vote = s.play()
    assert summary(game_before_vote)["nominees"] == [3, 6]
    s.vote((1, 2, 4, 5, 7, 9))
    game = s.play()
    assert [(v["nominee"], v["votes"]) for v in kinds(game, "votes")] == [(3, 6), (6, 3)]
    assert kinds(game, "voted_already_out") == [{"seat": 3}]
    assert summary(game)["phase"] == "night"
    assert seat_json(game, 6)["alive"]
    assert seat_json(game, 3)["out"] == {"how": "removed", "day": 1, "last_word_s": 0}


def test_removed_nominee_can_still_lose_the_vote_to_another() -> None:
    """5.1: the removed nominee's candidacy is voted; seat 6 gets more and leaves."""
    s = Script().speeches(1, 2, 3, s1=3, s2=6)
    s.add(2, input="offence", seat=3, offence="4.7.4")
    s.speeches(4, 5, 6, 7, 8, 9, 10).vote((1, 2))
    game = s.play()
    assert seat_json(game, 6)["out"] == {"how": "voted", "day": 1, "last_word_s": 60}


def test_nominee_removed_during_the_vote_is_still_voted_on() -> None:
    """5.1 «... или во время его проведения»: seat 6 is removed in the window of the
    first nominee; both nominees are still voted, seat 6's own hand goes with it."""
    s = Script().speeches(1, 2, s1=6, s2=3).speeches(*range(3, 11))
    s.add(0.5, input="press", seat=6).add(0, input="press", seat=1)
    s.add(0.5, input="offence", seat=6, offence="4.7.4")
    game = s.play()
    assert summary(game)["nominees"] == [6, 3] and summary(game)["phase"] == "vote"
    s.add(4, input="wait")
    game = s.play()
    votes = kinds(game, "votes")
    assert votes[0] == {"nominee": 6, "votes": 1, "voters": [1]}
    assert votes[1]["nominee"] == 3 and votes[1]["votes"] == 8
    assert seat_json(game, 3)["out"] == {"how": "voted", "day": 1, "last_word_s": 60}


def test_day1_single_nominee_has_no_vote() -> None:
    """procedure (design.md 3, ruleset voting.day1_single_nominee_no_vote): day 1 with a
    single nominee goes straight to the night."""
    game = Script().speeches(*range(1, 11), s4=8).play()
    assert kinds(game, "no_vote") == [{"reason": "day1_single_nominee", "nominee": 8}]
    assert summary(game)["phase"] == "night" and seat_json(game, 8)["alive"]


def test_single_nominee_after_day1_leaves_with_every_vote() -> None:
    """procedure: from day 2 a single nominee is voted; nobody votes in a window of its
    own, so every living seat is counted for the last (only) nominee."""
    s = Script().speeches(*range(1, 11)).night({3: 1, 6: 1, 8: 1}, don=(6, 5), sheriff=(5, 3))
    s.host_next(40).speeches(2, 3, 4, 5, 6, 7, 8, 9, 10, s5=3)
    game = s.play()
    assert kinds(game, "votes") == [
        {"nominee": 3, "votes": 9, "voters": list(range(2, 11)), "rest": True}
    ]
    assert seat_json(game, 3)["out"] == {"how": "voted", "day": 2, "last_word_s": 60}


def test_undecided_votes_go_to_the_last_nominee() -> None:
    """procedure: «whoever has not voted is counted for the last nominee»."""
    s = Script().speeches(1, 2, 3, s1=3, s2=6, s3=8).speeches(*range(4, 11))
    s.vote((1, 2, 4), (5,))
    game = s.play()
    assert kinds(game, "votes") == [
        {"nominee": 3, "votes": 3, "voters": [1, 2, 4]},
        {"nominee": 6, "votes": 1, "voters": [5]},
        {"nominee": 8, "votes": 6, "voters": [3, 6, 7, 8, 9, 10], "rest": True},
    ]
    assert seat_json(game, 8)["out"] == {"how": "voted", "day": 1, "last_word_s": 60}


def test_an_out_seat_cannot_vote() -> None:
    """procedure: a seat that is out has no hand on the table; its press is ignored."""
    s = Script().speeches(1, 2, s1=3, s2=6).add(5, input="offence", seat=7, offence="4.7.5")
    s.speeches(*range(3, 7)).speeches(8, 9, 10).vote((7, 1, 2))
    game = s.play()
    assert kinds(game, "votes") == [
        {"nominee": 3, "votes": 2, "voters": [1, 2]},
        {"nominee": 6, "votes": 7, "voters": [3, 4, 5, 6, 8, 9, 10], "rest": True},
    ]


def test_a_second_press_for_another_nominee_does_not_count() -> None:
    """procedure: each player votes once."""
    s = Script().speeches(1, 2, 3, s1=3, s2=6, s3=8).speeches(*range(4, 11))
    s.vote((1, 2), (1, 5))
    game = s.play()
    assert kinds(game, "votes")[1] == {"nominee": 6, "votes": 1, "voters": [5]}


def tie_day() -> Script:
    """Day 1: nominees 3 and 6, five hands each: a tie."""
    s = Script().speeches(1, 2, s1=3, s2=6).speeches(*range(3, 11))
    return s.vote((1, 2, 4, 5, 7))


def test_tie_gives_tie_speeches_then_a_revote() -> None:
    """procedure (design.md 4): tied players speak again for 30 s in nomination order,
    then a revote; a clear winner of the revote leaves with a full last word."""
    s = tie_day()
    tie = s.play()
    assert kinds(tie, "tie") == [{"seats": [3, 6]}]
    assert current_turn(tie) is not None and (
        current_turn(tie).seat,
        current_turn(tie).kind,
        current_turn(tie).seconds,
    ) == (
        3,
        "tie_speech",
        30,
    )
    assert seat_json(tie, 6)["next_speech_s"] == 30
    s.add(25, input="pass", seat=3).add(28, input="pass", seat=6).vote((1, 2, 4, 5, 7, 9))
    game = s.play()
    assert seat_json(game, 3)["out"] == {"how": "voted", "day": 1, "last_word_s": 60}


def test_third_foul_seat_gets_thirty_seconds_in_a_tie() -> None:
    """5.4 «Если игрок получил 3-й фол и попал в ситуацию переголосования, то ему
    предоставляется 30 секунд»: seat 6 lost today's speech (4.4) but speaks 30 s in the tie."""
    s = Script().speech(1, nominate=3)
    s.lines += fouls(6, 3)
    s.speeches(2, 3, 4, 5, 7, 8, 9, 10, s2=6).vote((1, 2, 4, 5, 7))
    tie = s.play()
    assert kinds(tie, "speech_lost") == [{"seat": 6, "kind": "speech"}]
    assert kinds(tie, "tie") == [{"seats": [3, 6]}]
    assert seat_json(tie, 6)["next_speech_s"] == 30
    s.add(20, input="pass", seat=3)
    game = s.play()
    assert current_turn(game) is not None and (
        current_turn(game).seat,
        current_turn(game).kind,
        current_turn(game).seconds,
    ) == (
        6,
        "tie_speech",
        30,
    )


@pytest.mark.parametrize(("yes", "leave"), [(5, False), (6, True)])
def test_same_tie_again_asks_whether_all_leave(yes: int, leave: bool) -> None:
    """procedure + 5.5: the same tie after the revote → «Кто за то, чтобы все
    голосуемые игроки покинули стол?»; a strict majority of the ten (6, not 5) sends
    both out, each with 30 s of last word («по 30 секунд ... а не минуту»)."""
    s = tie_day().add(25, input="pass", seat=3).add(28, input="pass", seat=6)
    s.vote((1, 2, 4, 5, 7))
    again = s.play()
    assert summary(again)["phase"] == "all_leave_vote"
    s.vote(tuple(range(1, yes + 1)))
    game = s.play()
    if leave:
        for seat in (3, 6):
            assert seat_json(game, seat)["out"] == {"how": "voted", "day": 1, "last_word_s": 30}
        assert current_turn(game) is not None and (
            current_turn(game).seat,
            current_turn(game).kind,
            current_turn(game).seconds,
        ) == (
            3,
            "last_word",
            30,
        )
    else:
        assert kinds(game, "all_stay") == [{"votes": yes}]
        assert seat_json(game, 3)["alive"] and seat_json(game, 6)["alive"]
        assert summary(game)["phase"] == "night"


def test_smaller_tie_in_the_revote_gives_another_round() -> None:
    """procedure (design.md 4): nine seats, three nominees tie 3-3-3; the revote ties
    two of them 4-4, so those two speak again and are revoted (no all-leave vote yet)."""
    s = Script(roles=TOURNAMENT_ROLES[:9]).speeches(1, 2, 3, s1=3, s2=6, s3=8)
    s.speeches(*range(4, 10)).vote((1, 2, 4), (5, 7, 9))  # the rest: 3, 6, 8 for 8
    s.add(25, input="pass", seat=3).add(25, input="pass", seat=6).add(25, input="pass", seat=8)
    s.vote((1, 2, 4, 3), (5, 7, 9, 6))  # 8 keeps only its own hand
    again = s.play()
    assert kinds(again, "tie") == [{"seats": [3, 6, 8]}, {"seats": [3, 6]}]
    assert summary(again)["phase"] == "tie_speech" and summary(again)["nominees"] == [3, 6]
    s.add(25, input="pass", seat=3).add(25, input="pass", seat=6).vote((1, 2, 4, 5, 7))
    game = s.play()
    assert seat_json(game, 3)["out"] == {"how": "voted", "day": 1, "last_word_s": 60}


# --- the night: procedure + 5.2 --------------------------------------------------------


@pytest.mark.parametrize(
    ("shots", "complete", "killed"),
    [
        ({3: 5, 6: 5, 8: 5}, True, 5),  # all three the same seat
        ({3: 5, 6: 5, 8: 4}, True, None),  # one shot elsewhere
        ({3: 5, 6: 5}, False, None),  # seat 8 did not shoot
        ({}, False, None),  # nobody shot
    ],
)
def test_night_kill_only_when_all_black_shoot_the_same_seat(
    shots: dict[int, int], complete: bool, killed: int | None
) -> None:
    """procedure (design.md 5): «the kill counts only if all living black players shoot
    the same seat, otherwise a miss»."""
    s = Script().speeches(*range(1, 11)).night(shots, complete, don=(6, 1), sheriff=(5, 2))
    game = s.play()
    assert game.day == 2
    outs = [s["seat"] for s in summary(game)["seats"] if not s["alive"]]
    assert outs == ([killed] if killed else [])
    assert bool(kinds(game, "miss")) == (killed is None)
    if killed:
        assert seat_json(game, killed)["out"] == {"how": "killed", "day": 1, "last_word_s": 60}
        assert current_turn(game) is not None and (
            current_turn(game).seat,
            current_turn(game).kind,
        ) == (killed, "last_word")


def test_a_voted_out_black_seat_no_longer_shoots() -> None:
    """procedure: «all living black players»: with seat 3 voted out, 6 and 8 suffice."""
    s = Script().speeches(1, 2, s1=3, s2=6).speeches(*range(3, 11)).vote((1, 2, 4, 5, 7, 9, 10))
    s.host_next(40).night({6: 5, 8: 5}, don=(6, 1), sheriff=(5, 2))
    game = s.play()
    assert seat_json(game, 5)["out"] == {"how": "killed", "day": 1, "last_word_s": 60}


def test_a_black_seat_removed_at_night_leaves_the_shot_to_the_others() -> None:
    """4.7.3 «"ночные" подсказки знаками и голосом Дону и Шерифу» + procedure: seat 8 is
    removed before it shoots; 3 and 6 are then all the living black and their shot
    kills. The step still runs until the host moves on (its length tells nothing).
    Seat 8 leaves without a last word (4.5)."""
    s = Script().speeches(*range(1, 11)).shots({3: 4, 6: 4})
    waiting = s.play()
    assert table_state(waiting).night_step == 0  # seat 8 has not shot yet
    s.add(2, input="offence", seat=8, offence="night_hints")
    removed = s.play()
    assert table_state(removed).night_step == 0 and removed.seat(8).out is not None
    s.host_next(0).add(5, input="check", seat=6, target=5).host_next(0)
    s.add(5, input="check", seat=5, target=3).host_next(0)
    game = s.play()
    assert seat_json(game, 4)["out"] == {"how": "killed", "day": 1, "last_word_s": 60}
    assert seat_json(game, 8)["out"] == {"how": "removed", "day": 1, "last_word_s": 0}
    assert (
        current_turn(game) is not None and current_turn(game).seat == 4
    )  # only the victim's last word


def test_a_civilian_cannot_shoot() -> None:
    """procedure: only the black team shoots."""
    s = Script().speeches(*range(1, 11))
    game = s.play()
    with pytest.raises(IllegalInput, match="does not act"):
        step(game, NightChoiceMade(4, 5, "shoot"))


@pytest.mark.parametrize(
    ("who", "target", "answer"),
    [
        ((6, "don"), 5, "yes"),  # the Don finds the Sheriff
        ((6, "don"), 3, "no"),
        ((5, "sheriff"), 3, "yes"),  # the Sheriff finds black: a mafioso ...
        ((5, "sheriff"), 6, "yes"),  # ... or the Don
        ((5, "sheriff"), 4, "no"),
    ],
)
def test_checks_are_answered_to_the_host_only(
    who: tuple[int, str], target: int, answer: str
) -> None:
    """procedure (design.md 5): the Don checks for the Sheriff, the Sheriff for black;
    the answer is a TellHost effect (nothing said aloud) and a protocol record."""
    seat, role = who
    s = Script().speeches(*range(1, 11)).shots({3: 1, 6: 1, 8: 1}).host_next(0)
    if role == "don":
        s.add(5, input="check", seat=seat, target=target)
    else:
        s.host_next(5).add(5, input="check", seat=seat, target=target)
    game, seen = effects_of(s)
    told = [e for e in seen if isinstance(e, TellHost) and e.what == "check"]
    assert len(told) == 1 and dict(told[0].args)["answer"] == answer
    assert kinds(game, "check") == [{"seat": seat, "target": target, "answer": answer}]


def test_checks_by_the_wrong_role_are_illegal() -> None:
    """procedure: in the Don's step only the Don checks."""
    s = Script().speeches(*range(1, 11)).shots({3: 1, 6: 1, 8: 1}).host_next(0)
    game = s.play()
    assert night_steps(game)[table_state(game).night_step].id == "don_check"
    with pytest.raises(IllegalInput):
        step(game, NightChoiceMade(5, 3, "check"))


def test_best_move_of_the_first_nights_victim() -> None:
    """procedure (design.md 5): the night-1 victim names up to three suspects in their
    last word; the host hears how many are black."""
    s = Script().speeches(*range(1, 11)).night({3: 1, 6: 1, 8: 1}, don=(6, 5), sheriff=(5, 3))
    s.add(10, input="best_move", seat=1, suspects=[3, 6, 9])
    game, seen = effects_of(s)
    assert kinds(game, "best_move") == [{"seat": 1, "suspects": [3, 6, 9], "black": 2}]
    assert TellHost("best_move", (("seat", 1), ("black", 2))) in seen
    with pytest.raises(IllegalInput, match="already"):
        step(game, BestMoveMade(1, (2,)))


def test_no_best_move_for_a_later_victim() -> None:
    """procedure: only the first night's victim; a miss on night 1 means no best move."""
    s = Script().speeches(*range(1, 11)).night({}, complete=False, don=(6, 5), sheriff=(5, 3))
    s.speeches(2, 3, 4, 5, 6, 7, 8, 9, 10, 1).night({3: 2, 6: 2, 8: 2}, don=(6, 4), sheriff=(5, 8))
    game = s.play()
    assert (
        game.day == 3 and current_turn(game) is not None and current_turn(game).kind == "last_word"
    )
    with pytest.raises(IllegalInput, match="first night"):
        step(game, BestMoveMade(2, (3, 6, 8)))


# --- 5.2 and 5.6: the end of a game -----------------------------------------------------


def test_three_misses_in_a_row_with_four_alive_give_red_the_game() -> None:
    """5.2 «Если в игре осталось четыре игрока, и три "ночи" подряд игрок "чёрной
    команды" допускает промах, то победа будет присуждена "красной" команде»: days
    without a nomination, nights without a shot."""
    s = to_four().host_next(40)  # day 4: seat 7's last word ends
    s = s.speeches(5, 6, 1, 2).night({}, complete=False, sheriff=(5, 6))  # miss 1
    s = s.speeches(6, 1, 2, 5).night({}, complete=False, sheriff=(5, 2))  # miss 2
    two = s.play()
    assert two.result is None and table_state(two).misses == 2 and two.day == 6
    s = s.speeches(1, 2, 5, 6).night({}, complete=False, sheriff=(5, 1))  # miss 3
    game = s.play()
    assert summary(game)["result"] == {
        "winners": ["red"],
        "losers": ["black"],
        "reason": "misses",
        "clause": "5.2",
    }
    assert len(kinds(game, "miss")) == 3 and summary(game)["phase"] == "ended"


def test_misses_before_four_alive_do_not_count() -> None:
    """5.2 counts only nights with four players at the table: a miss with ten does not."""
    s = Script().speeches(*range(1, 11)).night({}, complete=False, sheriff=(5, 6))
    game = s.play()
    assert kinds(game, "miss") and table_state(game).misses == 0


def test_a_kill_breaks_the_run_of_misses() -> None:
    """5.2 «три "ночи" подряд»: miss, miss, kill is no run of three."""
    s = to_four().host_next(40)
    s = s.speeches(5, 6, 1, 2).night({}, complete=False, sheriff=(5, 6))
    s = s.speeches(6, 1, 2, 5).night({}, complete=False, sheriff=(5, 2))
    s = s.speeches(1, 2, 5, 6).night({6: 2}, sheriff=(5, 1))
    game = s.play()
    assert game.result is None and table_state(game).misses == 0
    assert seat_json(game, 2)["out"] == {"how": "killed", "day": 6, "last_word_s": 60}


def test_draw_when_nobody_is_left() -> None:
    """5.6 «Ничья в игре признается, если за игровым столом не осталось ни одного
    игрока», reached by legal play: four at the table nominate all four, tie twice,
    and a strict majority (3 of 4) sends everyone out, 30 s of last word each (5.5)."""
    s = to_four().host_next(40)  # day 4 opens at seat 5
    s.speeches(5, 6, 1, 2, s5=6, s6=5, s1=1, s2=2).vote((1,), (2,), (5,))  # 1-1-1-1
    tie = s.play()
    assert kinds(tie, "tie") == [{"seats": [6, 5, 1, 2]}]
    for seat in (6, 5, 1, 2):
        s.add(25, input="pass", seat=seat)
    s.vote((1,), (2,), (5,))  # the same tie
    s.vote((1, 2, 5))  # all leave: 3 of 4
    out = s.play()
    assert [seat_json(out, n)["out"] for n in (1, 2, 5, 6)] == [
        {"how": "voted", "day": 4, "last_word_s": 30}
    ] * 4
    assert out.result is None  # their last words come first
    assert "[день 4] За уход всех голосуемых: 3 (голосовали: 1, 2, 5)" in protocol(out)
    for _ in range(4):
        s.host_next(25)
    game = s.play()
    assert summary(game)["result"] == {
        "winners": [],
        "losers": [],
        "reason": "nobody_left",
        "clause": "5.6",
    }


def test_red_wins_when_the_last_black_is_voted_out() -> None:
    """procedure (design.md 6): red wins when no black is left, after the last word."""
    s = to_four().host_next(40).speeches(5, 6, 1, 2, s5=6)
    last_word = s.play()
    assert last_word.result is None and seat_json(last_word, 6)["out"]["how"] == "voted"
    game = s.host_next(40).play()
    assert summary(game)["result"] == {
        "winners": ["red"],
        "losers": ["black"],
        "reason": "eliminated",
        "clause": None,
    }


def test_black_wins_on_parity() -> None:
    """procedure (design.md 6): black wins when black ≥ red: from four (1 black, 3 red),
    a red voted out by day and a red killed by night leave one against one."""
    s = to_four().host_next(40).speeches(5, 6, 1, 2, s6=1).host_next(40)  # 1 voted out
    s.night({6: 2}, sheriff=(5, 6))
    game = s.play()
    assert summary(game)["result"] == {
        "winners": ["black"],
        "losers": ["red"],
        "reason": "parity",
        "clause": None,
    }


# --- the day: opener, undo, illegal inputs --------------------------------------------


def speech_order(game: Game) -> list[int]:
    return [turn.seat for turn in table_state(game).turns if turn.kind == "speech"]


def test_opener_rotates_day_by_day() -> None:
    """procedure (design.md 2): day 1 opens at the first speaker; each later day at the
    next living seat after the previous opener (a seat killed in the night is skipped)."""
    s = Script(first_speaker=3)
    day1 = s.play()
    assert table_state(day1).opener == 3 and speech_order(day1) == [3, 4, 5, 6, 7, 8, 9, 10, 1, 2]
    s.speeches(3, 4, 5, 6, 7, 8, 9, 10, 1, 2).night({3: 4, 6: 4, 8: 4}, don=(6, 5), sheriff=(5, 3))
    day2 = s.play()
    assert table_state(day2).opener == 5  # 4 was killed
    assert speech_order(day2) == [5, 6, 7, 8, 9, 10, 1, 2, 3]
    s.host_next(40).speeches(5, 6, 7, 8, 9, 10, 1, 2, 3)
    s.night({}, complete=False, don=(6, 1), sheriff=(5, 6))
    day3 = s.play()
    assert table_state(day3).opener == 6 and speech_order(day3)[0] == 6


def test_undo_takes_back_the_last_input() -> None:
    """procedure (issue 2: «The host can undo the last input»): a mistaken nomination,
    a mistaken foul and a mistaken team loss are each taken back."""
    s = Script().add(10, input="nominate", by=1, target=3).add(1, input="undo")
    game = s.play()
    assert summary(game)["nominees"] == [] and seat_json(game, 1)["may_nominate"]
    s.add(2, input="nominate", by=1, target=8)
    assert summary(s.play())["nominees"] == [8]
    s.add(5, input="offence", seat=4, offence="4.6.2").add(1, input="undo")
    assert seat_json(s.play(), 4)["offences"] == 0
    s.add(5, input="offence", seat=4, offence="4.8.3").add(1, input="undo")
    game = s.play()
    assert game.result is None and summary(game)["phase"] == "speech"
    assert current_turn(game) is not None and current_turn(game).seat == 1


def test_undo_restores_the_running_minute() -> None:
    """procedure: undoing a «Пас» gives the speaker back the rest of the same
    minute: paused with the 40 s it had at the «Пас» (issue 23), running
    again when the host lets it."""
    s = Script().add(20, input="pass", seat=1).add(1, input="undo").add(1, input="resume")
    s.add(39.9, input="wait")
    running = s.play()
    assert (
        current_turn(running) is not None
        and current_turn(running).seat == 1
        and not table_state(running).turn_over
    )
    game = s.add(0.2, input="wait").play()  # 40 s after the host let it run again
    assert (
        current_turn(game) is not None
        and current_turn(game).seat == 1
        and table_state(game).turn_over
    )


def test_nothing_to_undo_at_the_start() -> None:
    """procedure: undo before any input is illegal."""
    game = play({"at": 0, **setup("tournament", TOURNAMENT_ROLES)})
    with pytest.raises(IllegalInput, match="nothing to undo"):
        step(game, Undone())


def _after_night_one() -> Script:
    """Day 2, seat 1 killed at night, in seat 2's minute."""
    s = Script().speeches(*range(1, 11)).night({3: 1, 6: 1, 8: 1}, don=(6, 5), sheriff=(5, 3))
    return s.host_next(40)


ILLEGAL: list[tuple[str, Any, Line, str]] = [
    (
        "nominating outside one's speech",
        Script,
        {"input": "nominate", "by": 5, "target": 3},
        "own speech",
    ),
    (
        "nominating twice a day",
        lambda: Script().add(10, input="nominate", by=1, target=3),
        {"input": "nominate", "by": 1, "target": 6},
        "already nominated today",
    ),
    (
        "nominating a seat already nominated",
        lambda: Script().speech(1, nominate=3),
        {"input": "nominate", "by": 2, "target": 3},
        "already nominated",
    ),
    (
        "nominating after the minute is up",
        lambda: Script().add(61, input="wait"),
        {"input": "nominate", "by": 1, "target": 3},
        "too late",
    ),
    (
        "nominating an out seat",
        _after_night_one,
        {"input": "nominate", "by": 2, "target": 1},
        "out of the game",
    ),
    (
        "a foul for an out seat",
        _after_night_one,
        {"input": "offence", "seat": 1, "offence": "4.6.1"},
        "out of the game",
    ),
    (
        "a shot by a civilian",
        lambda: Script().speeches(*range(1, 11)),
        {"input": "shot", "seat": 4, "target": 5},
        "does not act",
    ),
    (
        "a shot at an out seat",
        lambda: _after_night_one().speeches(2, 3, 4, 5, 6, 7, 8, 9, 10),
        {"input": "shot", "seat": 3, "target": 1},
        "out of the game",
    ),
    (
        "a check in the shooting step",
        lambda: Script().speeches(*range(1, 11)),
        {"input": "check", "seat": 6, "target": 5},
        "takes a shoot",
    ),
    ("«Пас» by a seat that is not speaking", Script, {"input": "pass", "seat": 2}, "not speaking"),
    (
        "an offence the ruleset does not have",
        Script,
        {"input": "offence", "seat": 2, "offence": "4.9.9"},
        "no offence",
    ),
    (
        "a best move by a seat that was not killed",
        _after_night_one,
        {"input": "best_move", "seat": 2, "suspects": [3, 6, 8]},
        "last word",
    ),
    (
        "a nomination during the vote",
        lambda: Script().speeches(1, 2, s1=3, s2=6).speeches(*range(3, 11)),
        {"input": "nominate", "by": 4, "target": 8},
        "not allowed in phase vote",
    ),
]


@pytest.mark.parametrize(
    ("what", "prefix", "line", "message"), ILLEGAL, ids=[i[0] for i in ILLEGAL]
)
def test_illegal_input_raises_and_changes_nothing(
    what: str, prefix: Any, line: Line, message: str
) -> None:
    """procedure (design.md «The software»): an illegal input raises IllegalInput with a
    clear message and the game is unchanged, through the engine and through the table."""
    table = ScriptReplay()
    prefix().play(table)
    before = table.game
    assert before is not None
    snapshot = summary(before)
    (parsed,) = parse_lines([json.dumps(line)], "test", load_ruleset, start_at=table.now)
    assert parsed.event is not None
    with pytest.raises(IllegalInput, match=message):
        step(before, parsed.event)
    with pytest.raises(ScriptError, match=message):
        table.feed(parsed)
    assert table.game is before and summary(before) == snapshot
