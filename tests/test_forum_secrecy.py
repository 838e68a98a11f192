"""What the forum game makes public, and what it keeps (issue 11's must-shows).

The public records (the results posts: ``public`` in the replay JSON) and
what the table's voice says carry only what docs/forum-rules-catalogue.md
3.5 and 4.3 announce: «Never public: basement use (roles.mafia.9); the
Bomzh's role (roles.tramp.5); who bit whom (roles.vampire.7); that a
Cop's "miss" was a healed or hidden MM (roles.cop.5)»; the roles of the
dead are never named during the game (deadline.vote.6, game.8), except
the ДМ voted out (roles.mafia_child.11) and, through the mourning night,
the Tin Man voted out (roles.tin_woodman.13); the Cop's checks stay his
own inference (amb.8); the private notes go to their seats alone.

Two kinds of test:

* random games (tests/forum_random_games.py) checked input by input: every
  public record is an announcement the text makes, with arguments that name
  seats, days and the text's own words but never a role or a team; the
  deaths of a night in seat order (no trace of who shot whom); what the
  voice says is the public records and nothing more;
* two worlds that differ only in a secret (a basement used or not, the
  Cop's shot on a civilian, a healed or a hidden maf, who was bitten, who
  was the Bomzh, which role the dead held, where the Cop sits) give the
  same public records, and the secret goes only to the seats the text
  tells.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from typing import Any

import pytest
from forum_random_games import RULES, START, Driver, Table, new_records, setup_for, tables
from helpers import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.core import engine
from companion.core.effects import Effect, Say
from companion.core.events import (
    Event,
    GameSetUp,
)
from companion.core.forum.events import DeadlinePassed, ForumChoiceMade, ForumVoted
from companion.core.forum.rules import DEADLINES, forum_rules, the_forum_rules
from companion.core.rules import Ruleset
from companion.core.state import Game
from companion.protocol import report

#: The public announcements (docs/forum-rules-catalogue.md 3.5, 4.2 step 10,
#: 7.4) and the arguments each may carry.
PUBLIC: dict[str, tuple[str, ...]] = {
    "forum_balance": ("basements", "child"),  # roles.mafia.10, roles.mafia_child.8
    "forum_day": ("day",),
    "forum_night": ("day",),
    "vote_tally": ("tally",),  # deadline.vote.5
    "lawyer_protected": ("seat",),  # deadline.vote.5
    "bouncer_annulled": ("seat",),  # roles.bouncer.4
    "lawyer_skipped": (),  # roles.lawyer.6
    "bouncer_skipped": (),  # roles.bouncer.7
    "lawyer_lost_role": (),  # amb.27
    "bouncer_lost_role": (),  # amb.27
    "doctor_lost_role": (),  # roles.doctor.6
    "forum_voted_out": ("seat",),  # deadline.vote.5-6: role not named
    "nobody_voted_out": (),  # vote.6
    "autokill": ("seat",),  # deadline.autokill.2
    "child_killed": ("seat",),  # roles.mafia_child.11
    "forum_killed": ("seat",),  # amb.24: the dead, no roles
    "night_no_deaths": (),
    "cop_missed": (),  # roles.cop.5
    "shooter_missed": ("shooter",),  # roles.mafia.7
    "sniper_joined_mm": (),  # roles.sniper.6
    "doctor_healed_healthy": (),  # fm.4
    "kamikaze_saved": (),  # roles.kamikaze.11, amb.25
    "vampire_bit_child": (),  # roles.vampire.5
    "mm_found_child": (),  # fm.10.2
    "mourning": (),  # roles.tin_woodman.13, amb.19
    "deadline_moved": ("name", "at"),  # deadline.change.2
}
#: the words an argument may hold, where it holds words
WORDS = {
    "basements": {"yes", "no"},
    "child": {"plain", "multi"},
    "shooter": {"sniper", "maniac", "kamikaze"},  # the text names the one who missed
    "name": set(DEADLINES),
}
TALLY = re.compile(r"-|\d+:\d+(,\d+:\d+)*\Z")
#: what the voice may say beyond the results posts, none of it a secret: the
#: result (game.8), the host's word on a breach (forbid.11.3)
SPOKEN_ONLY = {"game_won", "game_drawn", "removed", "warning"}
SECRET_WORDS = {role.id for role in RULES.roles} | {team.id for team in RULES.teams}


def _public(records: Iterable[Any]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for record in records:
        if record.kind == "public":
            data = dict(record.data)
            data.pop("phase")
            out.append((data.pop("cue"), data))
    return out


def _private(records: Iterable[Any]) -> list[tuple[int, str, dict[str, Any]]]:
    out = []
    for record in records:
        if record.kind == "private":
            data = dict(record.data)
            out.append((int(data.pop("to")), str(data.pop("cue")), data))
    return out


class Watch:
    """The secrecy invariants, run on every input a random game takes."""

    def __init__(self, game: Game) -> None:
        self.seats = len(game.seats)
        self.mourning_due = False
        self.seen: set[str] = set()
        self.check_public(_public(new_records(None, game)))

    def check_public(self, public: list[tuple[str, dict[str, Any]]]) -> None:
        for cue, args in public:
            assert cue in PUBLIC, f"a public record the text does not announce: {cue} {args}"
            assert tuple(args) == PUBLIC[cue], f"{cue} carries {sorted(args)}"
            for name, value in args.items():
                if name == "seat":
                    assert isinstance(value, int) and 1 <= value <= self.seats, (cue, args)
                elif name == "day":
                    assert isinstance(value, int), (cue, args)
                elif name == "tally":
                    assert TALLY.match(str(value)), (cue, args)
                elif name in WORDS:
                    assert value in WORDS[name], (cue, args)
                if name != "shooter":
                    assert str(value) not in SECRET_WORDS, f"{cue} names a role or team: {args}"
            self.seen.add(cue)

    def __call__(
        self, before: Game, event: Event, after: Game, effects: tuple[Effect, ...]
    ) -> None:
        records = new_records(before, after)
        public = _public(records)
        self.check_public(public)
        # the voice says the results posts, and nothing else but the end and
        # the host's word on a breach
        said = [(e.cue, dict(e.args)) for e in effects if isinstance(e, Say)]
        extra = [(cue, args) for cue, args in said if cue in SPOKEN_ONLY]
        assert [x for x in said if x[0] not in SPOKEN_ONLY] == public, (event, said, public)
        for cue, args in extra:
            if cue in ("game_won", "game_drawn"):
                assert after.phase == "ended"
            else:
                assert set(args) <= {"seat", "reason"}, (cue, args)
                assert not set(map(str, args.values())) & SECRET_WORDS, (cue, args)
        # the dead of a night in seat order: the order tells nothing of the shots
        killed = [args["seat"] for cue, args in public if cue == "forum_killed"]
        assert killed == sorted(killed), f"deaths announced as {killed}: the order tells"
        autokilled = [args["seat"] for cue, args in public if cue == "autokill"]
        assert autokilled == sorted(autokilled)
        # the only roles the results name: the ДМ voted out (roles.mafia_child.11)
        for i, (cue, args) in enumerate(public):
            if cue == "child_killed":
                assert public[i - 1] == ("forum_voted_out", {"seat": args["seat"]})
                assert before.seat(args["seat"]).role == "mafia_child"
        voted = [args["seat"] for cue, args in public if cue == "forum_voted_out"]
        children = [args["seat"] for cue, args in public if cue == "child_killed"]
        for seat in voted:
            if before.seat(seat).role == "mafia_child":
                assert seat in children, "the ДМ voted out is announced (roles.mafia_child.11)"
        # and the Tin Man voted out, by the mourning night that follows (amb.19)
        if isinstance(event, DeadlinePassed) and event.name == "night":
            assert (("mourning", {}) in public) == self.mourning_due, public
            self.mourning_due = False
        if voted and before.seat(voted[0]).role == "tin_woodman":
            self.mourning_due = True


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables(), play_seed=st.integers(0, 2**32))
def test_random_games_announce_only_what_the_text_announces(table: Table, play_seed: int) -> None:
    driver = Driver(setup_for(*table), play_seed)
    watch = Watch(driver.game)
    driver.observers.append(watch)
    driver.play(8)
    summary = report.summary(driver.game)
    assert [(p["cue"], p["args"]) for p in summary["public"]] == _public(
        new_records(None, driver.game)
    )


# --- two worlds, one secret -----------------------------------------------------

#: A small table with the roles given (seats 1-14); each test changes a few.
BASE = (
    "cop", "cop_assistant", "doctor", "don", "mafia", "mafia", "civilian",
    "civilian", "tramp", "kamikaze", "sniper", "mafia_child", "tin_woodman", "civilian",
)  # fmt: skip
COP, POM, DOCTOR, DON, MAF, MAF2, CIV, CIV2, TRAMP, KAMIKAZE, SNIPER, CHILD, TIN, CIV3 = range(
    1, 15
)


@dataclasses.dataclass
class World:
    """One game day and night of a small table: what the night's (or the
    vote's) close made public and private, and what the voice said."""

    game: Game
    public: list[tuple[str, dict[str, Any]]]
    private: list[tuple[int, str, dict[str, Any]]]
    said: list[tuple[str, dict[str, Any]]]


