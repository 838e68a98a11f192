"""The game's set-up: ruleset, seats, a name per seat (the club's roster
suggests them), roles dealt by the companion or entered from the cards.

A companion deal is provably fair: its seed is drawn when the screen opens
and the hash of it (``protocol.deal.commitment``) is shown at once, before
anybody can know a role; the protocol reveals the seed after the game and
``companion verify-deal`` checks both.

The form is filled in one pass: Enter moves to the next field (in the last
one, or on F5, ctrl+s or the button, it asks once before the start:
``setup_ask``); the start button takes no focus, so Tab and Shift+Tab never
land on it; the last set-up (``companion.club.last_setup``) is offered again."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.suggester import SuggestFromList
from textual.widget import Widget
from textual.widgets import Button, Footer, Input, Label, RadioButton, RadioSet, Select, Static

from ..club.last_setup import LastSetup
from ..club.roster import clean_name
from ..core.events import GameSetUp
from ..core.rules import Ruleset
from ..protocol import deal as fair
from . import procedures
from .procedure_parts import SetupPart
from .setup_ask import AskToStart, start_question
from .words import Words

#: the name rows made with the form (a procedure that seats more adds rows)
MAX_SEATS_SHOWN = 12


class DealChoice(RadioSet, inherit_bindings=False):
    """Who deals: Enter takes the highlighted choice and moves on, space
    only takes it (as RadioSet's own keys, but Enter walks the form)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down,right", "next_button", show=False),
        Binding("up,left", "previous_button", show=False),
        Binding("space", "toggle_button", show=False),
        Binding("enter", "pick", show=False),
    ]

    def on_mount(self) -> None:
        # RadioSet's own mount highlights its first button (after this
        # handler); Enter must not switch away from the deal offered again
        # (the last set-up's cards).
        self.call_later(self._highlight_pressed)

    def _highlight_pressed(self) -> None:
        if self.pressed_index >= 0:
            self._selected = self.pressed_index

    def action_pick(self) -> None:
        self.action_toggle_button()  # the pressed one stays pressed
        self.screen.focus_next()


