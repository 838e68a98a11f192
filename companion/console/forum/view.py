"""What the forum screen shows of a game: the phase, the open windows and
the clock to the next deadline, the seats with their roles and posts, the
vote so far, who may choose now. Pure functions of a ``Game`` and the
forum clock's time (``now``), so the screen only puts them on widgets.

The forum clock is the wall clock: deadlines are stamps "YYYY-MM-DDTHH:MM:SS"
(or a time of day when the game was set up without a date), as
``core.forum_state`` keeps them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from rich.text import Text

from ...core.forum.acts import Act
from ...core.forum.posts import last_post
from ...core.forum.rules import ForumRules
from ...core.forum.state import ForumState, open_deadlines, phase_name, state
from ...core.state import Game
from ...runner.forum_clock import moment
from ..fit import ellipsis, first_fit, short_name
from .words import ForumWords

#: a time the host types for a post: "21:00" or "21:00:30"
_TIME = re.compile(r"([01]?[0-9]|2[0-3]):([0-5][0-9])(?::([0-5][0-9]))?\Z")
#: how a team's roles are coloured in the seat list (the ruleset's colours)
_COLOUR = {"black": "bold bright_red", "grey": "yellow", "green": "green"}


def forum_rules(game: Game) -> ForumRules:
    rules = game.rules.forum
    assert rules is not None, "not a forum game"
    return rules


# --- the forum clock -----------------------------------------------------------


def live_stamp(game: Game, now: datetime) -> str:
    """The stamp of a post the host enters now: the forum clock's time, with
    its date when the game's deadlines carry dates."""
    dated = bool(state(game).date)
    return now.strftime("%Y-%m-%dT%H:%M:%S" if dated else "%H:%M:%S")


def typed_stamp(game: Game, window: str, text: str) -> str | None:
    """A post's own time as the host typed it ("21:00", "21:00:30"), on the
    date of the window's deadline; None when ``text`` is not a time."""
    match = _TIME.match(text)
    if match is None:
        return None
    hours, minutes, seconds = match.group(1), match.group(2), match.group(3) or "00"
    clock = f"{int(hours):02d}:{minutes}:{seconds}"
    deadline = dict(state(game).deadlines).get(window, "")
    return f"{deadline[:10]}T{clock}" if "T" in deadline else clock


def read_post(
    game: Game, window: str, text: str, count: int, now: datetime
) -> tuple[list[int], str] | None:
    """A post as the host types it: ``count`` seat numbers (0: none), then
    the post's own time if typed ("21:00:30"), else the forum clock's now;
    None when the text is not that."""
    parts = text.replace(",", " ").split()
    at = live_stamp(game, now)
    if len(parts) == count + 1:
        typed = typed_stamp(game, window, parts.pop())
        if typed is None:
            return None
        at = typed
    if len(parts) != count or not all(p.isdigit() and len(p) <= 3 for p in parts):
        return None
    numbers = [int(p) for p in parts]
    if any(n > len(game.seats) for n in numbers):
        return None
    return numbers, at


def span(delta: timedelta) -> str:
    """1:02:03; 27:02:03 beyond a day (the big digits show no words); never negative."""
    seconds = max(0, int(delta.total_seconds()))
    hours, seconds = divmod(seconds, 3600)
    minutes, seconds = divmod(seconds, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}"


def shown_stamp(stamp: str) -> str:
    """A stamp as the host reads it: «01.12 21:01:00», or the time alone."""
    if "T" not in stamp:
        return stamp
    day, clock = stamp.split("T")
    return f"{day[8:10]}.{day[5:7]} {clock}"


@dataclass(frozen=True, slots=True)
class ClockView:
    lines: str  # the phase and each open window with its deadline
    next_window: str  # the next deadline's window ("": none)
    left: str  # the time left to it, "H:MM:SS"
    passed: bool  # it has passed (the watch closes it, or the host does)


