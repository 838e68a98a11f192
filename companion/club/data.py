"""The club's data and its backups: what is backed up, the manifest, and
reading a backup back with every checksum checked (docs/club-data.md).

The club's data is the config file, the roster of players, the games folder
(every protocol) and the journals folder, where the config puts them, and
the files the config names outside the code: a ruleset or a pin map given by
path, the array's calibration, a recorded voice pack. A backup is one
``companion-backup-YYYY-MM-DD_HH-MM.tar.gz`` holding a folder of the same
name: one folder per role (``config/``, ``roster/``, ``games/``,
``journals/`` ...) and ``MANIFEST.json``, the list of files with their
sizes, times, modes and sha256 sums (:mod:`companion.club.manifest`).
Unpacked (``tar xzf``), the folder is a backup too. Writing one is
:mod:`companion.club.backup` (a journal copied while a game writes it:
:mod:`companion.club.journal_copy`); where its files go on a machine,
:mod:`companion.club.layout`; putting one back, :mod:`companion.club.restore`.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import stat
import tarfile
import zlib
from collections.abc import Callable, Collection, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Protocol

from ..config.values import SHIPPED_PIN_MAP, Config
from ..textfiles.printable import printable
from .manifest import (
    FILE_ROLES,
    FOLDER_ROLES,
    FORMAT,
    MANIFEST,
    MAX_MANIFEST_BYTES,
    ROLES,
    Entry,
    Manifest,
    ManifestError,
    parse_manifest,
)

__all__ = [  # the manifest's names, for the modules that read and write backups
    "FILE_ROLES",
    "FOLDER_ROLES",
    "FORMAT",
    "MANIFEST",
    "ROLES",
    "Entry",
    "Manifest",
]

PREFIX = "companion-backup-"
SUFFIX = ".tar.gz"
#: A backup's name: its date and time, and -2, -3 ... for a second one in a minute.
NAME = re.compile(r"companion-backup-(\d{4}-\d\d-\d\d_\d\d-\d\d)(?:-(\d+))?\Z")
_CHUNK = 1 << 20


class Readable(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...


class ClubDataError(ValueError):
    """A backup, restore or update that cannot go on; ``str()`` is one line
    naming the file or folder."""


class BackupDamaged(ClubDataError):
    """A backup whose files do not match its manifest: nothing is restored."""


@dataclass(frozen=True, slots=True)
class Place:
    """Where one kind of the club's data lives on this machine."""

    role: str  # one of ROLES
    path: Path  # the file, or the folder for FOLDER_ROLES


def club_places(config: Config, config_file: Path) -> list[Place]:
    """The club's data on this machine, as ``config`` (read from
    ``config_file``) places it. Files named by the config that ship with the
    code (a ruleset by name, a shipped pin map) are not the club's."""
    places = [
        Place("config", config_file),
        Place("roster", config.paths.roster),
        Place("journals", config.paths.journals),
        Place("games", config.paths.games),
    ]
    ruleset = config.table.ruleset
    if "/" in ruleset or ruleset.endswith(".toml"):  # a path; a name is one of rulesets/
        places.append(Place("ruleset", Path(ruleset)))
    pin_map = config.seats.pin_map
    if pin_map.resolve().parent != SHIPPED_PIN_MAP.parent:
        places.append(Place("pin_map", pin_map))
    places.append(Place("calibration", config.microphone.calibration or _default_calibration()))
    if config.voice.pack is not None:
        places.append(Place("pack", config.voice.pack))
    return places


def _default_calibration() -> Path:
    from ..ears.calibration import default_path  # numpy comes with it: only when backing up

    return default_path()


