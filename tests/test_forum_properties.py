"""The forum game under random legal play (issue 11's must-shows).

For random tables of 20-26 seats (the ruleset's deals of both variants,
with and without basements and the multi-functional ДМ, a Bomzh put in,
and 26 seats given as the 25 deal with a Zombie beside it, balance.26.1-2),
random legal choices and votes (tests/forum_random_games.py):

* nothing crashes, and no input the player meant as legal is refused;
* inputs made illegal on purpose (a dead seat's post or vote, a dead
  target, a window that is not open, a move that is not the role's) are
  refused and leave the game as it was;
* nobody comes back: a seat once out stays out, as it left (role, team, how);
* a dead seat has no move: its posts and votes are refused, and the posts
  it made while alive count for nothing once it is out before the deadline
  (the same window played without them ends the same);
* every game ends in a win or a draw (docs/forum-rules-catalogue.md 5), or,
  after the days played, is one a side can still win: at least two
  factions are alive (else ``decide`` would have ended it), a window is
  open, and for every living faction there is a line of play to its win
  (the others miss the vote: deadline.autokill.2); at the Mafia's parity
  the host may declare its win (end.two.3, amb.42), and the two MM teams
  left alone may declare theirs (end.three.4, amb.41).
"""

from __future__ import annotations

from typing import Any

import pytest
from forum_random_games import (
    RULES,
    START,
    Driver,
    Table,
    dead,
    living,
    new_records,
    setup_for,
    tables,
)
from helpers import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.core import engine
from companion.core.effects import Effect
from companion.core.events import (
    Event,
    GameSetUp,
    OffenceGiven,
    WinDeclared,
)
from companion.core.forum.events import DeadlinePassed, ForumChoiceMade, ForumVoted
from companion.core.forum.outcome import faction, parity
from companion.core.forum.rules import the_forum_rules
from companion.core.forum.state import MM_TEAMS, last_target, state
from companion.core.state import Game
from companion.protocol import report

#: the days played before the game is judged "still open"
DAYS = 8
#: a removal the host gives (sanction.2 «всю игру с автокиллом»)
REMOVAL = "role_reveal_autokill"


def _fingerprint(game: Game) -> tuple[Any, ...]:
    """Everything an input could change, as values (repr: a refused input
    must not have written into the objects the old game holds)."""
    return (
        game.phase,
        game.day,
        repr(game.seats),
        repr(game.procedure_state),
        repr(game.proposals),
        game.log,
        repr(game.log.data if game.log else None),
        game.result,
    )


def _refused(game: Game, event: Event, why: str | None = None) -> None:
    """``event`` is refused (for ``why``, a piece of the message) and the
    game is as it was."""
    before = _fingerprint(game)
    with pytest.raises(engine.IllegalInput, match=why):
        engine.step(game, event)
    assert _fingerprint(game) == before, f"a refused {event!r} changed the game"


