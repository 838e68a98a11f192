"""Protocols of real games: made from a journal (``companion protocol``)
and saved, all three formats, into the club's games folder."""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from ..core.rules import Ruleset
from ..runner import journal
from ..runner.replay import ScriptReplay
from ..runner.script import parse_lines
from . import model
from .formats import render
from .model import Protocol


class NoGame(ValueError):
    """A journal with no setup line: there is no game to make a protocol of."""


_NO_GAME = {
    "ru": "нет строки рассадки: протокол делать не из чего",
    "en": "no setup line: no game to make a protocol of",
}


def from_journal(
    path: Path, load_ruleset: Callable[[str], Ruleset], lang: str = "ru"
) -> tuple[Protocol, list[str]]:
    """The protocol of the game a journal holds, and the journal's warnings
    (a torn last line, no lock file). Reads it without taking it: a game
    still running can be printed."""
    text = journal.read(path)
    lines = parse_lines(text.lines, str(path), load_ruleset)
    replay = ScriptReplay(auto_timers=False, source=str(path))
    replay.run(lines)
    if replay.game is None or not lines:
        raise NoGame(f"{path}: {_NO_GAME.get(lang, _NO_GAME['en'])}")
    setup = lines[0].fields
    last_at = lines[-1].at if lines else 0.0
    protocol = model.build(
        replay.game,
        # A journal's setup holds "roles" only when the host gave them.
        dealt="roles" not in setup,
        lang=lang,
        date=_started(path, last_at),
        source=path.name,
    )
    return protocol, list(text.warnings)


def _started(path: Path, last_at: float) -> str:
    """When the game began, by the clock of this machine: the journal's last
    write less the game time of its last line (a copy made without keeping
    times shows the copy's)."""
    began = datetime.fromtimestamp(path.stat().st_mtime - last_at)
    return f"{began:%Y-%m-%d %H:%M}"


def save_all(protocol: Protocol, folder: Path, when: datetime) -> list[Path]:
    """Write the JSON, CSV and HTML of a game into ``folder`` (made if
    missing), named ``YYYY-MM-DD_HH-MM_RULESET.EXT`` so that a listing sorts
    by date; a second game in the same minute gets ``-2``, ``-3`` ... Files
    are written whole (a temporary file, then a rename): a crash leaves the
    old set or none, never half a page. Returns the paths."""
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"{when:%Y-%m-%d_%H-%M}_{_safe(protocol.ruleset)}"
    for n in range(1, 1000):
        name = stem if n == 1 else f"{stem}-{n}"
        paths = [folder / f"{name}.{ext}" for ext in ("json", "csv", "html")]
        if not any(p.exists() for p in paths):
            break
    else:
        raise FileExistsError(f"{folder}: 999 protocols named {stem} already")
    for path, fmt in zip(paths, ("json", "csv", "html"), strict=True):
        temporary = path.with_name(path.name + ".part")
        temporary.write_text(render(protocol, fmt), encoding="utf-8", newline="")
        os.replace(temporary, path)
    return paths


def _safe(name: str) -> str:
    kept = "".join(c if c.isalnum() or c in "-_" else "-" for c in name)
    return kept[:40] or "game"
