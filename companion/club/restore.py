"""Putting a backup back: ``companion restore SRC`` (docs/club-data.md).

Every check is made before the first file is touched: the manifest's every
field (manifest.py), every file of the backup against it (data.py),
where each file goes (layout.py: a fixed layout on this machine, never a
place the backup names), that no two files go to one place, that the
backup's config does not move the club's data; restore_plan.py works out
what each file is then:

- ``new``: nothing there yet: written;
- ``same``: the same bytes there already: left alone;
- ``newer``: a journal here that goes on from the backup's (the backup's
  lines are its beginning): the one here is kept, it holds more;
- ``in_use``: a journal a running game holds: never touched;
- ``differs``: another file there. Without ``--force`` the restore writes
  nothing at all and names them; with it, the file here is kept beside
  itself as ``NAME.before-restore-STAMP`` (a hard link, so the name is
  never empty) and the backup's takes its place.

Each file is written to a hidden temporary file beside its place, checked
again, given its time (never the manifest's mode: 0600, in folders made
0700), fsynced, and renamed into place only once every file has been
written. A failure on the way removes the temporary files and the folders
made for them; one while renaming puts back what was renamed: the data is
left as it was.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..runner.journal_check import lock_path
from ..textfiles.printable import printable
from .backup import size_text
from .data import ClubDataError, Entry, Readable
from .restore_plan import Item, Plan

ASIDE = ".before-restore-"
#: Every file restored: the user's alone (journals hold every seat's role), never executable.
FILE_MODE, FOLDER_MODE = 0o600, 0o700
_CHUNK = 1 << 20


@dataclass
class Restored:
    written: list[Path] = field(default_factory=list)
    replaced: list[Path] = field(default_factory=list)  # of those, files that were there
    aside: list[tuple[Path, Path]] = field(default_factory=list)  # (the file, where it was kept)
    in_use: list[Path] = field(default_factory=list)  # journals a game took meanwhile


# --- writing -----------------------------------------------------------------------


def restore(plan: Plan, *, force: bool, stamp: str) -> Restored:
    """Carry out ``plan``: see the module. ``stamp`` names the files kept aside."""
    differ = plan.of("differs")
    if differ and not force:
        names = ", ".join(printable(item.target) for item in differ[:3])
        more = f" and {len(differ) - 3} more" if len(differ) > 3 else ""
        raise ClubDataError(
            f"{len(differ)} file(s) here differ from the backup ({names}{more}): nothing "
            f"restored; with --force each is kept as NAME{ASIDE}{stamp} and the backup's "
            "put in its place"
        )
    chosen = plan.of("new", "differs")
    wanted: dict[str, tuple[Entry, Path]] = {}
    for item in chosen:
        wanted[item.entry.name] = (item.entry, item.target)
        if item.lock is not None:
            wanted[item.lock.name] = (item.lock, lock_path(item.target))
    temporary: dict[str, Path] = {}
    made: list[Path] = []  # folders made for the files, to remove if the restore fails
    try:
        for name, stream in plan.backup.files(wanted):
            entry, target = wanted[name]
            try:
                temporary[name] = _write_temporary(stream, entry, target, made)
            except OSError as error:
                raise _not_written(target, error, [e for e, _ in wanted.values()]) from None
        missing = wanted.keys() - temporary.keys()
        if missing:
            raise ClubDataError(
                f"{printable(min(missing))}: gone from the backup meanwhile; nothing restored"
            )
        done = _put_in_place(chosen, temporary, stamp)
        made.clear()
        return done
    finally:
        for path in temporary.values():
            with contextlib.suppress(OSError):
                path.unlink()
        for folder in reversed(made):
            with contextlib.suppress(OSError):
                folder.rmdir()


def _not_written(target: Path, error: OSError, entries: list[Entry]) -> ClubDataError:
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        total = size_text(sum(entry.size for entry in entries))
        return ClubDataError(
            f"{printable(target.parent)}: no room to restore (it needs {total} in all); "
            "nothing restored"
        )
    return ClubDataError(
        f"{printable(target)}: cannot be written ({error.strerror}); nothing restored"
    )


def _write_temporary(stream: Readable, entry: Entry, target: Path, made: list[Path]) -> Path:
    owner = _owner_for(target)
    _make_folders(target.parent, owner, made)
    fd, name = tempfile.mkstemp(
        prefix=f".{target.name[:100]}.", suffix=".restore", dir=target.parent
    )
    path = Path(name)
    try:
        os.fchmod(fd, FILE_MODE)
        if owner is not None:
            os.fchown(fd, *owner)
        digest, size = hashlib.sha256(), 0
        while chunk := stream.read(min(_CHUNK, entry.size + 1 - size)):
            digest.update(chunk)
            size += len(chunk)
            view = memoryview(chunk)
            while view:
                view = view[os.write(fd, view) :]
        if (digest.hexdigest(), size) != (entry.sha256, entry.size):
            raise ClubDataError(
                f"{printable(entry.name)}: changed since it was checked; nothing restored"
            )
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


def _make_folders(folder: Path, owner: tuple[int, int] | None, made: list[Path]) -> None:
    """The missing folders, private to their owner (journals hold roles)."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for path in reversed(missing):
        try:
            path.mkdir(mode=FOLDER_MODE)
        except FileExistsError:  # made meanwhile: it is there, and not ours to remove
            continue
        made.append(path)
        os.chmod(path, FOLDER_MODE)  # whatever the umask
        if owner is not None:
            os.chown(path, *owner)


