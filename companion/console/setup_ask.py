"""The set-up's one question before a game starts: what will start (the
ruleset, the seats, the deal, the forum game's date and options, the names)
and which seats have no name. Enter starts, Escape goes back to the form.

A blank seat is not refused: confirming fills it in as «Игрок N» (the
host's practice game, a guest nobody has asked yet), and the question says
which seats those are, so a name forgotten is seen before the deal."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Label

from ..core.events import GameSetUp
from .dialogs import AskYesNo
from .words import EN, RU, Words

#: Past this many characters the names are counted, not listed (the
#: question stays a few lines on an 80x24 screen).
NAMES_SHOWN_CHARS = 150


def is_filled_in(name: str, seat: int) -> bool:
    """A blank seat's name as the set-up filled it in («Игрок 3», "Player 3"):
    not a player for the roster, nothing to add beside the seat's number."""
    return name in (RU["blank_name"].format(n=seat), EN["blank_name"].format(n=seat))


def seat_ranges(seats: Sequence[int]) -> str:
    """[2, 3, 4, 7] -> "2–4, 7"."""
    parts: list[str] = []
    start = previous = None
    for seat in [*seats, None]:
        if start is not None and previous is not None and seat != previous + 1:
            parts.append(str(start) if start == previous else f"{start}–{previous}")
            start = None
        if start is None:
            start = seat
        previous = seat
    return ", ".join(parts)


def start_question(words: Words, setup: GameSetUp, own: Sequence[str] = ()) -> str:
    """The lines of the question: what starts (``own``: the procedure's
    lines, console/procedure_parts.py ``SetupPart.question``), then the names."""
    w = words
    rules = setup.ruleset
    deal = w("ask_start_deal_cards" if setup.roles is not None else "ask_start_deal_companion")
    ruleset = rules.title if w.lang == "ru" and rules.title else rules.name
    lines = [w("ask_start"), w("ask_start_what", ruleset=ruleset, seats=setup.seats, deal=deal)]
    lines += own
    named = [(n, name) for n, name in enumerate(setup.names, 1) if name]
    listed = ", ".join(f"{n} {name}" for n, name in named)
    if named and len(listed) <= NAMES_SHOWN_CHARS:
        lines.append(w("ask_start_names", names=listed))
    elif named:
        lines.append(w("ask_start_named", named=len(named), seats=setup.seats))
    blanks = [n for n, name in enumerate(setup.names, 1) if not name]
    if blanks:
        lines.append(w("ask_start_blanks", seats=seat_ranges(blanks)))
    return "\n".join(lines)


class AskToStart(AskYesNo):
    """The question in the narrow dialog (it fits an 80-column screen)."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.question, classes="prompt", markup=False)
            with Horizontal(classes="buttons"):
                yield Button(self.yes, variant="primary", id="yes")
                yield Button(self.no, id="no")
