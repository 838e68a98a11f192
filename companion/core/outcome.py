"""How a game ends: wins by elimination or parity, draws, team losses.

Win kinds are ruleset data (``Team.win``); this module only counts.
"""

from __future__ import annotations

from .common import Step
from .state import Game, Result


def _alive_by_team(game: Game) -> dict[str, int]:
    counts = {team.id: 0 for team in game.rules.teams}
    for seat in game.seats:
        if seat.out is None:
            counts[seat.team] += 1
    return counts


def decide(game: Game) -> Result | None:
    """The result the table has reached, or None while the game goes on."""
    rules = game.rules
    counts = _alive_by_team(game)
    total = sum(counts.values())
    if total == 0:
        if rules.draw_when_empty:
            return Result((), (), "nobody_left", rules.draw_clause)
        return None
    parity_alive = [t.id for t in rules.teams if t.win == "parity" and counts[t.id] > 0]
    if len(parity_alive) == 1:
        team = parity_alive[0]
        if counts[team] >= total - counts[team]:
            losers = tuple(t.id for t in rules.teams if t.id != team)
            return Result((team,), losers, "parity")
    if not parity_alive:
        winners = tuple(t.id for t in rules.teams if t.win == "eliminate" and counts[t.id] > 0)
        losers = tuple(t.id for t in rules.teams if t.id not in winners)
        return Result(winners, losers, "eliminated")
    living_teams = [team for team, n in counts.items() if n > 0]
    if len(living_teams) == 1:
        losers = tuple(t.id for t in rules.teams if t.id != living_teams[0])
        return Result((living_teams[0],), losers, "eliminated")
    return None


def end(t: Step, result: Result) -> None:
    t.cancel_all_timers()
    t.set(phase="ended", result=result, ballot=None)
    t.record(
        "result",
        winners=",".join(result.winners),
        losers=",".join(result.losers),
        reason=result.reason,
    )
    if result.winners:
        t.say("game_won", team=",".join(result.winners))
    else:
        t.say("game_drawn")


def check(t: Step) -> bool:
    """End the game if it is decided; True when it has ended."""
    if t.game.phase == "ended":
        return True
    result = decide(t.game)
    if result is None:
        return False
    end(t, result)
    return True


def team_loss(t: Step, losers: tuple[str, ...], reason: str, clause: str | None) -> None:
    """The given teams lose; the teams still at the table share the win."""
    game = t.game
    counts = _alive_by_team(game)
    winners = tuple(
        team.id for team in game.rules.teams if team.id not in losers and counts[team.id] > 0
    )
    for team in losers:
        t.say("team_loses", team=team)
    end(t, Result(winners, losers, reason, clause))
