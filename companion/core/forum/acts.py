"""Who may choose now in the forum game: the choices the open windows
take, seat by seat, by the roles' data (``[forum.roles]``). The console
lists them for the host to pick from (``console/forum/screen.py``); the
core checks each post again when it is entered (``posts.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from ..state import Game
from .posts import owner_seats
from .state import MM_TEAMS, state

__all__ = ["Act", "acts"]


@dataclass(frozen=True, slots=True)
class Act:
    """A choice one seat may post in an open window."""

    seat: int
    action: str
    gun: str = ""


def acts(game: Game) -> list[Act]:
    """The choices the open windows take, by the roles' data (``[forum.roles]``):
    the Lawyer's and the Bouncer's by day, a Bomzh's owner's order; by night
    each role's move, an MM team's shot and basement, the Tin Man's taken
    guns. The core checks each post again when it is entered."""
    if game.phase in ("setup", "ended"):
        return []
    s = state(game)
    rules = game.rules.forum
    assert rules is not None, "not a forum game"
    living = [x for x in game.seats if x.out is None]
    found: list[Act] = []
    if "day_choices" in s.open:
        for seat in living:
            if rules.role(seat.role).acts == "day":
                found.append(Act(seat.number, rules.role(seat.role).action))
        for _, owner in s.tramp_owner:
            found += [Act(n, "order") for n in owner_seats(game, owner)]
    if "night" in s.open:
        for seat in living:
            role = rules.role(seat.role)
            if role.acts == "team":
                found.append(Act(seat.number, "shoot"))
            elif (
                role.acts == "night"
                or (role.acts == "first_night" and not s.vampire_done)
                or (role.acts == "once" and seat.number not in s.block_used)
            ):
                found.append(Act(seat.number, role.action))
            if (
                seat.team in MM_TEAMS
                and "no_basements" not in s.options
                and seat.team not in s.basement_used
            ):
                found.append(Act(seat.number, "hide"))
            found += [Act(seat.number, "fire", gun) for tin, gun in s.guns if tin == seat.number]
    return found
