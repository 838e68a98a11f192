"""Putting a backup back: ``companion restore SRC`` (docs/club-data.md).

Every file of the backup is read and checked against the manifest before
anything is written. Then each file is one of:

- ``new``: nothing there yet: written;
- ``same``: the same bytes there already: left alone;
- ``newer``: a journal here that goes on from the backup's (the backup's
  lines are its beginning): the one here is kept, it holds more;
- ``in_use``: a journal a running game holds: never touched;
- ``differs``: another file there. Without ``--force`` the restore writes
  nothing at all and names them; with it, the file here is kept beside
  itself as ``NAME.before-restore-STAMP`` (a hard link, so the name is
  never empty) and the backup's takes its place.

The config comes back to ``companion config path``; the roster, games and
journals to where the config in effect after the restore puts them (the
backup's config, if it holds one); the other files to the paths they were
backed up from. Each file is written to a hidden temporary file beside its
place, checked, given its time and mode, fsynced, and renamed into place
only once every file has been written: a full disk leaves nothing half
restored.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .club_backup import size_text
from .club_data import (
    FOLDER_ROLES,
    MANIFEST,
    NAME,
    SUFFIX,
    Backup,
    ClubDataError,
    Entry,
    Manifest,
    Readable,
    hash_stream,
    journal_in_use,
)
from .config import Config, ConfigError, PathsConfig
from .core.toml_table import decode_toml, parse_toml
from .runner.journal_check import lock_path

ASIDE = ".before-restore-"
#: What ``--keep-config`` restores: the rest is the config and the files it names.
DATA_ROLES = ("roster", "games", "journals")
_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class Item:
    """One file of the backup and what the restore does with it."""

    entry: Entry
    target: Path
    state: str  # new | same | newer | in_use | differs
    lock: Entry | None = None  # a journal's lock file in the backup, which goes with it


@dataclass
class Plan:
    backup: Backup
    manifest: Manifest
    items: list[Item]

    def of(self, state: str) -> list[Item]:
        return [item for item in self.items if item.state == state]


@dataclass
class Restored:
    written: list[Path] = field(default_factory=list)
    replaced: list[Path] = field(default_factory=list)  # of those, files that were there
    aside: list[tuple[Path, Path]] = field(default_factory=list)  # (the file, where it was kept)
    in_use: list[Path] = field(default_factory=list)  # journals a game took meanwhile


# --- which backup ------------------------------------------------------------------


def find_backup(src: Path) -> tuple[Backup, int]:
    """The backup ``src`` names: an archive, an unpacked one, or the newest
    of those in the folder ``src`` (by the date in the name); and how many
    the folder holds."""
    if not src.exists():
        raise ClubDataError(f"{src}: no such file or folder (is the USB stick mounted?)")
    if src.is_file():
        if not src.name.endswith(SUFFIX):
            raise ClubDataError(f"{src}: not a companion backup (companion-backup-*{SUFFIX})")
        return Backup(src), 1
    if (src / MANIFEST).is_file():
        return Backup(src), 1
    found: list[tuple[tuple[str, int, int], Path]] = []
    for path in src.iterdir():
        is_archive = path.is_file() and path.name.endswith(SUFFIX)
        is_folder = path.is_dir() and (path / MANIFEST).is_file()
        match = NAME.match(path.name.removesuffix(SUFFIX))
        if match and (is_archive or is_folder):
            # the archive before its unpacked folder when both are there
            found.append(((match[1], int(match[2] or 1), int(is_archive)), path))
    if not found:
        raise ClubDataError(f"{src}: no companion backup there (companion-backup-*{SUFFIX})")
    return Backup(max(found)[1]), len(found)


def read_member(backup: Backup, name: str) -> bytes:
    for inner, stream in backup.files():
        if inner == name:
            return stream.read()
    raise ClubDataError(f"{backup.path}: {name}: missing from the backup")


# --- what goes where ---------------------------------------------------------------


def plan_restore(
    backup: Backup,
    manifest: Manifest,
    config_file: Path,
    current: Callable[[], Config],
    *,
    keep_config: bool = False,
) -> Plan:
    """What restoring ``backup`` (checked: check_backup) would do here.
    ``current`` reads this machine's config, needed when the backup holds
    none or ``keep_config``: then only the roster, games and journals come
    back, where this machine's config puts them."""
    config_entry = next((e for e in manifest.entries if e.role == "config"), None)
    if keep_config:
        config_entry = None
    if config_entry is not None:
        paths = paths_of(read_member(backup, config_entry.name), config_file)
    else:
        paths = current().paths
    bases = {"config": config_file, "roster": paths.roster}
    bases |= {"journals": paths.journals, "games": paths.games}
    by_name = {entry.name: entry for entry in manifest.entries}
    items = []
    for entry in manifest.entries:
        if entry.name.endswith(".jsonl.lock") and entry.name.removesuffix(".lock") in by_name:
            continue  # goes with its journal
        if keep_config and entry.role not in DATA_ROLES:
            continue
        base = bases.get(entry.role)
        if base is None:
            base = Path(manifest.places.get(entry.role, ""))
            if not base.is_absolute():
                raise ClubDataError(f"{backup.path}: {MANIFEST}: no place for {entry.name}")
        target = base / entry.inner if entry.role in FOLDER_ROLES else base
        lock = by_name.get(f"{entry.name}.lock") if entry.name.endswith(".jsonl") else None
        state = _state(entry, target)
        items.append(Item(entry, target, state, lock))
        if state == "same" and lock is not None and not os.path.lexists(lock_path(target)):
            # the journal is here but not its head: resume could not check its end
            items.append(Item(lock, lock_path(target), "new"))
    return Plan(backup, manifest, items)


