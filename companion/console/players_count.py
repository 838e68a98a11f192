"""When a game counts for the club's players (``./run players``): once its
first night is over, not when it starts, so a game abandoned during night 0
(a stray start, a wrong deal) leaves no trace in the roster.

The console shows this object every state the table posts. A new game
counts when it first reaches day 1 (the forum game, which opens on day 1:
when day 1's results are in, i.e. its first night opens); a game the host
undoes back before that is taken back out of the roster. A resumed game
was counted already if it had got that far, so its first state only says
where it stands. The names «Игрок N» the set-up fills in for blank seats
are not players and are left out.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

from ..club.roster import Warn, forget, remember
from ..core.state import Game
from . import procedures
from .setup_ask import is_filled_in


def past_first_night(game: Game) -> bool:
    """The game has played its first night (the forum game: its first day's
    results). A game that ended by its rules had; one the host stopped
    says nothing here (the state before the stop tells)."""
    return procedures.of(game.rules).past_first_night(game)


def players_of(game: Game) -> list[str]:
    return [s.name for s in game.seats if s.name and not is_filled_in(s.name, s.number)]


class PlayersCount:
    """Counts the console's current game in the roster at `path` once."""

    def __init__(self, path: Path, today: Callable[[], dt.date], warn: Warn | None = None) -> None:
        self.path = path
        self.today = today
        self.warn = warn
        self.counted: bool | None = None  # None: a resumed game's first state will tell
        self.names: list[str] = []  # the names counted, to take back

    def new_game(self) -> None:
        self.counted, self.names = False, []

    def resumed(self) -> None:
        self.counted, self.names = None, []

    def seen(self, game: Game) -> None:
        """A state the table posted."""
        if game.phase == "setup":
            return
        if game.phase == "ended":
            if game.result is None or game.result.reason == "stopped":
                return  # stopped by the host: as far as the game had got
            played = True  # ended by its rules: a game played
        else:
            played = past_first_night(game)
        if self.counted is None:  # resumed: counted before the restart if it had got this far
            self.counted = played
            self.names = players_of(game) if played else []
            return
        if played and not self.counted:
            self.names = players_of(game)
            if self.names:
                remember(self.path, self.names, self.today(), self.warn)
            self.counted = True
        elif not played and self.counted:
            if self.names:
                forget(self.path, self.names, self.warn)
            self.counted, self.names = False, []
