"""The club ruleset (seed 000, «Замечания и удаление») played through the engine.

Clauses are cited as rulesets/club.toml numbers them: "<section>.<bullet>",
the bullets of each list counted from 1 (remarks.1–9, removal.1–9,
team_loss.1–7, ladder.3/4, rating.1); sentences without a bullet are quoted.

Every game here runs on the fake clock of ``companion.runner.replay.ScriptReplay`` with the
same ten seats unless a test says otherwise.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from companion.config.rulesets import load_ruleset
from companion.core import engine, views
from companion.core.effects import Effect, Ignored, Say
from companion.core.events import GameSetUp, HostAdvanced, Nominated, OffenceGiven, TeamSurrendered
from companion.core.rules import MissRule, Offence
from companion.core.sports.night import steps as night_steps
from companion.core.sports.state import current_turn
from companion.core.sports.state import table as table_state
from companion.core.state import Game, Result
from companion.core.step import IllegalInput
from companion.protocol import report
from companion.runner.replay import ScriptReplay
from companion.runner.script import parse_lines

CLUB = load_ruleset("club")

#: 1 civilian, 2 sheriff, 3 mafia, 4 civilian, 5 doctor, 6 don, 7 putana,
#: 8 civilian, 9 maniac, 10 mafia
ROLES = [
    "civilian", "sheriff", "mafia", "civilian", "doctor",
    "don", "putana", "civilian", "maniac", "mafia",
]  # fmt: skip
CIVILIANS, MAFIA, MANIAC = "civilians", "mafia", "maniac"
_ACTIONS = {"shot": "shoot"}  # script alias -> night action


class Club:
    """A club table on the fake clock. Call it with script lines (dicts); it
    keeps every effect the engine ordered."""

    def __init__(self, roles: list[str] | None = None, **extra: Any) -> None:
        self.effects: list[Effect] = []
        self.table = ScriptReplay(on_effects=lambda _now, effects: self.effects.extend(effects))
        self({"input": "setup", "ruleset": "club", "roles": roles or ROLES, **extra})

    def __call__(self, *lines: dict[str, Any]) -> Game:
        texts = [json.dumps(line) for line in lines]
        parsed = parse_lines(texts, "test", load_ruleset, start_at=self.table.now)
        self.table.run(parsed)
        return self.game

    # --- reading -------------------------------------------------------------
    @property
    def game(self) -> Game:
        assert self.table.game is not None
        return self.table.game

    @property
    def json(self) -> dict[str, Any]:
        return report.summary(self.game)

    def seat(self, number: int) -> dict[str, Any]:
        seat: dict[str, Any] = self.json["seats"][number - 1]
        return seat

    def records(self, kind: str) -> list[dict[str, object]]:
        return [{"day": r.day, **dict(r.data)} for r in report.records(self.game) if r.kind == kind]

    def said(self, cue: str) -> list[dict[str, int | str]]:
        """The arguments of every Say of ``cue`` so far."""
        return [dict(e.args) for e in self.effects if isinstance(e, Say) and e.cue == cue]

    @property
    def phase(self) -> str:
        return str(self.json["phase"])

    # --- playing -------------------------------------------------------------
    def to_day_one(self) -> Game:
        """Night 0 runs its own time: agreement 60 s, free seating 20 s."""
        game = self({"input": "wait", "after": 80})
        assert (
            self.phase == "speech"
            and current_turn(game) is not None
            and current_turn(game).seat == 1
        )
        return game

    def speak_until(self, number: int, kind: str = "speech") -> Game:
        """The host ends turns (after 20 s each) until ``number`` has the floor."""
        for _ in range(40):
            turn = current_turn(self.game)
            if turn is not None and turn.seat == number and turn.kind == kind:
                return self.game
            assert self.game.phase == "speeches", f"no {kind} of seat {number} ahead"
            self({"input": "next", "after": 20})
        raise AssertionError(f"seat {number} never got a {kind}")

    def end_speeches(self) -> Game:
        while self.game.phase == "speeches":
            self({"input": "next", "after": 20})
        return self.game

    def night(self, *choices: tuple[str, int, int]) -> Game:
        """Enter the night choices (3 s apart) in their steps; the host moves on
        («next», 2 s) from a step nobody chooses in, and so on to morning."""
        assert self.game.phase == "night"
        for action, seat, target in choices:
            while not self._step_takes(_ACTIONS.get(action, action), seat):
                self({"input": "next", "after": 2})
            self({"input": action, "seat": seat, "target": target, "after": 3})
        while self.game.phase == "night":
            self({"input": "next", "after": 2})
        return self.game

    def _step_takes(self, action: str, seat: int) -> bool:
        game = self.game
        assert game.phase == "night", f"the night is over before the {action} of seat {seat}"
        step = night_steps(game)[table_state(game).night_step]
        return step.action == action and game.seat(seat).role in step.roles

    def vote(self, *voters: int) -> Game:
        """Hands on the table in the open window, «Спасибо», «Принято», hands up."""
        assert self.phase == "vote"
        for voter in voters:
            self({"input": "press", "seat": voter, "after": 0.1})
        assert self.phase == "vote", "the window closed before the last hand"
        self({"input": "next", "after": 0.3})  # «Спасибо»
        self({"input": "next", "after": 1})  # «… Принято»
        for voter in voters:
            self({"input": "release", "seat": voter})
        return self.game


def nominated(club: Club, *pairs: tuple[int, int]) -> None:
    """From day 1's start: each (by, target) nominates in by's speech, then the vote opens."""
    club.to_day_one()
    for by, target in pairs:
        club.speak_until(by)
        club({"input": "nominate", "by": by, "target": target, "after": 10})
    club.end_speeches()


def has(seat: dict[str, Any], **expected: object) -> bool:
    """The seat's JSON shows (at least) these values."""
    return {key: seat[key] for key in expected} == expected


