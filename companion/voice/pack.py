"""Voice packs: a club's own recorded voice, cue by cue.

A pack is a folder of WAV files named by phrase key (``thanks.wav``,
``vote_question-seat-3.wav``; ``companion voices list`` prints the keys),
with an optional ``pack.toml`` (name, author, language). A recorded file
wins over the synthetic voice for its phrase; whatever the pack lacks is
spoken by espeak-ng. A file that cannot be played is named in one warning
and skipped, never fatal.
"""

from __future__ import annotations

import logging
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .audio import BadAudio, Clip, read_wav

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class PackInfo:
    name: str
    author: str = ""
    language: str = "ru"


class VoicePack:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        if not folder.is_dir():
            raise FileNotFoundError(f"{folder}: no such voice pack folder")
        self.files = {path.stem: path for path in folder.glob("*.wav")}
        self.info = self._info()
        self._clips: dict[str, Clip | None] = {}

    def _info(self) -> PackInfo:
        path = self.folder / "pack.toml"
        if not path.exists():
            return PackInfo(self.folder.name)
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
            log.warning("%s: ignored (%s)", path, error)
            return PackInfo(self.folder.name)
        return PackInfo(
            str(data.get("name", self.folder.name)),
            str(data.get("author", "")),
            str(data.get("language", "ru")),
        )

    def clip_for(self, key: str) -> Clip | None:
        """The recording of a phrase key, if the pack has a playable one."""
        if key not in self._clips:
            self._clips[key] = self._load(key)
        return self._clips[key]

    def _load(self, key: str) -> Clip | None:
        path = self.files.get(key)
        if path is None:
            return None
        try:
            return read_wav(path)
        except BadAudio as error:
            log.warning("voice pack: %s: skipped", error)
            return None
