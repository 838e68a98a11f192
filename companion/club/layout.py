"""Where a restore puts each file of a backup: a fixed layout on this
machine, computed by the companion (docs/club-data.md, "Where things go").

A backup names *which* file of the club's data a file is (its role and
its path inside the role's folder), never *where* it goes:

- the config to this machine's config file (``companion config path``);
- the roster, the games and the journals where this machine's config puts
  them (its ``[paths]``, read before anything is restored);
- the files a config names by path, into the club's data folder under
  fixed names: ``ruleset.toml``, ``pin-map.toml``,
  ``array-calibration.json`` (where ``companion listen`` looks when the
  config names none) and the folder ``voice-pack/``.

The manifest's ``places`` and modes are never used. The backup's config
is restored as data, but it must not move the club's data: its ``[paths]``
and ``[microphone] calibration`` (where ``companion calibrate`` writes) must
say what this machine's config says, or the restore is refused in one line.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from ..config.values import APP, ConfigError, PathsConfig
from ..textfiles.printable import printable
from ..textfiles.toml_table import MAX_FILE_BYTES, decode_toml, parse_toml
from .data import FOLDER_ROLES, ClubDataError, Entry

#: The files a config names by path, restored into the data folder under these names.
DATA_FILES = {
    "ruleset": "ruleset.toml",
    "pin_map": "pin-map.toml",
    "calibration": "array-calibration.json",  # ears.calibration.FILE_NAME
}
PACK_FOLDER = "voice-pack"
#: The keys of a config that say where the companion writes the club's data.
WRITTEN_KEYS = (
    ("paths", "journals"),
    ("paths", "games"),
    ("paths", "roster"),
    ("microphone", "calibration"),
)


@dataclass(frozen=True, slots=True)
class Layout:
    """This machine's places for the club's data."""

    config: Path  # the config file
    paths: PathsConfig  # as this machine's config puts them
    data: Path  # the club's data folder

    def target(self, entry: Entry) -> Path:
        """Where ``entry`` (a checked name: manifest.name_problem) goes."""
        role = entry.role
        if role in DATA_FILES:
            return self.data / DATA_FILES[role]
        single = {"config": self.config, "roster": self.paths.roster}
        if role in single:
            return single[role]
        return self.folder(role) / entry.inner

    def folder(self, role: str) -> Path:
        """The folder a folder role's files go into."""
        folders = {"journals": self.paths.journals, "games": self.paths.games}
        return folders.get(role, self.data / PACK_FOLDER)


def data_folder() -> Path:
    """The club's data folder (``$XDG_DATA_HOME/companion``), as config/values.py
    and ears.calibration find it."""
    return platformdirs.user_data_path(APP, appauthor=False)


def machine_layout(config_file: Path) -> Layout:
    """This machine's layout: its config's ``[paths]`` (the defaults when
    there is no config file). Only ``[paths]`` is read, leniently: a config
    broken elsewhere may be what the restore mends."""
    places = written_places(_config_bytes(config_file), config_file, str(config_file))
    defaults = PathsConfig()
    paths = PathsConfig(
        journals=places["paths.journals"] or defaults.journals,
        games=places["paths.games"] or defaults.games,
        roster=places["paths.roster"] or defaults.roster,
    )
    return Layout(config_file, paths, data_folder())


def written_places(text: bytes | None, config_file: Path, source: str) -> dict[str, Path | None]:
    """ "section.key" -> the place a config's text (as ``config_file``) names
    for each of WRITTEN_KEYS, as the config reader takes it (``~``
    expanded, relative to the file's folder); None where it names none."""
    data = (
        {}
        if text is None
        else parse_toml(decode_toml(text, source, ConfigError), source, ConfigError)
    )
    found: dict[str, Path | None] = {}
    for section, key in WRITTEN_KEYS:
        table = data.get(section)
        value = table.get(key) if isinstance(table, dict) else None
        found[f"{section}.{key}"] = _place(value, config_file)
    return found


def _place(value: object, config_file: Path) -> Path | None:
    if not isinstance(value, str) or not value.strip() or "\0" in value:
        return None
    try:
        path = Path(value).expanduser()
    except RuntimeError:  # "~nobody/...": as the config reader, no such home here
        return None
    return Path(os.path.normpath(path if path.is_absolute() else config_file.parent / path))


def _config_bytes(config_file: Path) -> bytes | None:
    """This machine's config file's bytes; None when there is none."""
    source = str(config_file)
    try:
        info = config_file.stat()
        if not stat.S_ISREG(info.st_mode):  # a FIFO would hang the restore
            raise ConfigError(source, None, None, "not a regular file")
        with config_file.open("rb") as stream:
            return stream.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise ConfigError(source, None, None, f"cannot be read ({error.strerror})") from None


def check_backup_config(text: bytes, layout: Layout, where: str) -> None:
    """The backup's config (``where``: the backup and its name there) must
    not move the club's data: ClubDataError naming the key otherwise."""
    source = f"{where} (the backup's config)"
    theirs = written_places(text, layout.config, source)
    ours = written_places(_config_bytes(layout.config), layout.config, str(layout.config))
    for (section, key), name in zip(WRITTEN_KEYS, theirs, strict=True):
        if _effective(name, theirs[name], layout) == _effective(name, ours[name], layout):
            continue
        raise ClubDataError(
            f"{where}: [{section}] {key}: a backup never says where the club's data goes "
            "(this machine's config does); nothing restored (--keep-config restores the "
            "data only)"
        )


def _effective(name: str, place: Path | None, layout: Layout) -> Path:
    if place is not None:
        return place
    defaults = PathsConfig()
    return {
        "paths.journals": defaults.journals,
        "paths.games": defaults.games,
        "paths.roster": defaults.roster,
    }.get(name, layout.data / DATA_FILES["calibration"])


def check_targets(targets: Iterable[tuple[Entry, Path]], layout: Layout, backup: Path) -> None:
    """Each file goes to a place of its own, which is a file or nothing
    here, in folders that are folders (not a symbolic link inside the
    club's folder, which would lead out of it): ClubDataError naming the
    file otherwise. Nothing is written."""
    taken: dict[Path, Entry] = {}
    for entry, target in targets:
        other = taken.setdefault(target, entry)
        if other is not entry:
            raise _refused(
                backup, entry, f"the same file here as {printable(other.name)} ({target})"
            )
    for target, entry in taken.items():
        for folder in target.parents:
            if folder in taken:
                raise _refused(backup, entry, f"{taken[folder].name} is a file here, not a folder")
            if os.path.lexists(folder):
                if not folder.is_dir():
                    raise _refused(backup, entry, f"{folder} is not a folder here")
                break
        if target.is_dir() and not target.is_symlink():
            raise _refused(backup, entry, f"{target} is a folder here, not a file")
        if entry.role in FOLDER_ROLES:
            base = layout.folder(entry.role)
            for folder in target.relative_to(base).parents:
                if folder.parts and (base / folder).is_symlink():
                    raise _refused(
                        backup,
                        entry,
                        f"{base / folder} is a symbolic link here: not written through",
                    )


def _refused(backup: Path, entry: Entry, why: str) -> ClubDataError:
    return ClubDataError(f"{backup}: {printable(entry.name)}: {printable(why)}; nothing restored")