def votes_for(club: Club, nominee: int) -> list[int]:
    (record,) = [r for r in club.records("votes") if r["nominee"] == nominee]
    voters = record["voters"]
    assert isinstance(voters, list)
    return voters


# -- the catalogue ------------------------------------------------------------

#: Every offence of rulesets/club.toml: its clause and what it costs.
CATALOGUE: dict[str, tuple[str, str]] = {
    "warning": ("general.2", "warning"),
    "speech_out_of_turn": ("remarks.1", "count"),
    "excessive_gestures": ("remarks.2", "count"),
    "gestures_during_vote": ("remarks.3", "count"),
    "touching_voter": ("remarks.4", "count"),
    "shouting": ("remarks.5", "count"),
    "provoking_host_in_vote": ("remarks.6", "count"),
    "hand_release_before_accepted": ("remarks.7", "count"),
    "addressing_host": ("remarks.8", "count"),
    "incorrect_statements": ("remarks.9", "count"),
    "incorrect_statements_removal": ("remarks.9", "removal"),
    "oath_phrases": ("removal.2", "removal"),
    "deliberate_peeking": ("removal.3", "removal"),
    "unintentional_peeking": ("removal.3", "removal_at_morning"),
    "night_gestures_talk_touch": ("removal.4", "removal"),
    "tears": ("removal.5", "removal"),
    "swearing": ("removal.6", "removal"),
    "physical_objects": ("removal.7", "removal"),
    "night_info_appeal": ("removal.8", "removal"),
    "insults": ("removal.9", "removal"),
    "bet_offer": ("team_loss.1", "team_loss"),
    "threats_bribery": ("team_loss.2", "team_loss"),
    "outside_hint": ("team_loss.3", "team_loss"),
    "proving_role_with_objects": ("team_loss.4", "team_loss"),
    "overtime_last_word": ("team_loss.5", "team_loss"),
    "mafia_maniac_deal": ("team_loss.6", "team_loss"),
    "leaving_with_last_word": ("team_loss.7", "team_loss"),
    "self_leaving": ("rating.1", "removal"),
}

#: Offences that happen at night (removal.3, removal.4); the rest are given on day 1.
AT_NIGHT = {"deliberate_peeking", "unintentional_peeking", "night_gestures_talk_touch"}


def test_catalogue_lists_every_club_offence() -> None:
    """«Все нарушения правил фиксируются Ведущим!»: each offence the text names
    is one entry; this table has to follow the ruleset."""
    assert {o.id: (o.clause, o.cost) for o in CLUB.offences} == CATALOGUE


@pytest.mark.parametrize("offence", CLUB.offences, ids=lambda o: o.id)
def test_every_offence_costs_what_the_text_says(offence: Offence) -> None:
    """Each entry given once through the engine, to civilian seat 4 (the deal of
    mafia and maniac, team_loss.6, to mafia seat 10)."""
    offender = 10 if offence.id == "mafia_maniac_deal" else 4
    club = Club()
    club.to_day_one()
    if offence.id in AT_NIGHT:
        club.end_speeches()  # no nominations: straight to night 1
        assert club.phase == "night"
    else:
        club({"input": "wait", "after": 15})  # seat 1 is speaking
    when = club.game.day
    club({"input": "offence", "seat": offender, "offence": offence.id, "after": 1})

    assert {
        "day": when,
        "seat": offender,
        "offence": offence.id,
        "clause": offence.clause,
    } in club.records("offence")
    seat = club.seat(offender)
    if offence.cost == "warning":  # general.2 «устно предупреждён»
        assert seat["offences"] == 0 and seat["alive"]
        assert club.said("warning") == [{"seat": offender}]
    elif offence.cost == "count":  # «ставятся замечания»
        assert seat["offences"] == 1 and seat["alive"]
    elif offence.cost == "removal":  # «удаление участника из игры без права последнего слова»
        assert seat["out"] == {"how": "removed", "day": when, "last_word_s": 0}
        assert not any(
            t.seat == offender and t.kind == "last_word" for t in table_state(club.game).turns
        )
        assert club.json["result"] is None
    elif offence.cost == "removal_at_morning":  # removal.3 «как только Ведущий объявит ... Утро»
        assert seat["alive"] and club.phase == "night"
        club.night()
        assert club.seat(offender)["out"] == {"how": "removed", "day": 2, "last_word_s": 0}
        assert not any(t.kind == "last_word" for t in table_state(club.game).turns)
    else:  # «Автоматическое присуждение поражения команде»
        assert offence.cost == "team_loss"
        losers = [MAFIA, MANIAC] if offence.id == "mafia_maniac_deal" else [CIVILIANS]
        winners = [CIVILIANS] if offence.id == "mafia_maniac_deal" else [MAFIA, MANIAC]
        assert club.json["result"] == {
            "winners": winners,
            "losers": losers,
            "reason": "team_loss",
            "clause": offence.clause,
        }
        assert club.phase == "ended"

    # removal.3 «вплоть до исключения из клуба»; rating.1 «лишается 10 баллов в рейтинге»
    lines = report.protocol(club.game)
    assert any("исключён из клуба" in line for line in lines) == offence.excluded
    assert any("рейтинг −10" in line for line in lines) == (offence.rating_penalty == 10)