class Checks:
    """The invariants, run on every input the driver takes."""

    def __init__(self, driver: Driver) -> None:
        self.driver = driver
        driver.observers.append(self.after_input)
        self.probes = 0
        self.counterfactuals = 0

    def after_input(self, before: Game, event: Event, after: Game, _: tuple[Effect, ...]) -> None:
        for old, new in zip(before.seats, after.seats, strict=True):
            if old.out is not None:  # nobody comes back, nor changes once out
                assert new.out == old.out, f"seat {old.number} came back: {event!r}"
                assert (new.role, new.team) == (old.role, old.team), (
                    f"dead seat {old.number} changed: {old.role}/{old.team} -> "
                    f"{new.role}/{new.team} on {event!r}"
                )
        if after.phase == "ended":
            _valid_result(after)
        for record in new_records(before, after):
            if record.kind in ("choice", "vote"):
                seat = dict(record.data)["seat"]
                assert after.seat(int(str(seat))).out is None, f"a dead seat's move: {record}"

    # --- inputs made illegal on purpose -----------------------------------------
    def probe(self) -> None:
        """A dead seat's post and vote, a dead target, a closed window, a
        move that is not the role's: each refused, the game unchanged."""
        game = self.driver.game
        rng = self.driver.rng
        s = state(game)
        window = s.open[0] if s.open else ""
        gone = dead(game)
        alive = living(game)
        rules = the_forum_rules(game.rules)
        assert rules is not None
        if gone:  # the dead have no move, and are no one's target (amb.54)
            ghost = rng.choice(gone)
            target = rng.choice(alive).number
            out = "out of the game"
            if window in ("day_choices", "vote"):
                # a vote naming a dead seat is a vote for nobody (amb.36); a
                # vote by the dead is none
                _refused(game, ForumVoted(ghost.number, target), out)
                _refused(game, ForumVoted(ghost.number, 0, edit=True), out)
            if window == "day_choices":
                _refused(game, ForumChoiceMade(ghost.number, "protect", target), out)
                lawyer = next((x for x in alive if x.role == "lawyer"), None)
                if lawyer is not None:
                    _refused(game, ForumChoiceMade(lawyer.number, "protect", ghost.number), out)
            if window == "night":
                role = rules.role(ghost.role)
                action = role.action if role.action not in ("none", "protect", "annul") else "shoot"
                _refused(game, ForumChoiceMade(ghost.number, action, target), out)
                for actor in alive:
                    role = rules.role(actor.role)
                    if role.acts in ("night", "team"):
                        action = "shoot" if role.acts == "team" else role.action
                        _refused(game, ForumChoiceMade(actor.number, action, ghost.number), out)
                        break
        for name in ("day_choices", "vote", "night"):
            if name not in s.open:
                _refused(game, DeadlinePassed(name))
        if window == "night":
            _refused(game, ForumVoted(alive[0].number, alive[-1].number))
            _refused(game, ForumChoiceMade(alive[0].number, "protect", alive[-1].number))
        else:
            _refused(game, ForumChoiceMade(alive[0].number, "heal", alive[-1].number))
        civilian = next((x for x in alive if x.role == "civilian"), None)
        if civilian is not None and window == "night":  # a МЖ has no move (sides.2)
            _refused(game, ForumChoiceMade(civilian.number, "shoot", alive[0].number))
        for seat in alive:
            role = rules.role(seat.role)
            if window == "night" and seat.role == "doctor":  # roles.doctor.3
                last, when = last_target(s, seat.number)
                if last and when == game.day - 1 and game.seat(last).out is None:
                    _refused(game, ForumChoiceMade(seat.number, "heal", last))
            if window == "night" and role.acts == "once" and seat.number in s.block_used:
                _refused(game, ForumChoiceMade(seat.number, "block", alive[0].number))
            if window == "night" and role.acts == "night" and not role.self_target:
                _refused(game, ForumChoiceMade(seat.number, role.action, seat.number))  # amb.54
        if not parity(game):
            _refused(game, WinDeclared(("mafia",)))
        self.probes += 1

    # --- a dead seat's earlier posts -------------------------------------------------
    def counterfactual(self, start: Game, window_inputs: list[Event]) -> None:
        """Before the deadline, remove a seat that posted in this window; the
        window played again without its posts must end the same."""
        driver = self.driver
        posters = sorted(
            {
                x.seat if isinstance(x, ForumChoiceMade) else x.voter
                for x in window_inputs
                if isinstance(x, ForumChoiceMade | ForumVoted)
            }
        )
        posters = [n for n in posters if driver.game.seat(n).out is None]
        if not posters or driver.ended:
            return
        gone = driver.rng.choice(posters)
        window = driver.window()
        other = start
        for event in window_inputs:
            if isinstance(event, ForumChoiceMade) and event.seat == gone:
                continue
            if isinstance(event, ForumVoted) and event.voter == gone:
                continue
            other, _ = engine.step(other, event)
        tail: list[Event] = [OffenceGiven(gone, REMOVAL)]
        for event in tail:
            driver.take(event)
            other, _ = engine.step(other, event)
        if not driver.ended:
            driver.take(DeadlinePassed(window))
            other, _ = engine.step(other, DeadlinePassed(window))
        real = driver.game
        assert _outcome(real, start) == _outcome(other, start), (
            f"seat {gone}'s posts counted after it left ({window}, day {real.day})"
        )
        self.counterfactuals += 1


