"""How a game ends: wins by elimination or parity, draws, team losses.

Win kinds are ruleset data (``Team.win``); this module only counts. A team
of the ruleset with no seat at this table (a club game dealt without a
Maniac) neither wins nor loses: results list only the teams that played,
since they reach a club's ratings.
"""

from __future__ import annotations

from .state import Game, Result
from .step import Step


def _alive_by_team(game: Game) -> dict[str, int]:
    counts = {team.id: 0 for team in game.rules.teams}
    for seat in game.seats:
        if seat.out is None:
            counts[seat.team] += 1
    return counts


def playing_teams(game: Game) -> tuple[str, ...]:
    """The ruleset's teams that have (or had) a seat at this table, in ruleset order."""
    dealt = {seat.team for seat in game.seats}
    return tuple(team.id for team in game.rules.teams if team.id in dealt)


def _others(game: Game, winners: tuple[str, ...]) -> tuple[str, ...]:
    """The losers beside ``winners``: every other team that played."""
    return tuple(team for team in playing_teams(game) if team not in winners)


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
            return Result((team,), _others(game, (team,)), "parity")
    if not parity_alive:
        winners = tuple(t.id for t in rules.teams if t.win == "eliminate" and counts[t.id] > 0)
        return Result(winners, _others(game, winners), "eliminated")
    living_teams = [team for team, n in counts.items() if n > 0]
    if len(living_teams) == 1:
        winners = (living_teams[0],)
        return Result(winners, _others(game, winners), "eliminated")
    return None


def end(t: Step, result: Result, cue: str | None = None) -> None:
    t.cancel_all_timers()
    t.set(phase="ended", result=result)
    t.procedure.game_over(t)
    t.record(
        "result",
        winners=",".join(result.winners),
        losers=",".join(result.losers),
        reason=result.reason,
    )
    if cue:
        t.say(cue)
    elif result.winners:
        t.say("game_won", team=",".join(result.winners))
    else:
        t.say("game_drawn")


def check(t: Step) -> bool:
    """End the game if it is decided; True when it has ended."""
    if t.game.phase == "ended":
        return True
    result = t.procedure.decide(t.game)
    if result is None:
        return False
    end(t, result)
    return True


def stop(t: Step, reason: str) -> None:
    """The host ends the game early: nobody wins or loses."""
    t.record("stopped", reason=reason)
    end(t, Result((), (), "stopped"), cue="game_stopped")


def team_loss(t: Step, losers: tuple[str, ...], reason: str, clause: str | None) -> None:
    """The given teams lose; the teams still at the table share the win. A
    loser with no seat at this table (club team_loss.6 names the Maniac in a
    game dealt without one) is left out."""
    game = t.game
    playing = playing_teams(game)
    losers = tuple(team for team in losers if team in playing)
    counts = _alive_by_team(game)
    winners = tuple(
        team.id for team in game.rules.teams if team.id not in losers and counts[team.id] > 0
    )
    for team in losers:
        t.say("team_loses", team=team)
    end(t, Result(winners, losers, reason, clause))
