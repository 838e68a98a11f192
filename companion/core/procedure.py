"""The seam between the engine and a procedure of play.

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
* ``phase_name`` and ``lights``: what the shells read off the state.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from .events import Event, GameSetUp
from .state import Game, ProcedureState, Result
from .step import Step

Handler = Callable[[Step, Event], None]
Action = Callable[[Step], None]


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
