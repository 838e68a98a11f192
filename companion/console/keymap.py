"""The keys a screen answers to, at every terminal size: the footer shows
the ones that fit its width, the moment's most useful first, and «?» opens
the whole map in the host's language. An 80-column console cannot hold
fifteen keys on a line, and Textual's own palette speaks English, so the
map is where every key is found (a tap on a line of it is that key, for
the 7" touch screen)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingsMap, BindingType
from textual.containers import Grid, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Label, Static
from textual.widgets._footer import FooterKey

from .words import Words

#: the key that opens the map (and F1, where «?» would be typed into a field)
MAP_KEYS = ("question_mark", "f1")
#: keys the footer always keeps: the map's and the way out
ALWAYS = ("question_mark", "ctrl+q")
#: keys the footer shows together or not at all (+10 s without −10 s is odd)
PAIRS = {"right_square_bracket": "left_square_bracket"}


@dataclass(frozen=True, slots=True)
class KeyRow:
    """A line of the map: the key as shown, what it does, the action it
    runs (None: a line that only explains, like the seat keys)."""

    key: str
    shown: str
    description: str
    action: str | None


def footer_cells(shown: str, description: str) -> int:
    """The cells a key takes in the compact footer: the key, a space, its
    words, and the margin before the next one."""
    return cell_len(shown) + 1 + cell_len(description) + 1


def fit(wanted: Iterable[tuple[str, int]], room: int) -> set[str]:
    """The keys that fit in ``room`` cells, taken most wanted first; a key
    too wide for what is left is passed over for shorter ones after it."""
    shown: set[str] = set()
    for key, cells in wanted:
        if cells <= room:
            shown.add(key)
            room -= cells
    return shown


def key_rows(screen: Screen[Any], extra: Sequence[KeyRow] = ()) -> list[KeyRow]:
    """Every key ``screen`` and the app show (the screen's, then the app's;
    not a focused widget's scrolling, nor Textual's own hidden keys), after
    the ``extra`` lines; the actions are named so that the screen can run
    them (``app.quit``)."""
    rows = list(extra)
    seen = {row.key for row in rows}
    for key, active in screen.active_bindings.items():
        binding = active.binding
        ours = active.node in (screen, screen.app) and binding.show
        if not ours or key in seen or key in MAP_KEYS:  # «?» only closes the map
            continue
        seen.add(key)
        action = binding.action
        if active.node is screen.app and not action.startswith("app."):
            action = "app." + action
        whole = binding.tooltip or binding.description  # the footer's may be short
        rows.append(KeyRow(key, screen.app.get_key_display(binding), whole, action))
    return rows


def bind_host_keys(
    bindings: BindingsMap,
    keys: Iterable[tuple[str, str, str]],
    words: Callable[[str], str],
    shown_as: dict[str, str],
) -> None:
    """The host's keys, ``(key, action, word)``, in the host's language: the
    footer says a word's short form where the words have one
    (``key.confirm.short``), the map and the footer's tooltip say it whole."""
    for key, action, word in keys:
        whole, short = words(word), words(word + ".short")
        short = whole if short == word + ".short" else short  # no short form
        binding = Binding(
            key,
            action,
            short,
            key_display=shown_as.get(key),
            tooltip=whole if short != whole else "",
        )
        bindings.key_to_bindings.setdefault(key, []).append(binding)