def _outcome(game: Game, start: Game) -> tuple[Any, ...]:
    seats = tuple((x.number, x.role, x.team, x.out) for x in game.seats)
    told = [
        (r.kind, r.data) for r in new_records(start, game) if r.kind in ("public", "private", "out")
    ]
    return seats, tuple(told), game.result, game.phase, game.day


def _valid_result(game: Game) -> None:
    """A win or a draw as section 5 allows: the winners have a living
    player (amb.40: a dead side never wins); an elimination leaves only the
    winners; a draw only with nobody left."""
    result = game.result
    assert result is not None
    alive = living(game)
    factions = {faction(x) for x in alive}
    if not result.winners:
        assert result.reason == "nobody_left" and not alive, result
        return
    for team in result.winners:
        assert team in factions, f"{team} won with nobody alive: {result}"
    if result.reason == "eliminated":
        assert factions == set(result.winners), result
    elif result.reason == "declared":
        assert result.winners == ("mafia",) or set(result.winners) == set(MM_TEAMS), result
    elif result.reason in ("final", "last_two"):
        assert len(alive) == 2, result  # end.final.*, end.two.4
    else:
        raise AssertionError(f"an unknown ending: {result}")


def _still_winnable(driver: Driver) -> None:
    """Section 5: a game not over after DAYS days can still be won. Two
    factions or more are alive (one alone has won, 5.1), a deadline is
    ahead, and each living faction has a line to its win: its players vote
    for nobody, the others miss the vote and leave (deadline.autokill.2)."""
    game = driver.game
    assert game.phase in ("day", "night"), game.phase
    assert state(game).open, "no window open in a game that goes on"
    alive = living(game)
    factions = sorted({faction(x) for x in alive})
    assert len(factions) >= 2, f"one faction left and the game goes on: {factions}"
    if parity(game):  # end.two.3: the host may end it
        declared, _ = engine.step(game, WinDeclared(("mafia",)))
        assert declared.result is not None
        assert (declared.result.winners, declared.result.clause) == (("mafia",), "end.two.3")
    if set(factions) == set(MM_TEAMS):  # end.three.4
        declared, _ = engine.step(game, WinDeclared(MM_TEAMS))
        assert declared.result is not None and set(declared.result.winners) == set(MM_TEAMS)
    for team in factions:
        _line_to_win(game, team)


def _line_to_win(game: Game, team: str) -> None:
    """Play on with ``team``'s players alone voting (for nobody): within two
    game days the game ends (another side may win by the way: a night's
    shots), and if it lasts to a vote that only they posted in, ``team``
    has won."""
    for _ in range(8):
        if game.phase == "ended":
            return
        s = state(game)
        window = s.open[0]
        fresh = window in ("day_choices", "vote") and not s.votes
        if window in ("day_choices", "vote"):
            for seat in living(game):
                if faction(seat) == team:
                    voted = any(v == seat.number for v, _, _ in s.votes)
                    game, _ = engine.step(game, ForumVoted(seat.number, 0, edit=voted))
            game, _ = engine.step(game, DeadlinePassed("vote"))
            if fresh:  # only ``team`` voted: the rest are out, ``team`` has won
                assert game.result is not None, f"{team} alone at the table, no result"
                assert game.result.winners == (team,), (team, game.result)
        else:
            game, _ = engine.step(game, DeadlinePassed("night"))
    raise AssertionError(f"no end in sight for {team}'s line to a win")


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables(), play_seed=st.integers(0, 2**32))
def test_random_legal_play_keeps_the_rules(table: Table, play_seed: int) -> None:
    driver = Driver(setup_for(*table), play_seed)
    checks = Checks(driver)
    while not driver.ended and driver.game.day <= DAYS:
        start, taken = driver.game, len(driver.inputs)
        checks.probe()
        window = driver.window()
        driver.posts(window)
        if not driver.ended:
            driver.host()
        if driver.ended:
            break
        if driver.rng.random() < 0.25:  # a poster leaves before the deadline
            checks.counterfactual(start, driver.inputs[taken:])
            continue
        checks.probe()
        driver.take(DeadlinePassed(window))
    if driver.ended:
        _valid_result(driver.game)
    else:
        _still_winnable(driver)
    # the replay JSON of every game is whole
    summary = report.summary(driver.game)
    assert len(summary["seats"]) == table[0]


