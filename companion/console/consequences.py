"""What a host's key would do, asked of the pure engine before it is done:
who would leave the table, whether the game would end. The keys that can
end a game or send players out by the dozen (closing a forum window with
votes missing, an offence that loses a team, the host's stop or declared
win) ask first and say so, in words read off the very step the table would
take, not guessed beside it."""

from __future__ import annotations

from dataclasses import dataclass

from ..core.engine import apply
from ..core.events import Event
from ..core.state import Game
from ..protocol.report import records


@dataclass(frozen=True, slots=True)
class Consequence:
    leaving: tuple[int, ...]  # seats that would leave the table
    autokilled: tuple[int, ...]  # of those, for a post missing (the forum's autokill)
    ends: bool  # the game would end


def consequence(game: Game, event: Event) -> Consequence | None:
    """What ``event`` would do now (None: the table would refuse it)."""
    try:
        after, _ = apply(game, event)
    except ValueError:  # IllegalInput, BadEvent: the table says why when it is sent
        return None
    leaving = tuple(
        s.number
        for s, t in zip(game.seats, after.seats, strict=True)
        if s.out is None and t.out is not None
    )
    fresh = records(after)[len(records(game)) :]
    autokilled = tuple(
        int(str(data["seat"]))
        for data in (dict(r.data) for r in fresh if r.kind == "out")
        if str(data.get("clause", "")) in AUTOKILL_CLAUSES
    )
    return Consequence(leaving, autokilled, after.phase == "ended" and game.phase != "ended")


#: the forum's clauses for leaving because a post was missing or void
#: (deadline.autokill.2: no vote; forbid.8: a vote for oneself; a Vampire's
#: missed bite)
AUTOKILL_CLAUSES = frozenset({"deadline.autokill.2", "forbid.8", "roles.vampire.2"})


def dangerous(found: Consequence | None) -> bool:
    """A stray Enter must not do it: the game ends, or players leave for
    posts missing (autokills), not by the game's own moves."""
    return found is not None and (found.ends or bool(found.autokilled))