def test_an_offence_is_found_by_its_clause_too() -> None:
    """The host may name the clause: "removal.6" is «мат за игровым столом»."""
    club = Club()
    club.to_day_one()
    club({"input": "offence", "seat": 4, "offence": "removal.6", "after": 5})
    assert club.records("offence")[-1]["offence"] == "swearing"
    assert club.seat(4)["out"] == {"how": "removed", "day": 1, "last_word_s": 0}


@pytest.mark.parametrize(
    "offence", [o for o in CLUB.offences if not o.while_out], ids=lambda o: o.id
)
def test_offences_at_the_table_cannot_be_given_to_a_seat_that_is_out(offence: Offence) -> None:
    """«Правила фиксации нарушений действуют на протяжении всего периода, пока
    участник находится за игровым столом.»"""
    club = Club()
    club.to_day_one()
    club({"input": "offence", "seat": 4, "offence": "swearing", "after": 5})
    before = club.game
    with pytest.raises(IllegalInput, match="out of the game"):
        engine.step(before, OffenceGiven(4, offence.id))


@pytest.mark.parametrize(
    "offence_id", ["outside_hint", "proving_role_with_objects", "leaving_with_last_word"]
)
def test_info_after_leaving_costs_the_team_the_game(offence_id: str) -> None:
    """team_loss.3 «озвучивание игровой информации игроком, ... выбывшим из нее»,
    team_loss.4 «в момент и после заключительного слова», team_loss.7 «покидая
    стол, озвучил игровую информацию»: given to a seat that has left (mafia seat 3,
    removed for an oath, removal.2); the mafia loses, civilians and maniac share the win."""
    club = Club()
    club.to_day_one()
    club({"input": "offence", "seat": 3, "offence": "oath_phrases", "after": 5})
    club({"input": "offence", "seat": 3, "offence": offence_id, "after": 2})
    assert club.json["result"] == {
        "winners": [CIVILIANS, MANIAC],
        "losers": [MAFIA],
        "reason": "team_loss",
        "clause": CATALOGUE[offence_id][0],
    }


# -- the ladder ---------------------------------------------------------------


def remarks(club: Club, seat: int, count: int) -> None:
    for _ in range(count):
        club({"input": "offence", "seat": seat, "offence": "shouting", "after": 3})


def test_three_remarks_cost_the_next_days_speech_only() -> None:
    """ladder.3 «Игрок, набравший три замечания, в следующем Дневном обсуждении
    лишен возможности высказаться, имеет право только на выставление кандидатуры
    и голосование.»"""
    club = Club()
    club.to_day_one()
    remarks(club, 4, 3)  # while seat 1 speaks
    assert {"day": 1, "seat": 4, "at": 3, "clause": "ladder.3"} in club.records("ladder")
    # Today's discussion is not the next one: seat 4 still speaks on day 1.
    assert club.seat(4)["next_speech_s"] == 60
    club.speak_until(4)
    assert current_turn(club.game) is not None and current_turn(club.game).seconds == 60
    club.end_speeches()
    assert club.phase == "night"
    assert has(club.seat(4), next_speech_s=0, may_nominate=True, may_vote=True)
    club.night()

    # Day 2 (opened by seat 2): seat 4 has no minute, but nominates and votes.
    assert club.game.day == 2 and club.seat(4)["offences"] == 0  # «После каждой ночи ...»
    club({"input": "nominate", "by": 4, "target": 10, "after": 5})  # during seat 2's minute
    club.speak_until(5)
    assert {"day": 2, "seat": 4, "kind": "speech"} in club.records("speech_lost")
    club({"input": "nominate", "by": 5, "target": 3, "after": 5})
    club.end_speeches()
    assert club.json["nominees"] == [10, 3]
    club.vote(4, 8)
    assert votes_for(club, 10) == [4, 8]

    # Day 3: the penalty is spent.
    club.end_speeches()  # seat 10's last word
    club.night()
    assert club.game.day == 3
    assert club.seat(4)["next_speech_s"] == 60


