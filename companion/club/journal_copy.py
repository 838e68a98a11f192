"""The journals in a backup: whether a game holds one now, and a copy of
one made while it may be written: its last whole, checked line, with a head
to match (docs/club-data.md). The backup copies them (backup.py), the
restore leaves a held one alone (restore.py), the update waits for none
(update.py)."""

from __future__ import annotations

import fcntl
import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..runner.journal_check import JournalDamaged, read_head, verify


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
