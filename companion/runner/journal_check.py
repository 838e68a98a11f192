"""Reading a journal back: the checksum chain, the head, torn tails.

What a crash can leave is only a torn *last* line: bytes after the last
newline (a write cut short), or a last line of zero bytes (a file system
that grew the file before its data reached the disk). Those are dropped
with a warning. Anything else that does not check out — a line changed,
deleted, duplicated, moved, or lines removed from the end — is refused with
one line naming the file and line: something other than a crash changed
the journal, and guessing would be worse than stopping.

A journal whose disk filled up during the game went on elsewhere
(docs/faults.md); its lock file says where (``moved:``), and ``follow``
leads a reader there.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..textfiles.regular_file import MAX_FILE, read_regular, read_start
from .script import MAX_LINE

SUM_LENGTH = 16
_SUM_KEY = b',"sum":"'
_SUFFIX = len(_SUM_KEY) + SUM_LENGTH + len(b'"}')


class JournalError(Exception):
    """A journal that cannot be used; ``str()`` is one line naming it."""


class JournalDamaged(JournalError):
    """A journal changed by something other than a crash: resume is refused."""

    def __init__(self, source: str, line: int, message: str) -> None:
        super().__init__(f"{source}:{line}: {message}; resume refused")
        self.source, self.line, self._message = source, line, message

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt from what it was given (the table's process sends it up).
        return type(self), (self.source, self.line, self._message), self.__dict__


@dataclass(frozen=True, slots=True)
class JournalText:
    lines: list[str]  # whole, checked lines, without their newline
    torn: str | None  # the torn tail that was dropped, if any
    good_bytes: int  # length of the file up to the last whole line
    last_sum: str = ""  # the last whole line's checksum
    warnings: list[str] = field(default_factory=list)  # one line each, for stderr


def chain(previous: str, body: bytes) -> str:
    """A line's checksum: its content (without the checksum) chained to the
    line before's checksum ("" for the first line)."""
    return hashlib.sha256(previous.encode("ascii") + body).hexdigest()[:SUM_LENGTH]


def lock_path(journal: Path) -> Path:
    return journal.with_name(journal.name + ".lock")


#: the lock file's third line, rewritten in place when the journal moves
#: (a full disk: runner/fallback.py): fixed width, so that it is written over
#: bytes the file already has and needs no room the disk may not have left
MOVED_WIDTH = 512
_MOVED = b"moved: "
#: how many moves a resume follows (a journal moved from the full disk to
#: memory, then to a USB stick, is two)
MAX_MOVES = 8


def moved_line(target: Path | None) -> bytes:
    """The lock file's ``moved:`` line: where the game went on (None: it
    did not move). Raises ValueError for a path too long to fit."""
    where = str(target).encode() if target is not None else b"-"
    if b"\n" in where or len(_MOVED) + len(where) + 1 > MOVED_WIDTH:
        raise ValueError(f"{target}: too long a path for the lock file's moved line")
    return (_MOVED + where).ljust(MOVED_WIDTH - 1) + b"\n"


def read_moved(journal: Path) -> Path | None:
    """Where the game of ``journal`` went on, as its lock file says (None:
    it did not move, or there is no lock file)."""
    try:
        data = read_start(lock_path(journal), 2000 + MOVED_WIDTH)
    except OSError:
        return None
    for raw in data.split(b"\n"):
        if raw.startswith(_MOVED):
            where = raw[len(_MOVED) :].rstrip(b" ").decode("utf-8", errors="replace")
            return Path(where) if where not in ("", "-") else None
    return None


def follow(journal: Path) -> tuple[Path, list[str]]:
    """The journal that holds the whole game of ``journal``: itself, or
    where its lock file says the game went on (the disk was full), and one
    warning line per move. Raises ``JournalError`` when that journal is not
    there (a USB stick not plugged in) or is another game's: resuming the
    part left behind would lose every input after the move."""
    notes: list[str] = []
    path = journal
    for _ in range(MAX_MOVES):
        target = read_moved(path)
        if target is None:
            return path, notes
        if not target.is_file():
            raise JournalError(
                f"{path}: the game went on in {target}, which is not there: plug in "
                "or mount what holds it, then try again (docs/faults.md)"
            )
        first = _first_line(path)  # nothing whole: the disk was full from the start
        if first.endswith(b"\n") and _first_line(target) != first:
            raise JournalError(f"{path}: its lock file points to {target}, another game's journal")
        notes.append(f"{path}: the game went on in {target} (docs/faults.md): that one is read")
        path = target
    raise JournalError(f"{journal}: moved more than {MAX_MOVES} times; resume the last one by name")