def paths_of(config_text: bytes, config_file: Path) -> PathsConfig:
    """The ``[paths]`` of a config file's text, as the config reader takes
    them (``~`` expanded, relative to the file's folder), defaults for the
    rest; the other keys are not checked (a voice pack named there may not
    be on this machine yet)."""
    source = f"{config_file} (from the backup)"
    data = parse_toml(decode_toml(config_text, source, ConfigError), source, ConfigError)
    table = data.get("paths", {})
    defaults = PathsConfig()

    def one(key: str, default: Path) -> Path:
        value = table.get(key) if isinstance(table, dict) else None
        if not isinstance(value, str) or not value.strip():
            return default
        try:
            path = Path(value).expanduser()
        except RuntimeError:  # "~nobody/...": as the config reader, no such home here
            return default
        return path if path.is_absolute() else config_file.parent / path

    return PathsConfig(
        journals=one("journals", defaults.journals),
        games=one("games", defaults.games),
        roster=one("roster", defaults.roster),
    )


def _state(entry: Entry, target: Path) -> str:
    if not os.path.lexists(target):
        return "new"
    if entry.role == "journals" and entry.name.endswith(".jsonl") and journal_in_use(target):
        return "in_use"
    if not target.is_file():
        return "differs"
    with target.open("rb") as stream:
        if hash_stream(stream) == (entry.sha256, entry.size):
            return "same"
        if entry.name.endswith(".jsonl"):
            stream.seek(0)
            head = hash_stream(_Limited(stream, entry.size))
            if head == (entry.sha256, entry.size):
                return "newer"
    return "differs"


class _Limited:
    def __init__(self, stream: Readable, size: int) -> None:
        self.stream, self.left = stream, size

    def read(self, size: int = -1) -> bytes:
        want = self.left if size < 0 else min(size, self.left)
        data = self.stream.read(want)
        self.left -= len(data)
        return data


# --- writing -----------------------------------------------------------------------


def restore(plan: Plan, *, force: bool, stamp: str) -> Restored:
    """Carry out ``plan``: see the module. ``stamp`` names the files kept aside."""
    differ = plan.of("differs")
    if differ and not force:
        names = ", ".join(str(item.target) for item in differ[:3])
        more = f" and {len(differ) - 3} more" if len(differ) > 3 else ""
        raise ClubDataError(
            f"{len(differ)} file(s) here differ from the backup ({names}{more}): nothing "
            f"restored; with --force each is kept as NAME{ASIDE}{stamp} and the backup's "
            "put in its place"
        )
    chosen = plan.of("new") + differ
    wanted: dict[str, Path] = {}
    for item in chosen:
        wanted[item.entry.name] = item.target
        if item.lock is not None:
            wanted[item.lock.name] = lock_path(item.target)
    entries = {entry.name: entry for entry in plan.manifest.entries}
    temporary: dict[str, Path] = {}
    try:
        for name, stream in plan.backup.files():
            if name in wanted:
                try:
                    temporary[name] = _write_temporary(stream, entries[name], wanted[name])
                except OSError as error:
                    raise _not_written(wanted[name], error, [entries[n] for n in wanted]) from None
        return _put_in_place(chosen, temporary, stamp)
    finally:
        for path in temporary.values():
            with contextlib.suppress(OSError):
                path.unlink()


