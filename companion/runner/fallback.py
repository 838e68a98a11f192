"""Where a live game's journal goes on when its disk takes no more
(docs/faults.md).

The journal's own folder is on the SD card with everything else. When a
line cannot be written there (the card full, remounted read-only after
errors, the USB stick it was on pulled out), the journal moves to the first
of these that takes it, and the game goes on:

1. the folders in ``$COMPANION_FALLBACK_JOURNALS`` (separated by ``:``),
   when it is set, and nothing else: a club that has a second partition or
   a stick it always leaves plugged in names it there;
2. otherwise a USB stick or other removable drive that is mounted (every
   mount point under ``/media/USER``, ``/run/media/USER`` and ``/media``),
   in ``companion-journals`` on it: another medium than the card, kept
   through a power cut, and one the host can take home;
3. the user's home, ``~/companion-journals`` (a help when the journals
   folder is on a partition or stick of its own);
4. ``/var/tmp/companion-journals-UID`` (kept across a reboot; a separate
   ``/var`` on some systems);
5. memory, ``/dev/shm/companion-journals-UID``: the last resort. It keeps
   the game going and survives a crash of the companion, but not a power
   cut or a reboot; the host is told so, and at every disk check the
   journal moves to one of the places above as soon as one takes it.

A place is tried only if its disk has ``MIN_FREE`` bytes free (the
injected probe in tests). Memory is told apart from disks by the mounts
table (tmpfs, ramfs).
"""

from __future__ import annotations

import getpass
import os
import shutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ENV_VAR", "MIN_FREE", "FallbackPlaces", "FreeSpace", "Place", "free_space"]

#: a club's own fallback folders, in order, separated by ``os.pathsep``
ENV_VAR = "COMPANION_FALLBACK_JOURNALS"
#: the folder made on a stick or in the home
FOLDER = "companion-journals"
#: a place with less than this free is not tried: 8 MiB holds ~40 hours
#: of journal at the ~200 KB an hour of a busy table (docs/faults.md)
MIN_FREE = 8 * 2**20
#: file systems that live in memory (lost at a power cut)
VOLATILE_TYPES = frozenset({"tmpfs", "ramfs"})

#: bytes an unprivileged user may still write under a folder
FreeSpace = Callable[[Path], int]


def free_space(folder: Path) -> int:
    """``statvfs``'s blocks available to the user, in bytes (0 when the
    folder cannot be looked at)."""
    try:
        return shutil.disk_usage(_existing(folder)).free
    except OSError:
        return 0


@dataclass(frozen=True, slots=True)
class Place:
    folder: Path  # where the journal goes (made, mode 0700, when needed)
    volatile: bool = False  # in memory: lost at a power cut


class FallbackPlaces:
    """The places a journal may go on, best first (``Journal.fallback``)."""

    def __init__(
        self,
        places: Sequence[Place] | None,
        free: FreeSpace = free_space,
        min_free: int = MIN_FREE,
    ) -> None:
        """``places``: None for ``default_places()``, looked up afresh each
        time (a stick plugged in during the game is found)."""
        self._places = None if places is None else tuple(places)
        self._free = free
        self.min_free = min_free

    @classmethod
    def default(cls, free: FreeSpace = free_space) -> FallbackPlaces:
        return cls(None, free)

    @property
    def places(self) -> tuple[Place, ...]:
        return default_places() if self._places is None else self._places

    def folders(self, journal: Path, *, durable: bool = False) -> Iterator[Path]:
        """The folders to try for ``journal`` (where it is now), best first:
        not its own, and each with room (``durable``: disks only)."""
        here = _absolute(journal.parent)
        for place in self.places:
            folder = _absolute(place.folder)
            if folder == here or (durable and place.volatile):
                continue
            if self._free(folder) >= self.min_free:
                yield folder

    def volatile(self, journal: Path) -> bool:
        """The journal is in memory (one of the volatile places)."""
        folder = _absolute(journal.parent)
        return any(p.volatile and _absolute(p.folder) == folder for p in self.places)


def default_places(
    environ: Mapping[str, str] = os.environ,
    mounts: Path = Path("/proc/self/mounts"),
) -> tuple[Place, ...]:
    """The order of the module's docstring, for this user on this machine."""
    named = environ.get(ENV_VAR, "")
    if named:
        kinds = _mount_types(mounts)
        folders = [Path(p).expanduser() for p in named.split(os.pathsep) if p]
        return tuple(Place(f, _fs_type(f, kinds) in VOLATILE_TYPES) for f in folders)
    user, uid = _user(), os.getuid()
    places = [Place(stick / FOLDER) for stick in _removable(user)]
    places.append(Place(Path.home() / FOLDER))
    places.append(Place(Path("/var/tmp") / f"{FOLDER}-{uid}"))
    places.append(Place(Path("/dev/shm") / f"{FOLDER}-{uid}", volatile=True))
    return tuple(places)


def _removable(user: str) -> list[Path]:
    """Mounted removable drives: the mount points where desktops and
    usbmount put them."""
    found: list[Path] = []
    for parent in (Path("/media") / user, Path("/run/media") / user, Path("/media")):
        try:
            children = sorted(parent.iterdir())
        except OSError:
            continue
        found += [c for c in children if c not in found and os.path.ismount(c)]
    return found


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container)
        return str(os.getuid())


def _mount_types(mounts: Path) -> dict[Path, str]:
    """Mount point -> file system type, from the mounts table."""
    kinds: dict[Path, str] = {}
    try:
        text = mounts.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return kinds
    for line in text.splitlines():
        fields = line.split()
        if len(fields) >= 3:
            # The table escapes spaces in mount points as \040.
            kinds[Path(fields[1].replace("\\040", " "))] = fields[2]
    return kinds


def _fs_type(folder: Path, kinds: Mapping[Path, str]) -> str:
    """The type of the file system ``folder`` is (or would be made) on."""
    path = _absolute(_existing(folder))
    for candidate in (path, *path.parents):
        if candidate in kinds:
            return kinds[candidate]
    return ""


def _existing(folder: Path) -> Path:
    """``folder`` or its nearest ancestor that exists."""
    for candidate in (folder, *folder.parents):
        if candidate.exists():
            return candidate
    return folder


def _absolute(path: Path) -> Path:
    return Path(os.path.abspath(path))
