"""What a procedure of play brings to the console: its table's screen, its
part of the set-up screen, how an unfinished game of it is named. Each
procedure has one ``ConsoleProcedure`` (``console/sports/procedure.py``,
``console/forum/procedure.py``), registered by its name in
``console/procedures.py``; the generic screens (``app.py``,
``setup_screen.py``) look it up and never branch on a procedure's name.

The defaults here are a procedure that asks nothing beyond the common
form: no fields of its own, every seat count the ruleset allows, the deal
the ruleset's table for that many seats."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from ..core.events import GameSetUp
from ..core.rules import Ruleset
from ..core.state import Game

if TYPE_CHECKING:
    from textual.screen import Screen
    from textual.widget import Widget

    from ..live.assembly import LiveTable
    from ..live.table_process import TableProcess
    from .history import Past
    from .words import Words


@dataclass(frozen=True, slots=True)
class ScreenArgs:
    """What the app hands a procedure to build its table's screen."""

    table: LiveTable | TableProcess
    words: Words
    parts: str  # which parts of the table are real and which simulated (table_news.py parts_line)
    intro: list[str]  # lines the log begins with (the deal's hash)
    seats: int
    now: Callable[[], datetime]  # the wall clock (tests give a fake one)
    past: Past | None  # a resumed game's journal, for its log


class SetupPart:
    """A procedure's part of the set-up screen."""

    def fields(self, words: Words, now: datetime, ticked: tuple[str, ...]) -> Widget | None:
        """The form's fields of its own (shown while one of its rulesets is
        chosen), ``ticked``: the last set-up's options; None: none."""
        return None

    def max_seats(self, rules: Ruleset) -> int:
        """The most seats its table screen can show."""
        return rules.max_seats

    def seats_for(self, rules: Ruleset, count: int | None) -> int | None:
        """The seat count offered when ``rules`` is chosen and ``count``
        (None: not a number) does not suit it; None: ``count`` stays."""
        return None

    def read(self, fields: Widget | None, words: Words) -> tuple[str, tuple[str, ...]] | str:
        """(the first game day, the options) from its ``fields``, or the
        words of what is wrong with them."""
        return "", ()

    def deals(self, rules: Ruleset, seats: int, options: tuple[str, ...]) -> bool:
        """The companion can deal this many seats with these options."""
        return rules.deal_for(seats) is not None

    def question(self, words: Words, setup: GameSetUp) -> list[str]:
        """Lines of its own in the question asked before the start."""
        return []


class ConsoleProcedure:
    """A procedure's part of the console (see the module's docstring)."""

    setup: SetupPart = SetupPart()

    def screen(self, args: ScreenArgs) -> Screen[None]:
        """The table's screen for a game of it."""
        raise NotImplementedError

    def preload(self) -> None:
        """Import its screen ahead of the first game (app._import_game_screens)."""

    def where(self, game: Game, words: Words) -> str:
        """Where an unfinished game stands, in the host's words."""
        raise NotImplementedError

    def past_first_night(self, game: Game) -> bool:
        """The game has played its first night: from then on it counts
        for the club's players (``players_count.py``)."""
        return game.day >= 1

    def on_simulated_seats(self, setup: GameSetUp) -> GameSetUp:
        """A new game's set-up when the keys play every seat's button."""
        return setup
