"""Forum games as script lines, built by playing them (issue 11, the forum
game): tests/test_vocabulary.py replays them and holds every cue, note and
record of the forum game to core/vocabulary.py.

``ForumScript`` writes a game line by line and plays each line as it is
written, so a scenario can ask who is still alive (everyone alive must vote,
else autokill) and a line the engine refuses fails where it is written.
``GAMES`` are small tables with the roles given, each for a few of the
night's cases (docs/forum-rules-catalogue.md 3.2-3.5); ``dealt_game`` is a
table of 20 dealt from a seed and played for a few days whatever the deal.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable
from typing import Any

from companion.config.rulesets import load_ruleset
from companion.core.forum.rules import the_forum_rules
from companion.core.rules import Ruleset
from companion.core.state import Game
from companion.runner.replay import ScriptReplay
from companion.runner.script import ScriptLine, parse_lines

START = "2026-12-01"


def load(name: str) -> Ruleset:
    """The shipped rulesets, and ``forum-cop-told``: the forum game with
    amb.8's option on (the Cop is told «мирный» when his shot meets a
    civilian), which the shipped ruleset keeps off."""
    if name == "forum-cop-told":
        rules = load_ruleset("forum")
        forum = dataclasses.replace(the_forum_rules(rules), cop_private_result=True)
        return dataclasses.replace(rules, procedure_rules=forum)
    return load_ruleset(name)


def parsed(lines: Iterable[str], source: str) -> list[ScriptLine]:
    return parse_lines(lines, source, load)


class ForumScript:
    """A forum game written and played line by line."""

    def __init__(
        self,
        roles: list[str] | None = None,
        *,
        seats: int | None = None,
        seed: int = 1,
        options: tuple[str, ...] = (),
        ruleset: str = "forum",
    ) -> None:
        setup: dict[str, Any] = {"at": 0, "input": "setup", "ruleset": ruleset, "seed": seed}
        setup["seats"] = seats if seats is not None else len(roles or ())
        if roles is not None:
            setup["roles"] = roles
        setup["start"] = START
        if options:
            setup["options"] = list(options)
        self.lines: list[str] = []
        self.replay = ScriptReplay(source="forum game")
        self.add(setup)

    @property
    def game(self) -> Game:
        game = self.replay.game
        assert game is not None
        return game

    def add(self, line: dict[str, Any]) -> ForumScript:
        line = {"after": 1, **line} if "at" not in line else line
        text = json.dumps(line, ensure_ascii=False)
        self.lines.append(text)
        (parsed_line,) = parse_lines([text], "forum game", load, self.replay.now)
        self.replay.feed(parsed_line)
        return self

    # --- the inputs ---------------------------------------------------------------
    def post(self, seat: int, action: str, target: int, **extra: Any) -> ForumScript:
        return self.add(
            {"input": "post", "seat": seat, "action": action, "target": target, **extra}
        )

    def vote(self, voter: int, target: int, **extra: Any) -> ForumScript:
        return self.add({"input": "vote", "voter": voter, "target": target, **extra})

    def votes(
        self, target: int | Callable[[int], int], skip: Iterable[int] = (), **given: int
    ) -> ForumScript:
        """Every living seat votes (``target``, or ``target(voter)``), but
        those in ``skip``; ``given``: ``s3=5`` has seat 3 vote for seat 5."""
        left_out = set(skip)
        for voter in self.alive():
            if voter in left_out:
                continue
            aim = given.get(f"s{voter}", target(voter) if callable(target) else target)
            self.vote(voter, aim)
        return self

    def deadline(self, name: str) -> ForumScript:
        return self.add({"input": "deadline", "name": name})

    def day(
        self, target: int | Callable[[int], int], skip: Iterable[int] = (), **given: int
    ) -> ForumScript:
        """The day's choices close, everyone votes, the vote closes."""
        self.deadline("day_choices").votes(target, skip, **given)
        return self.deadline("vote")

    def alive(self) -> list[int]:
        return [seat.number for seat in self.game.seats if seat.out is None]

    def role(self, seat: int) -> str:
        return self.game.seat(seat).role


def _other(script: ForumScript, voter: int, target: int) -> int:
    """``target``, or for ``target`` himself (no self-votes) the next living seat."""
    if voter != target:
        return target
    alive = script.alive()
    return alive[(alive.index(voter) + 1) % len(alive)]