def clock_view(game: Game, now: datetime, w: ForumWords) -> ClockView:
    lines = [phase_title(game, w)]
    pending = open_deadlines(game)
    if not pending:
        lines.append(w("no_windows"))
        return ClockView("\n".join(lines), "", "-:--:--", False)
    for name, at in pending:
        left = moment(at, now) - now
        key = "open_window" if left > timedelta(0) else "passed_window"
        lines.append(
            w(key, window=w(f"window.{name}"), at=shown_stamp(at), left=span(left), ago=span(-left))
        )
    lines.append(w("clock_now", now=now.strftime("%H:%M:%S")))
    name, at = min(pending, key=lambda item: moment(item[1], now))
    left = moment(at, now) - now
    return ClockView("\n".join(lines), name, span(left), left <= timedelta(0))


def phase_title(game: Game, w: ForumWords) -> str:
    return w(f"phase.{phase_name(game)}", day=game.day)


# --- the seats -----------------------------------------------------------------


def seat_lines(game: Game, w: ForumWords, show_roles: bool) -> Text:
    """One line a seat: number, name, role (while shown), how it left or
    what it posted in the open windows."""
    s = state(game)
    text = Text()
    colours = {team.id: _COLOUR.get(team.color, "") for team in game.rules.teams}
    for seat in game.seats:
        style = "dim" if seat.out is not None else ""
        text.append(f"{seat.number:>2} ", style="bold")
        text.append(f"{ellipsis(seat.name, 14):<15}", style=style)
        if show_roles:
            role = w.role(game.rules, seat.role)
            role = first_fit([role, short_name(role)], 20)
            text.append(f"{role:<21}", style="dim" if style else colours.get(seat.team, ""))
        if seat.out is not None:
            text.append(f"{w('out.' + seat.out.how)} ({seat.out.day})", style="dim")
        else:
            text.append("  ".join(_posts(game, s, seat.number, w)))
        text.append("\n")
    return text


def _posts(game: Game, s: ForumState, seat: int, w: ForumWords) -> list[str]:
    shown = []
    for action in dict.fromkeys(p[1] for p in s.posts if p[0] == seat):
        post = last_post(s.posts, seat, action)
        assert post is not None
        word = w(f"action.{action}", gun=post[3])
        if post[2]:
            shown.append(w("posted", action=word, target=post[2]))
        else:
            shown.append(w("withdrawn", action=word))
    for voter, target, _ in s.votes:
        if voter == seat:
            shown.append(w("vote_mark", target=target) if target else w("vote_nobody"))
    return shown


def tally(game: Game, w: ForumWords) -> str:
    """The vote so far: each target's votes and voters, most first; who has
    not voted (an autokill at the deadline: deadline.autokill.2)."""
    s = state(game)
    if game.phase in ("setup", "ended") or "vote" not in s.open:
        return ""
    by_target: dict[int, list[int]] = {}
    for voter, target, _ in s.votes:
        by_target.setdefault(target, []).append(voter)
    lines = [w("tally_title")]
    for target, voters in sorted(by_target.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        key = "tally_line" if target else "tally_nobody"
        who = ", ".join(map(str, sorted(voters)))
        lines.append("  " + w(key, seat=target, votes=len(voters), voters=who))
    if not by_target:
        lines.append("  " + w("no_votes"))
    voted = {voter for voter, _, _ in s.votes}
    missing = [x.number for x in game.seats if x.out is None and x.number not in voted]
    if missing:
        lines.append(w("not_voted", seats=", ".join(map(str, missing))))
    return "\n".join(lines)


def act_label(game: Game, act: Act, w: ForumWords) -> str:
    seat = game.seat(act.seat)
    name = f" {seat.name}" if seat.name else ""
    role = w.role(game.rules, seat.role)
    action = w(f"action.{act.action}", gun=act.gun)
    post = last_post(state(game).posts, act.seat, act.action)
    now = f"  [→ {post[2]}]" if post is not None and post[2] else ""
    return f"{act.seat}{name} · {role} · {action}{now}"