def test_four_remarks_cost_speech_nomination_and_vote_next_day() -> None:
    """ladder.4 «Игрок, набравший четыре замечания, в следующем Дневном
    обсуждении лишен возможности высказаться, а также не имеет права на
    выставление кандидатуры и голосование.»"""
    club = Club()
    club.to_day_one()
    remarks(club, 4, 4)
    assert [r["at"] for r in club.records("ladder")] == [3, 4]
    # Day 1 is untouched: seat 4 may still nominate and vote today.
    assert club.seat(4)["may_nominate"] and club.seat(4)["may_vote"]
    club.end_speeches()
    club.night()

    assert club.game.day == 2
    assert has(club.seat(4), next_speech_s=0, may_nominate=False, may_vote=False)
    before = club.game
    with pytest.raises(IllegalInput, match="may not nominate"):
        engine.step(before, Nominated(4, 3))
    club({"input": "nominate", "by": 2, "target": 3, "after": 5})
    club.speak_until(5)
    assert {"day": 2, "seat": 4, "kind": "speech"} in club.records("speech_lost")
    club({"input": "nominate", "by": 5, "target": 10, "after": 5})
    club.end_speeches()

    club({"input": "press", "seat": 4, "after": 0.3})  # in the window for seat 3
    assert any(isinstance(e, Ignored) and "seat 4 may not vote" in e.reason for e in club.effects)
    club.vote(1)
    assert votes_for(club, 3) == [1]
    # Not counted for the last nominee either.
    assert 4 not in votes_for(club, 10)
    assert len(votes_for(club, 10)) == 8  # ten seats, one voted for 3, seat 4 has no vote


def test_fifth_remark_removes_without_last_word() -> None:
    """«Игрок, набравший пять замечаний, должен покинуть игровой стол без права
    последнего слова» = removal.1 «игрок набрал 5 замечаний в одном дневном обсуждении»."""
    club = Club()
    club.to_day_one()
    remarks(club, 4, 5)
    assert {"day": 1, "seat": 4, "at": 5, "clause": "removal.1"} in club.records("ladder")
    assert club.seat(4)["out"] == {"how": "removed", "day": 1, "last_word_s": 0}
    assert {"day": 1, "seat": 4, "how": "removed", "clause": "removal.1"} in club.records("out")
    assert not any(t.kind == "last_word" for t in table_state(club.game).turns)
    assert club.phase == "speech" and club.json["result"] is None


def test_fifth_remark_of_the_speaker_ends_the_speech() -> None:
    """removal.1 during one's own minute: the speaker leaves at once, the next
    seat takes the floor, no last word."""
    club = Club()
    club.to_day_one()
    remarks(club, 1, 5)
    assert club.seat(1)["out"]["how"] == "removed"
    assert current_turn(club.game) is not None and (
        current_turn(club.game).seat,
        current_turn(club.game).kind,
    ) == (
        2,
        "speech",
    )


def test_remarks_are_cancelled_after_every_night() -> None:
    """«После каждой ночи замечания аннулируются.»: two remarks on day 1 and two
    on day 2 never reach the third step."""
    club = Club()
    club.to_day_one()
    remarks(club, 4, 2)
    club.end_speeches()
    club.night()
    assert club.seat(4)["offences"] == 0
    assert club.records("counts_reset") == [
        {"day": 1, "clause": "После каждой ночи замечания аннулируются"}
    ]
    remarks(club, 4, 2)
    assert club.seat(4)["offences"] == 2
    assert club.records("ladder") == []
    club.end_speeches()
    club.night()
    assert has(club.seat(4), offences=0, next_speech_s=60)


def test_an_earned_penalty_survives_the_reset() -> None:
    """ladder.3 bites «в следующем Дневном обсуждении» although the remarks
    themselves are cancelled by the night between; a remark on day 2 then
    starts from 1."""
    club = Club()
    club.to_day_one()
    remarks(club, 4, 3)
    club.end_speeches()
    club.night()
    assert has(club.seat(4), offences=0, next_speech_s=0)
    remarks(club, 4, 1)
    assert club.seat(4)["offences"] == 1
    assert [r["at"] for r in club.records("ladder")] == [3]


def test_remarks_at_night_count_until_morning() -> None:
    """«Правила фиксации нарушений действуют на протяжении всего периода, пока
    участник находится за игровым столом.»: a third remark given at night costs
    the speech of the day that follows, and is cancelled by that morning."""
    club = Club()
    club.to_day_one()
    remarks(club, 4, 2)
    club.end_speeches()
    remarks(club, 4, 1)
    assert {"day": 1, "seat": 4, "at": 3, "clause": "ladder.3"} in club.records("ladder")
    club.night()
    assert has(club.seat(4), offences=0, next_speech_s=0)


# -- voting -------------------------------------------------------------------


def test_hand_lifted_between_thanks_and_accepted_is_proposed_and_counts() -> None:
    """remarks.7 «отрыв руки на голосовании с момента произнесения Ведущим слова
    «Спасибо» до момента произнесения Ведущим слова «Принято», голос при этом
    засчитывается»: the buttons propose the remark; the host gives it."""
    club = Club()
    nominated(club, (1, 3), (2, 6))
    club({"input": "press", "seat": 5, "after": 0.3})
    club({"input": "next", "after": 1})  # «Спасибо»
    assert club.phase == "count"
    club({"input": "release", "seat": 5, "after": 0.4})
    assert club.json["proposals"] == [
        {
            "seat": 5,
            "offence": "hand_release_before_accepted",
            "reason": "hand lifted before «Принято»",
        }
    ]
    club({"input": "next", "after": 0.6})  # «Принято»
    assert votes_for(club, 3) == [5]
    club({"input": "offence", "seat": 5, "offence": "hand_release_before_accepted", "after": 1})
    assert club.json["proposals"] == []
    assert club.seat(5)["offences"] == 1


