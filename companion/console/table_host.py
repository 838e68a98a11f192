"""The console's end of the live table: one table per game, built, resumed
and closed here; the app (``app.py``) shows the screens.

The table runs in a process of its own (``table_process``; a spare one is
spawned while the set-up screen shows, so the game starts at once), or, for
the pilot's tests and the memory bench, in the app's process on a fake clock
(``LiveTable``, unthreaded). Either way its threads never call into the app:
they post ``TableUpdated``, ``TableRefused``, ``TableLost`` and
``TableNotice`` messages, each with the number of the table it came from,
so that a closed table's last words are dropped.
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
from typing import TYPE_CHECKING, Any

from textual.message import Message

from ..config.rulesets import load_ruleset
from ..config.values import Config
from ..core.events import Event
from ..core.rules import Ruleset
from ..runner.clock import Clock, GameClock
from ..runner.resume import resume_journal
from ..runner.script import ScriptLine
from ..runner.session import GameSession
from .script_inputs import ScriptFeeder

if TYPE_CHECKING:  # the voice stack (numpy, PortAudio) loads while the set-up screen shows
    from ..ears.hearing import EarsSettings
    from ..live.assembly import LiveTable, Update
    from ..live.table_process import TableProcess, TableWorker
    from ..voice.settings import VoiceSettings
    from ..voice.speaker import Speaker

    AnyTable = LiveTable | TableProcess

log = logging.getLogger(__name__)

#: what a table needs and the set-up screen does not: loaded in the background
TABLE_MODULES = ("companion.live.assembly",)
#: the practice speed the simulated table's key switches to when the
#: console's ``--speed`` gives none (docs/console.md, "Practice speed")
PRACTICE_SPEED = 10.0


class TableUpdated(Message):
    def __init__(self, update: Update, table: int) -> None:
        super().__init__()
        self.update = update
        self.table = table  # which game's table: a closed one's last words are dropped


class TableRefused(Message):
    def __init__(self, reason: str, table: int, line: int | None = None) -> None:
        super().__init__()
        self.reason = reason
        self.table = table
        self.line = line  # the script line the refused input came from, if any


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


class TableHost:
    """Builds the console's tables and keeps the current one (``table``),
    its number (``number``) and its journal (``journal_path``).

    ``post``: the app's thread-safe ``post_message``. ``clock(start_at)``,
    ``threaded=False``, ``speaker``: parts the tests give (the table then
    runs in the app's process). ``speed``: game seconds per real second
    for the next game; ``practice``: the speed the host's key switches to
    (a practice game: its speed is journaled, a resumed one goes on at its
    journal's), None: ``speed`` is a script's pace, not the game's (no
    key, nothing journaled); ``lag``: seconds the table's clock starts
    behind the game (a scripted source's margin: console/script_inputs.py)."""

    def __init__(
        self,
        config: Config,
        post: Callable[[Message], object],
        *,
        clock: Callable[[float], Clock] | None = None,
        threaded: bool = True,
        speaker: Speaker | None = None,
        now: Callable[[], datetime] = datetime.now,
        speed: float = 1.0,
        lag: float = 0.0,
        practice: float | None = None,
    ) -> None:
        self.config = config
        self._post = post
        self._clock = clock
        self._threaded = threaded
        self._speaker = speaker
        self._now = now
        self.speed = speed
        self.lag = lag
        self.practice = practice
        # The table in its own process unless a test gives parts of it.
        self.own_process = threaded and clock is None and speaker is None
        self._spare: TableWorker | None = None
        self.table: AnyTable | None = None
        self.number = 0  # tables built so far; the current one's number
        self.journal_path: Path | None = None
        self._feeder: ScriptFeeder | None = None  # a script's inputs for this table

    # --- before a game ---------------------------------------------------------------
    def preload(self) -> None:
        """Import the table's parts while the host looks at the first screen
        (in the app's process; a table process imports its own)."""
        threading.Thread(target=_preload, name="preload", daemon=True).start()

    def spare_for_next_game(self) -> None:
        if self.table is None:  # not if a game began meanwhile: one sound stream at a time
            self._spawn_spare()

    def _spawn_spare(self) -> None:
        """A table process made ready while the host looks at a screen."""
        if self._spare is None:
            from ..live.table_process import TableWorker

            self._spare = TableWorker(_log_file(), self.voice_settings())

    def voice_settings(self) -> VoiceSettings:
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
            quick=voice.quick,
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
            above_room_db=mic.above_room_db,
        )

    # --- a game ------------------------------------------------------------------------
    def open_new(self, rules: Ruleset, seats: int) -> AnyTable:
        """A table for a new game, journaling into a new file of the journals
        folder; its setup is the caller's to submit. Raises what the build
        raises (TableFailed, a pin map, a device)."""
        self.close()  # one table at a time: the last game's journal let go
        folder = self.config.paths.journals
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        stem = f"{self._now():%Y-%m-%d_%H-%M-%S}"
        self.journal_path = folder / f"{stem}.jsonl"
        for n in range(2, 1000):  # two games begun within a second
            if not self.journal_path.exists():
                break
            self.journal_path = folder / f"{stem}-{n}.jsonl"
        self.table = self._build(rules, seats, None, self.journal_path)
        return self.table

    def resume(self, path: Path) -> list[str]:
        """The unfinished game of the journal ``path``, taken up again; the
        warnings (a torn last line dropped) for the host. Raises what the
        resume raises (the journal in use, damaged)."""
        self.close()
        if self.own_process:  # the table's process takes the journal and rebuilds the game
            self.table = self._build(None, 0, None, None, resume=path)
            warnings = list(getattr(self.table, "warnings", ()))
        else:
            resumed = resume_journal(path, load_ruleset)
            warnings = resumed.warnings
            game = resumed.session.game
            assert game is not None
            self.table = self._build(game.rules, len(game.seats), resumed.session, None)
        self.journal_path = path
        if self.practice is not None:  # the journal's speed: the key goes back to it
            self.speed = self.table.speed
            if self.speed != 1.0:
                self.practice = self.speed
        return warnings

    def toggle_speed(self) -> float | None:
        """The host's key on a practice table: the game's clock at 1 goes to
        the practice speed, any other to 1 (the next game starts so too);
        the new speed, or None when there is no game or no practice."""
        table = self.table
        if table is None or self.practice is None:
            return None
        self.speed = 1.0 if self.speed != 1.0 else self.practice
        log.info("the table's clock at ×%g", self.speed)
        table.set_speed(self.speed)
        return self.speed

    def _build(
        self,
        rules: Ruleset | None,
        seats: int,
        session: GameSession | None,
        journal: Path | None,
        *,
        resume: Path | None = None,
    ) -> AnyTable:
        from ..live.assembly import LiveTable, Outputs, TableSpec
        from ..seats.silent import silent_seats_for  # not before the first screen

        config = self.config
        spec = TableSpec(
            voice=self.voice_settings(),
            ears=self._ears_settings(),
            seats=config.seats.effective_mode(),
            pin_map=config.seats.pin_map,
            silent_seats=silent_seats_for(config),
            journal=journal,
            speed=self.speed,
            practice=self.practice is not None,
            threaded=self._threaded,
            hall=_hall(config),
        )
        number = self.number + 1
        if self.own_process:
            from ..live.table_messages import TableOrder

            self._spawn_spare()
            worker, self._spare = self._spare, None
            assert worker is not None
            built = worker.build(
                TableOrder(spec, rules, seats, config.lang, resume, lag=self.lag),
                functools.partial(self._updated, number),
                functools.partial(self._refused, number, None),
                functools.partial(self._lost, number),
                functools.partial(self._notice, number),
            )
            self.number = number
            return built
        assert rules is not None
        start = session.now if session is not None else 0.0
        clock: Clock | None = None
        if self._clock is not None:
            clock = self._clock(start)
        elif self.lag:
            clock = GameClock(start_at=start - self.lag * self.speed, speed=self.speed)
        table = LiveTable(
            spec,
            rules,
            seats,
            outputs=Outputs(captions=_Discard(), host_log=None),
            session=session,
            clock=clock,
            on_update=functools.partial(self._updated, number),
            on_refused=functools.partial(self._refused, number),
            on_notice=functools.partial(self._notice, number),
            speaker=self._speaker,
            lang=config.lang,
            wall=self._now,  # the forum game's deadlines on the app's clock
        )
        self.number = number
        table.start()
        return table

    def feed(self, lines: list[ScriptLine], on_done: Callable[[], None]) -> bool:
        """Hand a script's lines to the current table at their times (until
        it is closed); False: the table has no real clock to pace them by
        (a test's fake one)."""
        self.stop_feeding()
        table = self.table
        when = getattr(getattr(table, "clock", None), "wall_time", None)
        if table is None or when is None:
            return False
        self._feeder = ScriptFeeder(lines, table, when, lag=self.lag, on_done=on_done)
        self._feeder.start()
        return True

    @property
    def feeding(self) -> bool:
        return self._feeder is not None

    def stop_feeding(self) -> None:
        if self._feeder is not None:
            self._feeder.stop()
            self._feeder = None

    # The table's threads only post: Textual's post_message is thread-safe.
    def _updated(self, number: int, update: Update) -> None:
        self._post(TableUpdated(update, number))

    def _refused(self, number: int, event: Event | None, reason: str, line: int | None) -> None:
        self._post(TableRefused(reason, number, line))

    def _lost(self, number: int, reason: str) -> None:
        self._post(TableLost(reason, number))

    def _notice(self, number: int, what: str, line: str) -> None:
        self._post(TableNotice(what, line, number))

    # --- the end ---------------------------------------------------------------------
    def close(self) -> None:
        self.stop_feeding()  # what it handed over and is not journaled goes again after a resume
        if self.table is not None:
            table, self.table = self.table, None
            table.close()

    def close_spare(self) -> None:
        if self._spare is not None:
            self._spare.discard()
            self._spare = None


class _Discard(io.StringIO):
    """Captions go to the console's log (every spoken line is there), not to
    the terminal the app draws on."""

    def write(self, text: str) -> int:
        return len(text)


def _preload() -> None:
    for name in TABLE_MODULES:
        try:
            importlib.import_module(name)
        except Exception:  # the table will say what is wrong when it is built
            log.exception("preloading %s failed", name)


def _log_file() -> Path | None:
    """The file the console logs to (the table's process logs there too)."""
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.FileHandler):
            return Path(handler.baseFilename)
    return None


def _hall(config: Config) -> Any:
    """The table's hall (None without ``[hall]``: nothing of it is imported)."""
    if not config.hall.enabled:
        return None
    from ..hall.settings import hall_settings

    return hall_settings(config)