class HostFooter(Footer):
    """The compact footer, showing only the keys that fit its width: first
    «?» and the way out, then those the screen wants most now
    (``priority``: keys, most wanted first), then the rest in their order."""

    def __init__(self, priority: Callable[[], Sequence[str]] = tuple) -> None:
        super().__init__(compact=True, show_command_palette=False)
        self.priority = priority
        self.fitted: frozenset[str] = frozenset()
        self._composed: tuple[object, ...] | None = None  # what the keys showed when composed

    def _keys_shown(self, fitted: frozenset[str]) -> tuple[object, ...]:
        """What the footer's keys would show: composed again only when this
        changes. Textual's Footer recomposes on every change of the
        bindings (each focus change, each screen), most of them changing
        nothing it shows; each cost about a millisecond and a half."""
        return (
            fitted,
            *(
                (key, b.binding.action, b.binding.description, b.binding.key_display,
                 b.enabled, b.tooltip)
                for key, b in self.screen.active_bindings.items()
                if b.binding.show
            ),
        )  # fmt: skip

    def bindings_changed(self, screen: Screen[object]) -> None:
        self._bindings_ready = True
        if screen.app.app_focus and self.is_attached and screen is self.screen:
            self.call_after_refresh(self._recompose_if_changed)

    async def _recompose_if_changed(self) -> None:
        if self.is_attached and self._keys_shown(self._fitted()) != self._composed:
            await self.recompose()

    def _fitted(self) -> frozenset[str]:
        width = self.size.width or self.app.size.width
        cells: dict[str, int] = {}
        for key, active in self.screen.active_bindings.items():
            binding = active.binding
            if binding.show:
                cells[key] = footer_cells(self.app.get_key_display(binding), binding.description)
        partner = {**PAIRS, **{b: a for a, b in PAIRS.items()}}
        order = [*ALWAYS, *self.priority(), *cells]
        wanted: list[tuple[str, int]] = []
        for key in dict.fromkeys(order):
            mate = partner.get(key, "")
            if key in cells and mate not in dict(wanted):  # a pair fits as one
                wanted.append((key, cells[key] + cells.get(mate, 0)))
        shown = fit(wanted, width)
        return frozenset(shown | {partner[key] for key in shown if key in partner})

    def compose(self) -> ComposeResult:
        self.fitted = self._fitted()
        self._composed = self._keys_shown(self.fitted) if self._bindings_ready else None
        last: dict[str, FooterKey] = {}
        for widget in super().compose():
            if isinstance(widget, FooterKey) and widget.key not in self.fitted:
                continue
            if isinstance(widget, FooterKey) and widget.key in ALWAYS:
                last[widget.key] = widget  # at the right end, in their order
                continue
            yield widget
        yield from (last[key] for key in ALWAYS if key in last)

    def refit(self) -> None:
        """Show the keys again if the width or the screen's wishes changed."""
        if self.is_attached and self._fitted() != self.fitted:
            # Recomposed from the footer's own queue: its keys bind to it.
            self.refresh(recompose=True)

    def on_resize(self, event: events.Resize) -> None:
        self.refit()


class KeyCell(Static):
    """A line of the map; a click or a tap runs its key."""

    def __init__(self, row: KeyRow, key_cells: int) -> None:
        """``key_cells``: the width of the keys' column."""
        text = Text()
        text.append(" " * (key_cells - cell_len(row.shown)) + row.shown, style="bold")
        text.append("  " + row.description)
        super().__init__(text, classes="key-cell")
        self.row = row

    def on_click(self) -> None:
        if self.row.action is not None:
            self.screen.dismiss(self.row.action)


class KeysMap(ModalScreen[str | None]):
    """The whole map of a screen's keys; a key pressed here closes it and
    does what it does on the screen, Escape or «?» only close it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", show=False),
        Binding("question_mark", "close", show=False),
        Binding("f1", "close", show=False),
    ]

    def __init__(self, words: Words, rows: Sequence[KeyRow]) -> None:
        super().__init__()
        self.words = words
        self.rows = list(rows)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog keys-map"):
            yield Label(self.words("keymap_title"), classes="prompt")
            key_cells = max((cell_len(row.shown) for row in self.rows), default=1)
            with Grid(id="keys-grid"):
                for row in self.rows:
                    yield KeyCell(row, min(key_cells, 10))

    def on_key(self, event: events.Key) -> None:
        for row in self.rows:
            if row.key == event.key and row.action is not None:
                event.stop()
                self.dismiss(row.action)
                return

    def action_close(self) -> None:
        self.dismiss(None)


def open_map(screen: Screen[Any], words: Words, extra: Sequence[KeyRow] = ()) -> None:
    """«?» on ``screen``: the map, and what the key chosen on it does."""

    def chosen(action: str | None) -> None:
        if action is not None:
            screen.call_later(screen.run_action, action)

    screen.app.push_screen(KeysMap(words, key_rows(screen, extra)), chosen)


def bind_map_keys(bindings: BindingsMap, words: Words) -> None:
    """«?» (shown in the footer) and F1 (where «?» would be typed) open the
    map: the screen's ``action_keys_map``."""
    bindings.bind("question_mark", "keys_map", words("key.help"), key_display="?")
    bindings.bind("f1", "keys_map", words("key.help"), show=False)
