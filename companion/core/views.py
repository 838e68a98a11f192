"""What the shells read off a game, whatever procedure it plays: the
detailed phase and the seat lights (docs/lights.md; the modes are
``core.lights``'s). A seat's rights are a procedure's own (the sports
table's in ``core.sports.rights``).

All derived from ``Game``; nothing here changes state.
"""

from __future__ import annotations

from . import procedures
from .events import SpeechFlagged
from .state import Game

__all__ = ["light_changes", "lights", "phase_name", "trailing_flags"]


def phase_name(game: Game) -> str:
    """The detailed phase: for the sports table setup, night, last_word,
    speech, tie_speech, vote, count, all_leave_vote, all_leave_count, ended."""
    if game.phase in ("setup", "ended"):
        return game.phase
    return procedures.of(game).phase_name(game)


def lights(game: Game) -> tuple[str, ...]:
    """Each seat's light. Lights are a view of the state, not orders: the
    seat shell renders them after each accepted input (``light_changes``),
    and a restarted table renders them once from the resumed state."""
    return procedures.of(game).lights(game)


def light_changes(before: Game | None, after: Game) -> list[tuple[int, str]]:
    """(seat, mode) for every seat whose light differs between two states;
    every seat when there is no state before."""
    now = lights(after)
    old = lights(before) if before is not None else ()
    if len(old) != len(now):
        return list(enumerate(now, 1))
    return [(n, mode) for n, (was, mode) in enumerate(zip(old, now, strict=True), 1) if was != mode]


def trailing_flags(game: Game) -> tuple[SpeechFlagged, ...]:
    """The microphone's flags that made the latest states, oldest first:
    what the host's undo passes over (``Undone.past_flags``). A flag's
    state is one ``speech_flagged`` line on the state before it."""
    flags: list[SpeechFlagged] = []
    while (
        game.prev is not None
        and game.log is not None
        and game.log.kind == "speech_flagged"
        and game.log.prev is game.prev.log
    ):
        flags.append(SpeechFlagged(**dict(game.log.data)))  # type: ignore[arg-type]
        game = game.prev
    return tuple(reversed(flags))
