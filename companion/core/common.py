"""What every part of the engine shares: the error for illegal inputs and
``Step``, the scratchpad one input's handling writes its new state and its
effects into.

``Step`` is mutable but lives only inside one call of ``engine.step``: the
function as a whole stays pure.
"""

from __future__ import annotations

from typing import Any

from .effects import CancelTimer, Effect, ProposeOffence, Say, StartTimer, TellHost
from .state import Game, Proposal, Record, Seat, evolve


class IllegalInput(ValueError):
    """The input is well formed but not allowed now; the state is unchanged."""


def require(condition: bool, message: str) -> None:
    if not condition:
        raise IllegalInput(message)


class Step:
    """The state being built for one input, and the effects it orders.

    Changes to the game are gathered and applied in one copy when the game
    is next read: most inputs change several fields, and copying a 30-field
    state once instead of three times is what keeps replay fast.
    """

    __slots__ = ("_game", "_pending", "effects")

    def __init__(self, game: Game) -> None:
        self._game = game
        self._pending: dict[str, Any] = {}
        self.effects: list[Effect] = []

    # --- state -----------------------------------------------------------
    @property
    def game(self) -> Game:
        if self._pending:
            self._game = evolve(self._game, self._pending)
            self._pending = {}
        return self._game

    def set(self, **changes: Any) -> None:
        self._pending.update(changes)

    def seat(self, number: int) -> Seat:
        return self.game.seats[number - 1]

    def _current(self, name: str) -> Any:
        """A field's value as it will be, without applying the pending changes."""
        if name in self._pending:
            return self._pending[name]
        return getattr(self._game, name)

    def update_seat(self, number: int, **changes: Any) -> None:
        seats = list(self._current("seats"))
        seats[number - 1] = evolve(seats[number - 1], changes)
        self.set(seats=tuple(seats))

    def record(self, what: str, **data: object) -> None:
        """Append a line to the game protocol."""
        entry = Record(self._current("day"), what, tuple(data.items()), prev=self._current("log"))
        self._pending["log"] = entry

    # --- effects ---------------------------------------------------------
    def say(self, cue: str, *, urgent: bool = False, **args: int | str) -> None:
        self.effects.append(Say(cue, tuple(args.items()), urgent))

    def tell(self, what: str, **args: int | str) -> None:
        self.effects.append(TellHost(what, tuple(args.items())))

    def start_timer(self, name: str, seconds: float) -> None:
        generation = self.game.timer_generation + 1
        timers = (*(t for t in self.game.timers if t[0] != name), (name, generation))
        self.set(timer_generation=generation, timers=timers)
        self.effects.append(StartTimer(name, seconds, generation))

    def cancel_timers(self, *names: str) -> None:
        running = self.game.timers
        for name in names:
            if any(t[0] == name for t in running):
                self.effects.append(CancelTimer(name))
        self.set(timers=tuple(t for t in running if t[0] not in names))

    def cancel_all_timers(self) -> None:
        self.cancel_timers(*(name for name, _ in self.game.timers))

    def propose(self, seat: int, offence: str, reason: str) -> None:
        self.set(proposals=(*self.game.proposals, Proposal(seat, offence, reason)))
        self.effects.append(ProposeOffence(seat, offence, reason))


def living(game: Game) -> list[Seat]:
    return [s for s in game.seats if s.out is None]


def seat_in_range(game: Game, number: int, what: str = "seat") -> Seat:
    require(
        1 <= number <= len(game.seats),
        f"{what} {number} is not at this table (1–{len(game.seats)})",
    )
    return game.seats[number - 1]


def living_seat(game: Game, number: int, what: str = "seat") -> Seat:
    seat = seat_in_range(game, number, what)
    require(seat.out is None, f"{what} {number} is out of the game")
    return seat


def rights_day(game: Game) -> int:
    """The day whose rights count now: today in the day, tomorrow at night."""
    return game.day + 1 if game.phase in ("night", "setup") else game.day
