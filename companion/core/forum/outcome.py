"""How the forum game ends (docs/forum-rules-catalogue.md 5).

A side wins when every other faction is out; the two-sided Maniac wins
with one player left beside him who is neither the Cop nor the Don; the
morning awards of «ИГРА СЧИТАЕТСЯ ЗАКОНЧЕННОЙ» decide two-player
endings; and the game goes on while a side can still win (end.playon.1).
Two wins are the host's to declare (``WinDeclared``): the Mafia at parity,
since the civilians may show a line to their win (end.two.3, amb.42), and
the two MM teams' joint win by agreement (end.three.4, amb.41).
"""

from __future__ import annotations

from ..outcome import playing_teams
from ..state import Game, Result, Seat
from .state import MM_TEAMS, last_target, state

#: the civilians' side; the Vampire is counted with it until his night (balance.20)
_CIVILIAN_TEAMS = ("civilians", "vampire")


def faction(seat: Seat) -> str:
    return "civilians" if seat.team in _CIVILIAN_TEAMS else seat.team


def result_for(game: Game, winners: tuple[str, ...], reason: str, clause: str) -> Result:
    losers = tuple(
        team for team in playing_teams(game) if team not in winners and team != "vampire"
    )
    return Result(winners, losers, reason, clause)


def decide(game: Game) -> Result | None:
    """The result the table has reached, checked after every night, vote
    and removal (5.1)."""
    alive = [seat for seat in game.seats if seat.out is None]
    if not alive:
        return Result((), (), "nobody_left", "amb.40")
    factions = {faction(seat) for seat in alive}
    if len(factions) == 1:
        (team,) = factions
        clause = {
            "civilians": "end.three.1" if _three_sided(game) else "end.two.1",
            "mafia": "end.three.2",
            "maniacs": "end.three.3",
            "zombie": "roles.zombie.9",
            "maniac": "end.two.4",
        }.get(team, "end.playon.1")
        return result_for(game, (team,), "eliminated", clause)
    if len(alive) == 2 and "maniac" in factions:
        other = next(seat for seat in alive if seat.team != "maniac")
        if other.role not in ("cop", "don"):
            return result_for(game, ("maniac",), "last_two", "end.two.4")  # amb.38
    return None


def _three_sided(game: Game) -> bool:
    """The маны were dealt (sides.4); else the two-sided game (sides.2-3)."""
    return any(seat.team == "maniacs" for seat in game.seats)


def morning(game: Game) -> Result | None:
    """The morning awards with two players left (end.final.1-4, amb.37-39),
    after ``decide``."""
    alive = [seat for seat in game.seats if seat.out is None]
    if len(alive) != 2:
        return None
    mm = [seat for seat in alive if seat.team in MM_TEAMS]
    if len(mm) != 1:
        return _one_on_one(game, mm) if len(mm) == 2 else None
    (member,) = mm
    other = next(seat for seat in alive if seat is not member)
    s = state(game)
    if other.role == "tin_woodman":
        return result_for(game, (member.team,), "final", "end.final.4")
    if other.role in ("lawyer", "bouncer"):
        target, when = last_target(s, other.number)
        # checked the morning after night N, before day N+1 opens: the
        # previous day of the coming vote is day N, the game's day still
        yesterday = when == game.day
        if other.role == "lawyer" and yesterday and target == other.number:
            return None  # end.final.2: he protected himself yesterday
        if other.role == "bouncer" and yesterday and target == member.number:
            return None  # amb.39: not the same target two days running
        return result_for(game, ("civilians",), "final", "end.final.1")
    if other.role in ("cop", "sniper", "maniac") and _has_basement(game, member.team):
        return result_for(game, (member.team,), "final", "end.final.3")  # amb.37
    return None


def _one_on_one(game: Game, mm: list[Seat]) -> Result | None:
    """Two MM of different teams: the one with his basement wins (end.final.3)."""
    teams = {seat.team for seat in mm}
    if len(teams) != 2:
        return None
    holders = [team for team in teams if _has_basement(game, team)]
    if len(holders) == 1:
        return result_for(game, (holders[0],), "final", "end.final.3")
    return None


def _has_basement(game: Game, team: str) -> bool:
    s = state(game)
    return "no_basements" not in s.options and team not in s.basement_used


def parity(game: Game) -> bool:
    """end.two.2 (amb.1): two-sided, the Maniac out, the civilians no more
    than the mafia. The host decides (end.two.3)."""
    alive = [seat for seat in game.seats if seat.out is None]
    if "maniacs" in {seat.team for seat in game.seats}:
        return False  # three-sided: no parity win (end.three.*)
    mafia = sum(1 for seat in alive if seat.team == "mafia")
    others = {faction(seat) for seat in alive} - {"mafia", "civilians"}
    civilians = sum(1 for seat in alive if faction(seat) == "civilians")
    return mafia > 0 and not others and civilians <= mafia


def may_declare(game: Game, teams: tuple[str, ...]) -> str | None:
    """Why the host may not declare this win now, or None when he may."""
    alive = {faction(seat) for seat in game.seats if seat.out is None}
    if teams == ("mafia",) and parity(game):
        return None
    if set(teams) == set(MM_TEAMS) and alive == set(MM_TEAMS):
        return None  # end.three.4: the two MM teams agreed
    return (
        "the host declares only the Mafia's win at parity (end.two.3)"
        " or the two MM teams' joint win (end.three.4)"
    )
