"""The table screen's host keys that ask before they act: a nomination, an
offence (searchable, and asked again when it would end the game), an
offence cancelled, a night choice, the best move, the game stopped, a
proposal confirmed or dismissed. The base of ``TableScreen``, which lays
out the table and follows its updates; here only what a key asks and then
submits."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...core.events import (
    BestMoveMade,
    GameStopped,
    Nominated,
    OffenceCancelled,
    OffenceGiven,
    ProposalDismissed,
)
from ...core.sports.night_choice import choice, choice_step
from ...core.sports.state import current_turn, table_or_blank
from ..consequences import consequence
from ..dialogs import AskYesNo, PickOne, offence_choices, seat_numbers
from ..game_screen import GameScreen
from .seat_view import offence_name

if TYPE_CHECKING:
    from ..words import Words


class AskingKeys(GameScreen):
    """The keys that ask the host something first (their dialogs are
    modal screens; what the host answers becomes one input)."""

    words: Words

    def action_confirm_proposal(self) -> None:
        game = self.game
        if game is not None and game.proposals:
            first = game.proposals[0]
            if first.seat:
                self._give(OffenceGiven(first.seat, first.offence))
                return

            def seat_given(text: str | None) -> None:  # the microphone could not tell whose
                numbers = self._seats_from(text, 1, 1)
                if numbers is not None:
                    self._give(OffenceGiven(numbers[0], first.offence))

            self._ask(
                self.words("ask_whose", offence=offence_name(game, first.offence, self.words)),
                seat_given,
            )

    def action_dismiss_proposal(self) -> None:
        game = self.game
        if game is not None and game.proposals:
            self.submit(ProposalDismissed(0))

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
            choices = offence_choices(game.rules, self.words.lang)
            self.app.push_screen(
                PickOne(self.words("ask_offence", seat=seat), choices),
                lambda key: self._give(OffenceGiven(seat, key)) if key else None,
            )

        self._ask(self.words("ask_offence_seat"), seat_given)

    def _give(self, offence: OffenceGiven) -> None:
        """An offence that would end the game (a team's loss, the last
        removal that decides it) asks first and says so; any other is given."""
        game = self.game
        found = consequence(game, offence) if game is not None else None
        if game is None or found is None or not found.ends:
            self.submit(offence)
            return
        question = self.words(
            "ask_offence_ends",
            seat=offence.seat,
            offence=offence_name(game, offence.offence, self.words),
        )
        self.app.push_screen(
            AskYesNo(question, self.words("give"), self.words("cancel"), safe=True),
            lambda yes: self.submit(offence) if yes else None,
        )

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
            choices = [
                (key, offence_name(game, key, self.words))
                for key in dict.fromkeys(reversed(seat.offences))
            ]
            self.app.push_screen(
                PickOne(self.words("ask_cancel", seat=seat.number), choices),
                lambda key: self.submit(OffenceCancelled(seat.number, key)) if key else None,
            )

        self._ask(self.words("ask_cancel_seat"), seat_given)

    def action_choice(self) -> None:
        game = self.game
        step = choice_step(game) if game is not None else None
        if game is None or step is None:
            self.notify(self.words("no_night_choice"))
            return

        def answered(text: str | None) -> None:
            numbers = self._seats_from(text, 1, 2)
            if numbers is not None:
                self.submit(choice(numbers))

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
