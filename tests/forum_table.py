"""A small forum table for the rule tests (tests/test_forum_*.py).

``Table`` writes a table script line by line (the JSON lines of
docs/table-script.md, "The forum game") and runs each line at once through
the script reader and ``ScriptReplay``, the path ``companion replay`` takes,
so a test can look at the game between days. ``Table.json()`` is the
replay JSON (``report.summary``) and checks on the way that the command
line, given the same script as a file, prints the same JSON.

A game day in a test is ``day(...)`` then ``night(...)``: the day's
choices, every living player's vote (by default in a ring, so that nobody
leaves), the vote's deadline; the night's posts, the night's deadline.
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from companion import cli
from companion.config.rulesets import load_ruleset
from companion.core.forum.state import state
from companion.core.state import Game
from companion.protocol.report import summary
from companion.runner.replay import ScriptReplay
from companion.runner.script import parse_lines

#: (seat, action, target) or (seat, action, target, gun): a post to a cabinet
Post = tuple[int, str, int] | tuple[int, str, int, str]

#: three-sided: 1 Cop, 2 Doctor, 3 Sniper, 4 Kamikaze, 5 МЖ, 6 ДМ, 7 Don, 8 маф,
#: 9 Don of the маны, 10 ман
THREE = [
    "cop", "doctor", "sniper", "kamikaze", "civilian", "mafia_child",
    "don", "mafia", "maniacs_don", "maniacs_member",
]  # fmt: skip
#: two-sided: as THREE, with the lone Maniac at 9 and a МЖ at 10
TWO = [
    "cop", "doctor", "sniper", "kamikaze", "civilian", "mafia_child",
    "don", "mafia", "maniac", "civilian",
]  # fmt: skip


def roles(base: list[str], **seats: str) -> list[str]:
    """``base`` with some seats' roles replaced: ``roles(THREE, s5="tramp")``."""
    changed = list(base)
    for key, name in seats.items():
        changed[int(key[1:]) - 1] = name
    return changed


DAY_TIME = "10:00:00"
VOTE_TIME = "20:00:00"
NIGHT_TIME = "21:30:00"


class Table:
    def __init__(self, roles: list[str], *options: str) -> None:
        self.replay = ScriptReplay()
        self.lines: list[dict[str, Any]] = []
        self.feed(
            {
                "at": 0,
                "input": "setup",
                "ruleset": "forum",
                "roles": roles,
                "start": "2026-12-01",
                "options": list(options),
            }
        )

    # --- the script ----------------------------------------------------------
    def feed(self, *lines: dict[str, Any]) -> Table:
        for line in lines:
            parsed = parse_lines([json.dumps(line)], "test", load_ruleset, self.replay.now)
            self.replay.run(parsed)  # a refused line raises ScriptError, as the CLI would
            self.lines.append(line)
        return self

    @property
    def game(self) -> Game:
        game = self.replay.game
        assert game is not None
        return game

    def stamp(self, time_of_day: str) -> str:
        """The forum clock's stamp of ``time_of_day`` on the current game day."""
        return f"{state(self.game).date}T{time_of_day}"

    def alive(self) -> list[int]:
        return [seat.number for seat in self.game.seats if seat.out is None]

    def post(
        self, seat: int, action: str, target: int, at: str = NIGHT_TIME, gun: str = ""
    ) -> Table:
        line: dict[str, Any] = {
            "input": "post",
            "seat": seat,
            "action": action,
            "target": target,
            "time": self.stamp(at),
        }
        if gun:
            line["gun"] = gun
        return self.feed(line)

    def posts(self, posts: Iterable[Post], at: str) -> Table:
        for post in posts:
            gun = post[3] if len(post) == 4 else ""
            self.post(post[0], post[1], post[2], at=at, gun=gun)
        return self

    def vote(self, voter: int, target: int, at: str = VOTE_TIME, edit: bool = False) -> Table:
        line: dict[str, Any] = {
            "input": "vote",
            "voter": voter,
            "target": target,
            "time": self.stamp(at),
        }
        if edit:
            line["edit"] = True
        return self.feed(line)

    def deadline(self, name: str) -> Table:
        return self.feed({"input": "deadline", "name": name})

    # --- a game day ------------------------------------------------------------
    def day(
        self,
        *choices: Post,
        votes: dict[int, int] | None = None,
        out: int = 0,
        silent: Iterable[int] = (),
        close: bool = True,
    ) -> Table:
        """The day's choices (posted at 10:00), then the votes at 20:00:
        ``votes`` as given; the rest on ``out`` (who votes for the next
        living seat), or in a ring (each on the next living seat: all tied,
        nobody leaves). Seats in ``silent`` do not vote. Then the vote's
        deadline (``close``)."""
        self.posts(choices, DAY_TIME)
        given = dict(votes or {})
        living = self.alive()
        for i, voter in enumerate(living):
            if voter in silent:
                continue
            ring = living[(i + 1) % len(living)]
            target = given.get(voter, out if out and voter != out else ring)
            self.vote(voter, target)
        return self.deadline("vote") if close else self

    def night(self, *posts: Post, close: bool = True) -> Table:
        """The night's posts (at 21:30), then its deadline (``close``)."""
        self.posts(posts, NIGHT_TIME)
        return self.deadline("night") if close else self

    # --- the outcome ---------------------------------------------------------
    def json(self) -> dict[str, Any]:
        """The replay JSON; the command line must print the same for the script."""
        mine: dict[str, Any] = json.loads(json.dumps(summary(self.game)))
        assert cli_json(self.lines) == mine
        return mine


def cli_json(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """``companion replay FILE --json`` on ``lines``, in process."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "game.jsonl"
        path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = cli.main(["replay", str(path), "--json"])
    assert status == 0
    result: dict[str, Any] = json.loads(out.getvalue())
    return result


# --- reading the replay JSON -------------------------------------------------


def dead(j: dict[str, Any]) -> dict[int, str]:
    """Seat -> how it left (killed, voted, removed)."""
    return {s["seat"]: s["out"]["how"] for s in j["seats"] if not s["alive"]}


def seat(j: dict[str, Any], number: int) -> dict[str, Any]:
    found: dict[str, Any] = j["seats"][number - 1]
    return found


def role(j: dict[str, Any], number: int) -> tuple[str, str]:
    """(role, team) the seat ends with."""
    s = seat(j, number)
    return s["role"], s["team"]


def cues(j: dict[str, Any], day: int | None = None) -> list[tuple[str, dict[str, Any]]]:
    """The public announcements (of ``day``), without the day's openings."""
    return [
        (p["cue"], p["args"])
        for p in j["public"]
        if (day is None or p["day"] == day) and p["cue"] not in ("forum_day", "forum_night")
    ]


def said(j: dict[str, Any], cue: str, day: int | None = None, **args: Any) -> bool:
    return any(c == cue and all(a.get(k) == v for k, v in args.items()) for c, a in cues(j, day))


def notes(j: dict[str, Any], to: int, day: int | None = None) -> list[tuple[str, dict[str, Any]]]:
    """The private notes to ``to`` (of ``day``), without the deal's."""
    return [
        (p["cue"], p["args"])
        for p in j["private"]
        if p["to"] == to and p["day"] > 0 and (day is None or p["day"] == day)
    ]


def told(j: dict[str, Any], to: int, cue: str, **args: Any) -> bool:
    return any(c == cue and all(a.get(k) == v for k, v in args.items()) for c, a in notes(j, to))