def test_hand_lifted_after_accepted_is_no_offence() -> None:
    """The text sanctions the lift only until «Принято»."""
    club = Club()
    nominated(club, (1, 3), (2, 6))
    club.vote(5, 7)  # released after «Принято»
    assert club.json["proposals"] == []
    assert votes_for(club, 3) == [5, 7]


def test_hand_lifted_before_thanks_takes_the_vote_back() -> None:
    """Club choice (voting.release_before_thanks = "withdraw"): the text punishes
    only the lift after «Спасибо», so a hand lifted before it is no vote; that
    seat is then counted for the last nominee like everyone who has not voted."""
    club = Club()
    nominated(club, (1, 3), (2, 6))
    club({"input": "press", "seat": 5, "after": 0.3})
    club({"input": "release", "seat": 5, "after": 0.4})
    club.vote(7)
    assert club.json["proposals"] == []
    assert votes_for(club, 3) == [7]
    assert 5 in votes_for(club, 6)


def test_vote_for_oneself_is_proposed_as_provoking_the_host() -> None:
    """remarks.6 «провокация Ведущего во время всей процедуры голосования
    (например: голосование «в себя» ...)». The vote itself stands."""
    club = Club()
    nominated(club, (1, 3), (2, 6))
    club.vote(3, 1)
    assert club.json["proposals"] == [
        {"seat": 3, "offence": "provoking_host_in_vote", "reason": "voted for themself"}
    ]
    assert votes_for(club, 3) == [1, 3]


def test_second_vote_is_proposed_as_provoking_the_host_and_ignored() -> None:
    """remarks.6 «... голосование против нескольких выставленных кандидатур»."""
    club = Club()
    nominated(club, (1, 3), (2, 6), (3, 9))
    club.vote(1, 2)
    club.vote(1, 4)  # seat 1 again, for seat 6
    assert club.json["proposals"] == [
        {"seat": 1, "offence": "provoking_host_in_vote", "reason": "voted for a second nominee"}
    ]
    assert votes_for(club, 3) == [1, 2]
    assert votes_for(club, 6) == [4]
    assert 1 not in votes_for(club, 9)


def test_host_dismisses_a_proposal() -> None:
    """«Все нарушения правил фиксируются Ведущим!»: a proposal costs nothing
    until the host gives it; dismissed, it is gone."""
    club = Club()
    nominated(club, (1, 3), (2, 6))
    club.vote(3)
    club({"input": "dismiss", "index": 0, "after": 1})
    assert club.json["proposals"] == []
    assert club.seat(3)["offences"] == 0
    assert club.records("proposal_dismissed") == [
        {"day": 1, "seat": 3, "offence": "provoking_host_in_vote"}
    ]


def test_day_one_single_nominee_is_not_voted() -> None:
    """Club choice (voting.day1_single_nominee_no_vote, the common procedure)."""
    club = Club()
    nominated(club, (1, 3))
    assert club.phase == "night"
    assert club.records("no_vote") == [{"day": 1, "reason": "day1_single_nominee", "nominee": 3}]


def test_most_votes_leave_with_a_thirty_second_last_word() -> None:
    """team_loss.5 «30 секунд завершающего слова при уходе из игры»: the club's
    last word is 30 s (timings.last_word_s)."""
    club = Club()
    nominated(club, (1, 3), (2, 6))
    club.vote(1, 2, 4)
    assert votes_for(club, 6) == [3, 5, 6, 7, 8, 9, 10]
    assert club.seat(6)["out"] == {"how": "voted", "day": 1, "last_word_s": 30}
    assert club.phase == "last_word"
    assert club.said("last_word_start")[-1] == {"seat": 6, "seconds": 30}


# -- the final word and the Maniac exception -------------------------------------


def test_talking_past_the_thirty_seconds_costs_the_team_the_game() -> None:
    """team_loss.5 «игрок, продолжает говорить по окончании 30 секунд
    завершающего слова при уходе из игры». The timer only marks the overrun
    (fast blink, «Стоп»); the host gives the offence."""
    club = Club()
    nominated(club, (1, 3), (2, 6))
    club.vote(1, 2, 4)  # the don, seat 6, leaves
    club({"input": "wait", "after": 29})
    assert not table_state(club.game).turn_over
    club({"input": "wait", "after": 2})
    assert (
        table_state(club.game).turn_over and club.phase == "last_word"
    )  # not cut off by the engine
    assert views.lights(club.game)[5] == "fast_blink"
    assert {"day": 1, "seat": 6} in club.records("overrun")
    club({"input": "offence", "seat": 6, "offence": "overtime_last_word", "after": 3})
    assert club.json["result"] == {
        "winners": [CIVILIANS, MANIAC],
        "losers": [MAFIA],
        "reason": "team_loss",
        "clause": "team_loss.5",
    }


def test_a_last_word_ended_in_time_goes_to_night() -> None:
    club = Club()
    nominated(club, (1, 3), (2, 6))
    club.vote(1, 2, 4)
    club({"input": "pass", "seat": 6, "after": 25})
    assert club.phase == "night" and club.json["result"] is None


