"""A resumed game's log, as it was: the journal read again (not taken:
the table's process holds it) and replayed on the pure engine, so that the
console can write every caption and host line the game had before the
restart, with the deal's hash first. What happened is rebuilt, not stored
twice: the journal is the one record of the game."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..config.rulesets import load_ruleset
from ..core.effects import Effect
from ..core.state import Game
from ..protocol import deal as fair
from ..runner.journal import read
from ..runner.replay import ScriptReplay
from ..runner.script import parse_lines

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Past:
    """What the journal says happened: each accepted input's time, the state
    after it and its effects, and the deal's hash (None: roles from cards)."""

    steps: tuple[tuple[float, Game, tuple[Effect, ...]], ...]
    commitment: str | None


def journal_past(path: Path) -> Past:
    """The game of the journal ``path`` as it went; an empty past (and a
    line in the log file) when it cannot be read: the game goes on all the
    same, only its log starts empty."""
    steps: list[tuple[float, Game, tuple[Effect, ...]]] = []
    try:
        text = read(path)
        lines = parse_lines(text.lines, str(path), load_ruleset)
        replay = ScriptReplay(auto_timers=False, source=str(path))

        def kept(at: float, effects: tuple[Effect, ...]) -> None:
            game = replay.session.game
            if game is not None:
                steps.append((at, game, effects))

        replay.on_effects = kept
        replay.run(lines)
    except (OSError, ValueError) as error:
        log.warning("the log of %s is not shown again: %s", path, error)
        return Past((), None)
    return Past(tuple(steps), _commitment(text.lines))


def _commitment(lines: list[str]) -> str | None:
    """The hash shown for a companion deal (a setup without the cards' roles)."""
    for line in lines:
        try:
            first = json.loads(line)
        except ValueError:
            return None
        if isinstance(first, dict) and first.get("input") == "setup":
            if first.get("roles") is not None:
                return None
            seed = first.get("seed", 0)
            return fair.commitment(seed) if isinstance(seed, int) else None
    return None


def began(path: Path) -> str:
    """When a journal's game began, from its name (the console names a
    journal by its start: 2026-12-01_20-00-00.jsonl), as the host reads a
    time: «01.12.2026 20:00»; a journal named otherwise by its stem."""
    try:
        start = datetime.strptime(path.stem[:19], "%Y-%m-%d_%H-%M-%S")
    except ValueError:
        return path.stem
    return f"{start:%d.%m.%Y %H:%M}"
