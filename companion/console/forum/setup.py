"""The forum game's part of the set-up screen: the date of the first game
day (today by default) and the options announced with the balance
(``core.forum.rules.FORUM_OPTIONS``): the two-sided deal, no basements,
the multi-function Mafia's Child."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Checkbox, Input, Label

from ...core.forum.rules import FORUM_OPTIONS, forum_rules
from ...core.rules import Ruleset
from .words import ForumWords


def is_forum(rules: Ruleset) -> bool:
    return forum_rules(rules) is not None


def forum_deal(rules: Ruleset, seats: int, options: tuple[str, ...]) -> bool:
    """The ruleset deals this many seats with these options (the two-sided
    table when asked: balance.1); else the host gives the roles."""
    forum = forum_rules(rules)
    if "two_sided" in options and forum is not None:
        return seats in dict(forum.two_sided_deals)
    return rules.deal_for(seats) is not None


def first_dealt(rules: Ruleset) -> int | None:
    """The smallest table the ruleset deals (the forum game: 20)."""
    counts = [seats for seats, _ in rules.deals]
    return min(counts) if counts else None


#: the day choices' deadline of the text (deadline.day.2): a game set up
#: later in the day starts tomorrow, or the watch would close day 1's
#: windows at once (a skip for the Lawyer and the Bouncer, at 21:01 an
#: autokill for everyone)
_FIRST_DEADLINE = time(13, 0, 1)


def first_game_day(now: datetime) -> date:
    """The date the set-up screen offers for game day 1: today before the
    day choices' deadline, else tomorrow (the host may change it)."""
    return now.date() if now.time() < _FIRST_DEADLINE else now.date() + timedelta(days=1)


class OptionBox(Checkbox, inherit_bindings=False):
    """An option: space ticks it, Enter moves on (the set-up walks by Enter)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "toggle_button", show=False),
        Binding("enter", "next_field", show=False),
    ]

    def action_next_field(self) -> None:
        self.screen.focus_next()


class ForumFields(Vertical):
    """The first game day's date and the options, shown for a forum ruleset."""

    DEFAULT_CSS = """
    ForumFields {
        height: auto;
    }
    ForumFields .field {
        height: 3;
    }
    ForumFields Label {
        padding: 1 1 0 1;
    }
    ForumFields #forum-start {
        width: 18;  /* a whole date and the cursor: 10 + 1 inside the border and padding */
    }
    ForumFields .options {
        height: 1;
        margin: 0 0 1 1;
    }
    ForumFields Checkbox {
        width: auto;
        margin-right: 1;
    }
    """

    def __init__(self, words: ForumWords, today: date, options: tuple[str, ...] = ()) -> None:
        """``options``: those ticked at first (the last set-up's)."""
        super().__init__(id="forum-fields")
        self.words = words
        self.today = today
        self.ticked = options

    def compose(self) -> ComposeResult:
        w = self.words
        with Horizontal(classes="field"):
            yield Label(w("start_date"))
            yield Input(self.today.isoformat(), id="forum-start", max_length=10)
        # Compact: the three fit one line of an 80-column screen.
        with Horizontal(classes="options"):
            for option in FORUM_OPTIONS:
                ticked = option in self.ticked
                yield OptionBox(w(f"option.{option}"), ticked, id=f"option-{option}", compact=True)

    def start(self) -> str | None:
        """The first game day, "YYYY-MM-DD", or None when it is not a date."""
        text = self.query_one("#forum-start", Input).value.strip()
        try:
            return date.fromisoformat(text).isoformat() if len(text) == 10 else None
        except ValueError:
            return None

    def options(self) -> tuple[str, ...]:
        return tuple(o for o in FORUM_OPTIONS if self.query_one(f"#option-{o}", Checkbox).value)