def test_civilian_speaking_on_leaving_loses_for_the_civilians() -> None:
    """team_loss.7 «участник, нарушивший правила, являлся игроком Мирной команды
    ... и, покидая стол, озвучил игровую информацию ... - в этом случае команде
    Мирных жителей засчитывается поражение, а победа делится между оставшимися
    за столом командами»."""
    club = Club()
    club.to_day_one()
    club({"input": "offence", "seat": 5, "offence": "insults", "after": 10})  # the doctor
    club({"input": "offence", "seat": 5, "offence": "leaving_with_last_word", "after": 2})
    assert club.json["result"] == {
        "winners": [MAFIA, MANIAC],
        "losers": [CIVILIANS],
        "reason": "team_loss",
        "clause": "team_loss.7",
    }


def test_shared_win_goes_only_to_teams_still_at_the_table() -> None:
    """«победа делится между оставшимися за столом командами»: with the Maniac
    gone, the mafia alone wins when the civilians lose."""
    club = Club()
    club.to_day_one()
    club({"input": "offence", "seat": 9, "offence": "tears", "after": 10})
    club({"input": "offence", "seat": 4, "offence": "bet_offer", "after": 10})
    assert club.json["result"] == {
        "winners": [MAFIA],
        "losers": [CIVILIANS],
        "reason": "team_loss",
        "clause": "team_loss.1",
    }


def test_maniac_speaking_on_leaving_just_leaves() -> None:
    """team_loss.7 «правило не распространяется на игрока, получившего роль
    Маньяка. В этом случае Ведущий объявит: «Наш игровой стол покинул Маньяк» и
    игра продолжится между оставшимися командами (Мирными и Мафией).»"""
    club = Club()
    club.to_day_one()
    club({"input": "offence", "seat": 9, "offence": "swearing", "after": 10})
    assert club.said("removed")[-1] == {"seat": 9, "reason": "offence"}
    club({"input": "offence", "seat": 9, "offence": "leaving_with_last_word", "after": 2})
    assert club.said("maniac_left") == [{"seat": 9}]
    assert club.json["result"] is None and club.phase == "speech"


def test_maniac_given_the_team_loss_at_the_table_is_removed() -> None:
    """team_loss.7 for a Maniac still seated: a plain removal with the cue
    "maniac_left", no last word, and the game goes on."""
    club = Club()
    club.to_day_one()
    club({"input": "offence", "seat": 9, "offence": "leaving_with_last_word", "after": 10})
    assert club.seat(9)["out"] == {"how": "removed", "day": 1, "last_word_s": 0}
    assert club.said("maniac_left") == [{"seat": 9}]
    assert club.json["result"] is None and club.phase == "speech"


def test_maniac_loses_for_other_team_losses() -> None:
    """The exception is team_loss.7's only: a bet offered by the Maniac
    (team_loss.1) loses the game for him, the other two teams share the win."""
    club = Club()
    club.to_day_one()
    club({"input": "offence", "seat": 9, "offence": "bet_offer", "after": 10})
    assert club.json["result"] == {
        "winners": [CIVILIANS, MAFIA],
        "losers": [MANIAC],
        "reason": "team_loss",
        "clause": "team_loss.1",
    }


# -- −10 rating and surrender -------------------------------------------------


@pytest.mark.parametrize(("seat", "penalty"), [(4, 10), (6, 10), (9, 0)])
def test_leaving_the_table_oneself_costs_ten_rating_points(seat: int, penalty: int) -> None:
    """rating.1 «Игрок, самостоятельно покинувший игровой стол во время игры,
    лишается 10 баллов в рейтинге текущего сезона.» «Правило -10 не применяется
    в случае, если ... игрок являлся «Маньяком».»"""
    club = Club()
    club.to_day_one()
    club({"input": "offence", "seat": seat, "offence": "self_leaving", "after": 10})
    assert club.seat(seat)["out"] == {"how": "removed", "day": 1, "last_word_s": 0}
    assert club.game.seat(seat).rating_penalty == penalty
    lines = report.protocol(club.game)
    assert any("рейтинг −10" in line for line in lines) == bool(penalty)


@pytest.mark.parametrize(
    ("team", "winners"),
    [(MAFIA, [CIVILIANS, MANIAC]), (CIVILIANS, [MAFIA, MANIAC]), (MANIAC, [CIVILIANS, MAFIA])],
)
def test_a_whole_team_surrenders_without_rating_penalty(team: str, winners: list[str]) -> None:
    """«Правило -10 не применяется в случае, если команда решила сдаться полным
    составом»: the team loses, nobody loses rating points."""
    club = Club()
    club.to_day_one()
    club({"input": "surrender", "team": team, "after": 30})
    assert club.json["result"] == {
        "winners": winners,
        "losers": [team],
        "reason": "surrender",
        "clause": None,
    }
    assert all(seat.rating_penalty == 0 for seat in club.game.seats)
    assert not any("рейтинг" in line for line in report.protocol(club.game))