def _start(roles: tuple[str, ...], options: tuple[str, ...], rules: Ruleset) -> Game:
    game, _ = engine.new_game(
        GameSetUp(rules, len(roles), roles=roles, start=START, options=options)
    )
    return game


def _close(game: Game, inputs: Iterable[Event], deadline: str) -> World:
    for event in inputs:
        game, _ = engine.step(game, event)
    before = game
    game, effects = engine.step(game, DeadlinePassed(deadline))
    records = new_records(before, game)
    said = [(e.cue, dict(e.args)) for e in effects if isinstance(e, Say)]
    public = _public(records)
    assert said == public  # the voice says the results post
    # the results post alone, without the next window's opening
    results = [(cue, args) for cue, args in public if cue not in ("forum_day", "forum_night")]
    return World(game, results, _private(records), said)


def _ring(game: Game, votes: dict[int, int] | None = None) -> list[Event]:
    """Every living seat votes: for ``votes``' target, else for nobody."""
    votes = votes or {}
    return [ForumVoted(x.number, votes.get(x.number, 0)) for x in game.seats if x.out is None]


def night(
    posts: Iterable[tuple[int, str, int]],
    roles: tuple[str, ...] = BASE,
    options: tuple[str, ...] = (),
    rules: Ruleset = RULES,
) -> World:
    """Day 1 passes with no one voted out; then night 1 with ``posts``
    (seat, action, target; a gun's owner after a colon in the action)."""
    game = _start(roles, options, rules)
    day = _close(game, _ring(game), "vote")
    assert day.game.phase == "night"
    return _close(day.game, [ForumChoiceMade(s, a, t) for s, a, t in posts], "night")