# --- into place --------------------------------------------------------------------


class _Undo:
    """What was renamed so far, to put back if a later rename fails."""

    def __init__(self) -> None:
        self.steps: list[Callable[[], None]] = []

    def replace(self, source: Path, target: Path, was: Path | None) -> None:
        """``source`` renamed over ``target``, whose file is kept at ``was``."""
        os.replace(source, target)
        self.steps.append(lambda: os.replace(was, target) if was else target.unlink())

    def move(self, source: Path, target: Path) -> None:
        os.replace(source, target)
        self.steps.append(lambda: os.replace(target, source))

    def aside(self, path: Path, stamp: str) -> Path:
        aside, linked = _keep_aside(path, stamp)
        self.steps.append(lambda: aside.unlink() if linked else os.replace(aside, path))
        return aside

    def put_back(self) -> None:
        """Every step undone, latest first; a step with nothing left to undo
        (its file already put back by a later one's) fails quietly."""
        for step in reversed(self.steps):
            with contextlib.suppress(OSError):
                step()


def _put_in_place(chosen: list[Item], temporary: dict[str, Path], stamp: str) -> Restored:
    done, undo = Restored(), _Undo()
    folders: set[Path] = set()
    try:
        for item in chosen:
            with _held(item) as free:
                if not free:
                    done.in_use.append(item.target)
                    continue
                was = None
                if os.path.lexists(item.target):  # "differs", or made since the plan
                    was = undo.aside(item.target, stamp)
                    done.aside.append((item.target, was))
                    done.replaced.append(item.target)
                undo.replace(temporary[item.entry.name], item.target, was)
                del temporary[item.entry.name]  # left in the dict until in place: removed else
                if item.entry.name.endswith(".jsonl"):
                    _put_lock(item, temporary, done, undo, was, stamp)
            done.written.append(item.target)
            folders.add(item.target.parent)
    except BaseException as error:  # Ctrl-C too: put back, then stop
        undo.put_back()
        if not isinstance(error, OSError | ClubDataError):
            raise
        why = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        raise ClubDataError(
            f"{printable(item.target)}: could not be put in place ({printable(why)}); "
            "everything put back as it was: nothing restored"
        ) from None
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
    fd = os.open(item.target, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


def _put_lock(
    item: Item,
    temporary: dict[str, Path],
    done: Restored,
    undo: _Undo,
    was: Path | None,
    stamp: str,
) -> None:
    """A journal's lock file holds its head: the one here belongs to the
    file here, so it goes aside with it, and the backup's comes in."""
    here = lock_path(item.target)
    kept = None
    if os.path.lexists(here):
        if was is not None:
            kept = lock_path(was)
            undo.move(here, kept)
        else:  # a lock file left without its journal
            kept = undo.aside(here, stamp)
            done.aside.append((here, kept))
    if item.lock is not None:
        undo.replace(temporary[item.lock.name], here, kept if was is None else None)
        del temporary[item.lock.name]


def _keep_aside(path: Path, stamp: str) -> tuple[Path, bool]:
    """Keep ``path`` as ``NAME.before-restore-STAMP`` (-2, -3 ... if taken);
    True if as a hard link (the name stays until the backup's file
    replaces it), False if renamed (a file system without hard links)."""
    for n in range(1, 1000):
        aside = path.with_name(f"{path.name}{ASIDE}{stamp}" + (f"-{n}" if n > 1 else ""))
        if not os.path.lexists(aside):
            break
    else:
        raise ClubDataError(f"{printable(path)}: 999 copies kept aside already")
    try:
        os.link(path, aside, follow_symlinks=False)
    except OSError:
        os.rename(path, aside)
        return aside, False
    return aside, True


def _fsync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