# --- the games ---------------------------------------------------------------------


def basements_and_days() -> ForumScript:
    """Lawyer, Bouncer, their skips and lost roles; a basement the Sniper
    and the Kamikaze miss; the Doctor's skips; autokill, a tie, a vote for
    nobody, a late post, a second vote; a deadline moved and warned of."""
    roles = [
        "civilian", "lawyer", "bouncer", "sniper", "kamikaze", "doctor", "cop",
        "don", "mafia", "mafia", "civilian", "civilian",
    ]  # fmt: skip
    s = ForumScript(roles)
    s.add({"input": "deadline_near", "name": "day_choices"})
    s.post(2, "protect", 1).post(3, "annul", 8)
    s.post(2, "protect", 4, time=f"{START}T13:05:00")  # after the day deadline
    s.add({"input": "move_deadline", "name": "vote", "to": "21:31:00"})
    s.deadline("day_choices")
    s.add({"input": "deadline_near", "name": "vote"})
    s.vote(1, 11).vote(1, 9)  # a second post: the first stands (vote.2)
    s.vote(12, 11, time=f"{START}T21:40:00")  # after the moved deadline: autokill
    s.votes(lambda v: _other(s, v, 11), skip=(1, 12))  # 12: autokill
    s.deadline("vote")
    # night 1: the team hides 9, whom the Sniper shoots and the Kamikaze marks;
    # the team shoots the Kamikaze; the Doctor skips (his free skip)
    s.post(8, "hide", 9).post(8, "shoot", 5).post(4, "shoot", 9).post(5, "mark", 9)
    s.post(7, "shoot", 1)  # the Cop's shot meets a civilian: «Коп промахнулся»
    s.deadline("night")
    # day 2: both day roles skip (their free skips), a vote for nobody
    s.day(0)
    # night 2: the Doctor skips again and loses his role; the Sniper shoots
    # the Don and joins his team; nobody dies
    s.post(4, "shoot", 8).post(8, "shoot", 0)
    s.deadline("night")
    # day 3: the day roles skip again and lose their roles; a tie
    s.deadline("day_choices")
    alive = s.alive()
    s.votes(lambda v: alive[0] if v % 2 else alive[1], **{f"s{alive[0]}": alive[1]})
    s.deadline("vote")
    return s


def checks_and_guns() -> ForumScript:
    """The Sniper finds the Cop; the Tin Man takes the team's gun and the
    Mafia's Child comes over; his block; the Vampire steals a role; the Pom
    becomes the Cop; the Bomzh's vote goes to his shooters."""
    roles = [
        "civilian", "sniper", "cop", "cop_assistant", "tin_woodman", "mafia_child",
        "vampire", "doctor", "tramp", "don", "mafia", "mafia", "civilian", "civilian",
    ]  # fmt: skip
    s = ForumScript(roles)
    s.day(lambda v: _other(s, v, 1))
    # night 1: the team shoots the Tin Man (no gun: he takes it); the Sniper
    # shoots the Cop (finds him, loses his role); the Vampire bites the Doctor
    s.post(10, "shoot", 5).post(2, "shoot", 3).post(7, "bite", 8)
    s.deadline("night")
    s.day(lambda v: _other(s, v, 13))
    # night 2: the Tin Man fires the team's gun at the Child (the team's own
    # shot is his tonight); the Cop shoots the Bomzh, whose vote is his
    s.post(5, "fire", 6, gun="mafia").post(3, "shoot", 9)
    s.deadline("night")
    # day 3: the Cop orders the Bomzh's vote and is voted out: the Pom is the Cop
    s.post(3, "order", 14).deadline("day_choices")
    s.votes(lambda v: _other(s, v, 3)).deadline("vote")
    # night 3: the Tin Man blocks the new Cop's shot
    s.post(4, "shoot", 11).post(5, "block", 4).post(10, "shoot", 2)
    s.deadline("night")
    return s