def vote_out(seat: int, roles: tuple[str, ...] = BASE) -> World:
    """Day 1: everyone votes for ``seat`` (who votes for nobody)."""
    game = _start(roles, (), RULES)
    votes = {x: seat for x in range(1, len(roles) + 1) if x != seat}
    return _close(game, _ring(game, votes), "vote")


def _anonymous(public: list[tuple[str, dict[str, Any]]], *seats: int) -> list[Any]:
    """The records with ``seats`` written as X (in the tally too): equal up
    to who it was."""

    def hide(name: str, value: Any) -> Any:
        if name == "seat" and value in seats:
            return "X"
        if name == "tally":
            return ",".join(
                ("X" if int(seat) in seats else seat) + ":" + n
                for seat, n in (item.split(":") for item in str(value).split(",") if ":" in item)
            )
        return value

    return [(cue, {k: hide(k, v) for k, v in args.items()}) for cue, args in public]


def test_the_cops_miss_looks_the_same_whatever_he_hit() -> None:
    """roles.cop.5 «Коп промахнулся» for a civilian, a healed maf, a hidden
    maf (roles.mafia.7), the ДМ (amb.21 f), the Bomzh (amb.29 h), the
    Kamikaze (roles.kamikaze.9), the Sniper (roles.sniper.10); the Cop is
    told nothing (amb.8), but the Bomzh's vote (roles.tramp.5)."""
    worlds = {
        "civilian": night([(COP, "shoot", CIV)]),
        "healed maf": night([(COP, "shoot", MAF), (DOCTOR, "heal", MAF)]),
        "hidden maf": night([(COP, "shoot", MAF), (DON, "hide", MAF)]),
        "child": night([(COP, "shoot", CHILD)]),
        "bomzh": night([(COP, "shoot", TRAMP)]),
        "kamikaze": night([(COP, "shoot", KAMIKAZE)]),
        "sniper": night([(COP, "shoot", SNIPER)]),
    }
    for name, world in worlds.items():
        assert world.public == [("cop_missed", {}), ("night_no_deaths", {})], name
        told = [(cue, args) for to, cue, args in world.private if to == COP]
        assert told == ([("tramp_is", {"seat": TRAMP})] if name == "bomzh" else []), name
    # the ДМ became a МЖ and is not told (roles.mafia_child.3)
    assert worlds["child"].game.seat(CHILD).role == "civilian"
    assert not [p for p in worlds["child"].private if p[0] == CHILD]


