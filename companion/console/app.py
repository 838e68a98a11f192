"""The host's console: ``companion`` with no arguments.

Start-up: the club's config says what the table is made of (on a Pi its
pin map and sound device; anywhere else a simulated table: the keys press
the seat buttons, the voice goes to the default sound device or, without
one, to captions). An unfinished game's journal is offered for resuming;
otherwise the set-up screen opens. One table per game, in a process of
its own (``table_process``: a spare one is spawned while the set-up screen
shows); the thread that reads its news never calls into the app: it posts
``TableUpdated``, ``TableRefused`` and ``TableLost`` messages. Tests run the
table in the app's process on a fake clock (``LiveTable``, unthreaded).
"""

from __future__ import annotations

import functools
import importlib
import io
import logging
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Static

from ..config import Config
from ..core.events import Event, GameSetUp
from ..core.rules import Ruleset
from ..core.views import phase_name
from ..protocol import archive
from ..protocol.report import protocol as protocol_lines
from ..roster import load_roster, remember
from ..rulesets import available_rulesets, load_ruleset
from ..runner.clock import Clock
from ..runner.resume import resume_journal, unfinished_game
from ..runner.session import GameSession
from .dialogs import AskYesNo
from .forum_screen import ForumScreen
from .forum_setup import first_game_day
from .setup_screen import SetupScreen
from .table_screen import TableScreen
from .words import Words

if TYPE_CHECKING:  # the voice stack (numpy, PortAudio) loads while the set-up screen shows
    from ..assembly import LiveTable, Update
    from ..ears.hearing import EarsSettings
    from ..table_process import TableProcess, TableWorker
    from ..voice.settings import VoiceSettings
    from ..voice.speaker import Speaker

    AnyTable = LiveTable | TableProcess

log = logging.getLogger(__name__)

#: what a table needs and the set-up screen does not: loaded in the background
TABLE_MODULES = ("companion.assembly",)


def _preload() -> None:
    for name in TABLE_MODULES:
        try:
            importlib.import_module(name)
        except Exception:  # the table will say what is wrong when it is built
            log.exception("preloading %s failed", name)


class TableUpdated(Message):
    def __init__(self, update: Update, table: int) -> None:
        super().__init__()
        self.update = update
        self.table = table  # which game's table: a closed one's last words are dropped


class TableRefused(Message):
    def __init__(self, reason: str, table: int) -> None:
        super().__init__()
        self.reason = reason
        self.table = table


class TableLost(Message):
    """The table's process died: the journal holds the game, resume it."""

    def __init__(self, reason: str, table: int) -> None:
        super().__init__()
        self.reason = reason
        self.table = table


class TableNotice(Message):
    """News from the table's parts for the host (the microphone lost, back)."""

    def __init__(self, what: str, line: str, table: int) -> None:
        super().__init__()
        self.what = what
        self.line = line
        self.table = table


class _Discard(io.StringIO):
    """Captions go to the console's log (every spoken line is there), not to
    the terminal the app draws on."""

    def write(self, text: str) -> int:
        return len(text)


class ProtocolScreen(Screen[None]):
    """The finished game's protocol; Escape goes back to the table (an undo
    there re-opens the game), ``n`` sets up the next one."""

    def __init__(self, words: Words, lines: list[str], saved: str) -> None:
        super().__init__()
        self.words, self.lines, self.saved = words, lines, saved
        self._bindings.bind("n", "app.new_game", words("key.new_game"))
        self._bindings.bind("escape", "app.pop_screen", words("key.back"))

    def compose(self) -> ComposeResult:
        yield Static(self.words("protocol_title"), classes="title")
        with VerticalScroll(id="protocol"):
            yield Static("\n".join(self.lines))
        yield Static(self.saved, id="saved")
        yield Footer()


