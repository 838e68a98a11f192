"""Foresight: a timer's cues handed to the voice ahead of its deadline.

The engine is pure, so what the next timer will say when it runs out is
known the moment it is armed: ``engine.apply(game, TimerExpired(name,
generation))`` on the current state. After every input the live loop
(runner/loop.py) has ``TimerCues`` work that out for the earliest timer and
hand those cues to the ``Foresight`` (the announcer) with the deadline on
the monotonic clock; the speaker starts them on the audio clock at that
very moment, however late the loop or the audio callback runs. An input
that changes what the timer would say withdraws them (and plans anew);
cues for inputs from people cannot be foreseen and go the short way, when
they are taken.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Protocol

from ..core.effects import Effect, Say
from ..core.engine import IllegalInput, apply
from ..core.events import BadEvent, TimerExpired
from .session import GameSession

log = logging.getLogger(__name__)

#: a timer as the session's ``Timers.earliest`` gives it: name, deadline, generation
Due = tuple[str, float, int]


class Foresight(Protocol):
    """Takes a timer's cues ahead of its deadline (the announcer)."""

    def plan(self, at: float, effects: tuple[Effect, ...]) -> Hashable | None:
        """Start what ``effects`` say at ``at`` (``time.monotonic()``);
        a ticket, or None when nothing was taken ahead."""

    def withdraw(self, ticket: Hashable) -> None:
        """Those cues are no longer what the timer will say."""

    def carried_out(self, ticket: Hashable) -> None:
        """The timer's effects come next: its cues are already under way."""


@dataclass(frozen=True, slots=True)
class _Plan:
    timer: Due
    says: tuple[Effect, ...]
    ticket: Hashable


class TimerCues:
    """The earliest timer's cues, with the foresight ahead of its deadline
    (nothing at all without a foresight)."""

    def __init__(self, foresight: Foresight | None, wall_time: Callable[[float], float]) -> None:
        """``wall_time``: the monotonic time at which the game clock reads a time."""
        self.foresight = foresight
        self.wall_time = wall_time
        self._plan: _Plan | None = None

    def fired(self, due: Due) -> Hashable | None:
        """The timer ``due`` fires now: the ticket of its cues handed over
        ahead, for ``carried_out`` when its effects come (None: none)."""
        plan, self._plan = self._plan, None
        if plan is None or self.foresight is None:
            return None
        if plan.timer == due:
            return plan.ticket
        self.foresight.withdraw(plan.ticket)  # cannot happen: every input plans anew
        return None

    def carried_out(self, ticket: Hashable) -> None:
        if self.foresight is not None:
            self.foresight.carried_out(ticket)

    def withdraw(self, ticket: Hashable) -> None:
        """A fired timer's expiry was taken back (its line not written)."""
        if self.foresight is not None:
            self.foresight.withdraw(ticket)

    def drop(self) -> None:
        """Withdraw what is planned: every deadline is at another moment
        of the monotonic clock now (a practice game's speed changed)."""
        plan, self._plan = self._plan, None
        if plan is not None and self.foresight is not None:
            self.foresight.withdraw(plan.ticket)

    def plan_next(self, session: GameSession, end: float) -> None:
        """Hand the earliest timer's cues to the foresight ahead of its
        deadline, unless they are already there; withdraw cues that the
        game no longer says. Only the earliest: a later timer's cues depend
        on what the earlier one changes, and are planned when it has fired.
        ``end``: no timer due after it fires (``LiveLoop.end_at``)."""
        if self.foresight is None:
            return
        due = session.timers.earliest()
        if due is not None and due[1] > end:
            due = None  # the game ends before it runs out: it says nothing
        says: tuple[Effect, ...] = ()
        if due is not None and session.game is not None:
            try:
                _, effects = apply(session.game, TimerExpired(due[0], due[2]))
            except (IllegalInput, BadEvent):
                effects = ()
            says = tuple(e for e in effects if type(e) is Say)
        plan = self._plan
        if plan is not None:
            if plan.timer == due and plan.says == says:
                return  # still what the game will say, at the same moment
            self._plan = None
            self.foresight.withdraw(plan.ticket)
        if due is None or not says:
            return
        try:
            ticket = self.foresight.plan(self.wall_time(due[1]), says)
        except Exception:  # the voice is not the game: the timer says it when it fires
            log.exception("planning the cues of timer %r failed", due[0])
            return
        if ticket is not None:
            self._plan = _Plan(due, says, ticket)
