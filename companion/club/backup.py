"""Writing a backup of the club's data: ``companion backup DEST``
(docs/club-data.md).

The archive is written to a hidden ``.NAME.tar.gz.part`` in DEST, fsynced,
its pages dropped from the cache, read back and checked against the
manifest, and only then renamed to ``NAME.tar.gz`` (and DEST fsynced): a
backup under its own name is whole and has been read back from the stick.
Anything that fails removes the temporary file; an old backup is never
touched. A journal of a game in progress is copied up to its last whole
line, with a lock file whose head counts those lines (journal_copy.py).

On a full stick (ENOSPC, or a quota) the archive is still made to the end
into nothing, so that the message can say how much it needs.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import os
import shutil
import socket
import tarfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO, cast

from ..runner.journal import FileLayer, OsFiles, lock_path
from ..runner.journal_check import JournalError, follow
from .data import (
    FILE_ROLES,
    MANIFEST,
    PREFIX,
    SUFFIX,
    Backup,
    ClubDataError,
    Entry,
    Manifest,
    Place,
    check_backup,
    regular_files,
)
from .journal_copy import copy_journal, is_lock_leftover

_MB = 1024 * 1024
_FULL = (errno.ENOSPC, errno.EDQUOT)


class NoRoom(ClubDataError):
    """DEST is full: the message says how much the backup needs."""


@dataclass(frozen=True, slots=True)
class BackupMade:
    path: Path
    manifest: Manifest
    size: int  # bytes of the archive


def size_text(count: int) -> str:
    if count >= _MB:
        return f"{count / _MB:.1f} MB"
    return f"{max(1, round(count / 1024))} KB"


def check_dest(dest: Path, places: Sequence[Place]) -> None:
    """DEST must be a writable folder outside the folders it backs up."""
    if not dest.exists():
        raise ClubDataError(f"{dest}: no such folder (is the USB stick mounted?)")
    if not dest.is_dir():
        raise ClubDataError(f"{dest}: not a folder; give the folder to put the backup in")
    if not os.access(dest, os.W_OK | os.X_OK):
        raise ClubDataError(f"{dest}: not writable (a read-only stick, or another user's folder)")
    where = dest.resolve()
    for place in places:
        if place.role not in FILE_ROLES and where.is_relative_to(place.path.resolve()):
            raise ClubDataError(
                f"{dest}: inside the club's {place.role} folder ({place.path}): "
                "put the backup on another disk"
            )


def backup_name(now: datetime, dest: Path) -> str:
    stem = f"{PREFIX}{now:%Y-%m-%d_%H-%M}"
    for n in range(1, 1000):
        name = stem if n == 1 else f"{stem}-{n}"
        if not (dest / f"{name}{SUFFIX}").exists() and not (dest / name).exists():
            return name
    raise ClubDataError(f"{dest}: 999 backups named {stem} already")


def make_backup(
    dest: Path,
    places: Sequence[Place],
    *,
    now: datetime,
    version: str,
    files: FileLayer | None = None,
) -> BackupMade:
    """Back up ``places`` into a new archive in ``dest``; see the module."""
    check_dest(dest, places)
    layer = files or OsFiles()
    name = backup_name(now, dest)
    final = dest / f"{name}{SUFFIX}"
    temporary = dest / f".{name}{SUFFIX}.part"
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    except FileExistsError:
        raise ClubDataError(
            f"{temporary}: another backup is being written there, or one was cut short "
            "(remove the file)"
        ) from None
    except OSError as error:
        if error.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            raise ClubDataError(f"{dest}: not writable ({error.strerror})") from None
        raise
    try:
        manifest, size = _write(fd, layer, dest, name, places, now, version)
        os.close(fd)
        fd = -1
        _read_back(temporary, manifest, final)
        _name_it(temporary, final)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    _fsync_folder(dest)
    return BackupMade(final, manifest, size)


def _write(
    fd: int,
    layer: FileLayer,
    dest: Path,
    name: str,
    places: Sequence[Place],
    now: datetime,
    version: str,
) -> tuple[Manifest, int]:
    sink = _Sink(fd, layer)
    made = now.isoformat(timespec="seconds")
    with tarfile.open(fileobj=cast(IO[bytes], sink), mode="w:gz") as archive:
        writer = _Members(archive, name)
        for place in places:
            writer.add_place(place, made)
        manifest = Manifest(
            made,
            socket.gethostname(),
            version,
            {place.role: str(place.path) for place in places},
            tuple(writer.entries),
        )
        writer.add_bytes(MANIFEST, manifest.json_bytes(), now.timestamp(), 0o600)
    if sink.full is None:
        try:
            layer.fsync(fd)
        except OSError as error:
            if error.errno not in _FULL:
                raise
            sink.full = error
    if sink.full is not None:
        raise NoRoom(
            f"{dest}: no room for the backup: it needs {size_text(sink.size)}, "
            f"{size_text(_free_after(dest, sink.written))} free there; nothing written"
        )
    with contextlib.suppress(OSError, AttributeError):
        # Read back from the stick, not from the cache.
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    return manifest, sink.size


def _free_after(folder: Path, written: int) -> int:
    """Free space once the temporary file (``written`` bytes) is gone."""
    try:
        return shutil.disk_usage(folder).free + written
    except OSError:
        return written


def _read_back(temporary: Path, manifest: Manifest, final: Path) -> None:
    found = check_backup(Backup(temporary))
    if found.entries != manifest.entries:
        raise ClubDataError(
            f"{final}: read back, it holds other files than were written: "
            "the stick may be failing; nothing kept"
        )


def _name_it(temporary: Path, final: Path) -> None:
    """Give the backup its name, never over another backup's."""
    try:
        os.link(temporary, final)  # refuses a name that is taken
    except FileExistsError:
        raise ClubDataError(
            f"{final}: made meanwhile by another backup; this one not kept"
        ) from None
    except OSError:  # FAT, as most sticks are, has no hard links
        if final.exists():
            raise ClubDataError(
                f"{final}: made meanwhile by another backup; this one not kept"
            ) from None
        os.rename(temporary, final)
        return
    temporary.unlink()