# -- three teams: who wins ----------------------------------------------------
# The text names the teams («Мирные», «Мафия», «Маньяк») but not their wins;
# rulesets/club.toml: civilians win when neither mafia nor Maniac is left, the
# mafia and the Maniac by parity, each only while the other is gone.


def test_civilians_win_when_mafia_and_maniac_are_gone() -> None:
    club = Club(["civilian", "civilian", "civilian", "mafia", "maniac"])
    club.to_day_one()
    club.end_speeches()
    club.night(("kill", 5, 4))  # the Maniac kills the mafia; the mafia does not agree: a miss
    assert club.seat(4)["out"]["how"] == "killed"
    assert club.json["result"] is None  # the Maniac is still at the table
    club.speak_until(1)
    club({"input": "nominate", "by": 1, "target": 5, "after": 5})
    club.end_speeches()  # a single nominee on day 2 is voted: everyone counts for him
    assert club.seat(5)["out"] == {"how": "voted", "day": 2, "last_word_s": 30}
    club.end_speeches()  # his last word
    assert club.json["result"] == {
        "winners": [CIVILIANS],
        "losers": [MAFIA, MANIAC],
        "reason": "eliminated",
        "clause": None,
    }


def test_mafia_wins_by_parity_only_when_the_maniac_is_gone() -> None:
    club = Club(["civilian", "civilian", "mafia", "don", "maniac"])
    club.to_day_one()
    club.end_speeches()
    club.night(("shot", 3, 1), ("shot", 4, 1))
    # Two mafia against one civilian: parity, but the Maniac still plays.
    assert club.json["result"] is None and club.game.day == 2
    club.speak_until(2)
    club({"input": "nominate", "by": 2, "target": 5, "after": 5})
    club.end_speeches()
    assert club.seat(5)["out"]["how"] == "voted"
    club.end_speeches()
    assert club.json["result"] == {
        "winners": [MAFIA],
        "losers": [CIVILIANS, MANIAC],
        "reason": "parity",
        "clause": None,
    }


def test_maniac_wins_alone_with_one_other() -> None:
    club = Club(["civilian", "sheriff", "mafia", "maniac"])
    club.to_day_one()
    club.end_speeches()
    club.night(("shot", 3, 1), ("kill", 4, 3))
    assert club.json["result"] == {
        "winners": [MANIAC],
        "losers": [CIVILIANS, MAFIA],
        "reason": "parity",
        "clause": None,
    }


def test_maniac_with_two_others_plays_on() -> None:
    club = Club(["civilian", "sheriff", "civilian", "mafia", "maniac"])
    club.to_day_one()
    club.end_speeches()
    club.night(("shot", 4, 1), ("kill", 5, 4))
    assert club.json["result"] is None and club.phase == "last_word"


# -- a team with no player at the table (issue 8) ------------------------------
# A club game dealt without a Maniac: «maniac» neither wins nor loses, on every
# path to a result (a result reaches the club's ratings).

NO_MANIAC = ["civilian", "civilian", "civilian", "mafia", "don", "civilian"]


def _result(club: Club) -> tuple[list[str], list[str], str]:
    result = club.json["result"]
    assert result is not None
    return result["winners"], result["losers"], result["reason"]


def test_no_maniac_elimination() -> None:
    club = Club(["civilian", "civilian", "civilian", "mafia"])
    nominated(club, (1, 4), (2, 3))
    club.vote(1, 2, 3)  # 4 leaves; 3 gets the rest (seat 4 alone)
    club.end_speeches()  # the last word
    assert _result(club) == ([CIVILIANS], [MAFIA], "eliminated")


def test_no_maniac_parity() -> None:
    club = Club(["civilian", "civilian", "civilian", "mafia", "don"])
    club.to_day_one()
    club.end_speeches()
    club.night(("shot", 4, 1), ("shot", 5, 1))
    assert _result(club) == ([MAFIA], [CIVILIANS], "parity")


def test_no_maniac_team_loss() -> None:
    """team_loss.6 names the mafia and the Maniac; only the mafia played."""
    club = Club(NO_MANIAC)
    club.to_day_one()
    club({"input": "offence", "seat": 4, "offence": "mafia_maniac_deal", "after": 5})
    assert _result(club) == ([CIVILIANS], [MAFIA], "team_loss")
    assert club.said("team_loses") == [{"team": MAFIA}]


def test_no_maniac_surrender() -> None:
    club = Club(NO_MANIAC)
    game = club.to_day_one()
    with pytest.raises(IllegalInput, match="team 'maniac' has no player at this table"):
        engine.step(game, TeamSurrendered(MANIAC))
    club({"input": "surrender", "team": CIVILIANS, "after": 5})
    assert _result(club) == ([MAFIA], [CIVILIANS], "surrender")


def test_no_maniac_misses_rule() -> None:
    """The club has no misses rule; with one (as tournament 5.2) the losers
    are still only the teams that played."""
    rules = replace(CLUB, miss_rule=MissRule(alive=4, nights=1, winner=CIVILIANS, clause="x"))
    game, _ = engine.new_game(GameSetUp(rules, 4, ("civilian", "civilian", "civilian", "mafia")))
    while game.phase != "ended":  # nobody nominates, nobody shoots: a miss at 4
        game, _ = engine.step(game, HostAdvanced())
    assert game.result == Result((CIVILIANS,), (MAFIA,), "misses", "x")


