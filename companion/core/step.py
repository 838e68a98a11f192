"""What every part of the engine shares: the error for illegal inputs and
``Step``, the scratchpad one input's handling writes its new state and its
effects into.

``Step`` is mutable but lives only inside one call of ``engine.step``: the
function as a whole stays pure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .effects import CancelTimer, Effect, ProposeOffence, Say, StartTimer, TellHost
from .state import Game, Proposal, Record, Seat, evolve

if TYPE_CHECKING:
    from .procedure import Procedure


class IllegalInput(ValueError):
    """The input is well formed but not allowed now; the state is unchanged."""


def require(condition: bool, message: str) -> None:
    if not condition:
        raise IllegalInput(message)


class Step:
    """The state being built for one input, and the effects it orders.

    Copy on write: the first change copies the game once, and later changes
    within the same input write into that private copy, which nobody else
    can see until ``engine.step`` returns it. Replay speed is bound by state
    copies, and most inputs change several fields.
    """

    __slots__ = ("_game", "_owned", "_state_owned", "effects", "procedure")

    def __init__(self, game: Game, procedure: Procedure) -> None:
        self._game = game
        self._owned = False  # True once _game is this step's own copy
        self._state_owned = False  # True once its procedure_state is too
        self.effects: list[Effect] = []
        #: the rules of play the game follows: its phases' handlers and endings
        self.procedure = procedure

    # --- state -----------------------------------------------------------
    @property
    def game(self) -> Game:
        return self._game

    @property
    def changed(self) -> bool:
        return self._owned

    def set(self, **changes: Any) -> None:
        if self._owned:
            self._game.__dict__.update(changes)
        else:
            self._game = evolve(self._game, changes)
            self._owned = True

    def set_state(self, **changes: Any) -> None:
        """Change the procedure's own state (copy on write, as ``set``)."""
        game = self._game
        if self._state_owned:
            game.procedure_state.__dict__.update(changes)
            return
        state = evolve(game.procedure_state, changes)
        if self._owned:
            game.__dict__["procedure_state"] = state
        else:
            self._game = evolve(game, {"procedure_state": state})
            self._owned = True
        self._state_owned = True

    def ended(self, ending: str, *args: Any) -> None:
        """A phase has reached its named ending («speeches done», «ballot
        resolved», «morning»): what follows is the procedure's transition
        table's business, so the phases need not import each other."""
        self.procedure.endings[ending](self, *args)

    def seat(self, number: int) -> Seat:
        return self._game.seats[number - 1]

    def update_seat(self, number: int, **changes: Any) -> None:
        seats = list(self._game.seats)
        seats[number - 1] = evolve(seats[number - 1], changes)
        self.set(seats=tuple(seats))

    def record(self, what: str, **data: object) -> None:
        """Append a line to the game protocol."""
        game = self._game
        self.set(log=Record(game.day, what, tuple(data.items()), prev=game.log))

    # --- effects ---------------------------------------------------------
    def say(self, cue: str, *, urgent: bool = False, **args: int | str) -> None:
        self.effects.append(Say(cue, tuple(args.items()), urgent))

    def tell(self, what: str, **args: int | str) -> None:
        self.effects.append(TellHost(what, tuple(args.items())))

    def start_timer(self, name: str, seconds: float) -> None:
        game = self._game
        generation = game.timer_generation + 1
        timers = [t for t in game.timers if t[0] != name]
        timers.append((name, generation))
        self.set(timer_generation=generation, timers=tuple(timers))
        self.effects.append(StartTimer(name, seconds, generation))
        if game.paused:  # a new turn, window or step: what was paused is gone
            self._forget_paused((name,))

    def cancel_timers(self, *names: str) -> None:
        running = self._game.timers
        kept = []
        for timer in running:
            if timer[0] in names:
                self.effects.append(CancelTimer(timer[0]))
            else:
                kept.append(timer)
        if len(kept) != len(running):
            self.set(timers=tuple(kept))
        if self._game.paused:
            self._forget_paused(names)

    def _forget_paused(self, names: tuple[str, ...]) -> None:
        self.set(paused=tuple(p for p in self._game.paused if p[0] not in names))

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
