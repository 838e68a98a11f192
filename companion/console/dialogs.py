"""Small modal questions the host answers from the keyboard: a line of text
(seat numbers, a reason), an offence picked from a searchable list, yes or no."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList
from textual.widgets.option_list import Option

if TYPE_CHECKING:
    from ..core.rules import Ruleset


class AskText(ModalScreen[str | None]):
    """One line of text; Enter gives it, Escape gives None."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", show=False)]

    def __init__(self, prompt: str, value: str = "") -> None:
        super().__init__()
        self.prompt = prompt
        self.value = value

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.prompt, classes="prompt", markup=False)
            yield Input(value=self.value, id="answer")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)


class PickOne(ModalScreen[str | None]):
    """A searchable list: typing narrows it, Enter takes the highlighted
    entry (the first one that matches), Escape gives None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", show=False),
        Binding("down", "move(1)", show=False),
        Binding("up", "move(-1)", show=False),
    ]

    def __init__(self, prompt: str, choices: Sequence[tuple[str, str]]) -> None:
        """``choices``: (id, what is shown); the id is what is given back."""
        super().__init__()
        self.prompt = prompt
        self.choices = list(choices)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide"):
            yield Label(self.prompt, classes="prompt", markup=False)
            yield Input(id="search")
            yield OptionList(*self._options(""), id="choices")

    def _options(self, text: str) -> list[Option]:
        words = text.lower().split()
        return [
            Option(shown, id=key)
            for key, shown in self.choices
            if all(word in f"{key} {shown}".lower() for word in words)
        ]

    def on_input_changed(self, event: Input.Changed) -> None:
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(self._options(event.value))
        options.highlighted = 0 if options.option_count else None

    def on_input_submitted(self, event: Input.Submitted) -> None:
        options = self.query_one(OptionList)
        if options.highlighted is not None:
            self.dismiss(options.get_option_at_index(options.highlighted).id)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_move(self, by: int) -> None:
        options = self.query_one(OptionList)
        if options.option_count:
            current = options.highlighted if options.highlighted is not None else -1
            options.highlighted = max(0, min(options.option_count - 1, current + by))

    def action_cancel(self) -> None:
        self.dismiss(None)


class AskYesNo(ModalScreen[bool]):
    """A question with two buttons (Enter: the one in focus, the first unless
    ``safe``; Escape: the second)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "answer(False)", show=False)]

    def __init__(self, question: str, yes: str, no: str, *, safe: bool = False) -> None:
        """``safe``: Enter gives the second answer (the question is about
        something that cannot be taken lightly: a stray Enter keeps things)."""
        super().__init__()
        self.question, self.yes, self.no = question, yes, no
        self.safe = safe

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide"):
            yield Label(self.question, classes="prompt", markup=False)
            with Horizontal(classes="buttons"):
                yield Button(self.yes, variant="primary", id="yes")
                yield Button(self.no, id="no")

    def on_mount(self) -> None:
        self.query_one("#no" if self.safe else "#yes", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


def offence_choices(rules: Ruleset, lang: str) -> list[tuple[str, str]]:
    """The ruleset's offences for ``PickOne``: the clause and the whole text
    (the list wraps it; typing the id finds it too), the id shown only on
    the English console."""
    from ..protocol.names import clause_text

    if lang != "ru":
        return [(o.id, f"{o.clause}  {o.text}  [{o.id}]") for o in rules.offences]
    return [(o.id, f"{clause_text(o.clause, 'ru', rules)}  {o.text}") for o in rules.offences]


def seat_numbers(text: str | None, seats: int, low: int = 1, high: int = 2) -> list[int] | None:
    """``"3 7"`` -> [3, 7]: ``low`` to ``high`` seat numbers of the table, or
    None when the text is not that."""
    if text is None:
        return None
    parts = text.replace(",", " ").split()
    if not low <= len(parts) <= high or not all(p.isdigit() and len(p) <= 3 for p in parts):
        return None
    numbers = [int(p) for p in parts]
    return numbers if all(1 <= n <= seats for n in numbers) else None