def companion_version() -> str:
    """The installed companion's version (pyproject.toml's), or "unknown"."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("companion")
    except PackageNotFoundError:
        return "unknown"


# --- reading a backup back ----------------------------------------------------------


class Backup:
    """A backup to read: an archive (``.tar.gz``) or its unpacked folder.

    An unpacked folder is read through file descriptors only: each file the
    manifest lists is opened without following a symbolic link (nor one of
    its folders), must be a regular file, and its size is checked against
    the manifest before a byte is read: a FIFO or a link to ``/dev/zero`` on
    a stick is refused in one line instead of hanging. Files the manifest
    does not list are never opened (a Mac leaves ``._NAME`` on sticks)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.is_archive = path.is_file()

    def files(self, names: Collection[str]) -> Generator[tuple[str, Readable], None, None]:
        """(name in the backup, its bytes) for each of ``names``: an
        archive's in its order, a folder's in the order given. Checked
        files only (check_backup): a name missing here is skipped."""
        if self.is_archive:
            for name, stream in self.members():
                if name in names:
                    yield name, stream
            return
        for name in names:
            with self.open_file(name) as (stream, _):
                yield name, stream

    def read(self, name: str, limit: int) -> bytes:
        """One file's bytes, at most ``limit`` + 1 of them."""
        with contextlib.closing(self.files((name,))) as found:
            for _, stream in found:
                return stream.read(limit + 1)
        raise BackupDamaged(f"{self.path}: {printable(name)}: missing from the backup")

    @contextlib.contextmanager
    def open_file(self, name: str) -> Iterator[tuple[IO[bytes], int]]:
        """An unpacked backup's file and its size: see the class."""
        fd = _open_inside(self.path, name, lambda why: self.refused(name, why))
        with os.fdopen(fd, "rb") as stream:
            yield stream, os.fstat(fd).st_size

    def refused(self, name: str, why: str) -> BackupDamaged:
        return BackupDamaged(f"{self.path}: {printable(name)}: {why}; nothing restored")

    def members(self) -> Iterator[tuple[str, Readable]]:
        """An archive's files, each name once; BackupDamaged for anything
        else it holds or a damaged archive."""
        seen: set[str] = set()
        try:
            with tarfile.open(self.path, "r:gz") as archive:
                root = ""  # the one folder the archive holds (renaming the archive is fine)
                for member in archive:
                    root = root or member.name.split("/", 1)[0] + "/"
                    if member.isdir():
                        continue
                    name = member.name.removeprefix(root)
                    if not member.isfile() or not member.name.startswith(root):
                        raise self.refused(member.name, "not a file of this backup")
                    if name in seen:
                        raise self.refused(name, "in the archive twice")
                    seen.add(name)
                    data = archive.extractfile(member)
                    assert data is not None  # a regular member always has its bytes
                    yield name, _Guarded(data, self.path)
                # To the end of the gzip stream, whose checksum covers every byte
                # (tar's padding too): tarfile stops at its end-of-archive blocks.
                assert archive.fileobj is not None
                while archive.fileobj.read(_CHUNK):
                    pass
        except Exception as error:
            if not is_damage(error):
                raise
            raise damaged(self.path, error) from None


def _open_inside(folder: Path, name: str, refused: Callable[[str], Exception]) -> int:
    """A descriptor of the regular file ``name`` (a plain relative path)
    inside ``folder``, opened without following a link and without waiting
    (a FIFO); ``refused(why)`` is raised otherwise."""
    *folders, last = name.split("/")
    try:
        at = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as error:
        raise refused(f"cannot be read ({error.strerror})") from None
    try:
        for part in folders:
            inner = os.open(part, _FOLDER_FLAGS, dir_fd=at)
            os.close(at)
            at = inner
        fd = os.open(last, _FILE_FLAGS, dir_fd=at)
    except OSError as error:
        if error.errno == errno.ENOENT:
            raise refused("missing from the backup") from None
        if error.errno in (errno.ELOOP, errno.ENOTDIR):
            raise refused("a symbolic link, or in one: not a file of the backup") from None
        raise refused(f"cannot be read ({error.strerror})") from None
    finally:
        os.close(at)
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise refused(f"not a regular file ({_kind(mode)})")
    os.set_blocking(fd, True)
    return fd