def _first_line(path: Path) -> bytes:
    try:
        line, newline, _ = read_start(path, 1 << 16).partition(b"\n")
        return line + newline
    except OSError as error:
        raise JournalError(f"{path}: {error.strerror or error}") from None


def read_head(journal: Path) -> tuple[int, str] | None:
    """(lines, last checksum) from the journal's lock file; None when there
    is no lock file or it says nothing usable (a copied journal, a power cut
    before the lock file reached the disk)."""
    try:
        data = read_start(lock_path(journal), 2000)
    except OSError:
        return None
    for raw in data.split(b"\n"):
        parts = raw.split()
        if len(parts) == 3 and parts[0] == b"head:" and parts[1].isdigit():
            last = parts[2].decode("ascii", errors="replace")
            return int(parts[1]), "" if last == "-" else last
    return None


def verify(data: bytes, source: str, head: tuple[int, str] | None) -> JournalText:
    """Check every line's checksum and the head; raise ``JournalDamaged``
    naming the first line that is wrong."""
    end = data.rfind(b"\n") + 1
    raws = data[:end].split(b"\n")[:-1]
    tail = data[end:]
    torn = _shown(tail) if tail else None
    lines: list[str] = []
    sums: list[str] = []
    previous = ""
    good = 0
    for number, raw in enumerate(raws, 1):
        problem, line_sum = _check(raw, previous, raws[number - 2] if number > 1 else None)
        if problem:
            if number == len(raws) and not tail and b"\0" in raw:
                torn = _shown(raw)  # zeros where the last line's data never arrived
                break
            raise JournalDamaged(source, number, problem)
        try:
            lines.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            raise JournalDamaged(source, number, "not UTF-8 text") from None
        sums.append(line_sum)
        previous = line_sum
        good += len(raw) + 1
    warnings = []
    if torn is not None:
        warnings.append(
            f"{source}:{len(lines) + 1}: torn last line skipped "
            f"({len(torn)} characters): {torn[:60]!r}"
        )
    if head is None:
        warnings.append(
            f"{source}: no lock file beside it ({Path(source).name}.lock): "
            "lines removed from its end could not be checked"
        )
    else:
        _check_head(source, head, sums)
    return JournalText(lines, torn, good, previous, warnings)


def _check(raw: bytes, previous: str, before: bytes | None) -> tuple[str, str]:
    """(problem, checksum): problem is "" for a good line."""
    if len(raw) > MAX_LINE:
        return f"a line of {len(raw)} bytes (at most {MAX_LINE})", ""
    if len(raw) <= _SUFFIX or raw[-_SUFFIX : -SUM_LENGTH - 2] != _SUM_KEY or raw[-2:] != b'"}':
        return "no checksum at the end of the line (not a journal line, or cut)", ""
    written = raw[-SUM_LENGTH - 2 : -2].decode("ascii", errors="replace")
    if chain(previous, raw[:-_SUFFIX] + b"}") == written:
        return "", written
    if raw == before:
        return "a copy of the line before it", ""
    return (
        "checksum does not match: this line was changed, or a line before it "
        "was deleted, added or moved",
        "",
    )


def _check_head(source: str, head: tuple[int, str], sums: list[str]) -> None:
    count, last = head
    name = f"{Path(source).name}.lock"
    if count > len(sums):
        raise JournalDamaged(
            source,
            len(sums) + 1,
            f"missing: its lock file ({name}) records {count} lines, the journal has "
            f"{len(sums)}: lines were removed from its end",
        )
    if count and sums[count - 1] != last:
        raise JournalDamaged(
            source, count, f"not the line its lock file ({name}) records as line {count}"
        )


def _shown(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


def read(path: Path) -> JournalText:
    """Read and check a journal without taking it (a replay of it, a bench,
    the protocol); one that went on elsewhere is read there."""
    if path.is_dir():
        raise JournalError(f"{path}: is a folder, not a journal")
    path, notes = follow(path)
    # A regular file within the limit: a FIFO, /dev/zero or an 8-GiB sparse
    # file is one line (textfiles/regular_file.py), never a hang or a MemoryError.
    text = verify(read_regular(path, MAX_FILE), str(path), read_head(path))
    text.warnings[:0] = notes
    return text