def children() -> ForumScript:
    """The healed Child the team shoots (fm.4); the Vampire bites the Child
    the Cop shot (roles.vampire.5); the Kamikaze saved; mourning."""
    roles = [
        "civilian", "mafia_child", "doctor", "cop", "vampire", "kamikaze", "tin_woodman",
        "don", "mafia", "mafia", "civilian", "civilian",
    ]  # fmt: skip
    s = ForumScript(roles)
    s.day(lambda v: _other(s, v, 1))
    s.post(8, "shoot", 2).post(3, "heal", 2).post(6, "mark", 12)
    s.deadline("night")
    s.day(lambda v: _other(s, v, 11))
    s.post(8, "shoot", 6).post(3, "heal", 6).post(6, "mark", 12)  # the Kamikaze saved
    s.deadline("night")
    s.day(lambda v: _other(s, v, 7))  # the Tin Man voted out: mourning
    s.deadline("night")
    return s


def bitten_child() -> ForumScript:
    """The Cop shoots the Child the Vampire bites (roles.vampire.5); the
    other Child voted out; a lost move; the Tin Man's block that voids nothing."""
    roles = [
        "civilian", "mafia_child", "cop", "vampire", "tin_woodman", "doctor",
        "don", "mafia", "mafia", "civilian", "mafia_child",
    ]  # fmt: skip
    s = ForumScript(roles)
    s.add({"input": "offence", "seat": 6, "offence": "provocation"})  # a lost move
    s.day(lambda v: _other(s, v, 1))
    s.post(3, "shoot", 2).post(4, "bite", 2).post(5, "block", 10).post(6, "heal", 10)
    s.post(7, "shoot", 10)
    s.deadline("night")
    s.day(lambda v: _other(s, v, 11))  # a Child voted out: «было убито Дитя»
    return s


def zombies() -> ForumScript:
    """The Tin Man takes the Zombie's gun and fires it at the Don (fm.12);
    the Zombie recruits; the head Zombie voted out, the recruit heads."""
    roles = [
        "civilian", "zombie", "tin_woodman", "don", "mafia", "cop", "civilian",
        "civilian", "civilian", "civilian", "civilian",
    ]  # fmt: skip
    s = ForumScript(roles)
    s.day(lambda v: _other(s, v, 1))
    s.post(2, "bite", 3).post(4, "shoot", 8)  # the Zombie's gun taken
    s.deadline("night")
    s.day(lambda v: _other(s, v, 9))
    s.post(3, "fire", 4, gun="2").post(4, "shoot", 10)  # at the Don: the Tin Man dies
    s.deadline("night")
    s.day(lambda v: _other(s, v, 11))
    s.post(2, "bite", 7)  # a recruit
    s.deadline("night")
    s.day(lambda v: _other(s, v, 2))  # the head Zombie out: the recruit heads
    return s


def multi_child() -> ForumScript:
    """The multi-functional Child the Cop shoots joins the cops; the Cop
    told «мирный» (amb.8's option); the Mafia reaches parity and the host
    declares its win (end.two.3)."""
    roles = ["civilian", "mafia_child", "cop", "don", "mafia", "civilian", "civilian"]
    s = ForumScript(roles, options=("multi_child", "no_basements"), ruleset="forum-cop-told")
    s.day(lambda v: _other(s, v, 1))
    s.post(3, "shoot", 2).post(4, "shoot", 6)
    s.deadline("night")
    s.day(lambda v: _other(s, v, 7))
    return s.add({"input": "declare_win", "teams": ["mafia"]})


def dealt_game(seed: int = 3) -> ForumScript:
    """A table of 20 dealt from ``seed``, played for a few days whatever the
    deal: everyone votes for the lowest living seat but his own, the Cop and
    the team shoot the highest living seats of the other side."""
    s = ForumScript(seats=20, seed=seed)
    for _ in range(3):
        if s.game.phase == "ended":
            break
        s.day(lambda v: _other(s, v, s.alive()[0]))
        if s.game.phase == "ended":
            break
        for seat in s.alive():
            if s.role(seat) in ("don", "cop"):
                team = s.game.seat(seat).team
                aim = max(x for x in s.alive() if s.game.seat(x).team != team)
                s.post(seat, "shoot", aim)
        s.deadline("night")
    return s


GAMES: dict[str, Callable[[], ForumScript]] = {
    "forum: basements and days": basements_and_days,
    "forum: checks and guns": checks_and_guns,
    "forum: children": children,
    "forum: the bitten child": bitten_child,
    "forum: zombies": zombies,
    "forum: the multi-functional child": multi_child,
    "forum: dealt": dealt_game,
}
