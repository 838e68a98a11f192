"""The sports table's part of the console (registered in
``console/procedures.py``): its screen, at most twelve seats (the screen's
cards and the seat keys reach twelve), and on simulated seats the vote
windows left open until the host's «Спасибо»."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from ...core.events import GameSetUp
from ...core.rules import Ruleset
from ...core.state import Game
from ..procedure_parts import ConsoleProcedure, ScreenArgs, SetupPart
from .seat_view import phase_line

if TYPE_CHECKING:
    from textual.screen import Screen

    from ..words import Words

#: the table screen seats 10 to 12 (the keys reach 12)
MAX_SEATS = 12


class SportsSetup(SetupPart):
    def max_seats(self, rules: Ruleset) -> int:
        return min(rules.max_seats, MAX_SEATS)


class SportsConsole(ConsoleProcedure):
    setup = SportsSetup()

    def screen(self, args: ScreenArgs) -> Screen[None]:
        from .screen import TableScreen

        return TableScreen(args.table, args.words, args.parts, args.intro, args.seats, args.past)

    def preload(self) -> None:
        from . import screen  # noqa: F401

    def where(self, game: Game, words: Words) -> str:
        return phase_line(game, words)

    def on_simulated_seats(self, setup: GameSetUp) -> GameSetUp:
        # One person keys every hand: a vote window's 2 s is not enough, so
        # it waits for the host's «Спасибо».
        return replace(setup, host_closes_votes=True)


CONSOLE = SportsConsole()
