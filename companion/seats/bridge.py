"""Seats and the runtime joined: buttons become inputs, states become lights.

A seat button's press and release are ``SeatPressed``/``SeatReleased`` (the
core decides what they mean now: «Пас» in one's own minute, a hand during a
vote, logged otherwise). Host buttons: ``next`` moves the game on, ``pause``
pauses or resumes the timer, ``offence`` is handed to the console (which
asks for the seat and the offence). After every accepted input the seats
whose light changed are shown; the sweep runs when a game starts or ends.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol

from ..core.events import (
    Event,
    HostAdvanced,
    SeatPressed,
    SeatReleased,
    TimersPaused,
    TimersResumed,
)
from ..core.state import Game
from ..core.views import light_changes
from .port import ButtonEvent, Seats

log = logging.getLogger(__name__)


class Submit(Protocol):
    def __call__(self, event: Event, *, at: float | None = None) -> None:
        """``LiveLoop.submit``: queue an input that happened at ``at``."""


class SeatsBridge:
    def __init__(
        self,
        seats: Seats,
        submit: Submit,
        game: Callable[[], Game | None],
        on_offence_button: Callable[[], None] | None = None,
    ) -> None:
        self.seats = seats
        self._submit = submit
        self._game = game
        self._on_offence = on_offence_button
        seats.start(self.button)

    def button(self, event: ButtonEvent) -> None:
        """From the seats' threads: only enqueue."""
        at = event.at  # the edge's time: a vote counts from when the hand went down
        if event.seat is not None:
            seat = event.seat
            self._submit(SeatPressed(seat) if event.pressed else SeatReleased(seat), at=at)
        elif event.pressed and event.host == "next":
            self._submit(HostAdvanced(), at=at)
        elif event.pressed and event.host == "pause":
            game = self._game()
            paused = game is not None and game.paused
            self._submit(TimersResumed() if paused else TimersPaused(), at=at)
        elif event.pressed and event.host == "offence":
            if self._on_offence is not None:
                self._on_offence()
            else:
                log.info("the offence button: record the offence at the console")

    def changed(self, before: Game | None, after: Game) -> None:
        """The runtime's hook after an accepted input (on its loop thread)."""
        if self.seats.count != len(after.seats):
            log.warning("%d seats wired, %d in the game", self.seats.count, len(after.seats))
        self.seats.show(light_changes(before, after))
        starting = before is None or before.phase == "ended"
        if starting != (after.phase == "ended"):  # a game begins, or one ends
            self.seats.sweep()