# --- cases the random play found, kept as scripts ------------------------------------


def _table(roles: tuple[str, ...], *options: str) -> Game:
    game, _ = engine.new_game(
        GameSetUp(RULES, len(roles), roles=roles, start=START, options=options)
    )
    return game


def _run(game: Game, *events: Event) -> Game:
    for event in events:
        game, _ = engine.step(game, event)
    return game


def _votes(game: Game, votes: dict[int, int] | None = None) -> list[Event]:
    """Every living seat votes: ``votes``' target, else nobody (amb.36)."""
    votes = votes or {}
    return [ForumVoted(x.number, votes.get(x.number, 0)) for x in living(game)]


def test_a_sniper_joining_a_team_wiped_out_that_night_dies_as_a_maf() -> None:
    """fm.8-9: the Sniper hits the Don, whom the Cop kills, and the Don's
    shot kills the Sniper: he joins a team that has nobody left to tell
    (this crashed the night's close)."""
    game = _table(("cop", "don", "sniper", "civilian", "civilian", "civilian", "maniac"))
    game = _run(game, *_votes(game), DeadlinePassed("vote"))
    game = _run(
        game,
        ForumChoiceMade(3, "shoot", 2),
        ForumChoiceMade(1, "shoot", 2),
        ForumChoiceMade(2, "shoot", 3),
        DeadlinePassed("night"),
    )
    assert [(x.role, x.team, x.out is None) for x in game.seats[:3]] == [
        ("cop", "civilians", True),
        ("don", "mafia", False),
        ("mafia", "mafia", False),  # fm.8: he dies as a маф
    ]
    assert game.phase == "day"  # the Maniac and the civilians play on


def test_an_order_does_not_stand_when_its_giver_has_left() -> None:
    """roles.tramp.4: the shooter who took the Bomzh's vote orders it; a
    Cop removed before the day's deadline has no order (a dead seat has
    no move), and the Bomzh votes as he posted."""
    roles = ("cop", "don", "tramp", "civilian", "civilian", "civilian", "mafia", "civilian")
    game = _table(roles)
    game = _run(game, *_votes(game), DeadlinePassed("vote"))
    game = _run(game, ForumChoiceMade(1, "shoot", 3), DeadlinePassed("night"))
    assert state(game).tramp_owner == ((3, "1"),)
    game = _run(game, ForumChoiceMade(1, "order", 2), OffenceGiven(1, REMOVAL))
    game = _run(game, *_votes(game, {3: 4, 5: 4}), DeadlinePassed("vote"))
    assert game.seat(4).out is not None and game.seat(2).out is None
    assert not [r for r in new_records(None, game) if dict(r.data).get("cue") == "tramp_order"]


def test_the_don_alone_with_the_lone_maniac_wins_by_his_basement() -> None:
    """amb.37: one MM and the lone Maniac (against the Don, end.two.4 gives
    the Maniac nothing) left in the morning: the side with its basement
    wins (end.final.3)."""
    roles = ("don", "maniac", "civilian", "civilian", "civilian", "mafia")
    game = _table(roles, "two_sided")
    game = _run(game, ForumVoted(1, 0), ForumVoted(2, 0), DeadlinePassed("vote"))
    assert [x.number for x in living(game)] == [1, 2] and game.phase == "night"
    game = _run(game, DeadlinePassed("night"))
    assert game.result is not None
    assert (game.result.winners, game.result.reason, game.result.clause) == (
        ("mafia",),
        "final",
        "end.final.3",
    )
    # without a basement (roles.mafia.10) they play on
    game = _table(roles, "two_sided", "no_basements")
    game = _run(game, ForumVoted(1, 0), ForumVoted(2, 0), DeadlinePassed("vote"))
    game = _run(game, DeadlinePassed("night"))
    assert game.phase == "day"