class SetupScreen(Screen[None]):
    # F5 starts (shown in the footer); ctrl+s too where the terminal lets it
    # through (it is XOFF on a plain tty).
    BINDINGS: ClassVar[list[BindingType]] = [Binding("ctrl+s", "start", show=False)]
    AUTO_FOCUS = "#name-1"

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
        now: datetime | None = None,
        last: LastSetup | None = None,
        keep: Callable[[LastSetup], None] | None = None,
    ) -> None:
        """``on_start(setup, commitment)``: the game to set up, and the hash
        shown for a companion deal (None: roles from the cards). ``now``:
        the wall clock's time, for a procedure's own fields (the forum
        game's first day). ``last``: the last set-up,
        offered instead of ``ruleset`` and ``seats`` when its ruleset is
        still listed; ``keep``: where a confirmed set-up goes for next time."""
        super().__init__()
        self.words = words
        self.rulesets = list(rulesets)
        self.load = load
        self.on_start = on_start
        self.keep = keep
        if last is not None and last.ruleset in self.rulesets:
            ruleset, seats = last.ruleset, last.seats
        else:
            last = None
        self.last = last
        self.ruleset_name = ruleset if ruleset in self.rulesets else self.rulesets[0]
        self.seats = seats
        self.roster = list(roster)
        self.seed = fair.fresh_seed() if seed is None else seed
        self.now = now or datetime.now()
        #: each procedure's own fields, by its name (those it has)
        self.own_fields: dict[str, Widget] = {}
        self._bindings.bind("f5", "start", words("start"))

    @property
    def rules(self) -> Ruleset:
        return self.load(self.ruleset_name)

    @property
    def part(self) -> SetupPart:
        """The chosen ruleset's procedure's part of the form."""
        return procedures.of(self.rules).setup

    def compose(self) -> ComposeResult:
        w = self.words
        form = VerticalScroll(id="setup")
        form.can_focus = False  # the fields scroll it; Shift+Tab from the first wraps to the last
        with form:
            yield Static(w("setup_title"), classes="title")
            with Horizontal(classes="field"):
                yield Label(w("ruleset"))
                yield Select(
                    [(self._ruleset_words(name), name) for name in self.rulesets],
                    value=self.ruleset_name,
                    allow_blank=False,
                    id="ruleset",
                )
                yield Label(w("seats"))
                yield Input(str(self.seats), id="seats", type="integer", max_length=2)
            cards = self.last is not None and self.last.cards
            with DealChoice(id="deal"):
                yield RadioButton(w("deal_companion"), value=not cards, id="deal-companion")
                yield RadioButton(w("deal_cards"), value=cards, id="deal-cards")
            options = self.last.options if self.last is not None else ()
            for name, procedure in procedures.PROCEDURES.items():
                fields = procedure.setup.fields(w, self.now, options)
                if fields is not None:
                    self.own_fields[name] = fields
                    yield fields
            yield Static(w("commitment", hash=fair.commitment(self.seed)), id="commitment")
            yield Label(w("names"))
            suggester = SuggestFromList(self.roster, case_sensitive=False)
            for n in range(1, MAX_SEATS_SHOWN + 1):
                with Horizontal(classes="seat-row", id=f"row-{n}"):
                    yield Label(f"{n:>2}", classes="number")
                    yield self._name_input(n, suggester)
            with Vertical(id="start-box"):
                start = Button(w("start"), variant="primary", id="start")
                start.can_focus = False  # Tab never lands on it: a stray Enter starts nothing
                yield start
        yield Footer()

    def _name_input(self, n: int, suggester: SuggestFromList) -> Input:
        value = self.last.name(n) if self.last is not None else ""
        return Input(value, id=f"name-{n}", max_length=40, suggester=suggester)

    def _role_options(self) -> list[tuple[str, str]]:
        rules = self.rules
        english = self.words.lang == "en"
        return [(role.id if english else role.name, role.id) for role in rules.roles]

    def _ruleset_words(self, name: str) -> str:
        """The list's words for a ruleset: the shipped ones' short names,
        a club's own by its title (its file name in English)."""
        key = "ruleset." + name
        said = self.words(key)
        if said != key:
            return said
        if self.words.lang == "en":
            return name
        try:
            return self.load(name).title or name
        except Exception:  # a broken file: the start says what is wrong with it
            return name

    def on_mount(self) -> None:
        self._show_own_fields()
        self._show_rows()
        self.query_one("#name-1", Input).focus()

    # --- the form follows itself ----------------------------------------------------
    def _seat_count(self) -> int | None:
        text = self.query_one("#seats", Input).value.strip()
        return int(text) if text.isdigit() else None

    def _cards(self) -> bool:
        return self.query_one("#deal-cards", RadioButton).value

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
        # Rows beyond the first twelve, when the procedure seats more.
        for n in range(rows + 1, min(count, self.part.max_seats(self.rules)) + 1):
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
            self._name_input(n, suggester),
        ]
        if self.query("#role-1"):
            select: Select[str] = Select(
                self._role_options(), id=f"role-{n}", classes="role", prompt="—"
            )
            select.display = cards
            parts.append(select)
        row = Horizontal(*parts, classes="seat-row", id=f"row-{n}")
        self.query_one("#setup").mount(row, before="#start-box")

    def _show_own_fields(self) -> None:
        """A procedure's own fields, only while one of its rulesets is chosen."""
        chosen = self.rules.procedure
        for name, fields in self.own_fields.items():
            fields.display = name == chosen

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "seats":
            self._show_rows()

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        self._show_rows()

    # --- Enter walks the form --------------------------------------------------------
    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._next_field(event.input)

    def _next_field(self, field: Widget) -> None:
        """Focus the field after ``field``; after the last one, ask to start."""
        if self.focused is not field:
            return  # a value set on mount or by code, or the host has moved on
        chain = self.focus_chain
        if chain and chain[-1] is field:
            self.action_start()
        else:
            self.focus_next()

    def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.has_focus:  # picked from its list (Enter): on to the next field
            self.call_after_refresh(self._next_field, event.select)
        if event.select.id == "ruleset" and isinstance(event.value, str):
            self.ruleset_name = event.value
            roles = self._role_options()
            for select in self.query(".role").results(Select):
                select.set_options(roles)
            self._show_own_fields()
            offered = self.part.seats_for(self.rules, self._seat_count())
            if offered:
                self.query_one("#seats", Input).value = str(offered)

    # --- start -----------------------------------------------------------------------
    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start":
            self.action_start()

    def action_start(self) -> None:
        """Asks once what will start (``setup_ask``): Enter starts, Escape
        goes back (to the first seat without a name, if any)."""
        setup = self._setup()
        if setup is None:
            return
        blanks = [n for n, name in enumerate(setup.names, 1) if not name]

        def answered(go: bool | None) -> None:
            if go:
                self._start(setup)
            elif blanks:
                self.query_one(f"#name-{blanks[0]}", Input).focus()

        w = self.words
        question = start_question(w, setup, self.part.question(w, setup))
        self.app.push_screen(AskToStart(question, w("ask_start_yes"), w("ask_start_no")), answered)

    def _start(self, setup: GameSetUp) -> None:
        """The confirmed set-up kept for next time (names as typed), then
        the game, a blank seat named «Игрок N»."""
        if self.keep is not None:
            cards = setup.roles is not None
            rules = self.ruleset_name
            self.keep(LastSetup(rules, setup.seats, setup.names, cards, setup.options))
        w = self.words
        names = tuple(name or w("blank_name", n=n) for n, name in enumerate(setup.names, 1))
        commitment = None if setup.roles is not None else fair.commitment(self.seed)
        self.on_start(replace(setup, names=names), commitment)

    def _setup(self) -> GameSetUp | None:
        """The setup the form describes, or None (said on screen) when it is
        not one the ruleset can play."""
        w = self.words
        rules, part = self.rules, self.part
        count = self._seat_count()
        high = part.max_seats(rules)
        if count is None or not max(2, rules.min_seats) <= count <= high:
            self.notify(w("bad_seats", low=rules.min_seats, high=high), severity="error")
            return None
        read = part.read(self.own_fields.get(rules.procedure), w)
        if isinstance(read, str):
            self.notify(read, severity="error")
            return None
        start, options = read
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
        elif not part.deals(rules, count, options):
            self.notify(w("no_deal", ruleset=rules.name, seats=count), severity="error")
            return None
        return GameSetUp(
            rules, count, roles, seed=self.seed, names=tuple(names), start=start, options=options
        )
