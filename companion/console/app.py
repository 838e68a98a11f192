"""The host's console: ``companion`` with no arguments.

Start-up: the club's config says what the table is made of (on a Pi its
pin map and sound device; anywhere else a simulated table: the keys press
the seat buttons, the voice goes to the default sound device or, without
one, to captions). An unfinished game's journal is offered for resuming
(``--service``, the start-up after a power cut: resumed without asking);
otherwise the set-up screen opens. This module shows the screens; the
tables, one per game, are built and resumed by ``table_host`` (in a
process of their own), whose threads only post messages here.
``--inputs SCRIPT`` plays a table script at the live table
(``script_inputs``: rehearsals, the fault bench).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from textual.screen import Screen

from ..club.last_setup import LastSetup, last_setup_path, load_last_setup, save_last_setup
from ..club.roster import load_roster
from ..config.rulesets import available_rulesets, load_ruleset
from ..config.values import Config
from ..core.events import GameSetUp
from ..core.rules import Ruleset
from ..runner.clock import Clock
from ..runner.resume import Unfinished, unfinished_game
from ..runner.sd_notify import ServiceWatchdog
from ..runner.sd_notify import notify as sd_notify
from . import procedures
from .busy_screen import BusyScreen
from .dialogs import AskYesNo
from .history import Past, began, journal_past
from .players_count import PlayersCount
from .procedure_parts import ScreenArgs
from .script_at_table import ScriptAtTable
from .script_inputs import LAG_S, ScriptInputs, journal_records, played_in
from .setup_screen import SetupScreen
from .table_host import (
    PRACTICE_SPEED,
    TableHost,
)
from .words import Words

# The game's screens, the protocol and the refusals' words are imported
# where they are used, and once the first screen is up (``_start_up``):
# the first screen does not wait for them (tests/test_import_budget.py).
if TYPE_CHECKING:
    from ..voice.speaker import Speaker
    from .console_lock import ConsoleLock

log = logging.getLogger(__name__)


class ConsoleApp(ScriptAtTable):
    CSS_PATH = "console.tcss"
    # Textual's palette speaks English; «?» shows every key of a screen in
    # the host's language instead (keymap.py).
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self,
        config: Config,
        *,
        clock: Callable[[float], Clock] | None = None,
        threaded: bool = True,
        speaker: Speaker | None = None,
        now: Callable[[], datetime] = datetime.now,
        seed: int | None = None,
        service: bool = False,
        inputs: ScriptInputs | None = None,
        speed: float = 1.0,
        practice: float = PRACTICE_SPEED,
        console_lock: ConsoleLock | None = None,
    ) -> None:
        """``clock(start_at)``, ``threaded=False``, ``speaker``, ``now``,
        ``seed``: parts the tests give (a fake clock they move, the loop run
        on the app's thread, a speaker they read, a fixed date and deal).
        Without them the table runs in a process of its own. ``service``:
        the service's start-up (an unfinished game resumed without asking);
        ``inputs``: a script played at the table (implies ``service``),
        ``speed`` times as fast. Without ``inputs``, ``speed`` is a practice
        game's (journaled) and ``practice`` the speed the simulated table's
        key switches to. ``console_lock``: the table's, as the console
        command tried to take it (console_lock.py): held by another console,
        nothing of the table opens until that one is gone."""
        super().__init__()
        self.config = config
        self.words = Words(config.lang)
        self.title = self.words("title")
        self._now = now
        self._seed = seed
        self.inputs = inputs
        self.service = service or inputs is not None
        self.host = TableHost(
            config,
            self.post_message,
            clock=clock,
            threaded=threaded,
            speaker=speaker,
            now=now,
            speed=speed,
            lag=LAG_S if inputs is not None else 0.0,
            practice=practice if inputs is None else None,
        )
        self.console_lock = console_lock
        self._parts_shown = ""
        self.saved_protocol: list[Path] = []
        # The roster counts a game once its first night is over (players_count.py).
        self.players = PlayersCount(config.paths.roster, lambda: self._now().date())
        # In place of Textual's own ctrl+q (English, and hidden from the footer).
        self._bindings.key_to_bindings.pop("ctrl+q", None)
        self._bindings.bind("ctrl+q", "quit", self.words("key.quit"), priority=True)
        # systemd's watchdog (the service): pinged from this loop's timer only
        # while the table's loop has turned lately, so a hang of either stops it.
        self.watchdog = ServiceWatchdog(self._table_beat)

    # What the screens, tests and benches read of the table (table_host.py;
    # ``table`` and ``journal_path`` too, in table_news.py).
    @property
    def own_process(self) -> bool:
        return self.host.own_process

    def _table_beat(self) -> float | None:
        """When the table's loop last went round (None: no table)."""
        table = self.table
        return table.last_beat if table is not None else None

    # --- start-up ------------------------------------------------------------------
    def on_mount(self) -> None:
        if self.watchdog.enabled:
            self.set_interval(1.0, self.watchdog.tick)
        lock = self.console_lock
        if lock is not None and not lock.held:
            # Another console has this table: no table process, no sound
            # device, no seats here until it is gone (the service waits).
            log.info("another console (pid %s) has this table", lock.holder)
            screen = BusyScreen(lock, self.words, waiting=self.service)
            self.push_screen(screen, lambda _: self._start_up())
            return
        self._start_up()

    def _start_up(self) -> None:
        # Import the table's parts while the host looks at the first screen:
        # the start-up shows a screen sooner, and F5 finds them loaded. The
        # spare table process starts once the first screen is drawn, so that
        # it does not compete with drawing it.
        if self.own_process:
            self.call_after_refresh(self.host.spare_for_next_game)
        else:
            self.host.preload()
        self.call_after_refresh(_import_game_screens)
        found = unfinished_game(self.config.paths.journals, load_ruleset)
        if self.service:
            self._service_start(found)
        elif found is None:
            self.action_new_game()
        else:
            self._ask_to_resume(found)

    def _ask_to_resume(self, found: Unfinished) -> None:
        question = self.words(
            "resume_question",
            began=began(found.path),
            phase=procedures.of(found.game.rules).where(found.game, self.words),
        )

        def answered(resume: bool | None) -> None:
            if resume:
                self.resume(found.path)
            else:
                self.action_new_game()

        self.push_screen(AskYesNo(question, self.words("resume"), self.words("new_game")), answered)

    def _service_start(self, found: Unfinished | None) -> None:
        """The service's start-up: the power came back and nobody may be at
        the keyboard, so an unfinished game goes on at once; else the set-up
        screen, or with ``--inputs`` the script's game (unless its journal
        shows it played already)."""
        if found is not None:
            if self.resume(found.path):
                resumed = self.words("service_resumed", file=found.path.name)
                self.notify(resumed, severity="warning", timeout=30)
            else:
                self.action_new_game()  # the journal is kept; the host decides (docs/journal.md)
            return
        if self.inputs is None:
            self.action_new_game()
            return
        played = played_in(self.config.paths.journals, self.inputs)
        if played is not None:
            self.action_new_game()
            self.notify(self.words("script_played", file=played.name), timeout=30)
            return
        self._start_script(self.inputs)

    def on_ready(self) -> None:
        """The first screen is drawn: systemd's ``READY=1`` (a no-op outside
        the service: runner/sd_notify.py). Not after a refresh: a game's
        stream of updates can hold that back for as long as it runs."""
        sd_notify("READY=1")

    def action_new_game(self) -> None:
        self.host.close()
        if self.own_process:
            self.call_after_refresh(self.host.spare_for_next_game)
        roster = load_roster(self.config.paths.roster).names()
        last_path = last_setup_path(self.config.paths.roster)

        def keep(last: LastSetup) -> None:
            save_last_setup(last_path, last)

        screen = SetupScreen(
            self.words,
            available_rulesets(),
            # Read once per set-up screen (its fields ask for the rules at every turn).
            functools.cache(load_ruleset),
            self.start_game,
            ruleset=self.config.table.ruleset,
            seats=self.config.table.seats,
            roster=roster,
            seed=self._seed,
            now=self._now(),
            last=load_last_setup(last_path),
            keep=keep,
        )
        self._only(screen)

    def _only(self, screen: Screen[None]) -> None:
        """Show ``screen`` alone: set-up, a table or a protocol before it go."""
        while len(self.screen_stack) > 1:
            self.pop_screen()
        _forget_gone_widgets()
        self.push_screen(screen)

    def start_game(self, setup: GameSetUp, commitment: str | None) -> None:
        intro = [self.words("commitment", hash=commitment)] if commitment else []
        self._begin(setup, intro, simulated_votes=True)

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
        """A new game's table, its screen, then its setup; ``at``/``line``/
        ``ruleset``: a script's setup line. ``simulated_votes``: on simulated
        seats the vote windows wait for the host's «Спасибо» (one person
        keys every hand: 2 s is not enough). False: the table was not built
        (the host is told why)."""
        self.saved_protocol = []  # the last game's files are that game's
        try:
            table = self.host.open_new(setup.ruleset, setup.seats)
        except Exception as error:  # TableFailed, a pin map, a device: said, not raised
            self._failed(error)
            return False
        if simulated_votes and table.simulated_seats is not None:
            setup = procedures.of(setup.ruleset).on_simulated_seats(setup)
        self._show_table(setup.seats, setup.ruleset, intro)
        table.submit(setup, at=at, line=line, ruleset=ruleset)
        self.players.new_game()
        return True

    def resume(self, path: Path) -> bool:
        """The game of the journal ``path`` taken up again (with
        ``--inputs``, the script goes on after its journaled lines)."""
        records = None
        if self.inputs is not None:
            try:  # read before the table takes the journal and writes on
                records = journal_records(path)
            except (OSError, ValueError) as error:
                log.warning("%s: %s", path, error)  # the resume says what is wrong
        self.saved_protocol = []
        try:
            warnings = self.host.resume(path)
        except Exception as error:
            self._failed(error)
            return False
        from .refusals.lines import journal_warning

        for warning in warnings:  # a torn last line dropped, no lock file: in words
            self.notify(journal_warning(warning, self.words.lang), severity="warning")
        game = self.host.table.game if self.host.table is not None else None
        assert game is not None
        self.players.resumed()
        self._show_table(len(game.seats), rules=game.rules, past=journal_past(path))
        if self.inputs is not None and records is not None:
            self._go_on_with_script(self.inputs, records)
        return True

    def _failed(self, error: BaseException) -> None:
        from .refusals.lines import error_line

        log.error("the table could not be built: %s", error, exc_info=error)
        said = error_line(error, self.words.lang)  # a broken journal's line, in words
        self.notify(self.words("table_failed", error=said), severity="error", timeout=30)

    def _show_table(
        self,
        seats: int,
        rules: Ruleset,
        intro: list[str] | None = None,
        past: Past | None = None,
    ) -> None:
        """The table's screen, the one ``rules``' procedure registers
        (console/procedures.py); ``past``: a resumed game's journal, for its log."""
        table = self.table
        assert table is not None
        args = ScreenArgs(table, self.words, self.parts_line(), intro or [], seats, self._now, past)
        self._only(procedures.of(rules).screen(args))

    def action_practice_speed(self) -> None:
        """The simulated table's key: the practice speed on or off
        (table_host.py ``toggle_speed``); the parts line shows it."""
        table = self.table
        if table is None or table.simulated_seats is None:
            return
        if self.host.practice is None:
            self.notify(self.words("practice_scripted"), severity="warning")
            return
        self.host.toggle_speed()

    # --- the end ---------------------------------------------------------------------
    def _let_go_of_tables(self) -> None:
        self.host.close()
        self.host.close_spare()

    async def action_quit(self) -> None:
        self._let_go_of_tables()
        self.exit()

    def on_unmount(self) -> None:
        self._let_go_of_tables()


def _import_game_screens() -> None:
    """The game's screens, imported once the first screen is drawn (not
    before it: it does not wait for them; not at F5: the table shows at once)."""
    from . import protocol_screen  # noqa: F401

    for procedure in procedures.PROCEDURES.values():
        procedure.preload()


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
