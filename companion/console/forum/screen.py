"""The forum game's screen: the seats with their roles and posts, the open
windows and the clock to the next deadline, the vote so far, and the
results of the last deadline in two panes: «Опубликовать» (the public
announcements in order) and «Сообщить лично» (the private notes by
recipient). Every host action is one key; each becomes an input like a
seat's, journaled before it is carried out.

Choices and votes are stamped with the forum clock's time the host enters
them (``now``: the wall clock), or with the post's own time the host types
after the numbers (a post read off the forum later). The windows close at
their deadlines by the table's watch (``runner/forum_clock``); ``k`` closes
one now, ``m`` moves a deadline.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Digits, RichLog, Static

from ...core.effects import Effect, Ignored, TellHost
from ...core.events import (
    DeadlineMoved,
    DeadlinePassed,
    ForumChoiceMade,
    ForumVoted,
    OffenceGiven,
    WinDeclared,
)
from ...core.forum.acts import acts
from ...core.forum.posts import window_of
from ...core.forum.rules import DEADLINES
from ...core.forum.state import MM_TEAMS, open_deadlines, state
from ...core.state import Game
from ..consequences import consequence, dangerous
from ..dialogs import AskYesNo, PickOne, offence_choices, seat_numbers
from ..game_screen import GameScreen
from ..history import Past
from ..keymap import HostFooter, open_map
from .results import Panes, batches, title
from .view import act_label, clock_view, read_post, seat_lines, shown_stamp, tally
from .words import ForumWords

if TYPE_CHECKING:
    from ...live.assembly import LiveTable, Update
    from ...live.table_process import TableProcess
    from ..words import Words

#: the host's keys: (key, action, the footer's word)
FORUM_KEYS = (
    ("c", "choice", "key.choice"),
    ("v", "vote(False)", "key.vote"),
    ("e", "vote(True)", "key.edit_vote"),
    ("k", "close", "key.close"),
    ("m", "move", "key.move"),
    ("left_square_bracket", "batch(-1)", "key.earlier"),
    ("right_square_bracket", "batch(1)", "key.later"),
    ("o", "offence", "key.offence"),
    ("w", "declare", "key.declare"),
    ("u", "undo", "key.undo"),
    ("r", "roles", "key.roles"),
)
#: what the host is told that the screen shows elsewhere: the roles in the
#: seat list, the private notes in their pane
_SHOWN_ELSEWHERE = frozenset({"role", "private"})
MAX_NOTES = 500


class ForumScreen(GameScreen):
    CSS_PATH = "forum.tcss"
    HOST_KEYS = FORUM_KEYS
    KEYS_SHOWN: ClassVar[dict[str, str]] = {"left_square_bracket": "[", "right_square_bracket": "]"}

    def __init__(
        self,
        table: LiveTable | TableProcess,
        words: Words,
        parts: str,
        intro: list[str],
        now: Callable[[], datetime],
        past: Past | None = None,
    ) -> None:
        """``intro``: lines the host's notes begin with (the deal's hash);
        ``now``: the forum clock (the wall clock; tests give a fake one);
        ``past``: a resumed game's journal, whose notes are written again."""
        self.words = ForumWords(words)
        super().__init__(table, words, self.words, parts, intro, past)
        self.now = now
        self.show_roles = True  # the forum host alone sees this screen
        self.batch_at: int | None = None  # None: the latest deadline's results

    # --- layout ----------------------------------------------------------------
    def compose(self) -> ComposeResult:
        w = self.words
        yield Static(self.parts, id="parts", markup=False)
        with Horizontal(id="forum-main"):
            with Vertical(id="forum-left"):
                yield Static("", markup=False, id="forum-clock")
                with Horizontal(id="forum-next"):
                    yield Static("", markup=False, id="forum-next-label")
                    yield Digits("-:--:--", id="forum-timer")
                with VerticalScroll(id="forum-seats-box"):
                    yield Static("", markup=False, id="forum-seats")
                yield Static("", markup=False, id="forum-tally")
                yield RichLog(
                    id="forum-notes", wrap=True, markup=False, max_lines=MAX_NOTES, min_width=20
                )
            with Vertical(id="forum-right"):
                yield Static("", markup=False, id="forum-batch", classes="title")
                yield Static(w("public_title"), classes="pane-title")
                with VerticalScroll(id="forum-public", classes="pane"):
                    yield Static("", markup=False, id="forum-public-text")
                yield Static(w("private_title"), classes="pane-title")
                with VerticalScroll(id="forum-private", classes="pane"):
                    yield Static("", markup=False, id="forum-private-text")
        yield HostFooter(lambda: ("c", "v", "k", "u"))

    def action_keys_map(self) -> None:
        open_map(self, self.words.words)

    def write_steps(self, steps: Sequence[tuple[float, Game, tuple[Effect, ...]]]) -> None:
        for _at, _game, effects in steps:
            for effect in effects:
                note = self._note(effect)
                if note:
                    self.write_log(note)

    # --- what the table tells ----------------------------------------------------
    def show_update(self, update: Update) -> None:
        self.update_seen = update
        game = update.game
        if game is None or not self.is_mounted:
            return  # on_mount shows the last update seen
        self._show_game(game)
        for effect in update.effects:
            line = self._note(effect)
            if line:
                self.write_log(f"{self.now():%H:%M:%S}  {line}")

    def write_log(self, line: str) -> None:
        self.query_one("#forum-notes", RichLog).write(line)

    def _note(self, effect: object) -> str | None:
        """What the host alone is told (a late post, a second vote, parity)."""
        if isinstance(effect, TellHost) and effect.what not in _SHOWN_ELSEWHERE:
            return self.host_lines.line(effect)
        if isinstance(effect, Ignored):
            return self.host_lines.line(effect)
        return None

    def _show_game(self, game: Game) -> None:
        if game.rules.forum is None or game.procedure_state is None:
            return
        self.query_one("#forum-seats", Static).update(seat_lines(game, self.words, self.show_roles))
        self.query_one("#forum-tally", Static).update(tally(game, self.words))
        self._show_results(game)
        self.tick()

    def _show_results(self, game: Game) -> None:
        found = batches(game)
        at = len(found) - 1 if self.batch_at is None else min(self.batch_at, len(found) - 1)
        batch = found[at]
        panes = Panes(game.rules, self.words)
        heading = title(batch, self.words)
        if len(found) > 1:
            heading = self.words("batch_of", title=heading, n=at + 1, total=len(found))
        self.query_one("#forum-batch", Static).update(heading)
        self.query_one("#forum-public-text", Static).update(panes.public(batch))
        self.query_one("#forum-private-text", Static).update(panes.private(game, batch))

    def tick(self) -> None:
        """The forum clock: the open windows and the time left to the next deadline."""
        game = self.game
        if game is None or game.rules.forum is None or game.procedure_state is None:
            return
        view = clock_view(game, self.now(), self.words)
        self.query_one("#forum-clock", Static).update(view.lines)
        label = self.words("next_deadline", window=self.words(f"window.{view.next_window}"))
        self.query_one("#forum-next-label", Static).update(
            label if view.next_window else self.words("no_deadline")
        )
        timer = self.query_one("#forum-timer", Digits)
        timer.update(view.left)
        timer.set_class(view.passed, "-overrun")

    # --- the host's keys -------------------------------------------------------------
    def _pick(
        self, prompt: str, choices: list[tuple[str, str]], then: Callable[[str], None]
    ) -> None:
        self.app.push_screen(PickOne(prompt, choices), lambda key: then(key) if key else None)

    def _bad(self, text: str) -> None:
        self.notify(self.words("bad_entry", text=text), severity="warning")

    def action_choice(self) -> None:
        game = self.game
        found = acts(game) if game is not None else []
        if game is None or not found:
            self.notify(self.words("no_actor"))
            return
        # The ids are what typing finds too: "18", "18:shoot", "hide".
        by_id = {f"{act.seat}:{act.action}:{act.gun}": act for act in found}
        choices = [(key, act_label(game, act, self.words)) for key, act in by_id.items()]

        def picked(key: str) -> None:
            act = by_id[key]
            seat = game.seat(act.seat)
            prompt = self.words(
                "ask_target",
                seat=act.seat,
                role=self.words.role(game.rules, seat.role),
                action=self.words(f"action.{act.action}", gun=act.gun),
            )
            self._ask(prompt, lambda text: self._choose(act.seat, act.action, act.gun, text))

        self._pick(self.words("ask_actor"), choices, picked)

    def _choose(self, seat: int, action: str, gun: str, text: str | None) -> None:
        game = self.game
        if game is None or not text:
            return
        read = read_post(game, window_of(action), text, 1, self.now())
        if read is None:
            self._bad(text)
            return
        (target,), at = read
        self.submit(ForumChoiceMade(seat, action, target, at=at, gun=gun))

    def action_vote(self, edit: bool) -> None:
        game = self.game
        if game is None or game.phase != "day" or "vote" not in state(game).open:
            self.notify(self.words("no_vote"))
            return

        def answered(text: str | None) -> None:
            now = self.game
            if not text or now is None:
                return
            votes = []
            for part in text.split(";"):
                read = read_post(now, "vote", part, 2, self.now())
                if read is None:
                    self._bad(part.strip())
                    return
                (voter, target), at = read
                if voter == 0:
                    self._bad(part.strip())
                    return
                votes.append(ForumVoted(voter, target, at=at, edit=edit))
            for vote in votes:
                self.submit(vote)

        self._ask(self.words("ask_edit" if edit else "ask_vote"), answered)

    def action_close(self) -> None:
        game = self.game
        pending = open_deadlines(game) if game is not None else ()
        if not pending:
            self.notify(self.words("no_window"))
            return
        stamps = dict(pending)
        if len(pending) == 1:
            self._ask_close(pending[0][0], stamps)
            return
        choices = [
            (name, f"{self.words(f'window.{name}')} ({shown_stamp(at)})") for name, at in pending
        ]
        self._pick(
            self.words("ask_which_window"), choices, lambda name: self._ask_close(name, stamps)
        )

    def _ask_close(self, name: str, stamps: dict[str, str]) -> None:
        """Closing a window early asks first, and says what it will do: the
        autokills for the votes and choices missing, the end of the game
        (read off the engine: console/consequences.py). A stray Enter keeps
        a window open whose closing would send players out."""
        game = self.game
        if game is None:
            return
        event = DeadlinePassed(name)
        question = self.words(
            "ask_close", window=self.words(f"window.{name}"), at=shown_stamp(stamps.get(name, ""))
        )
        found = consequence(game, event)
        if found is not None and found.leaving:
            question += " " + self.words(
                "close_leaving", count=len(found.leaving), autokills=len(found.autokilled)
            )
        if found is not None and found.ends:
            question += " " + self.words("close_ends")
        self.app.push_screen(
            AskYesNo(question, self.words("close"), self.words("keep_open"), safe=dangerous(found)),
            lambda yes: self.submit(event) if yes else None,
        )

    def action_move(self) -> None:
        game = self.game
        if game is None or game.phase not in ("day", "night"):
            self.notify(self.words("no_movable"))
            return
        s = state(game)
        # deadline.change.1: a deadline of this game day that has not passed
        first = DEADLINES.index(s.open[0]) if s.open else len(DEADLINES) - 1
        stamps = dict(s.deadlines)
        names = DEADLINES[first:]
        choices = [(n, f"{self.words(f'window.{n}')} ({shown_stamp(stamps[n])})") for n in names]

        def picked(name: str) -> None:
            at = stamps.get(name, "")
            prompt = self.words("ask_move_to", window=self.words(f"window.{name}"), at=at)
            self._ask(prompt, lambda text: self._move(name, text), value=at[-8:])

        self._pick(self.words("ask_which_deadline"), choices, picked)

    def _move(self, name: str, text: str | None) -> None:
        if not text:
            return
        at = text.strip()
        if len(at) == 5:  # "21:30"
            at += ":00"
        try:
            event = DeadlineMoved(name, at)
        except ValueError:
            self._bad(text)
            return
        self.submit(event)

    def action_batch(self, by: int) -> None:
        game = self.game
        if game is None:
            return
        last = len(batches(game)) - 1
        at = (last if self.batch_at is None else self.batch_at) + by
        self.batch_at = None if at >= last else max(0, at)
        self._show_results(game)

    def action_offence(self) -> None:
        def seat_given(text: str | None) -> None:
            game = self.game
            numbers = seat_numbers(text, len(game.seats), 1, 1) if game is not None else None
            if game is None or numbers is None:
                if text:
                    self._bad(text)
                return
            seat = numbers[0]
            choices = offence_choices(game.rules, self.words.lang)
            self._pick(
                self.words("ask_offence", seat=seat),
                choices,
                lambda key: self.submit(OffenceGiven(seat, key)),
            )

        self._ask(self.words("ask_offence_seat"), seat_given)

    def action_declare(self) -> None:
        game = self.game
        if game is None or game.phase == "ended":
            return
        teams = [t.id for t in game.rules.teams if any(x.team == t.id for x in game.seats)]
        sets: list[tuple[str, ...]] = [(t,) for t in teams]
        if all(t in teams for t in MM_TEAMS):
            sets.append(MM_TEAMS)  # end.three.4: both MM teams by their agreement
        choices = [
            (",".join(s), " + ".join(self.words.team(game.rules, t) for t in s)) for s in sets
        ]

        def declare(key: str) -> None:
            question = self.words("ask_declare_ends", teams=dict(choices)[key])
            self.app.push_screen(
                AskYesNo(question, self.words("declare"), self.words("keep_open"), safe=True),
                lambda yes: self.submit(WinDeclared(tuple(key.split(",")))) if yes else None,
            )

        self._pick(self.words("ask_declare"), choices, declare)

    def action_roles(self) -> None:
        self.show_roles = not self.show_roles
        if self.game is not None:
            self._show_game(self.game)
