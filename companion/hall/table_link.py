"""The hall link put on a live table: what ``live/assembly.py`` calls.

Kept here, not in the assembly, so that the table's side of the hall is
wired by three lines there (built, offered each update, closed), and a
table without ``[hall]`` imports none of it.
"""

from __future__ import annotations

from typing import Any

from ..core.effects import Say
from .link import HallLink
from .settings import HallSettings


class TableHall:
    """A ``HallLink`` fed from a ``LiveTable`` (``table``: duck-typed, the
    live layer sits above the hall's)."""

    def __init__(self, settings: HallSettings, table: Any, client: Any = None) -> None:
        self._table = table
        journal = table.session.journal
        game_id = journal.path.stem if journal is not None else "game"
        self.link = HallLink(
            settings,
            game_id,
            self._protocol,
            caption=self._caption,
            on_status=table._notice,
            client=client,
        )

    def start(self) -> None:
        self.link.start()

    def offer(self, update: Any) -> None:
        """On the table's loop thread, after each update: no waiting here."""
        table = self._table
        journal = table.session.journal
        seq = journal.lines if journal is not None else table.session.inputs
        self.link.offer(
            update.game, update.deadlines, update.effects, seq, table.clock.now(), table.speed
        )

    def close(self) -> None:
        self.link.close()

    def _caption(self, say: Say) -> str:
        voice = self._table.voice
        return str(voice.catalogue.text(say.cue, dict(say.args), voice.rules))

    def _protocol(self) -> bytes | None:
        """The game's protocol as ``companion protocol --format json`` prints
        it: made from the journal, on the link's thread."""
        from ..config.rulesets import load_ruleset
        from ..protocol.archive import from_journal
        from ..protocol.formats import render

        journal = self._table.session.journal
        if journal is None:
            return None
        made, _ = from_journal(journal.path, load_ruleset, self.link.settings.lang)
        return render(made, "json").encode("utf-8")
