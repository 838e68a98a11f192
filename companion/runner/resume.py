"""A game taken up again from its journal, and the unfinished game in a
folder of journals (the console offers to resume it at start-up)."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..core.state import Game
from .codec import RulesetLoader
from .fallback import default_places
from .journal import Journal, read
from .journal_check import JournalError
from .replay import ScriptReplay
from .script import parse_lines
from .session import GameSession

log = logging.getLogger(__name__)


@dataclass
class Resumed:
    session: GameSession  # the game as the journal left it, journaling again
    warnings: list[str]  # a torn last line dropped, no lock file ...


def resume_journal(path: Path, load_ruleset: RulesetLoader) -> Resumed:
    """Take the journal (its lock), rebuild the game and go on journaling
    into it. Raises JournalDamaged, JournalLocked, ScriptError or OSError
    with one line naming the file: nothing is changed then."""
    journal, text = Journal.resume(path)
    try:
        lines = parse_lines(text.lines, str(path), load_ruleset)
        replay = ScriptReplay(auto_timers=False, source=str(path))
        replay.run(lines)
        journal.repair()  # a torn tail cut, so the next line starts clean
    except BaseException:
        journal.close()
        raise
    replay.session.journal = journal
    replay.session.fill_undo = True  # the host's undo from here on
    return Resumed(replay.session, list(text.warnings))


@dataclass(frozen=True, slots=True)
class Unfinished:
    path: Path
    game: Game


def unfinished_game(
    folder: Path, load_ruleset: RulesetLoader, elsewhere: Iterable[Path] | None = None
) -> Unfinished | None:
    """The newest journal in ``folder`` or in the fallback folders
    (``elsewhere``; default: runner/fallback.py's) if its game has not ended
    (read without taking it). A journal that went on elsewhere is read
    there (its lock file says where); the fallback folders are looked in
    too for a move the old lock file could not record (docs/faults.md). A
    journal that cannot be read is logged and skipped: the console starts
    all the same."""
    others = [p.folder for p in default_places()] if elsewhere is None else list(elsewhere)
    journals: list[tuple[float, Path]] = []
    for place in (folder, *others):
        try:
            journals += [(p.stat().st_mtime, p) for p in place.glob("*.jsonl")]
        except OSError as error:
            if place == folder:
                log.warning("%s: %s", folder, error.strerror or error)
    if not journals:
        return None
    newest = max(journals)[1]
    try:
        text = read(newest)
        replay = ScriptReplay(auto_timers=False, source=str(newest))
        replay.run(parse_lines(text.lines, str(newest), load_ruleset))
    except (OSError, ValueError, JournalError) as error:
        log.warning("%s", error)
        return None
    game = replay.game
    if game is None or game.phase == "ended":
        return None
    return Unfinished(newest, game)
