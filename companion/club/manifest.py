"""A backup's ``MANIFEST.json``: what it lists, and reading it with every
field checked (docs/club-data.md, "What is inside").

A manifest comes from a stick that passed from hand to hand: nothing in it
is trusted. Reading one refuses, in one line naming the file and the
field, anything a backup made by ``companion backup`` never holds: a name
that is not a plain relative path under one of the roles, a time that is
not a time (``1e300``, ``NaN``), a size or a mode that is not a whole
number in range, a checksum that is not sha256, text with control
characters, nesting deep enough to exhaust the parser. A name says
*which* file of the club's data a file is; never *where* it goes
(:mod:`companion.club.layout` decides that), and its mode and ``places``
are kept for the record only: a restore never applies them.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import asdict, dataclass
from pathlib import PurePosixPath
from typing import Any

from ..textfiles.printable import printable

FORMAT = "companion-backup/1"
MANIFEST = "MANIFEST.json"
#: Roles whose place is one file; the others are folders.
FILE_ROLES = ("config", "roster", "ruleset", "pin_map", "calibration")
FOLDER_ROLES = ("journals", "games", "pack")
ROLES = FILE_ROLES + FOLDER_ROLES
#: A manifest larger than this is not one of ours.
MAX_MANIFEST_BYTES = 64 << 20
#: made, host, companion, places: a date, a host name, a version, a path.
MAX_TEXT_CHARS = 4096
#: 9999-12-31 23:59:59 UTC: past it (1e300) a time is no file's.
MAX_MTIME = 253402300799.0
#: 1 TiB: more than any club's file, less than anything that overflows.
MAX_SIZE = 1 << 40
_SHA256 = re.compile(r"[0-9a-f]{64}\Z")


class ManifestError(ValueError):
    """A manifest that is not one of ours; ``str()`` is one line naming
    the field (the caller adds the file)."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One file of a backup, as the manifest lists it."""

    name: str  # "journals/2026-12-01_20-15-03.jsonl": the role, then the path in its place
    size: int
    sha256: str
    mtime: float
    mode: int  # permission bits where it was backed up; for the record, never applied
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
    places: dict[str, str]  # role -> the path it was backed up from (for the record)
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


def name_problem(name: str) -> str | None:
    """Why ``name`` is not a name a backup holds, or None: a role, then a
    plain relative path (no ``.``, ``..``, empty part, backslash or NUL); a
    file role's one file, a folder role's file in it. (Control characters
    are a file's name like any other: they are escaped where a name is
    printed.)"""
    if not name or "\0" in name or "\\" in name:
        return "not a file name a backup holds"
    path = PurePosixPath(name)
    if path.is_absolute() or path.as_posix() != name or {".", ".."} & set(name.split("/")):
        return "not a plain path inside its folder"
    role = path.parts[0]
    if role not in ROLES:
        return f"not one of the kinds of data a backup holds ({', '.join(ROLES)})"
    if len(path.parts) < 2 or (role in FILE_ROLES and len(path.parts) != 2):
        return f"{role} is one file: {role}/NAME" if role in FILE_ROLES else f"{role}/ alone"
    return None


def parse_manifest(raw: bytes) -> Manifest:
    """The manifest in ``raw``; ManifestError naming the field otherwise."""
    if len(raw) > MAX_MANIFEST_BYTES:
        raise ManifestError("too large")
    try:
        data: Any = json.loads(raw.decode("utf-8"))
    except RecursionError:  # "[[[[..." deeper than the parser goes
        raise ManifestError("nested too deep: not JSON a backup writes") from None
    except (UnicodeDecodeError, ValueError):
        raise ManifestError("not JSON") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ManifestError(f"not a {FORMAT} manifest")
    made, host, version = (_text(data, key) for key in ("made", "host", "companion"))
    places = data.get("places")
    if not isinstance(places, dict):
        raise ManifestError("places: missing, or not a table")
    for role in places:
        _text(places, role, f"places.{role}")
    files = data.get("files")
    if not isinstance(files, list):
        raise ManifestError("files: missing, or not a list")
    entries = tuple(_entry(n, item) for n, item in enumerate(files))
    seen: dict[str, int] = {}
    for n, entry in enumerate(entries):
        first = seen.setdefault(entry.name, n)
        if first != n:
            raise ManifestError(f"{_where(n, entry.name)}: listed twice (files[{first}] too)")
    return Manifest(made, host, version, dict(places), entries)


def _text(table: dict[str, Any], key: str, field: str | None = None) -> str:
    value = table.get(key)
    if not isinstance(value, str):
        raise ManifestError(f"{field or key}: missing, or not text")
    if len(value) > MAX_TEXT_CHARS or "\0" in value:
        raise ManifestError(f"{field or key}: not text a backup writes")
    return value


def _entry(n: int, item: Any) -> Entry:
    if not isinstance(item, dict):
        raise ManifestError(f"files[{n}]: not a table")
    name = item.get("name")
    if not isinstance(name, str):
        raise ManifestError(f"files[{n}]: name: missing, or not text")
    where = _where(n, name)
    problem = name_problem(name)
    if problem is not None:
        raise ManifestError(f"{where}: name: {problem}")
    size, mode = (_whole(item, key, where) for key in ("size", "mode"))
    if not 0 <= size <= MAX_SIZE:
        raise ManifestError(f"{where}: size {size}: not the size of a file a backup holds")
    if not 0 <= mode <= 0o777:
        raise ManifestError(f"{where}: mode {mode:o}: not permission bits")
    sha256 = item.get("sha256")
    if not isinstance(sha256, str) or not _SHA256.match(sha256):
        raise ManifestError(f"{where}: sha256: not a sha256 sum in hex")
    mtime = item.get("mtime")
    if isinstance(mtime, bool) or not isinstance(mtime, int | float):
        raise ManifestError(f"{where}: mtime: missing, or not a number")
    if not math.isfinite(mtime) or not 0 <= mtime <= MAX_MTIME:
        raise ManifestError(f"{where}: mtime {mtime!r}: not a time a file can have")
    note = item.get("note", "")
    if not isinstance(note, str) or len(note) > MAX_TEXT_CHARS:
        raise ManifestError(f"{where}: note: not text a backup writes")
    return Entry(name, size, sha256, float(mtime), mode, note)


def _whole(item: dict[str, Any], key: str, where: str) -> int:
    value = item.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ManifestError(f"{where}: {key}: missing, or not a whole number")
    if value.bit_length() > 64:  # str() of a 5000-digit number raises
        raise ManifestError(f"{where}: {key}: a number far out of range")
    return value


def _where(n: int, name: str) -> str:
    shown = name if len(name) <= 120 else name[:117] + "..."
    return f"files[{n}] {printable(shown)}"
