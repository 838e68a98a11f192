"""The club's data and its backups: what is backed up, the manifest, and
reading a backup back with every checksum checked (docs/club-data.md).

The club's data is the config file, the roster of players, the games folder
(every protocol) and the journals folder, where the config puts them, and
the files the config names outside the code: a ruleset or a pin map given by
path, the array's calibration, a recorded voice pack. A backup is one
``companion-backup-YYYY-MM-DD_HH-MM.tar.gz`` holding a folder of the same
name: one folder per role (``config/``, ``roster/``, ``games/``,
``journals/`` ...) and ``MANIFEST.json``, the list of files with their
sizes, times, modes and sha256 sums. Unpacked (``tar xzf``), the folder is
a backup too. Writing one is :mod:`companion.club_backup`; putting one back,
:mod:`companion.club_restore`.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import stat
import tarfile
import zlib
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Any, Protocol

from .config import SHIPPED_PIN_MAP, Config
from .runner.journal_check import JournalDamaged, read_head, verify

FORMAT = "companion-backup/1"
MANIFEST = "MANIFEST.json"
PREFIX = "companion-backup-"
SUFFIX = ".tar.gz"
#: A backup's name: its date and time, and -2, -3 ... for a second one in a minute.
NAME = re.compile(r"companion-backup-(\d{4}-\d\d-\d\d_\d\d-\d\d)(?:-(\d+))?\Z")
#: Roles whose place is one file; the others are folders.
FILE_ROLES = ("config", "roster", "ruleset", "pin_map", "calibration")
FOLDER_ROLES = ("journals", "games", "pack")
ROLES = FILE_ROLES + FOLDER_ROLES
#: A manifest larger than this is not one of ours.
MAX_MANIFEST_BYTES = 64 << 20
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


@dataclass(frozen=True, slots=True)
class Entry:
    """One file of a backup, as the manifest lists it."""

    name: str  # "journals/2026-12-01_20-15-03.jsonl": the role, then the path in its place
    size: int
    sha256: str
    mtime: float
    mode: int  # permission bits only
    #: journals only, "; " between several: "in_use N" (a game holds it: N lines
    #: copied), "torn N" (a torn last line left out), "unchecked WHY" (copied as it
    #: is), "moved PATH" (copied from where the game went on), "lost WHY" (that is
    #: not there); "" otherwise
    note: str = ""

    @property
    def role(self) -> str:
        return self.name.split("/", 1)[0]

    @property
    def inner(self) -> str:
        """The path inside the role's place ("" for a file role's one file)."""
        return self.name.split("/", 1)[1] if self.role in FOLDER_ROLES else ""


@dataclass(frozen=True, slots=True)
class Manifest:
    made: str  # local time, ISO 8601
    host: str
    version: str  # the companion that made it
    places: dict[str, str]  # role -> the path it was backed up from
    entries: tuple[Entry, ...]

    def json_bytes(self) -> bytes:
        data = {
            "format": FORMAT,
            "made": self.made,
            "host": self.host,
            "companion": self.version,
            "places": self.places,
            "files": [asdict(entry) for entry in self.entries],
        }
        return (json.dumps(data, ensure_ascii=False, indent=1) + "\n").encode()


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
    from .ears.calibration import default_path  # numpy comes with it: only when backing up

    return default_path()


def companion_version() -> str:
    """The installed companion's version (pyproject.toml's), or "unknown"."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("companion")
    except PackageNotFoundError:
        return "unknown"


# --- journals ---------------------------------------------------------------------


