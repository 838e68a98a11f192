"""What the forum game takes in: choices posted to the cabinets and votes,
each checked against the role's limits and stamped against its deadline,
and which of them stand when the deadline comes.

A post the rules forbid (the Doctor's patient of last night, a second
block) is refused as it is entered (amb.33), so the previous one stands.
A post stamped at or after its deadline is kept in the protocol as late
and counts for nothing (deadline.vote.2, deadline.night.2, deadline.day.2).
"""

from __future__ import annotations

from ..state import Game, Seat
from ..step import Step, living_seat, require, seat_in_range
from .events import ForumChoiceMade, ForumVoted
from .rules import forum_rules
from .state import MM_TEAMS, ForumState, Post, forum_role, last_target, state, too_late

#: actions taken by day (until the day deadline), the rest by night
_WINDOW = {"protect": "day_choices", "annul": "day_choices", "order": "day_choices"}


def window_of(action: str) -> str:
    return _WINDOW.get(action, "night")


def _late(t: Step, seat: int, what: str, at: str, deadline: str, clause: str) -> bool:
    if not too_late(at, deadline):
        return False
    t.record("late", seat=seat, post=what, at=at, deadline=deadline, clause=clause)
    t.tell("late", seat=seat, post=what)
    return True


def take_choice(t: Step, event: ForumChoiceMade) -> None:
    game = t.game
    s = state(game)
    window = window_of(event.action)
    require(window in s.open, f"no {window.replace('_', ' ')} window is open now")
    seat = living_seat(game, event.seat)
    deadline = dict(s.deadlines).get(window, "")
    clause = "deadline.day.2" if window == "day_choices" else "deadline.night.2"
    if _late(t, seat.number, event.action, event.at, deadline, clause):
        return
    if event.target:
        _check(game, s, seat, event)
    post: Post = (seat.number, event.action, event.target, event.gun, event.at)
    t.set_state(posts=(*s.posts, post))
    t.record("choice", seat=seat.number, action=event.action, target=event.target, gun=event.gun)


def _check(game: Game, s: ForumState, seat: Seat, event: ForumChoiceMade) -> None:
    """The role's limits (docs/forum-rules-catalogue.md 2.3, amb.54)."""
    action, target = event.action, event.target
    aimed = living_seat(game, target, "target")
    role = forum_role(game, seat)
    if action == "order":  # roles.tramp.4: whom the Bomzh votes for
        tramps = [b for b, owner in s.tramp_owner if seat.number in owner_seats(game, owner)]
        require(bool(tramps), f"seat {seat.number} holds no Bomzh's vote (roles.tramp.3)")
        require(target not in tramps, "the Bomzh may not be ordered to vote for himself (amb.29 f)")
        return
    if action == "hide":
        require(seat.team in MM_TEAMS, "only an MM team hides a member in its basement")
        require(aimed.team == seat.team, f"seat {target} is not of team {seat.team}")
        require("no_basements" not in s.options, "this game has no basements (roles.mafia.10)")
        require(seat.team not in s.basement_used, "the team's basement is used (roles.mafia.6)")
        return
    if action == "fire":
        require(
            (seat.number, event.gun) in s.guns,
            f"seat {seat.number} holds no gun {event.gun!r} tonight (roles.tin_woodman.5)",
        )
        return
    if role.acts == "team":
        require(action == "shoot", f"an MM team shoots (roles.mafia.1), not {action!r}")
        return
    require(role.action == action, f"a {seat.role} does not {action} (its move: {role.action})")
    require(role.acts != "never", f"a {seat.role} has no choice of its own")
    if role.acts == "first_night":
        require(not s.vampire_done, f"the {seat.role}'s one night is over (roles.vampire.1)")
    if role.acts == "once":
        require(
            seat.number not in s.block_used,
            "the Tin Man's one block is spent (roles.tin_woodman.2)",
        )
    if target == seat.number:
        require(role.self_target, f"a {seat.role} may not choose himself (amb.54)")
    if role.not_twice_running:
        last, when = last_target(s, seat.number)
        now = game.day
        require(
            not (last == target and when == now - 1),
            f"seat {seat.number} chose seat {target} last time: not twice running"
            f" ({_NOT_TWICE.get(seat.role, 'amb.6')})",
        )


#: the clause of each role's «через 1 игровой день» (amb.6)
_NOT_TWICE = {"doctor": "roles.doctor.3", "lawyer": "roles.lawyer.4", "bouncer": "roles.bouncer.5"}


def owner_seats(game: Game, owner: str) -> list[int]:
    """The living seats that speak for a gun's owner: the seat, or a team's
    living members. A seat out of the game speaks for nothing: its order
    posted before it left does not stand (a dead player has no move;
    roles.tramp.4 gives the order to the shooter in the game)."""
    if owner.isdigit():
        return [int(owner)] if game.seat(int(owner)).out is None else []
    return [x.number for x in game.seats if x.out is None and x.team == owner]


def take_vote(t: Step, event: ForumVoted) -> None:
    game = t.game
    s = state(game)
    require("vote" in s.open, "the vote is not open")
    voter = living_seat(game, event.voter, "voter")
    if event.target:
        seat_in_range(game, event.target, "target")
    if _late(
        t, voter.number, "vote", event.at, dict(s.deadlines).get("vote", ""), "deadline.vote.2"
    ):
        return
    cast = any(v == voter.number for v, _, _ in s.votes)
    if cast and not event.edit:
        # vote.2: a second post does not count; the first stands
        t.record("second_vote", seat=voter.number, target=event.target, clause="vote.2")
        t.tell("second_vote", seat=voter.number)
        return
    votes = tuple(b for b in s.votes if b[0] != voter.number)
    t.set_state(votes=(*votes, (voter.number, event.target, event.at)))
    t.record("vote", seat=voter.number, target=event.target, edit=int(event.edit))


# --- what stands at the deadline ---------------------------------------------------


def last_post(posts: tuple[Post, ...], seat: int, action: str) -> Post | None:
    for post in reversed(posts):
        if post[0] == seat and post[1] == action:
            return post
    return None


def team_choice(game: Game, posts: tuple[Post, ...], team: str, action: str) -> int:
    """An MM team's choice: the Don's last post; else the majority of the
    members' last posts, a tie going to the latest (roles.mafia.2-3, amb.33).
    0: none (or withdrawn)."""
    members = [x for x in game.seats if x.out is None and x.team == team]
    rules = forum_rules(game.rules)
    assert rules is not None
    for member in members:
        if rules.role(member.role).don:
            post = last_post(posts, member.number, action)
            if post is not None:
                return post[2]
    numbers = {m.number for m in members}
    lasts: dict[int, tuple[int, int]] = {}  # member -> (index of his last post, target)
    for index, post in enumerate(posts):
        if post[0] in numbers and post[1] == action:
            lasts[post[0]] = (index, post[2])
    if not lasts:
        return 0
    counts: dict[int, int] = {}
    for _, target in lasts.values():
        counts[target] = counts.get(target, 0) + 1
    top = max(counts.values())
    return max((i, target) for i, target in lasts.values() if counts[target] == top)[1]
