"""The live table's part of each procedure of play, by its name
(``Ruleset.procedure``, as ``core/procedures.py`` names them): a watch on
the wall clock that submits the procedure's own inputs when their moment
comes. The forum game's windows close at their deadlines
(``runner/forum_clock.py``); the sports table's timers are the loop's own,
so it has none. A new procedure adds one line here."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Protocol

from ..core.events import Event
from ..core.rules import Ruleset
from ..core.state import Game
from ..runner.forum_clock import DeadlineWatch


class WallWatch(Protocol):
    """Submits inputs at wall-clock moments the game's state names."""

    def changed(self, game: Game) -> None:
        """The game after an accepted input (any thread)."""

    def tick(self) -> None:
        """Look at the clock once: submit what is due."""

    def start(self) -> None:
        """Look on a thread of its own (a threaded table)."""

    def stop(self) -> None: ...


#: (the rules, the table's submit, the wall clock) -> its watch, or None
WatchFactory = Callable[
    [Ruleset, Callable[[Event], None], Callable[[], datetime]], WallWatch | None
]


def no_watch(rules: Ruleset, submit: Callable[[Event], None], wall: Callable[[], datetime]) -> None:
    return None


def forum_deadlines(
    rules: Ruleset, submit: Callable[[Event], None], wall: Callable[[], datetime]
) -> WallWatch:
    forum = rules.forum
    assert forum is not None, "not a forum ruleset"
    return DeadlineWatch(submit, wall=wall, warn_minutes=forum.warning_minutes)


WATCHES: dict[str, WatchFactory] = {
    "sports_table": no_watch,
    "forum": forum_deadlines,
}
