"""The forum game: the procedure of seed 004 (docs/forum.md).

A game day opens with the day choices (the Lawyer's, the Bouncer's, a
Bomzh's owner's order) until 13:00 and the vote until 21:00; the night's
choices follow until 22:00, and the morning's results open the next day
(phase.1-3). Every window closes by its deadline (``DeadlinePassed``),
which the live table's watch gives at the moment it reads off the state
(``ForumState.deadlines`` of the open windows; runner/forum_clock.py) or
the host gives early; a post stamped after its
deadline does not count. The night is resolved at once by
``forum_night``; the public announcements and the private notes go to the
protocol as ``public`` and ``private`` records.
"""

from __future__ import annotations

from .. import outcome
from ..events import (
    Event,
    GameSetUp,
    WinDeclared,
)
from ..lights import IDLE, OFF
from ..state import Game, Out
from ..step import Breach, MicrophoneRule, Procedure, Step, require
from . import outcome as forum_outcome
from .dusk import (
    add_skip,
    announce,
    demote,
    read_night,
    successions,
    tell,
    tell_members,
    write_morning,
)
from .events import (
    EVENTS,
    DeadlineMoved,
    DeadlineNear,
    DeadlinePassed,
    ForumChoiceMade,
    ForumVoted,
)
from .posts import last_post, owner_seats, take_choice, take_vote
from .rules import DEADLINES, FORUM_OPTIONS, forum_rules
from .ruleset_load import read_forum
from .state import MM_TEAMS, ForumState, next_date, phase_name, remembered, stamp, state
from .vote import DayChoices, count, tally_text


def _new_state(setup: GameSetUp) -> ForumState:
    return ForumState(options=setup.options, date=setup.start)


def _begin(t: Step) -> None:
    """The deal is told (deal.2): each his role, the ДМ «мирный»
    (roles.mafia_child.4-5), each MM team its members (spirit.3), the Cop
    and the Pom each other (roles.cop_assistant.2). The balance's options
    are announced (roles.mafia.10, roles.mafia_child.8)."""
    game = t.game
    s = state(game)
    announce(
        t,
        "forum_balance",
        basements="no" if "no_basements" in s.options else "yes",
        child="multi" if "multi_child" in s.options else "plain",
    )
    for seat in game.seats:
        told = "civilian" if seat.role == "mafia_child" else seat.role
        tell(t, seat.number, "your_role", role=told)
    for team in MM_TEAMS:
        tell_members(t, team)
    cops = ",".join(str(x.number) for x in game.seats if x.role in ("cop", "cop_assistant"))
    for cop in cops.split(",") if "," in cops else ():
        tell(t, int(cop), "cops", seats=cops)
    _open_day(t, 1, s.date)


def _open_day(t: Step, day: int, day_date: str) -> None:
    rules = forum_rules(t.game.rules)
    assert rules is not None
    deadlines = tuple((name, stamp(day_date, rules.deadline(name))) for name in DEADLINES)
    t.set(phase="day", day=day)
    t.set_state(
        date=day_date, open=("day_choices", "vote"), deadlines=deadlines, posts=(), votes=()
    )
    announce(t, "forum_day", day=day)


# --- the day -----------------------------------------------------------------


def _close_day_choices(t: Step) -> None:
    """deadline.day.1-2: the Lawyer's and the Bouncer's choices stand; a
    missing one is a skip (roles.lawyer.5-7, roles.bouncer.6-8, amb.27, amb.32)."""
    game = t.game
    s = state(game)
    rules = forum_rules(game.rules)
    assert rules is not None
    notes: list[tuple[str, dict[str, int | str]]] = []
    skips, last = s.skips, s.last_target
    protected = annulled = 0
    for seat in [x for x in game.seats if x.out is None and x.role in ("lawyer", "bouncer")]:
        role = rules.role(seat.role)
        if seat.number in s.lost_move:  # sanction.2: the day's move is lost, not skipped
            t.record("lost_move", seat=seat.number, clause="sanction.2")
            continue
        post = last_post(s.posts, seat.number, role.action)
        target = post[2] if post is not None else 0
        if target:
            last = remembered(last, seat.number, target, game.day)
            if seat.role == "lawyer":
                protected = target
            else:
                annulled = target
            continue
        skips, used = add_skip(t, skips, seat.number, role.clause)
        if used > role.free_skips:
            notes.append((f"{seat.role}_lost_role", {}))
            demote(t, seat.number)
        else:
            notes.append((f"{seat.role}_skipped", {}))
    ordered = []
    for tramp, owner in s.tramp_owner:
        speakers = owner_seats(game, owner)
        posts = [p for p in s.posts if p[1] == "order" and p[2] and p[0] in speakers]
        orders = [p for p in posts if p[2] != tramp]  # amb.29 f: not for himself
        if orders:
            ordered.append((tramp, orders[-1][2]))
            tell(t, tramp, "tramp_order", seat=orders[-1][2])  # roles.tramp.4
    day_roles = {x.number for x in game.seats if x.role in ("lawyer", "bouncer")}
    t.set_state(
        open=tuple(w for w in state(t.game).open if w != "day_choices"),
        lost_move=tuple(n for n in state(t.game).lost_move if n not in day_roles),
        skips=skips,
        last_target=last,
        today=(protected, annulled, tuple(ordered), tuple((c, tuple(a.items())) for c, a in notes)),
    )