def journal_in_use(path: Path) -> bool:
    """True while a process holds the journal (a game in progress): its
    exclusive lock refuses our shared one. The probe lets go at once."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)  # closing lets the shared lock go
    return False


def games_in_progress(folder: Path) -> list[Path]:
    """The journals in ``folder`` that a running game holds."""
    try:
        journals = sorted(folder.glob("*.jsonl"))
    except OSError:
        return []
    return [path for path in journals if journal_in_use(path)]


@dataclass(frozen=True, slots=True)
class JournalCopy:
    """A journal as it is copied: whole lines only, with a head to match."""

    data: bytes
    lines: int
    last_sum: str
    note: str  # as Entry.note

    def lock_file(self, made: str) -> bytes | None:
        """A lock file whose head counts the copied lines (as the journal
        writes it), so that a restored journal's end is checked on resume;
        None for a journal copied as it is (its own lock file goes along)."""
        if self.note.startswith("unchecked "):
            return None
        head = f"head: {self.lines:010d} {self.last_sum or '-':16}\n"
        return f"holder: nobody (a copy made by companion backup at {made})\n{head}".encode()


def copy_journal(path: Path) -> JournalCopy:
    """The journal's bytes up to its last whole, checked line. The lock
    file's head is read before the journal, so it never counts more lines
    than the bytes read (a game may be appending meanwhile: its lines are
    fsynced before its head is rewritten). A journal that does not check out
    is copied as it is: nothing the host recorded is left behind."""
    in_use = journal_in_use(path)
    # A head read while the game rewrites it in place may be garbled: read again.
    for tries_left in reversed(range(3 if in_use else 1)):
        head = read_head(path)
        data = path.read_bytes()
        try:
            text = verify(data, str(path), head)
        except JournalDamaged as error:
            if tries_left:
                continue
            reason = str(error).removesuffix("; resume refused")
            return JournalCopy(data, 0, "", f"unchecked {reason}")
        break
    count = len(text.lines)
    note = f"in_use {count}" if in_use else f"torn {count}" if text.torn is not None else ""
    return JournalCopy(data[: text.good_bytes], count, text.last_sum, note)


def is_lock_leftover(name: str) -> bool:
    """``game.jsonl.lock`` (written anew for each copied journal) and the
    ``game.jsonl.lock.PID`` a journal writes its lock file through."""
    return name.endswith(".jsonl.lock") or bool(re.search(r"\.jsonl\.lock\.\d+\Z", name))


# --- reading a backup back ----------------------------------------------------------


def safe_inner(name: str) -> bool:
    """A manifest name that stays inside its place: relative, no '..'."""
    path = PurePosixPath(name)
    return (
        bool(name)
        and not path.is_absolute()
        and ".." not in path.parts
        and "\\" not in name
        and "\0" not in name
        and path.parts[0] in ROLES
        and (len(path.parts) > 1)
    )


class Backup:
    """A backup to read: an archive (``.tar.gz``) or its unpacked folder."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.is_archive = path.is_file()

    def files(self) -> Iterator[tuple[str, Readable]]:
        """(name in the backup, its bytes) for every file, in the backup's order."""
        if not self.is_archive:
            for folder, _, names in sorted(os.walk(self.path)):
                for name in sorted(names):
                    full = Path(folder, name)
                    inner = full.relative_to(self.path).as_posix()
                    with full.open("rb") as stream:
                        yield inner, stream
            return
        try:
            with tarfile.open(self.path, "r:gz") as archive:
                root = ""  # the one folder the archive holds (renaming the archive is fine)
                for member in archive:
                    root = root or member.name.split("/", 1)[0] + "/"
                    if member.isdir():
                        continue
                    if not member.isfile() or not member.name.startswith(root):
                        raise BackupDamaged(
                            f"{self.path}: {member.name}: not a file of this backup; nothing restored"
                        )
                    data = archive.extractfile(member)
                    assert data is not None  # a regular member always has its bytes
                    yield member.name.removeprefix(root), _Guarded(data, self.path)
                # To the end of the gzip stream, whose checksum covers every byte
                # (tar's padding too): tarfile stops at its end-of-archive blocks.
                assert archive.fileobj is not None
                while archive.fileobj.read(_CHUNK):
                    pass
        except Exception as error:
            if not is_damage(error):
                raise
            raise damaged(self.path, error) from None


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
    return " ".join(str(error).split())[:120] or type(error).__name__


def hash_stream(stream: Readable) -> tuple[str, int]:
    digest, size = hashlib.sha256(), 0
    while chunk := stream.read(_CHUNK):
        digest.update(chunk)
        size += len(chunk)
    return digest.hexdigest(), size


def check_backup(backup: Backup) -> Manifest:
    """Read every file of ``backup`` and check it against its manifest;
    BackupDamaged (one line naming the file) if anything differs, is
    missing or is not listed."""
    sums: dict[str, tuple[str, int]] = {}
    raw: bytes | None = None
    for name, stream in backup.files():
        if name == MANIFEST:
            raw = stream.read(MAX_MANIFEST_BYTES + 1)
        else:
            sums[name] = hash_stream(stream)
    if raw is None:
        raise BackupDamaged(f"{backup.path}: no {MANIFEST}: not a companion backup, or cut short")
    manifest = parse_manifest(raw, backup.path)
    for entry in manifest.entries:
        found = sums.pop(entry.name, None)
        if found is None:
            raise BackupDamaged(
                f"{backup.path}: {entry.name}: missing from the backup; nothing restored"
            )
        if found != (entry.sha256, entry.size):
            raise BackupDamaged(
                f"{backup.path}: {entry.name}: checksum does not match the manifest: "
                "the backup is damaged; nothing restored"
            )
    # An unpacked copy may gain files (a Mac's ._NAME on a stick): never restored, not refused.
    if sums and backup.is_archive:
        extra = min(sums)
        raise BackupDamaged(f"{backup.path}: {extra}: not in the manifest; nothing restored")
    return manifest


def parse_manifest(raw: bytes, source: Path) -> Manifest:
    def bad(why: str) -> BackupDamaged:
        return BackupDamaged(f"{source}: {MANIFEST}: {why}; nothing restored")

    if len(raw) > MAX_MANIFEST_BYTES:
        raise bad("too large")
    try:
        data: Any = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise bad("not JSON") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise bad(f"not a {FORMAT} manifest")
    try:
        entries = tuple(_entry(item) for item in data["files"])
        places = {str(k): str(v) for k, v in dict(data["places"]).items()}
        manifest = Manifest(
            str(data["made"]), str(data["host"]), str(data["companion"]), places, entries
        )
    except (KeyError, TypeError, ValueError) as error:
        raise bad(f"a field is missing or wrong ({_reason(error)})") from None
    for entry in entries:
        if not safe_inner(entry.name):
            raise bad(f"{entry.name!r}: not a name a backup holds")
    return manifest


def _entry(item: Any) -> Entry:
    if not isinstance(item, dict):
        raise TypeError("a file is not a table")
    mode = int(item["mode"])
    if not 0 <= mode <= 0o777:
        raise ValueError(f"mode {mode}")
    return Entry(
        str(item["name"]),
        int(item["size"]),
        str(item["sha256"]),
        float(item["mtime"]),
        mode,
        str(item.get("note", "")),
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
