"""What every procedure's table screen does alike (``console/sports/screen.py``,
``console/forum/screen.py``): it follows one table, binds the host's keys
in the host's language, begins its log with the deal's hash and a resumed
game's past, keeps the last update seen (shown once it is mounted), says
a refusal, submits inputs and asks the host a line. Each screen lays out
and shows its game its own way (``_show_game``, ``tick``, ``write_log``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, ClassVar

from textual.screen import Screen
from textual.widgets import Static

from ..core.effects import Effect
from ..core.events import Event, Undone
from ..core.state import Game
from ..protocol.hostlog import HostLog
from .dialogs import AskText
from .history import Past
from .keymap import bind_host_keys, bind_map_keys

if TYPE_CHECKING:
    from ..live.assembly import LiveTable, Update
    from ..live.table_process import TableProcess
    from .words import Words

#: the screen's words: the console's (``Words``) or a procedure's own over them
Said = Callable[..., str]


def put(widget: Static, content: object, classes: str | None = None) -> None:
    """Show ``content`` (and ``classes``) in ``widget`` unless it shows them
    already: an update lays the screen out again even when nothing changed,
    and a host key updates every card (40 % of a key's time was that)."""
    shown = (content, classes)
    if getattr(widget, "_put_shown", None) == shown:
        return
    widget.update(content)  # type: ignore[arg-type]  # what Static.update takes
    if classes is not None:
        widget.set_classes(classes)
    widget._put_shown = shown  # type: ignore[attr-defined]


class GameScreen(Screen[None]):
    #: the host's keys: (key, action, the footer's word)
    HOST_KEYS: ClassVar[tuple[tuple[str, str, str], ...]] = ()
    #: how the footer shows keys whose names are long
    KEYS_SHOWN: ClassVar[dict[str, str]] = {}
    #: seconds between the clock's redraws
    TICK_S: ClassVar[float] = 1.0

    def __init__(
        self,
        table: LiveTable | TableProcess,
        words: Words,
        said: Said,
        parts: str,
        intro: list[str],
        past: Past | None,
    ) -> None:
        """``said``: the screen's words (``words``, or its procedure's over
        them); ``intro``: lines the log begins with (the deal's hash);
        ``past``: a resumed game's journal, whose lines are written again."""
        super().__init__()
        self.table = table
        self.said = said
        self.parts = parts
        self.intro = intro
        self.past = past
        self.update_seen: Update | None = None
        # The footer's words come in the host's language, so the host keys are
        # bound per screen rather than in the class's BINDINGS.
        bind_host_keys(self._bindings, self.HOST_KEYS, said, self.KEYS_SHOWN)
        bind_map_keys(self._bindings, words)
        self.host_lines = HostLog(lang=words.lang)

    # --- what each screen does its own way ----------------------------------------
    def write_log(self, line: str) -> None:
        """A line at the end of the screen's log."""
        raise NotImplementedError

    def write_steps(self, steps: Sequence[tuple[float, Game, tuple[Effect, ...]]]) -> None:
        """A resumed game's steps as its log had them."""
        raise NotImplementedError

    def _show_game(self, game: Game) -> None:
        raise NotImplementedError

    def show_update(self, update: Update) -> None:
        """What the table posted after an accepted input (table_news.py)."""
        raise NotImplementedError

    def tick(self) -> None:
        """The clock redrawn."""

    def after_past(self) -> None:
        """Once the log's first lines are written, before the first tick."""

    # --- alike ----------------------------------------------------------------------
    def on_mount(self) -> None:
        for line in self.intro:
            self.write_log(line)
        if self.past is not None:
            self._write_past(self.past)
        self.after_past()
        self.set_interval(self.TICK_S, self.tick)
        game = self.update_seen.game if self.update_seen is not None else self.table.game
        if game is not None:
            self._show_game(game)

    def _write_past(self, past: Past) -> None:
        """A resumed game's log as it was before the restart."""
        if past.commitment:
            self.write_log(self.said("commitment", hash=past.commitment))
        self.write_steps(past.steps)
        self.write_log(self.said("resumed_here"))

    @property
    def game(self) -> Game | None:
        return self.table.game

    def submit(self, event: Event) -> None:
        self.table.submit(event)

    def show_refusal(self, reason: str) -> None:
        said = self.said("refused", reason=reason)
        self.write_log("✗ " + said)
        self.notify(said, severity="warning")

    def _ask(self, prompt: str, then: Callable[[str | None], None], value: str = "") -> None:
        self.app.push_screen(AskText(prompt, value), then)

    def action_undo(self) -> None:
        # The host's own undo: past the microphone's flags that came after
        # the input it takes back (they are proposed again).
        self.submit(Undone(past_flags=True))