def _close_vote(t: Step) -> None:
    """4.2: the count, the results post, who leaves; then the night."""
    if "day_choices" in state(t.game).open:
        _close_day_choices(t)
    game = t.game
    s = state(game)
    protected, annulled, ordered, notes = s.today
    voters = [x.number for x in game.seats if x.out is None]
    ballots = {voter: target for voter, target, _ in s.votes}
    result = count(voters, ballots, DayChoices(protected, annulled, ordered))
    announce(t, "vote_tally", tally=tally_text(result.tally) or "-")
    # The Lawyer's line, then the Bouncer's, whatever their seats: an order
    # by seat would tell who sits first (deadline.vote.5 names neither).
    for role, cue, chosen in (
        ("lawyer", "lawyer_protected", protected),
        ("bouncer", "bouncer_annulled", annulled),
    ):
        if chosen:
            announce(t, cue, seat=chosen)
        for note, args in notes:
            if note.startswith(role):
                announce(t, note, **dict(args))
    if result.out:
        seat = game.seat(result.out)
        t.update_seat(result.out, out=Out("voted", game.day, 0))
        t.record("out", seat=result.out, how="voted", clause=result.clause)
        announce(t, "forum_voted_out", seat=result.out)
        if seat.role == "mafia_child":  # roles.mafia_child.10-11
            announce(t, "child_killed", seat=result.out)
            tell(t, result.out, "your_role", role="mafia_child")
        if seat.role == "tin_woodman":  # roles.tin_woodman.13
            t.set_state(mourning=True)
    else:
        announce(t, "nobody_voted_out")
    for voter in result.autokilled:
        if voter == result.out:
            continue
        t.update_seat(voter, out=Out("removed", game.day, 0))
        clause = "forbid.8" if voter in result.self_voters else "deadline.autokill.2"
        t.record("out", seat=voter, how="removed", clause=clause)
        announce(t, "autokill", seat=voter)
    successions(t)
    t.set_state(open=(), today=(0, 0, (), ()))
    if _decided(t, morning=False):
        return
    t.set(phase="night")
    t.set_state(open=("night",), posts=())
    announce(t, "forum_night", day=game.day)


def _close_night(t: Step) -> None:
    game = t.game
    s = state(game)
    if s.mourning:  # roles.tin_woodman.13, amb.19: no night actions at all
        announce(t, "mourning")
        t.set_state(mourning=False, guns=(), tramp_owner=())
    else:
        night, morning = read_night(t)
        write_morning(t, night, morning)
    successions(t)
    t.set_state(open=(), posts=())
    if _decided(t, morning=True):
        return
    _open_day(t, game.day + 1, next_date(s.date))


def _decided(t: Step, morning: bool) -> bool:
    game = t.game
    result = forum_outcome.decide(game) or (forum_outcome.morning(game) if morning else None)
    if result is not None:
        outcome.end(t, result)
        return True
    if forum_outcome.parity(game) and not state(game).parity_told:
        t.set_state(parity_told=True)
        t.tell("parity", team="mafia")  # end.two.3: the host decides (amb.42)
    return False


# --- inputs ------------------------------------------------------------------


def _choice(t: Step, event: Event) -> None:
    assert isinstance(event, ForumChoiceMade)
    take_choice(t, event)


