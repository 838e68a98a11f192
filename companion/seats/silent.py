"""What the last self-test found, kept for the games that follow.

``companion selftest`` writes ``selftest.json`` in the club's data folder
(the folder of the journals' folder, where ``companion.log`` is): the pin
map it ran on (by the SHA-256 of the file's bytes), when, and the seats and
host buttons that did not answer. The console's table then leaves the
silent seats' buttons unopened (a stuck or noisy button must not play), and
the table screen marks those seats: the host's number key stands in.

The record counts only for the same pin map, unchanged since the test, and
only when the seats are real GPIO; a file that cannot be read is a warning
in the log and no silent seats: it never stops a game. A run on simulated
pins is never written (nobody could press, every seat was silent).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .pinmap import HOST_BUTTONS, MAX_SEATS

if TYPE_CHECKING:
    from ..config.values import Config

log = logging.getLogger(__name__)

FILE_NAME = "selftest.json"
VERSION = 1
#: A record is a few hundred bytes; anything far larger is not ours.
MAX_BYTES = 64 * 1024


@dataclass(frozen=True, slots=True)
class SelfTestRecord:
    pin_map: str  # the map's file, for the host's eyes
    digest: str  # SHA-256 of the map's bytes: what the record is matched by
    at: str  # local time of the test, ISO 8601
    silent: tuple[int, ...]  # seats whose button did not answer
    hosts_silent: tuple[str, ...] = ()  # host buttons that did not answer

    def to_json(self) -> str:
        data = {
            "version": VERSION,
            "pin_map": self.pin_map,
            "digest": self.digest,
            "at": self.at,
            "silent": list(self.silent),
            "hosts_silent": list(self.hosts_silent),
        }
        return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


class RecordError(ValueError):
    """A record file that is not one; ``str()`` is one line naming the file."""


def club_data_folder(config: Config) -> Path:
    """The club's data folder: where the journals' folder and the log are."""
    return config.paths.journals.parent


def record_path(config: Config) -> Path:
    return club_data_folder(config) / FILE_NAME


def pin_map_digest(path: Path | str) -> str:
    """SHA-256 of a pin map file's bytes (OSError when it cannot be read)."""
    with Path(path).open("rb") as stream:
        return hashlib.sha256(stream.read()).hexdigest()


def save_record(path: Path, record: SelfTestRecord) -> None:
    """Write ``record`` to ``path``: a temporary file beside it, synced and
    renamed over it, so a crash leaves the old record or the new one."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, name = tempfile.mkstemp(prefix=".selftest-", suffix=".json", dir=path.parent)
    try:
        with open(fd, "w", encoding="utf-8") as stream:
            stream.write(record.to_json())
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(name, path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise


def load_record(path: Path) -> SelfTestRecord | None:
    """The record at ``path``; None when there is none. Raises RecordError
    (or OSError) for a file that cannot be used."""
    try:
        with path.open("rb") as stream:
            raw = stream.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return None
    if len(raw) > MAX_BYTES:
        raise RecordError(f"{path}: larger than {MAX_BYTES // 1024} KiB: not a self-test record")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise RecordError(f"{path}: not a self-test record ({error})") from None
    if not isinstance(data, dict) or data.get("version") != VERSION:
        raise RecordError(f"{path}: not a self-test record of version {VERSION}")
    silent, hosts = data.get("silent"), data.get("hosts_silent", [])
    texts = [data.get(key) for key in ("pin_map", "digest", "at")]
    if not all(isinstance(text, str) for text in texts):
        raise RecordError(f"{path}: pin_map, digest and at must be strings")
    if not isinstance(silent, list) or not all(_is_seat(n) for n in silent):
        raise RecordError(f"{path}: silent: seat numbers 1 to {MAX_SEATS} expected")
    if not isinstance(hosts, list) or not all(name in HOST_BUTTONS for name in hosts):
        raise RecordError(f"{path}: hosts_silent: names of {', '.join(HOST_BUTTONS)} expected")
    pin_map, digest, at = (str(text) for text in texts)
    return SelfTestRecord(pin_map, digest, at, tuple(silent), tuple(hosts))


def silent_seats_for(config: Config) -> frozenset[int]:
    """The seats whose button the console's table leaves to the host's keys:
    those the last self-test found silent, when it ran on the pin map the
    config names, unchanged since, and the seats are real GPIO. Never
    raises: a record that cannot be used is logged and means none."""
    if config.seats.effective_mode() != "gpio":
        return frozenset()  # simulated seats: the keys are every seat's button anyway
    path = record_path(config)
    try:
        record = load_record(path)
        if record is None:
            return frozenset()
        digest = pin_map_digest(config.seats.pin_map)
    except (OSError, RecordError) as error:
        log.warning("the last self-test's record is not used: %s", error)
        return frozenset()
    if record.digest != digest:
        log.info(
            "%s: made on %s, not on %s as it is now: not used",
            path,
            record.pin_map,
            config.seats.pin_map,
        )
        return frozenset()
    if record.silent:
        log.info("%s (%s): seats %s are played by the host's keys", path, record.at, record.silent)
    return frozenset(record.silent)


def _is_seat(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_SEATS
