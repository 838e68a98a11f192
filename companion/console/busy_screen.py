"""The whole screen of a console started on a table another console has
(its lock: ``console_lock.py``): who has it, Esc to quit, Enter to wait
until it is gone. Nothing of the table is opened meanwhile (no table
process, no sound device, no seats); once the other console is gone the
lock is taken and the start-up goes on (``ConsoleApp``). The service waits
without being asked: nobody may be at its keyboard."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Static

if TYPE_CHECKING:
    from .console_lock import ConsoleLock
    from .words import Words

log = logging.getLogger(__name__)

#: how often a waiting console tries the lock again, in seconds
RETRY_EVERY_S = 0.5


class BusyScreen(Screen[bool]):
    """Dismissed with True once this console holds the table's lock; the
    host's Esc quits the app instead."""

    DEFAULT_CSS: ClassVar[str] = """
    BusyScreen { align: center middle; }
    BusyScreen > #busy { width: 90%; height: auto; border: heavy $warning; padding: 1 2; }
    BusyScreen #busy-title { text-style: bold; }
    """

    def __init__(self, lock: ConsoleLock, words: Words, *, waiting: bool = False) -> None:
        super().__init__()
        self.console_lock = lock
        self.words = words
        self.waiting = False
        self._start_waiting = waiting
        pid = str(lock.holder) if lock.holder is not None else "?"
        self.title_line = words("busy", pid=pid)
        self._bindings.bind("escape", "app.quit", words("key.quit"), show=False)  # said above
        self._bindings.bind("enter", "wait", words("key.busy_wait"))

    def compose(self) -> ComposeResult:
        with Vertical(id="busy"):
            yield Static(self.title_line, id="busy-title")
            yield Static(self.words("busy_close"), id="busy-close")
            yield Static(self.words("busy_keys"), id="busy-keys")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        if self._start_waiting:
            self.action_wait()

    def action_wait(self) -> None:
        """Wait for the other console to go, trying its lock now and then."""
        if self.waiting:
            return
        self.waiting = True
        self.query_one("#busy-keys", Static).update(self.words("busy_waiting"))
        self.set_interval(RETRY_EVERY_S, self._try)

    def _try(self) -> None:
        if self.console_lock.held:
            return  # taken already: the screen is on its way out
        try:
            taken = self.console_lock.take()
        except OSError as error:  # the folder gone for a moment: try again later
            log.warning("the console lock %s: %s", self.console_lock.path, error)
            return
        if taken:
            log.info("the other console is gone: this one has the table now")
            self.dismiss(True)