def _vote(t: Step, event: Event) -> None:
    assert isinstance(event, ForumVoted)
    take_vote(t, event)


def _deadline(t: Step, event: Event) -> None:
    assert isinstance(event, DeadlinePassed)
    s = state(t.game)
    require(event.name in s.open, f"the {event.name.replace('_', ' ')} window is not open")
    t.record("deadline", name=event.name)
    if event.name == "day_choices":
        _close_day_choices(t)
    elif event.name == "vote":
        _close_vote(t)
    else:
        _close_night(t)


def _near(t: Step, event: Event) -> None:
    """The warning before a deadline; nothing changes."""
    assert isinstance(event, DeadlineNear)
    require(
        event.name in state(t.game).open, f"the {event.name.replace('_', ' ')} window is not open"
    )
    rules = forum_rules(t.game.rules)
    assert rules is not None
    t.say("deadline_soon", name=event.name, minutes=rules.warning_minutes)


def _moved(t: Step, event: Event) -> None:
    """deadline.change.1-2: announced, and the clock set anew."""
    assert isinstance(event, DeadlineMoved)
    require(t.game.phase in ("day", "night"), "the game has no deadlines now")
    s = state(t.game)
    later = DEADLINES[DEADLINES.index(s.open[0]) if s.open else len(DEADLINES) - 1 :]
    require(event.name in later, f"the {event.name} deadline of this game day has passed")
    at = event.at if "T" in event.at or not s.date else stamp(s.date, event.at)
    t.set_state(deadlines=tuple((n, at if n == event.name else a) for n, a in s.deadlines))
    announce(t, "deadline_moved", name=event.name, at=at)


def _declared(t: Step, event: Event) -> None:
    assert isinstance(event, WinDeclared)
    require(t.game.phase != "ended", "the game is over")
    why = forum_outcome.may_declare(t.game, event.teams)
    require(why is None, why or "")
    t.record("win_declared", teams=",".join(event.teams))
    clause = "end.three.4" if set(event.teams) == set(MM_TEAMS) else "end.two.3"
    outcome.end(t, forum_outcome.result_for(t.game, event.teams, "declared", clause))


def _sanction(t: Step, number: int, cost: str) -> None:
    if cost == "demotion":
        demote(t, number)
    else:
        t.set_state(lost_move=(*state(t.game).lost_move, number))


def _nothing(t: Step, number: int = 0) -> None:
    """Nothing of the forum game's own hangs on a seat removed or a game over."""


def _speech_breaks_nothing(game: Game, seat: int | None) -> Breach | None:
    """The forum game is played in posts over a game day (phase.1-3): a
    choice, a vote, a word to one's team is a post stamped by the forum's
    clock, and its rules forbid things written (forbid.*, morgue.*), never
    a word said in the room. Speech in the room is nobody's breach, at
    night least of all: the night (21:00-22:00) is a window for posting,
    not a silence (docs/listening.md, "A forum game")."""
    return None


def _no_turns(game: Game) -> None:
    """No turn has a time to run over: the game has no speeches."""
    return None


def _lights(game: Game) -> tuple[str, ...]:
    return tuple(IDLE if seat.out is None else OFF for seat in game.seats)


PROCEDURE = Procedure(
    name="forum",
    phases=("day", "night"),
    new_state=_new_state,
    begin=_begin,
    handlers={
        ("day", ForumChoiceMade): _choice,
        ("night", ForumChoiceMade): _choice,
        ("day", ForumVoted): _vote,
        ("day", DeadlinePassed): _deadline,
        ("night", DeadlinePassed): _deadline,
        ("day", DeadlineNear): _near,
        ("night", DeadlineNear): _near,
    },
    handlers_any_phase={DeadlineMoved: _moved, WinDeclared: _declared},
    endings={},
    timers={},
    main_timers={},
    seat_removed=_nothing,
    removed_speaker=_nothing,
    game_over=_nothing,
    decide=forum_outcome.decide,
    sanction=_sanction,
    phase_name=phase_name,
    lights=_lights,
    microphone=MicrophoneRule(broken=_speech_breaks_nothing, running_over=_no_turns),
    title="the forum game",
    rules_section="forum",
    read_rules=read_forum,
    costs=("demotion", "lost_move"),
    night_steps=False,
    events=EVENTS,
    options=FORUM_OPTIONS,
    roles_change=True,  # its dusk changes roles (dusk.py)
)
