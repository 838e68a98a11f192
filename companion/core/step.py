"""What every part of the engine shares: the error for illegal inputs,
``Step``, the scratchpad one input's handling writes its new state and its
effects into, and ``Procedure``, the seam between the engine and a
procedure of play. They live together because each names the other: a
procedure's handlers take a ``Step``, and a step runs its procedure's
transition table.

``Step`` is mutable but lives only inside one call of ``engine.step``: the
function as a whole stays pure.

A procedure is how a table runs its phases: the sports table (timed
speeches, nominations, hands in vote windows, timed night steps) or the
forum game (night choices by deadline, a morning announcement, a day vote
of one ballot each). The shared parts of a game (seats, discipline, the
protocol, timers, undo) are the engine's; a ruleset names the procedure it
plays (``Ruleset.procedure``) and the engine asks it:

* ``begin``: the game is dealt; start night 0 (or whatever comes first);
* ``handlers``: which function takes an input in a phase;
* ``endings``: the transition table. A phase that is over names its ending
  (``t.ended("speeches_done")``) and the table says what follows, so the
  phases do not import each other;
* ``timers``: what a timer's expiry means in a phase;
* ``seat_removed`` and ``removed_speaker``: tidy the procedure's state when
  discipline removes a seat (a nominee dropped, a vote going with its
  voter, a turn cut short);
* ``phase_name`` and ``lights``: what the shells read off the state;
* ``microphone``: what speech heard now breaks (``MicrophoneRule``): the
  ears ask it, so a procedure whose phases are not the sports table's
  (the forum's hours-long night) is not judged by the sports table's;
* the discipline's questions and marks (``speaking``, ``speech_ahead``,
  ``lose_speech``, ``leave_at_morning``): who speaks now, whether a seat's
  speech is still ahead today (the ladder's «this round or next»), a lost
  speech and a removal at morning kept with the procedure's own seat data;
* the clock's (``more_time``, ``time_moved``, ``ran_over``, ``ask_again``):
  what the host's added time means where no timer runs, what follows a
  moved end (the speaker's warning), what an undo asks again;
* the ruleset's (``read_rules``, ``costs``, ``night_steps``, ``title``):
  the procedure's own ruleset section and offence costs, whether it needs
  ``[night]`` steps.

Every hook past ``microphone`` has a default that does nothing, so a
procedure with no turns, no ladder of its own and no ruleset section (a
test's toy game) names none of them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..textfiles.toml_table import TomlTable
from .effects import CancelTimer, Effect, ProposeOffence, Say, StartTimer, TellHost
from .events import Event, GameSetUp, ProcedureEvent
from .rules import ProcedureRules, RulesetReader
from .state import (
    Game,
    ProcedureState,
    Proposal,
    Result,
    Seat,
    check_draft,
    draft_game,
    drafted,
    evolve,
    new_record,
)

# The cues said, each made once: building a frozen dataclass costs more
# than the rest of a typical ``say``, and a game says the same few hundred
# cues over and over (a Say is immutable, so sharing one is safe). Cleared
# when full: a long-lived table process meets new days and seat counts.
_SAID: dict[tuple[str, tuple[tuple[str, int | str], ...], bool], Say] = {}
_SAID_MAX = 4096
_CANCEL = {name: CancelTimer(name) for name in ("turn", "warning", "vote", "count", "night")}


_StartTimerDraft = drafted(StartTimer)


def _start_timer(name: str, seconds: float, generation: int) -> StartTimer:
    """``StartTimer(name, seconds, generation)`` built as a draft (see
    state.py's drafts): a turn starts two timers, a vote window one."""
    effect: Any = object.__new__(_StartTimerDraft)
    effect.name = name
    effect.seconds = seconds
    effect.generation = generation
    effect.__class__ = StartTimer
    return effect  # type: ignore[no-any-return]


check_draft(StartTimer, lambda e: _start_timer(e.name, e.seconds, e.generation))


class IllegalInput(ValueError):
    """The input is well formed but not allowed now; the state is unchanged."""


def require(condition: bool, message: str, *fields: object) -> None:
    """Refuse the input unless ``condition``. ``fields`` fill the message's
    ``{}``, formatted only for a refusal: an f-string would be formatted
    for every input that passes."""
    if not condition:
        raise IllegalInput(message.format(*fields) if fields else message)


class Step:
    """The state being built for one input, and the effects it orders.

    Copy on write: the first change makes a draft of the game (a private
    writable copy, ``state.draft_game``), later changes within the same
    input write into it, and ``seal`` freezes it when the input is done;
    nobody else sees it before. Replay speed is bound by state copies, and
    most inputs change several fields.
    """

    __slots__ = ("_state_class", "_state_owned", "changed", "effects", "game", "procedure")

    def __init__(self, game: Game, procedure: Procedure) -> None:
        #: the game as this input has left it so far: read it, change it only
        #: through ``set`` and ``set_state`` (a plain attribute, not a
        #: property: it is read a few times in every handler)
        self.game = game
        #: True once ``game`` is this step's own draft (the input changed it)
        self.changed = False
        self._state_owned = False  # True once its procedure_state is too
        #: what the procedure state's draft becomes when sealed (None: copied
        #: dict to dict, nothing to seal)
        self._state_class: type | None = None
        self.effects: list[Effect] = []
        #: the rules of play the game follows: its phases' handlers and endings
        self.procedure = procedure

    # --- state -----------------------------------------------------------
    def set(self, **changes: Any) -> None:
        game = self._draft()
        for name, value in changes.items():
            setattr(game, name, value)

    def _draft(self) -> Any:
        """The game's draft, made on the first change; typed Any so that the
        step's own helpers below store into its slots directly (a keyword
        of ``set`` costs a ``setattr``)."""
        if not self.changed:
            self.game = draft_game(self.game)
            self.changed = True
        return self.game

    def set_state(self, **changes: Any) -> None:
        """Change the procedure's own state (copy on write, as ``set``)."""
        if not self._state_owned:
            self._own_state()
        state = self.game.procedure_state
        if self._state_class is None:
            state.__dict__.update(changes)
        else:
            for name, value in changes.items():
                setattr(state, name, value)

    def _own_state(self) -> None:
        old = self.game.procedure_state
        state = old.draft()
        if state is None:  # a state copied dict to dict (the forum game's)
            state = evolve(old, {})
        else:
            self._state_class = type(old)
        self.set(procedure_state=state)
        self._state_owned = True

    def seal(self, prev: Game | None) -> Game:
        """The game this input has made, linked to ``prev`` (the host's undo)
        if it changed anything: its drafts made frozen dataclasses again."""
        game: Any = self.game
        if self.changed:
            game.prev = prev
            if self._state_class is not None:
                game.procedure_state.__class__ = self._state_class
            game.__class__ = Game
        return game  # type: ignore[no-any-return]

    def ended(self, ending: str, *args: Any) -> None:
        """A phase has reached its named ending («speeches done», «ballot
        resolved», «morning»): what follows is the procedure's transition
        table's business, so the phases need not import each other."""
        self.procedure.endings[ending](self, *args)

    def seat(self, number: int) -> Seat:
        return self.game.seats[number - 1]

    def update_seat(self, number: int, **changes: Any) -> None:
        game = self._draft()
        seats = list(game.seats)
        seats[number - 1] = evolve(seats[number - 1], changes)
        game.seats = tuple(seats)

    def record(self, what: str, **data: object) -> None:
        """Append a line to the game protocol."""
        game: Any = self.game if self.changed else self._draft()
        game.log = new_record(game.day, what, tuple(data.items()), game.log)

    # --- effects ---------------------------------------------------------
    def say(self, cue: str, *, urgent: bool = False, **args: int | str) -> None:
        key = (cue, tuple(args.items()), urgent)
        said = _SAID.get(key)
        if said is None:
            if len(_SAID) >= _SAID_MAX:
                _SAID.clear()
            said = _SAID[key] = Say(*key)
        self.effects.append(said)

    def tell(self, what: str, **args: int | str) -> None:
        self.effects.append(TellHost(what, tuple(args.items())))

    def start_timer(self, name: str, seconds: float) -> None:
        game: Any = self.game if self.changed else self._draft()
        generation = game.timer_generation + 1
        timers = [t for t in game.timers if t[0] != name]
        timers.append((name, generation))
        game.timer_generation = generation
        game.timers = tuple(timers)
        self.effects.append(_start_timer(name, seconds, generation))
        if game.paused:  # a new turn, window or step: what was paused is gone
            self._forget_paused((name,))

    def cancel_timers(self, *names: str) -> None:
        running = self.game.timers
        kept = []
        for timer in running:
            if timer[0] in names:
                self.effects.append(_CANCEL.get(timer[0]) or CancelTimer(timer[0]))
            else:
                kept.append(timer)
        if len(kept) != len(running):
            self._draft().timers = tuple(kept)
        if self.game.paused:
            self._forget_paused(names)

    def _forget_paused(self, names: tuple[str, ...]) -> None:
        self.set(paused=tuple(p for p in self.game.paused if p[0] not in names))

    def cancel_all_timers(self) -> None:
        self.cancel_timers(*(name for name, _ in self.game.timers))

    def propose(self, seat: int, offence: str, reason: str) -> None:
        self.set(proposals=(*self.game.proposals, Proposal(seat, offence, reason)))
        self.effects.append(ProposeOffence(seat, offence, reason))


Handler = Callable[[Step, Event], None]
Action = Callable[[Step], None]

#: what speech breaks and whose it is: (one of ``events.SPEECH_KINDS``, the
#: seat, or None when the layout cannot tell whose)
Breach = tuple[str, int | None]


@dataclass(frozen=True, slots=True)
class MicrophoneRule:
    """A procedure's microphone rule (companion/ears/flags.py and
    ears/watch.py ask it; docs/listening.md). Pure functions of the state:
    the ears add the time (an overrun's grace, a flag's moment)."""

    #: what speech heard now from ``seat`` (None: the layout cannot tell
    #: whose) breaks, and whose it is; None when it may be spoken
    broken: Callable[[Game, int | None], Breach | None]
    #: the running turn whose time is up, as a key that changes when another
    #: turn's is (None: no turn runs over): an overrun counts its grace from
    #: the first state with that key
    running_over: Callable[[Game], tuple[int | str, ...] | None]


@dataclass(frozen=True, slots=True)
class Procedure:
    name: str
    #: the procedure's phases, besides every procedure's "setup" and "ended"
    phases: tuple[str, ...]
    #: the state a new game of this procedure starts from (its setup)
    new_state: Callable[[GameSetUp], ProcedureState]
    begin: Action
    handlers: Mapping[tuple[str, type], Handler]
    #: inputs taken in any phase (the handlers check further), before the engine's own
    handlers_any_phase: Mapping[type, Handler]
    endings: Mapping[str, Callable[..., None]]
    #: (timer name, phase) -> what its expiry does
    timers: Mapping[tuple[str, str], Action]
    #: phase -> the timers that measure it, for the host's added time (the
    #: first one running counts)
    main_timers: Mapping[str, tuple[str, ...]]
    #: discipline removed a seat: tidy the procedure's state (before the
    #: engine looks whether the game is decided)
    seat_removed: Callable[[Step, int], None]
    #: ... and, the game going on, end the removed seat's turn if it has one
    removed_speaker: Callable[[Step, int], None]
    #: the game has ended: close what the procedure has open (a ballot)
    game_over: Action
    #: the result the table has reached, or None while the game goes on
    decide: Callable[[Game], Result | None]
    #: an offence the procedure's own costs (the forum's demotion, lost move)
    sanction: Callable[[Step, int, str], None]
    phase_name: Callable[[Game], str]
    lights: Callable[[Game], tuple[str, ...]]
    #: what the microphone flags (``MicrophoneRule``)
    microphone: MicrophoneRule
    # --- the discipline's questions (core/discipline.py) ---
    #: the seat whose turn runs now, 0 for none: an offence may be given to
    #: it though it is out (a last word)
    speaking: Callable[[Game], int] = lambda game: 0
    #: the seat's own speech is still ahead today, not begun: a ladder step
    #: that bites «this round or next» bites today (tournament 4.4)
    speech_ahead: Callable[[Game, int], bool] = lambda game, seat: False
    #: the ladder takes the seat's own speech of ``day`` (0: gives it back):
    #: the procedure keeps it with its speeches (``Seat`` keeps the others)
    lose_speech: Callable[[Step, int, int], None] = lambda t, seat, day: None
    #: the seat leaves at the procedure's morning without a last word (an
    #: offence of cost ``removal_at_morning``), or, False, no longer does
    leave_at_morning: Callable[[Step, int, bool], None] = lambda t, seat, leaves: None
    # --- the clock's (core/timing.py) ---
    #: the host adds ``seconds`` where no main timer runs: the timer that
    #: gets them (the state readied for it), or None: refused
    more_time: Callable[[Step, float], str | None] = lambda t, seconds: None
    #: the main timer's end moved (time added or taken): what follows it
    #: (``left``: each timer's seconds, changed in place)
    time_moved: Callable[[Step, dict[str, float]], None] = lambda t, left: None
    #: the timer ``name`` has run out already (its turn runs over time):
    #: taking more of its time ends nothing more
    ran_over: Callable[[Game, str], bool] = lambda game, name: False
    #: what an undo brought back paused, resumed: asked again as it runs on
    ask_again: Action = lambda t: None
    # --- the ruleset's (core/ruleset_load.py) ---
    #: what a refusal calls it («the forum game»); its name when empty
    title: str = ""
    #: the top-level section of a ruleset it reads (``forum``: ``[forum]``), "" for none
    rules_section: str = ""
    #: reads that section (required when named) into ``Ruleset.procedure_rules``
    read_rules: Callable[[TomlTable, RulesetReader], ProcedureRules] | None = None
    #: offence costs of its own beyond ``rules.CORE_COSTS``, paid by ``sanction``
    costs: tuple[str, ...] = ()
    #: its rulesets need ``[night]`` steps
    night_steps: bool = True
    #: its own inputs (``events.ProcedureEvent``): the codec reads and writes
    #: their script lines through the registry (``core.procedures``)
    events: tuple[type[ProcedureEvent], ...] = ()
    # --- the protocol's check (protocol/played.py) ---
    #: a seat's role may change in a game of it: a ``role_changed`` record
    #: is fair; False: one is forged
    roles_change: bool = False
    #: the options a game of it may be set up with (``GameSetUp.options``;
    #: its rules' ``ProcedureRules.options``), for a file that keeps a
    #: set-up before its ruleset is read (club/last_setup.py)
    options: tuple[str, ...] = ()


def living(game: Game) -> list[Seat]:
    return [s for s in game.seats if s.out is None]


def seat_in_range(game: Game, number: int, what: str = "seat") -> Seat:
    # ``if``, not ``require``: the message is formatted only for a refusal
    # (this runs for most inputs, and an f-string costs more than the check)
    seats = game.seats
    if not 1 <= number <= len(seats):
        raise IllegalInput(f"{what} {number} is not at this table (1–{len(seats)})")
    return seats[number - 1]


def living_seat(game: Game, number: int, what: str = "seat") -> Seat:
    seat = seat_in_range(game, number, what)
    if seat.out is not None:
        raise IllegalInput(f"{what} {number} is out of the game")
    return seat


def rights_day(game: Game) -> int:
    """The day whose rights count now: today in the day, tomorrow at night."""
    return game.day + 1 if game.phase in ("night", "setup") else game.day