def test_the_cops_private_check_option_keeps_the_miss_public_only() -> None:
    """amb.8's option: the Cop alone is told «мирный»; the public sees the same."""
    assert forum_rules(RULES) is not None
    told = dataclasses.replace(
        RULES, procedure_rules=dataclasses.replace(the_forum_rules(RULES), cop_private_result=True)
    )
    plain = night([(COP, "shoot", CIV)])
    option = night([(COP, "shoot", CIV)], rules=told)
    assert option.public == plain.public
    assert option.private == [(COP, "cop_checked", {"seat": CIV})]
    for to, _, _ in option.private:
        assert to == COP


def test_a_basement_used_is_never_public() -> None:
    """roles.mafia.9: hiding a member nobody shot looks like not hiding him;
    the hidden one shot by the Cop is the Cop's plain miss (amb.13)."""
    hidden = night([(DON, "hide", MAF), (SNIPER, "shoot", CIV)])
    open_ = night([(SNIPER, "shoot", CIV)])
    assert hidden.public == open_.public == [("forum_killed", {"seat": CIV})]
    assert hidden.private == open_.private == []
    assert (
        night([(COP, "shoot", MAF), (DON, "hide", MAF)]).public
        == night([(COP, "shoot", CIV2)]).public
    )


def test_the_bomzh_and_his_vote_are_never_public() -> None:
    """roles.tramp.5: the MM team that shot the Bomzh learns him, nobody
    else; the public sees a night without deaths, as when the Doctor saved
    the MM's target; the order goes to the Bomzh alone (roles.tramp.4), and
    the results post shows only the tally (4.3)."""
    taken = night([(DON, "shoot", TRAMP)])
    healed = night([(DON, "shoot", CIV), (DOCTOR, "heal", CIV)])
    assert taken.public == healed.public == [("night_no_deaths", {})]
    mafia = {x.number for x in taken.game.seats if x.team == "mafia"}
    assert {to for to, cue, _ in taken.private} == mafia
    assert {(cue, str(args)) for _, cue, args in taken.private} == {
        ("tramp_is", str({"seat": TRAMP}))
    }
    # day 2: the Don orders the Bomzh's vote for seat 8; in the other world
    # the seat votes for 8 of his own accord: the same results post
    ordered = _close(
        taken.game,
        [
            ForumChoiceMade(DON, "order", CIV2),
            *_ring(taken.game, {TRAMP: CIV3, MAF: CIV2, MAF2: CIV2}),
        ],
        "vote",
    )
    free = _close(healed.game, _ring(healed.game, {TRAMP: CIV2, MAF: CIV2, MAF2: CIV2}), "vote")
    assert ordered.public == free.public
    assert ("forum_voted_out", {"seat": CIV2}) in ordered.public
    assert [p for p in ordered.private if p[1] == "tramp_order"] == [
        (TRAMP, "tramp_order", {"seat": CIV2})
    ]