def _fsync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):  # FAT on some kernels refuses a folder's fsync
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


class _Sink(io.RawIOBase):
    """Where gzip writes the archive: whole writes through the file layer;
    once the disk is full, it only counts."""

    def __init__(self, fd: int, layer: FileLayer) -> None:
        super().__init__()
        self.fd, self.layer = fd, layer
        self.size = 0  # bytes of the archive so far
        self.written = 0  # of those, on disk
        self.full: OSError | None = None

    def writable(self) -> bool:
        return True

    def write(self, data: object) -> int:
        view = memoryview(cast(bytes, data)).cast("B")
        self.size += len(view)
        done = 0
        while self.full is None and done < len(view):
            try:
                count = self.layer.write(self.fd, bytes(view[done:]))
            except OSError as error:
                if error.errno not in _FULL:
                    raise
                self.full = error
                break
            if count <= 0:
                raise OSError(errno.EIO, "the system wrote nothing")
            done += count
            self.written += count
        return len(view)


@dataclass
class _Members:
    """Adds the club's files to the archive, each hashed as it is written."""

    archive: tarfile.TarFile
    root: str
    entries: list[Entry] = field(default_factory=list)
    seen: set[Path] = field(default_factory=set)  # a file two places share goes in once

    def add_place(self, place: Place, made: str) -> None:
        if place.role in FILE_ROLES:
            if place.path.is_file():
                self.add_file(f"{place.role}/{place.path.name}", place.path)
            return
        if not place.path.is_dir():
            return
        for inner, path in regular_files(place.path):
            if place.role == "journals" and inner.endswith(".jsonl"):
                self.add_journal(f"journals/{inner}", path, made)
            elif not (place.role == "journals" and is_lock_leftover(path.name)):
                self.add_file(f"{place.role}/{inner}", path)

    def add_journal(self, name: str, path: Path, made: str) -> None:
        """A journal; one whose game went on elsewhere when its disk was full
        (its lock file's ``moved:`` line, docs/faults.md) is copied from
        there under its own name: that one holds the whole game."""
        if not self._first(path):
            return
        notes = []
        try:
            source, _ = follow(path)
        except JournalError as error:  # the stick it went on to is not plugged in
            source = path
            notes.append(f"lost {error}")
        if source != path:
            self._first(source)
            notes.append(f"moved {source}")
        info = source.stat()
        copy = copy_journal(source)
        note = "; ".join([*notes, copy.note] if copy.note else notes)
        self.add_bytes(name, copy.data, info.st_mtime, info.st_mode & 0o777, note)
        lock = copy.lock_file(made)
        if lock is not None:
            self.add_bytes(f"{name}.lock", lock, info.st_mtime, 0o600)
        elif lock_path(source).is_file():  # a journal copied as it is keeps its own head
            self.add_file(f"{name}.lock", lock_path(source))

    def add_file(self, name: str, path: Path) -> None:
        if not self._first(path):
            return
        with path.open("rb") as stream:
            info = os.fstat(stream.fileno())
            member = self._member(name, info.st_size, info.st_mtime, info.st_mode & 0o777)
            hashing = _Hashing(stream)
            try:
                self.archive.addfile(member, cast(IO[bytes], hashing))
            except OSError as error:
                if error.errno is not None:
                    raise
                raise ClubDataError(
                    f"{path}: got shorter while it was copied; run the backup again"
                ) from None
        self.entries.append(
            Entry(name, info.st_size, hashing.digest.hexdigest(), info.st_mtime, member.mode)
        )

    def add_bytes(self, name: str, data: bytes, mtime: float, mode: int, note: str = "") -> None:
        member = self._member(name, len(data), mtime, mode)
        self.archive.addfile(member, io.BytesIO(data))
        if name != MANIFEST:
            digest = hashlib.sha256(data).hexdigest()
            self.entries.append(Entry(name, len(data), digest, mtime, mode, note))

    def _member(self, name: str, size: int, mtime: float, mode: int) -> tarfile.TarInfo:
        member = tarfile.TarInfo(f"{self.root}/{name}")
        member.size, member.mtime, member.mode = size, mtime, mode
        return member

    def _first(self, path: Path) -> bool:
        key = path.resolve()
        if key in self.seen:
            return False
        self.seen.add(key)
        return True


class _Hashing:
    """A file read through sha256 (tarfile reads exactly the member's size)."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream, self.digest = stream, hashlib.sha256()

    def read(self, size: int = -1) -> bytes:
        data = self.stream.read(size)
        self.digest.update(data)
        return data
