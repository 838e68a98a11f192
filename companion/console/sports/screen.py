"""The table screen: the seats round the table, the big timer, the phase and
what comes next, nominations and votes, the proposal queue and the log;
every host action one key (the footer shows those that fit, «?» all of them).

The layout holds from 80x24 (the Pi's console at low resolution) to 200x60
and more: the seats along the top and the bottom over the whole width, and
between them the timer and, beside it, the log, which takes what room there
is (console.tcss; the screen's size classes are set on a resize)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Digits, RichLog, Static

from ...core.effects import Effect, Ignored, ProposeOffence, Say, TellHost
from ...core.events import (
    HostAdvanced,
    SeatPressed,
    SeatReleased,
    TimeAdjusted,
    TimersPaused,
    TimersResumed,
)
from ...core.sports.state import table_or_blank
from ...core.state import Game
from ...voice.catalogue_load import load_catalogue
from ..game_screen import put
from ..history import Past
from ..keymap import HostFooter, KeyRow, open_map
from .keys import AskingKeys
from .next_view import next_words
from .seat_marks import choice_lines, nominees_stand
from .seat_view import (
    keyed,
    offence_name,
    phase_line,
    seat_look,
    silent_line,
    silent_seats,
    timer_value,
    votes_line,
)
from .undo_view import undo_line

if TYPE_CHECKING:
    from ...live.assembly import LiveTable, Update
    from ...live.table_process import TableProcess
    from ..words import Words

#: keys for the seat buttons: 1-9, 0 for 10, - and = for 11 and 12
SEAT_KEYS = {**{str(n): n for n in range(1, 10)}, "0": 10, "minus": 11, "equals_sign": 12}
#: what the host is told that gives a role away
SECRET = frozenset({"role", "check", "private"})
#: what the voice says for an undo: the host's line says what it took back
UNDO_CUES = frozenset({"undone", "undone_paused"})
#: the log keeps this many lines (a 4-hour night has a few thousand)
MAX_LOG_LINES = 2000
#: the screen's size classes (console.tcss): below 100 columns the cards
#: and the centre are narrow, from 150 the log takes the room
NARROW, WIDE = 100, 150
#: the host's keys: (key, action, the footer's word)
HOST_KEYS = (
    ("space", "next", "key.next"),
    ("p", "pause", "key.pause"),
    ("right_square_bracket", "adjust(10)", "key.plus"),
    ("left_square_bracket", "adjust(-10)", "key.minus"),
    ("n", "nominate", "key.nominate"),
    ("o", "offence", "key.offence"),
    ("x", "cancel_offence", "key.cancel_offence"),
    ("y", "confirm_proposal", "key.confirm"),
    ("d", "dismiss_proposal", "key.dismiss"),
    ("u", "undo", "key.undo"),
    ("r", "roles", "key.roles"),
    ("c", "choice", "key.choice"),
    ("b", "best_move", "key.best_move"),
    ("e", "stop", "key.stop"),
    ("h", "hold", "key.hold"),
)


class SeatCard(Static):
    """A seat round the table; a click or a touch on it is its button (a tap,
    or in hold mode a hand down and up), as its key is."""

    def __init__(self, number: int) -> None:
        super().__init__(id=f"seat-{number}", classes="seat")
        self.number = number

    async def on_click(self) -> None:
        await self.run_action(f"screen.seat({self.number})")


class TableScreen(AskingKeys):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(key, f"seat({n})", show=False) for key, n in SEAT_KEYS.items()
    ]
    HOST_KEYS = HOST_KEYS
    KEYS_SHOWN: ClassVar[dict[str, str]] = {
        "space": "␣",
        "right_square_bracket": "]",
        "left_square_bracket": "[",
    }
    TICK_S = 0.1

    def __init__(
        self,
        table: LiveTable | TableProcess,
        words: Words,
        parts: str,
        intro: list[str],
        seat_count: int,
        past: Past | None = None,
    ) -> None:
        """``intro``: lines the log begins with (the deal's hash); ``past``:
        a resumed game's journal, whose lines the log is written with again."""
        self.words = words
        super().__init__(table, words, words, parts, intro, past)
        self.seat_count = seat_count
        self.show_roles = False
        self.hold = False
        # The state before the last input that changed the game, and after it.
        self._before_input: Game | None = None
        self._after_input: Game | None = None
        self.log_lines: list[tuple[str, bool]] = []  # (line, only while roles are shown)
        if table.simulated_seats is not None:  # practice speed on or off (app.py)
            self._bindings.bind("t", "app.practice_speed", words("key.practice"))
        self.catalogue = load_catalogue(words.lang)
        # Buttons the last self-test found silent: not listened to, keys stand in.
        self.silent = silent_seats(table)

    # --- layout ----------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static(self.parts, id="parts", markup=False)
        with Vertical(id="main"):
            # Numbers go round the table: 1.. along the top, the rest back along the bottom.
            half = math.ceil(self.seat_count / 2)
            with Horizontal(id="top-row", classes="row"):
                for n in range(1, half + 1):
                    yield SeatCard(n)
            with Horizontal(id="middle"):
                with Vertical(id="centre"):
                    yield Static("", markup=False, id="phase")
                    yield Digits("-:--", id="timer")
                    yield Static("", markup=False, id="next")
                    yield Static("", markup=False, id="nominees")
                    yield Static("", markup=False, id="votes")
                with Vertical(id="side"):
                    yield Static("", markup=False, id="proposals")
                    yield RichLog(
                        id="log", wrap=True, markup=False, max_lines=MAX_LOG_LINES, min_width=20
                    )
            with Horizontal(id="bottom-row", classes="row"):
                for n in range(self.seat_count, half, -1):
                    yield SeatCard(n)
        yield HostFooter(self._footer_priority)

    def on_resize(self, event: events.Resize) -> None:
        """The size classes console.tcss lays the screen out by, and the
        cards written again for their new width."""
        width = event.size.width
        self.set_class(width < NARROW, "-narrow")
        self.set_class(width >= WIDE, "-wide")
        self.call_after_refresh(self._show_cards)

    def _show_cards(self) -> None:
        game = self.update_seen.game if self.update_seen is not None else self.table.game
        if game is not None:
            self._show_game(game)

    def _footer_priority(self) -> list[str]:
        """The keys the footer shows first, for what the table is doing now."""
        game = self.update_seen.game if self.update_seen is not None else self.table.game
        first = ["space", "p", "u"]
        if game is not None and game.proposals:
            first += ["y", "d"]
        if game is not None and game.phase == "night":
            first += ["c", "b"]
        return [*first, "n", "o", "right_square_bracket", "left_square_bracket", "x"]

    def action_keys_map(self) -> None:
        seats = KeyRow("", self.words("keymap.seat_keys"), self.words("keymap.seats"), None)
        open_map(self, self.words, [seats])

    def after_past(self) -> None:
        self._show_silent()

    # --- what the table tells ----------------------------------------------------
    def show_update(self, update: Update) -> None:
        self.update_seen = update
        game = update.game
        if not update.effects:  # the state an input changed (LiveTable._changed)
            self._before_input, self._after_input = self._after_input, game
        if game is None or not self.is_mounted:
            return  # on_mount shows the last update seen
        before = self._before_input
        self._show_game(game)
        at = _clock(update.at)
        if not update.effects:
            for said, secret in choice_lines(before, game, self.words):
                self._log(f"{at}  {said}", secret)
            self._lift_counted_hands(before, game)
        for effect in update.effects:
            line = self._log_line(game, effect)
            if line:
                # What only the host may know (a role, a check's answer) is
                # shown, like the roles, only while the host reveals them.
                secret = isinstance(effect, TellHost) and effect.what in SECRET
                self._log(f"{at}  {line}", secret)
            if isinstance(effect, Say) and effect.cue in UNDO_CUES and before is not None:
                self._tell_undone(before, game, at)

    def write_steps(self, steps: Sequence[tuple[float, Game, tuple[Effect, ...]]]) -> None:
        before: Game | None = None
        for at, game, effects in steps:
            when = _clock(at)
            if game is not before:
                for said, secret in choice_lines(before, game, self.words):
                    self._log(f"{when}  {said}", secret)
            for effect in effects:
                line = self._log_line(game, effect)
                if line:
                    secret = isinstance(effect, TellHost) and effect.what in SECRET
                    self._log(f"{when}  {line}", secret)
            before = game

    def _tell_undone(self, before: Game, after: Game, at: str) -> None:
        """Undo says what it took back and where the table stands again."""
        line, private = undo_line(before, after, self.words)
        self._log(f"{at}  {line}")
        if private is not None:
            self._log(f"{at}  {private}", True)
        self.notify(line, timeout=8)

    def _lift_counted_hands(self, before: Game | None, after: Game) -> None:
        """On simulated seats the keys hold the hands: once «Принято» has
        counted a window (or the vote is over) the keys let them go, so the
        next key for a seat is a new hand, not the lifting of an old one."""
        fake = self.table.simulated_seats
        if fake is None or before is None or _window(before) is None:
            return
        if _window(before) != _window(after):
            fake.lift_all()

    def _show_silent(self) -> None:
        """Say once which seats the keys play for, and title their cards."""
        seats = sorted(n for n in self.silent if n <= self.seat_count)
        if not seats:
            return
        line = silent_line(seats, self.words)
        self._log(line)
        self.notify(line, severity="warning", timeout=15)
        for n in seats:
            self.query_one(f"#seat-{n}", SeatCard).border_title = self.words("silent_title")

    def write_log(self, line: str) -> None:
        self._log(line)

    def _log(self, line: str, secret: bool = False) -> None:
        self.log_lines.append((line, secret))
        if len(self.log_lines) > 2 * MAX_LOG_LINES:  # a long night stays small
            del self.log_lines[:-MAX_LOG_LINES]
        if self.show_roles or not secret:
            self.query_one("#log", RichLog).write(line)

    def _rewrite_log(self) -> None:
        log = self.query_one("#log", RichLog)
        log.clear()
        for line, secret in self.log_lines[-MAX_LOG_LINES:]:
            if self.show_roles or not secret:
                log.write(line)

    def _log_line(self, game: Game, effect: object) -> str | None:
        if isinstance(effect, Say):
            try:
                return "» " + self.catalogue.text(effect.cue, dict(effect.args), game.rules)
            except KeyError:
                return "» " + effect.cue
        if isinstance(effect, ProposeOffence):
            offence = offence_name(game, effect.offence, self.words)
            reason = self.words.reason(effect.reason)
            key = "proposed" if effect.seat else "proposed_unknown"
            return self.words(key, seat=effect.seat, offence=offence, reason=reason)
        if isinstance(effect, TellHost | Ignored):
            return self.host_lines.line(effect)
        return None

    def _show_game(self, game: Game) -> None:
        for seat in game.seats:
            for card in self.query(f"#seat-{seat.number}"):
                width = card.content_size.width or None  # None: not laid out yet
                look = seat_look(game, seat, self.words, self.show_roles, width)
                if seat.number in self.silent:
                    look = keyed(look, seat.number, self.words)
                assert isinstance(card, Static)
                put(card, look.text, " ".join(look.classes))
        put(self.query_one("#phase", Static), phase_line(game, self.words))
        put(self.query_one("#next", Static), self._next_line(game))
        standing = nominees_stand(game)
        nominees = ", ".join(map(str, table_or_blank(game).nominees)) if standing else ""
        empty = self.words("no_nominees") if standing else ""  # no line at night
        put(
            self.query_one("#nominees", Static),
            self.words("nominees", seats=nominees) if nominees else empty,
        )
        put(self.query_one("#votes", Static), votes_line(game, self.words))
        self._show_proposals(game)
        self.tick()
        for footer in self.query(HostFooter):
            footer.refit()  # the keys most wanted now

    def _next_line(self, game: Game) -> str:
        what = next_words(game, self.words)
        mode = self.words("hold_on" if self._holding(game) else "hold_off")
        line = self.words("next", what=what) if what else ""
        keys = self.words("keys_mode", mode=mode)
        return f"{line}\n{keys}" if line else keys  # two lines: neither wraps mid-phrase

    def _show_proposals(self, game: Game) -> None:
        if not game.proposals:
            text = self.words("no_proposals")
        else:
            lines = [self.words("proposals", count=len(game.proposals))]
            for i, p in enumerate(game.proposals):
                marker = "→ " if i == 0 else "  "
                offence = offence_name(game, p.offence, self.words)
                reason = self.words.reason(p.reason)
                seat = p.seat or "?"  # a microphone's flag that could not tell whose
                lines.append(
                    marker + self.words("proposal", seat=seat, offence=offence, reason=reason)
                )
            text = "\n".join(lines)
        widget = self.query_one("#proposals", Static)
        widget.update(text)
        widget.set_class(bool(game.proposals), "-waiting")

    def tick(self) -> None:
        update = self.update_seen
        game = update.game if update is not None else self.table.game
        if game is None:
            return
        deadlines = update.deadlines if update is not None else self.table.timer_deadlines
        text, state = timer_value(game, deadlines, self.table.now())
        timer = self.query_one("#timer", Digits)
        timer.update(text)
        for name in ("warning", "overrun", "paused"):
            timer.set_class(state == name, f"-{name}")

    # --- the host's keys -------------------------------------------------------------
    def _holding(self, game: Game | None) -> bool:
        return self.hold or (game is not None and game.phase == "voting")

    def action_seat(self, number: int) -> None:
        game = self.game
        if game is None or number > len(game.seats):
            return
        fake = self.table.simulated_seats
        holding = self._holding(game)
        if fake is not None:
            if holding:
                fake.toggle(number)
            else:
                fake.press(number)
                fake.release(number)
            if not self.table.spec.threaded:
                self.table.pump()
            return
        # Real buttons wired: a key stands in for a seat whose button fails.
        if holding and number in table_or_blank(game).held:
            self.submit(SeatReleased(number))
        else:
            self.submit(SeatPressed(number))
            if not holding:
                self.submit(SeatReleased(number))

    def action_next(self) -> None:
        self.submit(HostAdvanced())

    def action_pause(self) -> None:
        game = self.game
        self.submit(TimersResumed() if game is not None and game.paused else TimersPaused())

    def action_adjust(self, seconds: int) -> None:
        self.submit(TimeAdjusted(seconds))

    def action_roles(self) -> None:
        self.show_roles = not self.show_roles
        self._rewrite_log()
        if self.game is not None:
            self._show_game(self.game)

    def action_hold(self) -> None:
        self.hold = not self.hold
        if self.game is not None:
            self._show_game(self.game)


def _window(game: Game) -> tuple[str, int] | None:
    """The vote window the table is in (its ballot and candidate), if any."""
    ballot = table_or_blank(game).ballot
    if game.phase != "voting" or ballot is None:
        return None
    return ballot.kind, ballot.index


def _clock(seconds: float) -> str:
    minutes, rest = divmod(int(max(0.0, seconds)), 60)
    return f"{minutes:02d}:{rest:02d}"