def test_who_bit_whom_is_never_public() -> None:
    """roles.vampire.7: the bitten is told he lost his role, not by whom; the
    public sees nothing of the bite (amb.22 f)."""
    roles = (*BASE[:-1], "vampire")
    vampire = len(roles)
    worlds = {
        bitten: night([(vampire, "bite", bitten)], roles=roles)
        for bitten in (DOCTOR, CIV, MAF, COP, POM, SNIPER)
    }
    for bitten, world in worlds.items():
        assert world.public == [("night_no_deaths", {})], bitten
        told = [(cue, args) for to, cue, args in world.private if to == bitten]
        if bitten == MAF:  # roles.vampire.4: his team's cabinet gains a member (spirit.3)
            mafia = ",".join(str(x.number) for x in world.game.seats if x.team == "mafia")
            assert told == [("team_members", {"team": "mafia", "seats": mafia})]
        elif bitten == CIV:  # roles.vampire.3: the Vampire becomes a МЖ, the МЖ knows nothing
            assert told == []
        else:  # a role's theft (roles.vampire.3, .6)
            assert told == [("lost_role", {})], bitten
        # and whom the text tells besides: the MM cabinet the Vampire joins
        # (roles.vampire.4), the Копская he joins (roles.vampire.6)
        cabinet = {x.number for x in world.game.seats if x.team == "mafia"}
        if bitten in (COP, POM):
            cabinet = {x.number for x in world.game.seats if x.role in ("cop", "cop_assistant")}
        for to, _, _ in world.private:
            assert to in (bitten, vampire) or to in cabinet, (bitten, world.private)


@pytest.mark.parametrize("gone", [DON, MAF, COP, POM, DOCTOR, SNIPER, KAMIKAZE, TRAMP, CIV])
def test_the_role_of_a_player_voted_out_is_not_public(gone: int) -> None:
    """deadline.vote.6: the results post names who leaves, not his role."""
    assert _anonymous(vote_out(gone).public, gone) == _anonymous(vote_out(CIV3).public, CIV3)


def test_only_the_child_voted_out_is_named_and_the_tin_man_by_his_mourning() -> None:
    """roles.mafia_child.11 «было убито Дитя»; roles.tin_woodman.13: the
    night after the Tin Man's vote-out is a mourning night (amb.19)."""
    child = vote_out(CHILD)
    named = child.public.index(("child_killed", {"seat": CHILD}))
    assert child.public[named - 1] == ("forum_voted_out", {"seat": CHILD})
    assert _anonymous(child.public[:named] + child.public[named + 1 :], CHILD) == _anonymous(
        vote_out(CIV3).public, CIV3
    )
    assert (CHILD, "your_role", {"role": "mafia_child"}) in child.private
    tin = vote_out(TIN)
    assert _anonymous(tin.public, TIN) == _anonymous(vote_out(CIV3).public, CIV3)
    morning = _close(tin.game, [ForumChoiceMade(SNIPER, "shoot", CIV)], "night")
    assert ("mourning", {}) in morning.public


@pytest.mark.parametrize("victim", [MAF, DOCTOR, CIV, CHILD, TRAMP, POM])
def test_the_role_of_a_player_killed_at_night_is_not_public(victim: int) -> None:
    """amb.24: the dead, no roles; the ДМ killed at night is not «Дитя»
    (roles.mafia_child.11 is the vote's); the Sniper's kill looks the same
    whoever it was (roles.sniper.3, amb.21 c, amb.29 d, roles.cop_assistant.4)."""
    world = night([(SNIPER, "shoot", victim)])
    assert world.public == [("forum_killed", {"seat": victim})]