def _not_written(target: Path, error: OSError, entries: list[Entry]) -> ClubDataError:
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        total = size_text(sum(entry.size for entry in entries))
        return ClubDataError(
            f"{target.parent}: no room to restore (it needs {total} in all); nothing restored"
        )
    return ClubDataError(f"{target}: cannot be written ({error.strerror}); nothing restored")


def _write_temporary(stream: Readable, entry: Entry, target: Path) -> Path:
    owner = _owner_for(target)
    _make_folders(target.parent, owner)
    path = target.with_name(f".{target.name}.restore-{os.getpid()}")
    digest, size = hashlib.sha256(), 0
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    try:
        if owner is not None:
            os.fchown(fd, *owner)
        while chunk := stream.read(_CHUNK):
            digest.update(chunk)
            size += len(chunk)
            view = memoryview(chunk)
            while view:
                view = view[os.write(fd, view) :]
        if (digest.hexdigest(), size) != (entry.sha256, entry.size):
            raise ClubDataError(f"{entry.name}: changed since it was checked; nothing restored")
        os.fchmod(fd, entry.mode)
        os.utime(fd, (entry.mtime, entry.mtime))
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            path.unlink()
        raise
    os.close(fd)
    return path


def _owner_for(target: Path) -> tuple[int, int] | None:
    """Run as root (sudo), the owner of the nearest folder above ``target``
    that exists: what is restored into the service's data (its own user's)
    must stay readable to it. None otherwise: the files are the user's own."""
    if os.geteuid() != 0:
        return None
    for folder in target.parents:
        with contextlib.suppress(OSError):
            info = folder.stat()
            return info.st_uid, info.st_gid
    return None


def _make_folders(folder: Path, owner: tuple[int, int] | None) -> None:
    """The missing folders, private to their owner (journals hold roles)."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for path in reversed(missing):
        with contextlib.suppress(FileExistsError):  # made meanwhile: it is there
            path.mkdir(mode=0o700)
        if owner is not None:
            os.chown(path, *owner)


def _put_in_place(chosen: list[Item], temporary: dict[str, Path], stamp: str) -> Restored:
    done = Restored()
    folders: set[Path] = set()
    for item in chosen:
        with _held(item) as free:
            if not free:
                done.in_use.append(item.target)
                continue
            if os.path.lexists(item.target):  # "differs", or made since the plan
                done.aside.append((item.target, _keep_aside(item.target, stamp)))
                done.replaced.append(item.target)
            os.replace(temporary.pop(item.entry.name), item.target)
            if item.entry.name.endswith(".jsonl"):
                _put_lock(item, temporary, done, stamp)
        done.written.append(item.target)
        folders.add(item.target.parent)
    for folder in folders:
        _fsync_folder(folder)
    return done


@contextlib.contextmanager
def _held(item: Item) -> Iterator[bool]:
    """For a journal that exists here: its lock, held while it is replaced,
    so that a game cannot take it meanwhile; False if a game holds it."""
    if not (item.entry.name.endswith(".jsonl") and item.target.is_file()):
        yield True
        return
    fd = os.open(item.target, os.O_RDONLY | os.O_CLOEXEC)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


def _put_lock(item: Item, temporary: dict[str, Path], done: Restored, stamp: str) -> None:
    """A journal's lock file holds its head: the one here belongs to the
    file here, so it goes aside with it, and the backup's comes in."""
    here = lock_path(item.target)
    if os.path.lexists(here):
        if done.aside and done.aside[-1][0] == item.target:
            os.replace(here, lock_path(done.aside[-1][1]))
        else:  # a lock file left without its journal
            done.aside.append((here, _keep_aside(here, stamp)))
    if item.lock is not None:
        os.replace(temporary.pop(item.lock.name), here)


def _keep_aside(path: Path, stamp: str) -> Path:
    """Keep ``path`` as ``NAME.before-restore-STAMP`` (-2, -3 ... if taken)."""
    for n in range(1, 1000):
        aside = path.with_name(f"{path.name}{ASIDE}{stamp}" + (f"-{n}" if n > 1 else ""))
        if not os.path.lexists(aside):
            break
    else:
        raise ClubDataError(f"{path}: 999 copies kept aside already")
    try:
        os.link(path, aside)  # the name stays until the backup's file replaces it
    except OSError:
        os.rename(path, aside)  # a folder, or a file system without hard links
    return aside


def _fsync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
