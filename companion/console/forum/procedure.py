"""The forum game's part of the console (registered in
``console/procedures.py``): its screen, its set-up fields (the first game
day, the options; ``setup.py``) and its lines in the start question."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from ...core.events import GameSetUp
from ...core.rules import Ruleset
from ...core.state import Game
from ...core.views import phase_name
from ..procedure_parts import ConsoleProcedure, ScreenArgs, SetupPart
from .setup import ForumFields, first_dealt, first_game_day, forum_deal
from .words import ForumWords

if TYPE_CHECKING:
    from textual.screen import Screen
    from textual.widget import Widget

    from ..words import Words


class ForumSetup(SetupPart):
    def fields(self, words: Words, now: datetime, ticked: tuple[str, ...]) -> Widget | None:
        return ForumFields(ForumWords(words), first_game_day(now), ticked)

    def seats_for(self, rules: Ruleset, count: int | None) -> int | None:
        dealt = first_dealt(rules)  # the forum deals 20-25
        if dealt and (count is None or rules.deal_for(count) is None):
            return dealt
        return None

    def read(self, fields: Widget | None, words: Words) -> tuple[str, tuple[str, ...]] | str:
        assert isinstance(fields, ForumFields)
        start = fields.start()
        if not start:
            return ForumWords(words)("bad_date")
        return start, fields.options()

    def deals(self, rules: Ruleset, seats: int, options: tuple[str, ...]) -> bool:
        return forum_deal(rules, seats, options)

    def question(self, words: Words, setup: GameSetUp) -> list[str]:
        forum = ForumWords(words)
        options = ", ".join(forum(f"option.{o}") for o in setup.options)
        no_options = words("ask_start_no_options")
        return [words("ask_start_forum", date=setup.start, options=options or no_options)]


class ForumConsole(ConsoleProcedure):
    setup = ForumSetup()

    def screen(self, args: ScreenArgs) -> Screen[None]:
        from .screen import ForumScreen

        return ForumScreen(args.table, args.words, args.parts, args.intro, args.now, args.past)

    def preload(self) -> None:
        from . import screen  # noqa: F401

    def where(self, game: Game, words: Words) -> str:
        return ForumWords(words)(f"phase.{phase_name(game)}", day=game.day)

    def past_first_night(self, game: Game) -> bool:
        # its first day's results come at the first night's deadline
        return game.day >= 2 or (game.day == 1 and game.phase == "night")


CONSOLE = ForumConsole()