class ConsoleApp(App[None]):
    CSS_PATH = "console.tcss"

    def __init__(
        self,
        config: Config,
        *,
        clock: Callable[[float], Clock] | None = None,
        threaded: bool = True,
        speaker: Speaker | None = None,
        now: Callable[[], datetime] = datetime.now,
        seed: int | None = None,
    ) -> None:
        """``clock(start_at)``, ``threaded=False``, ``speaker``, ``now``,
        ``seed``: parts the tests give (a fake clock they move, the loop run
        on the app's thread, a speaker they read, a fixed date and deal).
        Without them the table runs in a process of its own."""
        super().__init__()
        self.config = config
        self.words = Words(config.lang)
        self.title = self.words("title")
        self._clock = clock
        self._threaded = threaded
        self._speaker = speaker
        self._now = now
        self._seed = seed
        self.table: AnyTable | None = None
        # The table in its own process unless a test gives parts of it.
        self.own_process = threaded and clock is None and speaker is None
        self._spare: TableWorker | None = None
        self.tables = 0  # tables built so far; the current one's number
        self.journal_path: Path | None = None
        self.saved_protocol: list[Path] = []
        self._bindings.bind("ctrl+q", "quit", self.words("key.quit"), priority=True)

    # --- start-up ------------------------------------------------------------------
    def on_mount(self) -> None:
        # Import the table's parts while the host looks at the first screen:
        # the start-up shows a screen sooner, and F5 finds them loaded. The
        # spare table process starts once the first screen is drawn, so that
        # it does not compete with drawing it.
        if self.own_process:
            self.call_after_refresh(self._spare_for_next_game)
        else:
            threading.Thread(target=_preload, name="preload", daemon=True).start()
        found = unfinished_game(self.config.paths.journals, load_ruleset)
        if found is None:
            self.action_new_game()
            return
        question = self.words(
            "resume_question",
            file=found.path.name,
            phase=phase_name(found.game),
            day=found.game.day,
        )

        def answered(resume: bool | None) -> None:
            if resume:
                self.resume(found.path)
            else:
                self.action_new_game()

        self.push_screen(AskYesNo(question, self.words("resume"), self.words("new_game")), answered)

    def _spare_for_next_game(self) -> None:
        if self.table is None:  # not if a game began meanwhile: one sound stream at a time
            self._spawn_spare()

    def _spawn_spare(self) -> None:
        """A table process made ready while the host looks at a screen."""
        if self._spare is None:
            from ..table_process import TableWorker

            self._spare = TableWorker(_log_file(), self._voice_settings())

    def _voice_settings(self) -> VoiceSettings:
        from ..voice.settings import VoiceSettings

        voice = self.config.voice
        return VoiceSettings(
            lang=self.config.lang,
            voice=voice.voice,
            rate=voice.rate,
            pack=voice.pack,
            device=voice.device,
            captions_only=voice.captions_only,
            latency=voice.latency,
        )

    def _ears_settings(self) -> EarsSettings | None:
        from ..ears.hearing import EarsSettings

        mic = self.config.microphone
        if not mic.listen:
            return None
        return EarsSettings(
            device=mic.device,
            layout=mic.layout,  # type: ignore[arg-type]  # checked by the config's reader
            channels=mic.channels,
            detector=mic.detector,  # type: ignore[arg-type]
            calibration=mic.calibration,
            words_model=mic.words_model or "",
            words_threshold=mic.words_threshold,
        )

    def action_new_game(self) -> None:
        self._close_table()
        if self.own_process:
            self.call_after_refresh(self._spare_for_next_game)
        roster = load_roster(self.config.paths.roster).names()
        screen = SetupScreen(
            self.words,
            available_rulesets(),
            load_ruleset,
            self.start_game,
            ruleset=self.config.table.ruleset,
            seats=self.config.table.seats,
            roster=roster,
            seed=self._seed,
            today=first_game_day(self._now()),
        )
        self._only(screen)

    def _only(self, screen: Screen[None]) -> None:
        """Show ``screen`` alone: set-up, a table or a protocol before it go."""
        while len(self.screen_stack) > 1:
            self.pop_screen()
        _forget_gone_widgets()
        self.push_screen(screen)

    def start_game(self, setup: GameSetUp, commitment: str | None) -> None:
        self._close_table()  # one table at a time: the last game's journal let go
        folder = self.config.paths.journals
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        stem = f"{self._now():%Y-%m-%d_%H-%M-%S}"
        self.journal_path = folder / f"{stem}.jsonl"
        for n in range(2, 1000):  # two games begun within a second
            if not self.journal_path.exists():
                break
            self.journal_path = folder / f"{stem}-{n}.jsonl"
        try:
            self.table = self._table(setup.ruleset, setup.seats, None, self.journal_path)
        except Exception as error:  # TableFailed, a pin map, a device: said, not raised
            self._failed(error)
            return
        intro = [self.words("commitment", hash=commitment)] if commitment else []
        self._show_table(setup.seats, intro, setup.ruleset)
        self.table.submit(setup)
        names = [name for name in setup.names if name]
        if names:
            remember(self.config.paths.roster, names, self._now().date())

    def resume(self, path: Path) -> None:
        self._close_table()
        try:
            if self.own_process:  # the table's process takes the journal and rebuilds the game
                self.table = self._table(None, 0, None, None, resume=path)
                warnings = list(getattr(self.table, "warnings", ()))
            else:
                resumed = resume_journal(path, load_ruleset)
                warnings = resumed.warnings
                game = resumed.session.game
                assert game is not None
                self.table = self._table(game.rules, len(game.seats), resumed.session, None)
        except Exception as error:
            self._failed(error)
            return
        for warning in warnings:
            self.notify(warning, severity="warning")
        game = self.table.game
        assert game is not None
        self.journal_path = path
        self._show_table(len(game.seats), rules=game.rules)

    def _failed(self, error: BaseException) -> None:
        log.error("the table could not be built: %s", error, exc_info=error)
        self.notify(self.words("table_failed", error=error), severity="error", timeout=30)

    def _table(
        self,
        rules: Ruleset | None,
        seats: int,
        session: GameSession | None,
        journal: Path | None,
        *,
        resume: Path | None = None,
    ) -> AnyTable:
        from ..assembly import LiveTable, Outputs, TableSpec

        config = self.config
        spec = TableSpec(
            voice=self._voice_settings(),
            ears=self._ears_settings(),
            seats=config.seats.effective_mode(),
            pin_map=config.seats.pin_map,
            journal=journal,
            threaded=self._threaded,
        )
        number = self.tables + 1
        if self.own_process:
            from ..table_process import TableOrder

            self._spawn_spare()
            worker, self._spare = self._spare, None
            assert worker is not None
            built = worker.build(
                TableOrder(spec, rules, seats, config.lang, resume),
                functools.partial(self._post_update, number),
                functools.partial(self._post_refusal, number, None),
                functools.partial(self._post_lost, number),
                functools.partial(self._post_notice, number),
            )
            self.tables = number
            return built
        assert rules is not None
        start = session.now if session is not None else 0.0
        table = LiveTable(
            spec,
            rules,
            seats,
            outputs=Outputs(captions=_Discard(), host_log=None),
            session=session,
            clock=self._clock(start) if self._clock is not None else None,
            on_update=functools.partial(self._post_update, self.tables + 1),
            on_refused=functools.partial(self._post_refusal, self.tables + 1),
            on_notice=functools.partial(self._post_notice, self.tables + 1),
            speaker=self._speaker,
            lang=config.lang,
            wall=self._now,  # the forum game's deadlines on the app's clock
        )
        self.tables += 1
        table.start()
        return table

    # The loop's thread only posts: Textual's post_message is thread-safe.
    def _post_update(self, number: int, update: Update) -> None:
        self.post_message(TableUpdated(update, number))

    def _post_refusal(
        self, number: int, event: Event | None, reason: str, line: int | None
    ) -> None:
        self.post_message(TableRefused(reason, number))

    def _post_lost(self, number: int, reason: str) -> None:
        self.post_message(TableLost(reason, number))

    def _post_notice(self, number: int, what: str, line: str) -> None:
        self.post_message(TableNotice(what, line, number))

    def _show_table(
        self, seats: int, intro: list[str] | None = None, rules: Ruleset | None = None
    ) -> None:
        assert self.table is not None
        if rules is not None and rules.procedure == "forum":
            self._only(
                ForumScreen(self.table, self.words, self.parts_line(), intro or [], self._now)
            )
            return
        self._only(TableScreen(self.table, self.words, self.parts_line(), intro or [], seats))

    def parts_line(self) -> str:
        """Which parts of the table are real and which simulated."""
        w = self.words
        table = self.table
        seats = w("real") if table is not None and table.simulated_seats is None else w("simulated")
        sound = table is not None and table.sound
        parts = [
            w("seats_part", how=seats),
            w("voice_part", how=w("voice_sound") if sound else w("voice_captions")),
            w("mic_part") if self.config.microphone.listen is False else w("mic_listening"),
        ]
        if self.journal_path is not None:
            parts.append(w("journal_part", path=self.journal_path.name))
        return " · ".join(parts)

    # --- what the table posts ---------------------------------------------------------
    def on_table_updated(self, message: TableUpdated) -> None:
        if message.table != self.tables:
            return
        screen = self.screen
        if isinstance(screen, TableScreen | ForumScreen):
            screen.show_update(message.update)
        game = message.update.game
        if game is not None and game.phase == "ended" and message.update.effects:
            self._game_over()

    def on_table_lost(self, message: TableLost) -> None:
        """The table's process died (a crash, a kill): every accepted input
        is in the journal, so the game goes on from it in a new process."""
        if message.table != self.tables or self.journal_path is None:
            return
        log.error("%s; resuming %s", message.reason, self.journal_path)
        self.notify(self.words("table_lost", reason=message.reason), severity="error", timeout=15)
        table, self.table = self.table, None
        if table is not None:
            table.close()
        self.resume(self.journal_path)

    def on_table_notice(self, message: TableNotice) -> None:
        if message.table != self.tables:
            return
        key = {
            "lost": "mic_lost",
            "back": "mic_back",
            "words_off": "mic_words_off",
            "no_seats": "mic_no_seats",
        }.get(message.what, "mic_failed")
        self.notify(
            self.words(key, reason=message.line),
            severity="information" if message.what == "back" else "warning",
            timeout=15,
        )

    def on_table_refused(self, message: TableRefused) -> None:
        if message.table != self.tables:
            return
        screen = self.screen
        if isinstance(screen, TableScreen | ForumScreen):
            screen.show_refusal(message.reason)
        else:
            self.notify(self.words("refused", reason=message.reason), severity="warning")

    def _game_over(self) -> None:
        """The protocol saved in all three formats and shown; the table's
        screen stays until the host moves on (``n``), so an undo still works."""
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

    # --- the end ---------------------------------------------------------------------
    def _close_table(self) -> None:
        if self.table is not None:
            self.table.close()
            self.table = None

    def _close_spare(self) -> None:
        if self._spare is not None:
            self._spare.discard()
            self._spare = None

    async def action_quit(self) -> None:
        self._close_table()
        self._close_spare()
        self.exit()

    def on_unmount(self) -> None:
        self._close_table()
        self._close_spare()


def _forget_gone_widgets() -> None:
    """Textual 8 caches ``StylesCache.get_inner_outer`` with ``lru_cache`` on
    the method, so up to 1024 widgets' style caches (their drawn lines with
    them) outlive the screens that are gone: ~3 MB more after every game
    of a night. Emptied whenever a screen replaces the others."""
    try:
        from textual._styles_cache import StylesCache

        StylesCache.get_inner_outer.cache_clear()
    except (ImportError, AttributeError):  # a Textual that no longer has it
        pass


def _log_file() -> Path | None:
    """The file the console logs to (the table's process logs there too)."""
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.FileHandler):
            return Path(handler.baseFilename)
    return None