def test_the_cops_death_hands_his_gun_over_in_private() -> None:
    """roles.cop_assistant.3: the Pom is told, the public sees a death."""
    world = night([(DON, "shoot", COP)])
    assert world.public == [("forum_killed", {"seat": COP})]
    assert (POM, "now_cop", {}) in world.private


def test_the_tin_mans_block_is_not_public() -> None:
    """amb.17: the blocked Cop's shot is not announced as a miss: the night
    looks as if he had not shot; the Tin Man alone learns the block hit."""
    blocked = night([(COP, "shoot", CIV), (TIN, "block", COP)])
    silent = night([])
    assert blocked.public == silent.public == [("night_no_deaths", {})]
    assert blocked.private == [(TIN, "block_hit", {"seat": COP})]


def test_the_sniper_on_the_cop_is_not_public() -> None:
    """roles.sniper.4, amb.24: only the Sniper learns the Cop."""
    world = night([(SNIPER, "shoot", COP)])
    assert world.public == [("night_no_deaths", {})]
    assert world.private == [(SNIPER, "found_cop", {"seat": COP})]


def test_the_sniper_in_the_mm_camp_does_not_say_which_team() -> None:
    """roles.sniper.6 «Снайпер теперь в стане ММ»: the three-sided game's
    two Dons give the same words."""
    roles = (*BASE[:-2], "maniacs_don", "maniacs_member")
    mafia_don = night([(SNIPER, "shoot", DON)], roles=roles)
    maniacs_don = night([(SNIPER, "shoot", 13)], roles=roles)
    assert (
        mafia_don.public
        == maniacs_don.public
        == [
            ("sniper_joined_mm", {}),
            ("night_no_deaths", {}),
        ]
    )


def test_the_kamikazes_victim_is_not_told_apart_from_him() -> None:
    """3.5: the dead in seat order, so the Kamikaze and his victim (roles.kamikaze.5)
    read the same whichever seat was which."""
    first = night([(KAMIKAZE, "mark", DOCTOR), (DON, "shoot", KAMIKAZE)])
    swapped_roles = list(BASE)
    swapped_roles[KAMIKAZE - 1], swapped_roles[DOCTOR - 1] = "doctor", "kamikaze"
    second = night([(DOCTOR, "mark", KAMIKAZE), (DON, "shoot", DOCTOR)], roles=tuple(swapped_roles))
    assert (
        first.public
        == second.public
        == [
            ("forum_killed", {"seat": DOCTOR}),
            ("forum_killed", {"seat": KAMIKAZE}),
        ]
    )


def test_the_order_of_the_notices_does_not_tell_where_the_cop_sits() -> None:
    swapped = list(BASE)
    swapped[COP - 1], swapped[SNIPER - 1] = "sniper", "cop"
    swapped[POM - 1] = "civilian"  # no Pom: the swap must not reach his notes
    plain = list(BASE)
    plain[POM - 1] = "civilian"
    first = night([(COP, "shoot", CIV), (SNIPER, "shoot", DON)], roles=tuple(plain))
    second = night([(SNIPER, "shoot", CIV), (COP, "shoot", DON)], roles=tuple(swapped))
    assert sorted(first.public, key=str) == sorted(second.public, key=str)
    assert first.public == second.public


def test_the_order_of_the_day_notices_does_not_tell_where_the_lawyer_sits() -> None:
    worlds = []
    for roles in (
        ("lawyer", "bouncer", "don", "civilian", "civilian", "civilian", "mafia"),
        ("bouncer", "lawyer", "don", "civilian", "civilian", "civilian", "mafia"),
    ):
        game = _start(roles, (), RULES)
        worlds.append(_close(game, _ring(game), "vote").public)
    assert worlds[0] == worlds[1]


def test_the_vampires_autokill_does_not_name_him() -> None:
    roles = (*BASE[:-1], "vampire")
    vampire = len(roles)
    skipped = night([], roles=roles)
    shot = night([(vampire, "bite", CIV), (SNIPER, "shoot", vampire)], roles=roles)
    assert shot.public == [("forum_killed", {"seat": vampire})]
    assert skipped.public == shot.public
