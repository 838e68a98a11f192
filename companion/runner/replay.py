"""Running a game from timed inputs on a fake clock.

``ScriptReplay`` feeds script lines to a ``GameSession``: before each line, every
timer due by then fires in deadline order, as the live loop would have
fired it. Timer deadlines are kept as numbers, so a long game accumulates
no drift.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..core.effects import Effect
from ..core.events import BadEvent, Event, GameSetUp
from ..core.rules import Ruleset
from ..core.state import Game
from .bulk import without_gc_pauses
from .clock import Deadlines
from .codec import input_name
from .journal import Journal, JournalWriteError
from .script import ScriptError, ScriptLine
from .session import EffectSink, GameSession


class ScriptReplay:
    """Runs script lines. ``auto_timers``: fire timers by the clock (a
    script); off while re-reading a journal, whose timer expiries are lines
    of their own."""

    def __init__(
        self,
        journal: Journal | None = None,
        *,
        auto_timers: bool = True,
        on_effects: EffectSink | None = None,
        source: str = "script",
        session: GameSession | None = None,
    ) -> None:
        self.session = session or GameSession(journal=journal, on_effects=on_effects)
        self.auto_timers = auto_timers
        # A journal's undo lines say what the timers had left, or (an old
        # journal) nothing, and then mean what they meant when written.
        self.session.fill_undo = auto_timers
        self.source = source

    # what callers read
    @property
    def game(self) -> Game | None:
        return self.session.game

    @property
    def now(self) -> float:
        return self.session.now

    @property
    def inputs(self) -> int:
        return self.session.inputs

    @property
    def last_line(self) -> int:
        return self.session.last_line

    @property
    def ignored(self) -> list[int]:
        return self.session.ignored

    @property
    def timers(self) -> Deadlines:
        """Running timers: name -> (deadline, generation)."""
        return self.session.timers.deadlines

    @property
    def on_effects(self) -> EffectSink | None:
        return self.session.on_effects

    @on_effects.setter
    def on_effects(self, sink: EffectSink | None) -> None:
        self.session.on_effects = sink

    @property
    def journal(self) -> Journal | None:
        return self.session.journal

    @journal.setter
    def journal(self, journal: Journal | None) -> None:
        self.session.journal = journal

    # --- feeding --------------------------------------------------------------
    def run(self, lines: Iterable[ScriptLine]) -> Game | None:
        with without_gc_pauses():
            for line in lines:
                self.feed(line)
        return self.game

    def feed(self, line: ScriptLine) -> None:
        """Take one line; an input refused (by the engine, or because the
        journal could not write it) is a ScriptError naming the line."""
        session = self.session
        event = line.event
        try:
            if self.auto_timers:
                session.fire_due(line.at)
            number = line.fields.get("line", line.number)
            if event is None:
                if line.fields.get("input") == "speed":  # a practice game's clock
                    session.speed_changed(line.fields["factor"], line.at, line=number)
                else:  # "wait": time passes
                    session.passed(line.at, number)
                return
            if type(event) is GameSetUp:  # a practice game's speed from its start
                session.speed = float(line.fields.get("speed", 1.0))
            ruleset = line.fields.get("ruleset")
            session.take(
                event, line.at, line=number, ruleset=ruleset if isinstance(ruleset, str) else None
            )
        except (ValueError, JournalWriteError) as error:  # IllegalInput, BadEvent
            refused = ScriptError(self.source, line.number, line.text, refusal(event, error))
            game = session.game
            refused.refused_in = game.rules if game is not None else _rules_of(event)
            raise refused from None

    def advance_to(self, at: float) -> None:
        """Fire, in deadline order, every timer due by ``at``."""
        self.session.fire_due(at)

    def apply(self, event: Event, at: float | None = None) -> tuple[Effect, ...]:
        """Take one input (not from a script) at ``at`` (default: now)."""
        return self.session.take(event, self.now if at is None else at)


def _rules_of(event: Event | None) -> Ruleset | None:
    """The ruleset a refused setup brought (no game has one yet)."""
    return event.ruleset if isinstance(event, GameSetUp) else None


def refusal(event: Event | None, error: Exception) -> str:
    """Why an input was refused, named as scripts name it: ``nominate: ...``."""
    if event is None or isinstance(error, JournalWriteError | BadEvent):
        return str(error)
    return f"{input_name(event)}: {error}"
