"""The table screen: the seats round the table, the big timer, the phase and
what comes next, nominations and votes, the proposal queue and the log;
every host action one key (the footer shows them, the palette finds them)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Digits, Footer, RichLog, Static

from ..core.effects import Ignored, ProposeOffence, Say, TellHost
from ..core.events import (
    BestMoveMade,
    Event,
    GameStopped,
    HostAdvanced,
    NightChoiceMade,
    Nominated,
    OffenceCancelled,
    OffenceGiven,
    ProposalDismissed,
    SeatPressed,
    SeatReleased,
    TimeAdjusted,
    TimersPaused,
    TimersResumed,
    Undone,
)
from ..core.state import Game
from ..core.table_state import current_turn, table_or_blank
from ..protocol.hostlog import HostLog
from ..voice.phrases import Catalogue
from .dialogs import AskText, PickOne, seat_numbers
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

if TYPE_CHECKING:
    from ..assembly import LiveTable, Update
    from ..table_process import TableProcess
    from .words import Words

#: keys for the seat buttons: 1-9, 0 for 10, - and = for 11 and 12
SEAT_KEYS = {**{str(n): n for n in range(1, 10)}, "0": 10, "minus": 11, "equals_sign": 12}
#: what the host is told that gives a role away
SECRET = frozenset({"role", "check", "private"})
#: the log keeps this many lines (a 4-hour night has a few thousand)
MAX_LOG_LINES = 2000
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


class TableScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(key, f"seat({n})", show=False) for key, n in SEAT_KEYS.items()
    ]

    def __init__(
        self,
        table: LiveTable | TableProcess,
        words: Words,
        parts: str,
        intro: list[str],
        seat_count: int,
    ) -> None:
        """``intro``: lines the log begins with (the deal's hash)."""
        super().__init__()
        self.seat_count = seat_count
        self.intro = intro
        self.table = table
        self.words = words
        self.parts = parts
        self.show_roles = False
        self.hold = False
        self.update_seen: Update | None = None
        self.log_lines: list[tuple[str, bool]] = []  # (line, only while roles are shown)
        # The footer's words come in the host's language, so the host keys are
        # bound per screen rather than in the class's BINDINGS.
        for key, action, word in HOST_KEYS:
            self._bindings.bind(key, action, words(word), key_display=_KEY_SHOWN.get(key))
        self.catalogue = Catalogue.load(words.lang)
        self.host_lines = HostLog(lang=words.lang)
        # Buttons the last self-test found silent: not listened to, keys stand in.
        self.silent = silent_seats(table)

    # --- layout ----------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Static(self.parts, id="parts")
        with Horizontal(id="main"):
            with Vertical(id="table"):
                # Numbers go round the table: 1.. along the top, the rest back along the bottom.
                half = math.ceil(self.seat_count / 2)
                with Horizontal(id="top-row", classes="row"):
                    for n in range(1, half + 1):
                        yield SeatCard(n)
                with Vertical(id="centre"):
                    yield Static("", id="phase")
                    yield Digits("-:--", id="timer")
                    yield Static("", id="next")
                    yield Static("", id="nominees")
                    yield Static("", id="votes")
                with Horizontal(id="bottom-row", classes="row"):
                    for n in range(self.seat_count, half, -1):
                        yield SeatCard(n)
            with Vertical(id="side"):
                yield Static("", id="proposals")
                yield RichLog(
                    id="log", wrap=True, markup=False, max_lines=MAX_LOG_LINES, min_width=20
                )
        yield Footer(compact=True)

    def on_mount(self) -> None:
        for line in self.intro:
            self._log(line)
        self._show_silent()
        self.set_interval(0.1, self.tick)
        game = self.update_seen.game if self.update_seen is not None else self.table.game
        if game is not None:
            self._show_game(game)

    # --- what the table tells ----------------------------------------------------
    def show_update(self, update: Update) -> None:
        self.update_seen = update
        game = update.game
        if game is None or not self.is_mounted:
            return  # on_mount shows the last update seen
        self._show_game(game)
        for effect in update.effects:
            line = self._log_line(game, effect)
            if line:
                # What only the host may know (a role, a check's answer) is
                # shown, like the roles, only while the host reveals them.
                secret = isinstance(effect, TellHost) and effect.what in SECRET
                self._log(f"{_clock(update.at)}  {line}", secret)

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

    def show_refusal(self, reason: str) -> None:
        self._log("✗ " + self.words("refused", reason=reason))
        self.notify(self.words("refused", reason=reason), severity="warning")

    def _log_line(self, game: Game, effect: object) -> str | None:
        if isinstance(effect, Say):
            try:
                return "» " + self.catalogue.text(effect.cue, dict(effect.args), game.rules)
            except KeyError:
                return "» " + effect.cue
        if isinstance(effect, ProposeOffence):
            offence = offence_name(game, effect.offence, self.words)
            reason = self.words.reason(effect.reason)
            return self.words("proposed", seat=effect.seat, offence=offence, reason=reason)
        if isinstance(effect, TellHost | Ignored):
            return self.host_lines.line(effect)
        return None

    def _show_game(self, game: Game) -> None:
        for seat in game.seats:
            for card in self.query(f"#seat-{seat.number}"):
                look = seat_look(game, seat, self.words, self.show_roles)
                if seat.number in self.silent:
                    look = keyed(look, seat.number, self.words)
                assert isinstance(card, Static)
                card.update(look.text)
                card.set_classes(" ".join(look.classes))
        self.query_one("#phase", Static).update(phase_line(game, self.words))
        self.query_one("#next", Static).update(self._next_line(game))
        nominees = ", ".join(map(str, table_or_blank(game).nominees))
        self.query_one("#nominees", Static).update(
            self.words("nominees", seats=nominees) if nominees else self.words("no_nominees")
        )
        self.query_one("#votes", Static).update(votes_line(game, self.words))
        self._show_proposals(game)
        self.tick()

    def _next_line(self, game: Game) -> str:
        state = table_or_blank(game)
        what = {
            "speeches": "next.speech",
            "voting": "next.count" if state.ballot and state.ballot.counting else "next.vote",
            "night": "next.day",
        }.get(game.phase)
        if game.phase == "speeches" and state.turn_at >= len(state.turns) - 1:
            what = "next.vote" if state.nominees else "next.night"
        mode = self.words("hold_on" if self._holding(game) else "hold_off")
        line = self.words("next", what=self.words(what)) if what else ""
        return f"{line}   {self.words('keys_mode', mode=mode)}"

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
        deadlines = update.deadlines if update is not None else {}
        text, state = timer_value(game, deadlines, self.table.now())
        timer = self.query_one("#timer", Digits)
        timer.update(text)
        for name in ("warning", "overrun", "paused"):
            timer.set_class(state == name, f"-{name}")

    # --- the host's keys -------------------------------------------------------------
    @property
    def game(self) -> Game | None:
        return self.table.game

    def submit(self, event: Event) -> None:
        self.table.submit(event)

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

    def action_undo(self) -> None:
        self.submit(Undone())

    def action_roles(self) -> None:
        self.show_roles = not self.show_roles
        self._rewrite_log()
        if self.game is not None:
            self._show_game(self.game)

    def action_hold(self) -> None:
        self.hold = not self.hold
        if self.game is not None:
            self._show_game(self.game)

    def action_confirm_proposal(self) -> None:
        game = self.game
        if game is not None and game.proposals:
            first = game.proposals[0]
            if first.seat:
                self.submit(OffenceGiven(first.seat, first.offence))
                return

            def seat_given(text: str | None) -> None:  # the microphone could not tell whose
                numbers = self._seats_from(text, 1, 1)
                if numbers is not None:
                    self.submit(OffenceGiven(numbers[0], first.offence))

            self._ask(
                self.words("ask_whose", offence=offence_name(game, first.offence, self.words)),
                seat_given,
            )

    def action_dismiss_proposal(self) -> None:
        game = self.game
        if game is not None and game.proposals:
            self.submit(ProposalDismissed(0))

    def _ask(self, prompt: str, then: Callable[[str | None], None]) -> None:
        self.app.push_screen(AskText(prompt), then)

    def _seats_from(self, text: str | None, low: int, high: int) -> list[int] | None:
        game = self.game
        if game is None or text is None:
            return None
        numbers = seat_numbers(text, len(game.seats), low, high)
        if numbers is None and text:
            self.notify(self.words("bad_numbers"), severity="warning")
        return numbers

    def action_nominate(self) -> None:
        def answered(text: str | None) -> None:
            numbers = self._seats_from(text, 1, 2)
            game = self.game
            if numbers is None or game is None:
                return
            if len(numbers) == 2:
                self.submit(Nominated(numbers[0], numbers[1]))
            elif (turn := current_turn(game)) is not None:
                self.submit(Nominated(turn.seat, numbers[0]))
            else:
                self.notify(self.words("no_speaker"), severity="warning")

        self._ask(self.words("ask_nominate"), answered)

    def action_offence(self) -> None:
        def seat_given(text: str | None) -> None:
            numbers = self._seats_from(text, 1, 1)
            game = self.game
            if numbers is None or game is None:
                return
            seat = numbers[0]
            choices = [(o.id, f"{o.clause}  {o.text[:90]}  [{o.id}]") for o in game.rules.offences]
            self.app.push_screen(
                PickOne(self.words("ask_offence", seat=seat), choices),
                lambda key: self.submit(OffenceGiven(seat, key)) if key else None,
            )

        self._ask(self.words("ask_offence_seat"), seat_given)

    def action_cancel_offence(self) -> None:
        def seat_given(text: str | None) -> None:
            numbers = self._seats_from(text, 1, 1)
            game = self.game
            if numbers is None or game is None:
                return
            seat = game.seat(numbers[0])
            if not seat.offences:
                self.notify(self.words("nothing_to_cancel", seat=seat.number))
                return
            choices = [(key, f"{key}") for key in dict.fromkeys(reversed(seat.offences))]
            self.app.push_screen(
                PickOne(self.words("ask_cancel", seat=seat.number), choices),
                lambda key: self.submit(OffenceCancelled(seat.number, key)) if key else None,
            )

        self._ask(self.words("ask_cancel_seat"), seat_given)

    def action_choice(self) -> None:
        game = self.game
        state = table_or_blank(game) if game is not None else None
        step = (
            state.tonight[state.night_step]
            if game is not None
            and state is not None
            and game.phase == "night"
            and state.night_step < len(state.tonight)
            else None
        )
        if game is None or step is None or step.action == "none":
            self.notify(self.words("no_night_choice"))
            return
        actors = [s.number for s in game.seats if s.out is None and s.role in step.roles]

        def answered(text: str | None) -> None:
            numbers = self._seats_from(text, 1, 2)
            if numbers is None:
                return
            if len(numbers) == 2:
                self.submit(NightChoiceMade(numbers[0], numbers[1]))
                return
            for actor in actors:  # one target for all who act (the mafia agreed)
                self.submit(NightChoiceMade(actor, numbers[0]))

        self._ask(self.words("ask_choice", step=step.name or step.id), answered)

    def action_best_move(self) -> None:
        game = self.game
        state = table_or_blank(game) if game is not None else None
        if state is None or not state.first_victim or state.best_move:
            self.notify(self.words("no_best_move"))
            return
        seat = state.first_victim

        def answered(text: str | None) -> None:
            numbers = self._seats_from(text, 1, 3)
            if numbers is not None:
                self.submit(BestMoveMade(seat, tuple(numbers)))

        self._ask(self.words("ask_best_move", seat=seat), answered)

    def action_stop(self) -> None:
        def answered(text: str | None) -> None:
            if text:
                self.submit(GameStopped(text[:200]))

        self._ask(self.words("ask_stop"), answered)


_KEY_SHOWN = {"space": "␣", "right_square_bracket": "]", "left_square_bracket": "["}


def _clock(seconds: float) -> str:
    minutes, rest = divmod(int(max(0.0, seconds)), 60)
    return f"{minutes:02d}:{rest:02d}"
