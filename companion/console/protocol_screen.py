"""The screen of a finished game's protocol."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from .keymap import HostFooter, bind_map_keys, open_map
from .words import Words


class ProtocolScreen(Screen[None]):
    """The finished game's protocol; Escape goes back to the table (an undo
    there re-opens the game), ``n`` sets up the next one."""

    def __init__(self, words: Words, lines: list[str], saved: str) -> None:
        super().__init__()
        self.words, self.lines, self.saved = words, lines, saved
        self._bindings.bind("n", "app.new_game", words("key.new_game"))
        self._bindings.bind("escape", "app.pop_screen", words("key.back"))
        bind_map_keys(self._bindings, words)

    def compose(self) -> ComposeResult:
        yield Static(self.words("protocol_title"), classes="title")
        with VerticalScroll(id="protocol"):
            yield Static("\n".join(self.lines), markup=False)  # a typed reason: text
        yield Static(self.saved, id="saved", markup=False)
        yield HostFooter()

    def action_keys_map(self) -> None:
        open_map(self, self.words)
