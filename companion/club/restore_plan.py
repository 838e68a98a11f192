"""What ``companion restore SRC`` would do, worked out before anything is
written (docs/club-data.md): which backup SRC names, where each of its
files goes on this machine (layout.py), that the backup's config does not
move the club's data, and each file's state there: ``new``, ``same``,
``newer`` (a journal here that goes on from the backup's), ``in_use`` (a
journal a running game holds) or ``differs``. Carrying it out is
restore.py's."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from ..runner.journal_check import lock_path
from ..textfiles.printable import printable
from ..textfiles.toml_table import MAX_FILE_BYTES
from .data import MANIFEST, NAME, SUFFIX, Backup, ClubDataError, Entry, Manifest, hash_stream
from .journal_copy import journal_in_use
from .layout import Layout, check_backup_config, check_targets

#: What ``--keep-config`` restores: the rest is the config and the files it names.
DATA_ROLES = ("roster", "games", "journals")


@dataclass(frozen=True, slots=True)
class Item:
    """One file of the backup and what the restore does with it."""

    entry: Entry
    target: Path
    state: str  # new | same | newer | in_use | differs
    lock: Entry | None = None  # a journal's lock file in the backup, which goes with it

    def writes(self) -> list[Path]:
        """The files restoring it writes: it, and its lock file."""
        return [self.target] + ([lock_path(self.target)] if self.lock is not None else [])


@dataclass
class Plan:
    backup: Backup
    manifest: Manifest
    layout: Layout
    items: list[Item]

    def of(self, *states: str) -> list[Item]:
        return [item for item in self.items if item.state in states]


# --- which backup ------------------------------------------------------------------


def find_backup(src: Path) -> tuple[Backup, int]:
    """The backup ``src`` names: an archive, an unpacked one, or the newest
    of those in the folder ``src`` (by the date in the name); and how many
    the folder holds."""
    shown = printable(src)
    if not src.exists():
        raise ClubDataError(f"{shown}: no such file or folder (is the USB stick mounted?)")
    if src.is_file():
        if not src.name.endswith(SUFFIX):
            raise ClubDataError(f"{shown}: not a companion backup (companion-backup-*{SUFFIX})")
        return Backup(src), 1
    if not src.is_dir():
        raise ClubDataError(f"{shown}: not a file or a folder (a FIFO, a device)")
    if (src / MANIFEST).exists():
        return Backup(src), 1
    found: list[tuple[tuple[str, int, int], Path]] = []
    for path in src.iterdir():
        is_archive = path.is_file() and path.name.endswith(SUFFIX)
        is_folder = path.is_dir() and (path / MANIFEST).exists()
        match = NAME.match(path.name.removesuffix(SUFFIX))
        if match and (is_archive or is_folder):
            # the archive before its unpacked folder when both are there
            found.append(((match[1], int(match[2] or 1), int(is_archive)), path))
    if not found:
        raise ClubDataError(f"{shown}: no companion backup there (companion-backup-*{SUFFIX})")
    return Backup(max(found)[1]), len(found)


# --- what goes where ---------------------------------------------------------------


def plan_restore(
    backup: Backup, manifest: Manifest, layout: Layout, *, keep_config: bool = False
) -> Plan:
    """What restoring ``backup`` (checked: check_backup) would do on the
    machine ``layout`` describes; ClubDataError if it must not go on.
    ``keep_config``: only the roster, games and journals come back."""
    entries = [e for e in manifest.entries if not keep_config or e.role in DATA_ROLES]
    targets = [(entry, layout.target(entry)) for entry in entries]
    check_targets(targets, layout, backup.path)
    config = next((entry for entry in entries if entry.role == "config"), None)
    if config is not None:
        text = backup.read(config.name, MAX_FILE_BYTES)
        check_backup_config(text, layout, f"{printable(backup.path)}: {printable(config.name)}")
    by_name = {entry.name: entry for entry in entries}
    items = []
    for entry, target in targets:
        if entry.name.endswith(".jsonl.lock") and entry.name.removesuffix(".lock") in by_name:
            continue  # goes with its journal
        lock = by_name.get(f"{entry.name}.lock") if entry.name.endswith(".jsonl") else None
        state = _state(entry, target)
        items.append(Item(entry, target, state, lock))
        if state == "same" and lock is not None and not os.path.lexists(lock_path(target)):
            # the journal is here but not its head: resume could not check its end
            items.append(Item(lock, lock_path(target), "new"))
    return Plan(backup, manifest, layout, items)


def _state(entry: Entry, target: Path) -> str:
    try:
        info = target.lstat()
    except FileNotFoundError:
        return "new"
    journal = entry.role == "journals" and entry.name.endswith(".jsonl")
    if journal and stat.S_ISREG(info.st_mode) and journal_in_use(target):
        return "in_use"
    if not stat.S_ISREG(info.st_mode) or info.st_size < entry.size:  # a link is not read
        return "differs"
    if info.st_size > entry.size and not journal:
        return "differs"
    with target.open("rb") as stream:
        if hash_stream(stream, entry.size) == (entry.sha256, entry.size):
            return "same" if info.st_size == entry.size else "newer"
    return "differs"
