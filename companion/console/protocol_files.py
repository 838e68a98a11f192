"""A game's protocol files when its ending is undone: the game goes on, so
the files of the ending that was taken back must not stand in the games
folder as if it had been played to that end. They are moved, not deleted
(nothing the table recorded is thrown away), into ``undone/`` beside them;
the game's journal holds the undo, and the true ending saves its own."""

from __future__ import annotations

import logging
from pathlib import Path

log = logging.getLogger(__name__)

UNDONE = "undone"


def set_aside(paths: list[Path]) -> list[Path]:
    """Move ``paths`` into an ``undone`` folder beside each; the new paths.
    A file that cannot be moved is logged and left (the host is told by
    the caller from what comes back)."""
    moved = []
    for path in paths:
        folder = path.parent / UNDONE
        try:
            folder.mkdir(mode=0o700, exist_ok=True)
            target = folder / path.name
            path.replace(target)
        except OSError as error:
            log.warning("%s: not set aside after the undo: %s", path, error)
            continue
        moved.append(target)
    return moved
