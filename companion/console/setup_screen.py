"""The game's set-up: ruleset, seats, a name per seat (the club's roster
suggests them), roles dealt by the companion or entered from the cards.

A companion deal is provably fair: its seed is drawn when the screen opens
and the hash of it (``protocol.deal.commitment``) is shown at once, before
anybody can know a role; the protocol reveals the seed after the game and
``companion verify-deal`` checks both."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.suggester import SuggestFromList
from textual.widgets import Button, Footer, Input, Label, RadioButton, RadioSet, Select, Static

from ..core.events import GameSetUp
from ..core.rules import Ruleset
from ..protocol import deal as fair
from ..roster import clean_name
from .forum_setup import ForumFields, first_dealt, forum_deal, is_forum
from .forum_words import ForumWords
from .words import Words

MAX_SEATS_SHOWN = 12  # the table screen seats 10 to 12 (the keys reach 12)


class SetupScreen(Screen[None]):
    # F5 starts (shown in the footer); ctrl+s too where the terminal lets it
    # through (it is XOFF on a plain tty).
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+s", "start", show=False)]

    def __init__(
        self,
        words: Words,
        rulesets: Sequence[str],
        load: Callable[[str], Ruleset],
        on_start: Callable[[GameSetUp, str | None], None],
        *,
        ruleset: str,
        seats: int,
        roster: Sequence[str] = (),
        seed: int | None = None,
        today: date | None = None,
    ) -> None:
        """``on_start(setup, commitment)``: the game to set up, and the hash
        shown for a companion deal (None: roles from the cards). ``today``:
        the forum game's first day by default."""
        super().__init__()
        self.words = words
        self.rulesets = list(rulesets)
        self.load = load
        self.on_start = on_start
        self.ruleset_name = ruleset if ruleset in self.rulesets else self.rulesets[0]
        self.seats = seats
        self.roster = list(roster)
        self.seed = fair.fresh_seed() if seed is None else seed
        self.today = today or date.today()
        self._bindings.bind("f5", "start", words("start"))

    @property
    def rules(self) -> Ruleset:
        return self.load(self.ruleset_name)

    def compose(self) -> ComposeResult:
        w = self.words
        with VerticalScroll(id="setup"):
            yield Static(w("setup_title"), classes="title")
            with Horizontal(classes="field"):
                yield Label(w("ruleset"))
                yield Select(
                    [(name, name) for name in self.rulesets],
                    value=self.ruleset_name,
                    allow_blank=False,
                    id="ruleset",
                )
                yield Label(w("seats"))
                yield Input(str(self.seats), id="seats", type="integer", max_length=2)
            with RadioSet(id="deal"):
                yield RadioButton(w("deal_companion"), value=True, id="deal-companion")
                yield RadioButton(w("deal_cards"), id="deal-cards")
            yield ForumFields(ForumWords(w), self.today)
            yield Static(w("commitment", hash=fair.commitment(self.seed)), id="commitment")
            yield Label(w("names"))
            suggester = SuggestFromList(self.roster, case_sensitive=False)
            for n in range(1, MAX_SEATS_SHOWN + 1):
                with Horizontal(classes="seat-row", id=f"row-{n}"):
                    yield Label(f"{n:>2}", classes="number")
                    yield Input(id=f"name-{n}", max_length=40, suggester=suggester)
            with Vertical(id="start-box"):
                yield Button(w("start"), variant="primary", id="start")
        yield Footer()

    def _role_options(self) -> list[tuple[str, str]]:
        rules = self.rules
        english = self.words.lang == "en"
        return [
            (role.id if english else f"{role.name} ({role.id})", role.id) for role in rules.roles
        ]

    def on_mount(self) -> None:
        self._show_forum()
        self._show_rows()
        self.query_one("#name-1", Input).focus()

    # --- the form follows itself ----------------------------------------------------
    def _seat_count(self) -> int | None:
        text = self.query_one("#seats", Input).value.strip()
        return int(text) if text.isdigit() else None

    def _cards(self) -> bool:
        return self.query_one("#deal-cards", RadioButton).value

    def _max_seats(self, rules: Ruleset) -> int:
        """The table screen seats 12 at most; the forum game's has a list."""
        return rules.max_seats if is_forum(rules) else min(rules.max_seats, MAX_SEATS_SHOWN)

    def _show_rows(self) -> None:
        count = self._seat_count() or 0
        cards = self._cards()
        rows = len(self.query(".seat-row"))
        if cards and not self.query("#role-1"):
            # The role lists only when the cards are entered: twelve Selects
            # made up front cost the set-up screen most of its start-up.
            roles = self._role_options()
            for n in range(1, rows + 1):
                row = self.query_one(f"#row-{n}")
                row.mount(Select(roles, id=f"role-{n}", classes="role", prompt="—"))
        # A forum game's rows beyond the table's twelve, when asked for.
        for n in range(rows + 1, min(count, self._max_seats(self.rules)) + 1):
            self._add_row(n, cards)
        for n in range(1, rows + 1):
            self.query_one(f"#row-{n}").display = n <= count
            for select in self.query(f"#role-{n}"):
                select.display = cards
        self.query_one("#commitment").display = not cards

    def _add_row(self, n: int, cards: bool) -> None:
        suggester = SuggestFromList(self.roster, case_sensitive=False)
        parts: list[Label | Input | Select[str]] = [
            Label(f"{n:>2}", classes="number"),
            Input(id=f"name-{n}", max_length=40, suggester=suggester),
        ]
        if self.query("#role-1"):
            select: Select[str] = Select(
                self._role_options(), id=f"role-{n}", classes="role", prompt="—"
            )
            select.display = cards
            parts.append(select)
        row = Horizontal(*parts, classes="seat-row", id=f"row-{n}")
        self.query_one("#setup").mount(row, before="#start-box")

    def _show_forum(self) -> None:
        """The forum game's date and options, only for a forum ruleset."""
        self.query_one(ForumFields).display = is_forum(self.rules)

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "seats":
            self._show_rows()

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        self._show_rows()

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "ruleset" and isinstance(event.value, str):
            self.ruleset_name = event.value
            roles = self._role_options()
            for select in self.query(".role").results(Select):
                select.set_options(roles)
            self._show_forum()
            rules, count = self.rules, self._seat_count()
            dealt = first_dealt(rules)
            if is_forum(rules) and dealt and (count is None or rules.deal_for(count) is None):
                self.query_one("#seats", Input).value = str(dealt)  # the forum deals 20-25

    # --- start -----------------------------------------------------------------------
    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start":
            self.action_start()

    def action_start(self) -> None:
        setup = self._setup()
        if setup is not None:
            self.on_start(setup, None if setup.roles is not None else fair.commitment(self.seed))

    def _setup(self) -> GameSetUp | None:
        """The setup the form describes, or None (said on screen) when it is
        not one the ruleset can play."""
        w = self.words
        rules = self.rules
        count = self._seat_count()
        high = self._max_seats(rules)
        if count is None or not max(2, rules.min_seats) <= count <= high:
            self.notify(w("bad_seats", low=rules.min_seats, high=high), severity="error")
            return None
        start, options = "", tuple[str, ...]()
        if is_forum(rules):
            fields = self.query_one(ForumFields)
            start, options = fields.start() or "", fields.options()
            if not start:
                self.notify(ForumWords(w)("bad_date"), severity="error")
                return None
        names = []
        for n in range(1, count + 1):
            try:
                names.append(clean_name(self.query_one(f"#name-{n}", Input).value))
            except ValueError:
                names.append("")  # an empty or unprintable name: the seat's number will do
        roles: tuple[str, ...] | None = None
        if self._cards():
            chosen = [self.query_one(f"#role-{n}", Select).value for n in range(1, count + 1)]
            for n, role in enumerate(chosen, 1):
                if not isinstance(role, str):
                    self.notify(w("bad_role", seat=n), severity="error")
                    return None
            roles = tuple(str(role) for role in chosen)
        elif not forum_deal(rules, count, options):
            self.notify(w("no_deal", ruleset=rules.name, seats=count), severity="error")
            return None
        return GameSetUp(
            rules, count, roles, seed=self.seed, names=tuple(names), start=start, options=options
        )