_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def _kind(mode: int) -> str:
    kinds = (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((kind for test, kind in kinds if test(mode)), "not a file")


class _Guarded:
    """A member's bytes; a read that finds the archive damaged (a bad
    checksum of gzip's, a cut-off end) raises BackupDamaged naming it."""

    def __init__(self, stream: IO[bytes], path: Path) -> None:
        self._stream, self._path = stream, path

    def read(self, size: int = -1) -> bytes:
        try:
            return self._stream.read(size)
        except Exception as error:
            if not is_damage(error):
                raise
            raise damaged(self._path, error) from None


def is_damage(error: BaseException) -> bool:
    """An error reading an archive that says its bytes are wrong (gzip's
    BadGzipFile and CRC failures are OSErrors without an errno)."""
    if isinstance(error, OSError):
        return error.errno is None
    return isinstance(error, tarfile.TarError | EOFError | zlib.error)


def damaged(path: Path, error: BaseException) -> BackupDamaged:
    return BackupDamaged(f"{path}: the archive is damaged ({_reason(error)}); nothing restored")


def _reason(error: BaseException) -> str:
    return printable(" ".join(str(error).split())[:120] or type(error).__name__)


def hash_stream(stream: Readable, limit: int | None = None) -> tuple[str, int]:
    """sha256 and size of ``stream``, or of its first ``limit`` bytes."""
    digest, size = hashlib.sha256(), 0
    while chunk := stream.read(_CHUNK if limit is None else min(_CHUNK, limit - size)):
        digest.update(chunk)
        size += len(chunk)
    return digest.hexdigest(), size


def check_backup(backup: Backup) -> Manifest:
    """Read every file of ``backup`` and check it against its manifest;
    BackupDamaged (one line naming the file and the field) if anything
    differs, is missing, is not listed (in an archive), or the manifest is
    not one a backup writes. Nothing is written meanwhile."""
    return _check_archive(backup) if backup.is_archive else _check_folder(backup)


def _check_folder(backup: Backup) -> Manifest:
    manifest = _manifest(backup, backup.read(MANIFEST, MAX_MANIFEST_BYTES))
    for entry in manifest.entries:
        with backup.open_file(entry.name) as (stream, size):
            if size != entry.size:  # known before reading: /dev/zero has no end
                raise _differs(backup, entry, size)
            found = hash_stream(stream, entry.size + 1)  # one more: a file that grew
        if found != (entry.sha256, entry.size):
            raise _differs(backup, entry)
    return manifest


def _check_archive(backup: Backup) -> Manifest:
    sums: dict[str, tuple[str, int]] = {}
    raw: bytes | None = None
    for name, member in backup.members():
        if name == MANIFEST:
            raw = member.read(MAX_MANIFEST_BYTES + 1)
        else:
            sums[name] = hash_stream(member)
    if raw is None:
        raise BackupDamaged(f"{backup.path}: no {MANIFEST}: not a companion backup, or cut short")
    manifest = _manifest(backup, raw)
    for entry in manifest.entries:
        if entry.name not in sums:
            raise backup.refused(entry.name, "missing from the backup")
        if sums.pop(entry.name) != (entry.sha256, entry.size):
            raise _differs(backup, entry)
    if sums:
        raise backup.refused(min(sums), "not in the manifest")
    return manifest


def _manifest(backup: Backup, raw: bytes) -> Manifest:
    try:
        return parse_manifest(raw)
    except ManifestError as error:
        raise BackupDamaged(f"{backup.path}: {MANIFEST}: {error}; nothing restored") from None


def _differs(backup: Backup, entry: Entry, size: int | None = None) -> BackupDamaged:
    sizes = "" if size is None else f" (it is {size} bytes, the manifest says {entry.size})"
    return backup.refused(
        entry.name, f"checksum does not match the manifest{sizes}: the backup is damaged"
    )


def regular_files(folder: Path) -> Iterator[tuple[str, Path]]:
    """(path inside ``folder``, the file) for its regular files, sorted;
    a symbolic link to a file counts, one to a folder is not followed."""
    for root, dirs, names in os.walk(folder):
        dirs.sort()
        for name in sorted(names):
            full = Path(root, name)
            try:
                if stat.S_ISREG(full.stat().st_mode):
                    yield full.relative_to(folder).as_posix(), full
            except OSError:
                continue
