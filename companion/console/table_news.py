"""What the table's threads post to the console (``table_host``'s
messages), handled on the app's thread: an update shown on the game's
screen, a refusal said in the host's words, a lost table resumed from its
journal, news of its parts (the microphone, the voice, the journal's
disk) and the parts line that shows them, and the game's end: its protocol saved and shown, or, when the end
is undone, its files set aside. The base (through script_at_table.py)
of ``ConsoleApp`` (app.py), which starts the console and shows the
screens."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widgets import Static

from ..config.rulesets import load_ruleset
from ..config.values import Config
from ..runner.sd_notify import notify as sd_notify
from .players_count import PlayersCount
from .protocol_files import set_aside
from .table_host import TableHost, TableLost, TableNotice, TableRefused, TableUpdated
from .words import PART_NOTICES, Words

if TYPE_CHECKING:
    from ..ears.health import EarsHealth
    from .table_host import AnyTable

log = logging.getLogger(__name__)


class TableNews(App[None]):
    """The handlers of the table's messages; the app (app.py) gives the
    parts they use."""

    config: Config
    words: Words
    host: TableHost
    players: PlayersCount
    saved_protocol: list[Path]
    _parts_shown: str  # the parts line as last drawn
    _now: Callable[[], datetime]
    #: the listening process, as the table's notices tell (ears/health.py;
    #: None: nothing told yet, and the ears' package not even imported)
    ears_health: EarsHealth | None = None
    #: the hall's line (docs/hall.md): «Зал: всё доставлено» or how much waits
    hall_status: str = ""

    @property
    def table(self) -> AnyTable | None:
        return self.host.table

    @property
    def journal_path(self) -> Path | None:
        return self.host.journal_path

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """Every notice as text, never markup: what a host typed (a name, a
        stop reason) reaches the screen as it was typed («[/]» included)."""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    def resume(self, path: Path) -> bool:
        """The game of the journal ``path`` taken up again (app.py)."""
        raise NotImplementedError

    # --- what the table posts ---------------------------------------------------------
    def on_table_updated(self, message: TableUpdated) -> None:
        from .game_screen import GameScreen

        if message.table != self.host.number:
            return
        screen = self.screen
        if isinstance(screen, GameScreen):
            screen.show_update(message.update)
            self._show_parts(screen)
        game = message.update.game
        if game is not None:
            self.players.seen(game)
        if game is not None and game.phase == "ended" and message.update.effects:
            self._game_over()
        elif game is not None and game.phase != "ended" and self.saved_protocol:
            self._ending_undone()

    def _ending_undone(self) -> None:
        """The game's end was undone: its protocol files set aside."""
        moved = set_aside(self.saved_protocol)
        self.saved_protocol = []
        if moved:
            folder = moved[0].parent
            self.notify(self.words("protocol_set_aside", folder=folder), timeout=15)

    def on_table_lost(self, message: TableLost) -> None:
        """The table's process died (a crash, a kill): every accepted input
        is in the journal, so the game goes on from it in a new process."""
        path = self.journal_path
        if message.table != self.host.number or path is None:
            return
        log.error("%s; resuming %s", message.reason, path)
        self.notify(self.words("table_lost", reason=message.reason), severity="error", timeout=15)
        self.host.close()
        self.resume(path)

    def on_table_notice(self, message: TableNotice) -> None:
        if message.table != self.host.number:
            return
        what = message.what
        if what == "hall":  # in the parts line, never a toast (hall/words.py)
            self.hall_status = message.line
            self._parts_again()
            return
        from ..ears.health import HEALTH_NOTICES, QUIET_NOTICES  # light: no numpy

        if what in HEALTH_NOTICES:
            self._ears_changed(what, message.line)
            if what in QUIET_NOTICES:
                return
        if what in ("ears_restarted", "ears_gave_up") and self.ears_health is not None:
            self.notify(
                self.words(what, reason=message.line, count=self.ears_health.restarts),
                severity="warning" if what == "ears_restarted" else "error",
                timeout=15 if what == "ears_restarted" else 30,
            )
            return
        key = {
            "lost": "mic_lost",
            "back": "mic_back",
            "words_off": "mic_words_off",
            "no_seats": "mic_no_seats",
        }.get(what, what if what in PART_NOTICES else "mic_failed")
        if what in ("journal_moved", "journal_in_memory"):
            self.host.journal_path = Path(message.line)  # the game's journal is there now
        good = what in ("back", "voice_back", "journal_ok")
        loud = what in ("journal_moved", "journal_in_memory", "journal_failed")
        self.notify(
            self.words(key, reason=message.line),
            severity="information" if good else "error" if loud else "warning",
            timeout=30 if loud else 15,
        )

    def _parts_again(self) -> None:
        from .game_screen import GameScreen

        if isinstance(self.screen, GameScreen):
            self._show_parts(self.screen)

    def parts_line(self) -> str:
        """Which parts of the table are real and which simulated."""
        w = self.words
        table = self.table
        seats = w("real") if table is not None and table.simulated_seats is None else w("simulated")
        sound = table is not None and table.sound
        down = self.ears_health is not None and self.ears_health.state == "down"
        mic = "mic_down" if down else "mic_listening"
        parts = [
            w("seats_part", how=seats),
            w("voice_part", how=w("voice_sound") if sound else w("voice_captions")),
            w("mic_part") if self.config.microphone.listen is False else w(mic),
        ]
        if self.journal_path is not None:
            parts.append(w("journal_part", path=self.journal_path.stem))
        if self.hall_status:  # the tournament hall's (docs/hall.md)
            parts.append(self.hall_status)
        if table is not None and self.host.practice is not None and table.speed != 1.0:
            parts.insert(0, w("practice_part", speed=f"{table.speed:g}"))
        return " · ".join(parts)

    def _show_parts(self, screen: Screen[None]) -> None:
        """The parts line anew when it changed (a practice speed, and the
        voice with it: captions only above real time)."""
        line = self.parts_line()
        if line != self._parts_shown:
            self._parts_shown = line
            for widget in screen.query("#parts"):
                if isinstance(widget, Static):
                    widget.update(line)

    def _ears_changed(self, what: str, line: str) -> None:
        """The listening process's health anew: to systemd's status text (the
        service's status and the doctor read it: a no-op outside the
        service) and to the parts line."""
        from ..ears.health import EarsHealth, status_text

        health = (self.ears_health or EarsHealth()).after(what, line, self._now())
        self.ears_health = health
        sd_notify("STATUS=" + status_text(health))
        from .game_screen import GameScreen

        if isinstance(self.screen, GameScreen):
            self._show_parts(self.screen)

    def on_table_refused(self, message: TableRefused) -> None:
        from .game_screen import GameScreen
        from .refusals.wording import refusal_line

        if message.table != self.host.number:
            return
        table = self.host.table
        rules = table.game.rules if table is not None and table.game is not None else None
        said = refusal_line(message.reason, rules, self.words.lang)  # the core's, in words
        if message.line is not None and self.host.feeding:
            # As a replay stops at a refused line: the script and the game disagree.
            self.host.stop_feeding()
            reason = self.words("script_line_refused", line=message.line, reason=said)
            self.notify(self.words("script_stopped", reason=reason), severity="error", timeout=30)
        screen = self.screen
        if isinstance(screen, GameScreen):
            screen.show_refusal(said)
        else:
            self.notify(self.words("refused", reason=said), severity="warning")

    def _game_over(self) -> None:
        """The protocol saved in all three formats and shown; the table's
        screen stays until the host moves on (``n``), so an undo still works."""
        from ..protocol import archive
        from ..protocol.report import protocol as protocol_lines
        from .protocol_screen import ProtocolScreen

        table, path = self.table, self.journal_path
        if table is None or path is None or table.game is None:
            return
        try:
            made, _ = archive.from_journal(path, load_ruleset, self.config.lang)
            self.saved_protocol = archive.save_all(made, self.config.paths.games, self._now())
            saved = self.words("protocol_saved", paths=", ".join(map(str, self.saved_protocol)))
        except (OSError, ValueError) as error:
            saved = self.words("protocol_failed", error=error)
        lines = protocol_lines(table.game, self.config.lang)
        self.push_screen(ProtocolScreen(self.words, lines, saved))
