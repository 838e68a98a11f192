"""A table script played at the live console (``--inputs SCRIPT``:
rehearsals, the fault bench): the script's game begun from its setup line,
its lines handed to the table's feeder, the rest of them after a resume
(only into the script's own game), and the word once the last is in. The
script itself is read and timed by ``script_inputs``; this is the app's
side, a base of ``ConsoleApp`` (app.py), which starts the game."""

from __future__ import annotations

import logging

from textual.message import Message

from ..core.events import GameSetUp
from ..runner.script import ScriptError, ScriptLine
from .script_inputs import ScriptInputs, line_number
from .table_news import TableNews

log = logging.getLogger(__name__)


class ScriptFed(Message):
    """The scripted source has handed over its last line."""

    def __init__(self, table: int) -> None:
        super().__init__()
        self.table = table


class ScriptAtTable(TableNews):
    """The app's handling of a script at the table; the app (app.py) gives
    ``inputs`` and begins the game (``_begin``)."""

    #: the script played at the table (None: the host plays)
    inputs: ScriptInputs | None

    def _begin(
        self,
        setup: GameSetUp,
        intro: list[str],
        *,
        at: float | None = None,
        line: int | None = None,
        ruleset: str | None = None,
        simulated_votes: bool = False,
    ) -> bool:
        """A new game's table, its screen, then its setup (app.py)."""
        raise NotImplementedError

    def _start_script(self, inputs: ScriptInputs) -> None:
        """The script's game from its setup line, then its inputs."""
        setup = inputs.setup
        line, ruleset = line_number(setup), inputs.ruleset
        if self._begin(inputs.game_setup, [], at=setup.at, line=line, ruleset=ruleset):
            self._feed(inputs.after_setup())

    def _go_on_with_script(self, inputs: ScriptInputs, records: list[dict[str, object]]) -> None:
        """After a resume: the script's lines the journal does not hold, if
        the game is the script's; nothing is fed into another game."""
        if not inputs.began(records):
            self.notify(self.words("script_other_game", file=inputs.path.name), severity="warning")
            return
        try:
            self._feed(inputs.rest(records))
        except ScriptError as error:
            self.notify(self.words("script_stopped", reason=error), severity="error", timeout=30)

    def _feed(self, lines: list[ScriptLine]) -> None:
        number = self.host.number

        def done() -> None:
            self.post_message(ScriptFed(number))

        if not self.host.feed(lines, done):
            log.warning("the script is not fed: the table has no real clock")

    def on_script_fed(self, message: ScriptFed) -> None:
        if message.table == self.host.number and self.inputs is not None:
            self.notify(self.words("script_fed", file=self.inputs.path.name), timeout=15)