def test_a_night_with_no_shooter_left_still_ends_in_a_miss() -> None:
    """Silence at morning would tell the table that the mafia is gone: «промах»
    is said as when living shooters do not agree."""
    for gone in (True, False):
        club = Club(["civilian", "civilian", "civilian", "civilian", "mafia", "maniac"])
        club.to_day_one()
        if gone:
            club({"input": "offence", "seat": 5, "offence": "swearing", "after": 5})
        club.end_speeches()
        club.night()
        assert club.said("miss") == [{}], gone
        assert club.records("miss") == [{"day": 1, "step": "shot"}]


# -- the club night -----------------------------------------------------------


def night_one(*choices: tuple[str, int, int]) -> Club:
    """Day 1 without nominations, then night 1 with these choices."""
    club = Club()
    club.to_day_one()
    club.end_speeches()
    club.night(*choices)
    return club


def victims(club: Club) -> list[int]:
    return [int(str(r["seat"])) for r in club.records("out") if r["how"] == "killed"]


MAFIA_SHOOT_8 = (("shot", 3, 8), ("shot", 6, 8), ("shot", 10, 8))


def test_mafia_shot_kills_when_all_shooters_agree() -> None:
    """The common procedure: the kill counts only if every living black player
    shoots the same seat."""
    club = night_one(*MAFIA_SHOOT_8)
    assert victims(club) == [8]
    assert club.seat(8)["out"] == {"how": "killed", "day": 1, "last_word_s": 30}
    assert current_turn(club.game) is not None and (
        current_turn(club.game).seat,
        current_turn(club.game).kind,
    ) == (
        8,
        "last_word",
    )


@pytest.mark.parametrize(
    "shots",
    [
        (("shot", 3, 8), ("shot", 6, 8), ("shot", 10, 1)),  # one shoots elsewhere
        (("shot", 3, 8), ("shot", 6, 8)),  # one does not shoot
    ],
    ids=["disagree", "one_silent"],
)
def test_mafia_shot_misses_without_unanimity(shots: tuple[tuple[str, int, int], ...]) -> None:
    club = night_one(*shots)
    assert victims(club) == []
    assert club.records("miss") == [{"day": 1, "step": "shot"}]


def test_doctor_heal_saves_the_target() -> None:
    club = night_one(*MAFIA_SHOOT_8, ("heal", 5, 8))
    assert victims(club) == [] and club.seat(8)["alive"]
    assert club.records("miss") == []  # the shot was good; the heal answered it


def test_maniac_kills_beside_the_mafia() -> None:
    club = night_one(*MAFIA_SHOOT_8, ("kill", 9, 1))
    assert victims(club) == [8, 1]
    kinds = [(t.seat, t.kind) for t in table_state(club.game).turns[:2]]
    assert kinds == [(8, "last_word"), (1, "last_word")]
    assert club.seat(1)["out"]["last_word_s"] == 30


def test_doctor_heal_answers_the_maniac_too() -> None:
    club = night_one(("kill", 9, 1), ("heal", 5, 1))
    assert victims(club) == []


@pytest.mark.parametrize(
    ("choices", "dead"),
    [
        ((("block", 7, 9), ("kill", 9, 1)), []),  # the Maniac's kill is void
        ((("block", 7, 5), *MAFIA_SHOOT_8, ("heal", 5, 8)), [8]),  # the heal is void
        ((("block", 7, 10), *MAFIA_SHOOT_8), []),  # a blocked shooter: no unanimity
    ],
    ids=["blocks_maniac", "blocks_doctor", "blocks_shooter"],
)
def test_putana_block_voids_the_blocked_seats_choice(
    choices: tuple[tuple[str, int, int], ...], dead: list[int]
) -> None:
    club = night_one(*choices)
    assert victims(club) == dead


def test_checks_are_told_to_the_host() -> None:
    """Don looks for the Sheriff; the Sheriff's «black» is the mafia's colour,
    not the Maniac's (club.toml CHOICE)."""
    club = Club()
    club.to_day_one()
    club.end_speeches()
    club.night(("check", 6, 2), ("check", 2, 9))
    assert club.records("check") == [
        {"day": 1, "seat": 6, "target": 2, "answer": "yes"},
        {"day": 1, "seat": 2, "target": 9, "answer": "no"},
    ]


def test_unintentional_peek_leaves_at_morning_after_acting() -> None:
    """removal.3 «Если это нарушение происходит непреднамеренно, участник должен
    покинуть игровой стол без права последнего слова, как только Ведущий
    объявит в городе Утро»: the Putana peeks, still blocks that night, and
    leaves at morning with no last word."""
    club = Club()
    club.to_day_one()
    club.end_speeches()
    club({"input": "offence", "seat": 7, "offence": "unintentional_peeking", "after": 4})
    assert club.seat(7)["alive"]
    club.night(("block", 7, 9), ("kill", 9, 1))
    assert victims(club) == []  # her block still held
    assert club.seat(7)["out"] == {"how": "removed", "day": 2, "last_word_s": 0}
    assert not any(t.kind == "last_word" for t in table_state(club.game).turns)
    assert club.phase == "speech"
