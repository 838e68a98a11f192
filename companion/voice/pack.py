"""Voice packs: a club's own recorded voice, cue by cue.

A pack is a folder of WAV files named by phrase key (``thanks.wav``,
``vote_question-seat-3.wav``; ``companion voices list`` prints the keys)
with an optional ``pack.toml``::

    name = "Клуб «Полночь», ведущий Андрей"
    author = "Андрей"
    language = "ru"

A recording wins over the synthetic voice for its phrase; whatever the pack
lacks is spoken by espeak-ng. A file that cannot be played (not a WAV, a
compressed WAV, an MP3 named ``.wav``) gets one warning naming it and is
skipped: a pack never stops a game.
"""

from __future__ import annotations

import logging
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from .audio import BadAudio, Clip, read_wav

log = logging.getLogger(__name__)

#: Files in a pack folder that are not recordings and need no warning.
_QUIET_SUFFIXES = {".toml", ".md", ".txt", ".pdf", ".odt", ".doc", ".docx"}


@dataclass(frozen=True, slots=True)
class PackInfo:
    """What ``pack.toml`` says (the folder's name when it says nothing)."""

    name: str
    author: str = ""
    language: str = "ru"


class VoicePack:
    """The recordings in ``folder``, loaded on first use and kept in memory."""

    def __init__(self, folder: Path) -> None:
        if not folder.is_dir():
            raise FileNotFoundError(f"{folder}: no such voice pack folder")
        self.folder = folder
        self.info = self._read_info()
        self.files: dict[str, Path] = {}
        for path in sorted(folder.iterdir()):
            if path.name.startswith(".") or not path.is_file():
                continue
            if path.suffix.lower() == ".wav":
                self.files[path.stem] = path
            elif path.suffix.lower() not in _QUIET_SUFFIXES:
                log.warning("voice pack: %s: not a .wav file: skipped", path)
        self._clips: dict[str, Clip | None] = {}

    @property
    def keys(self) -> frozenset[str]:
        """The phrase keys the pack has a file for (playable or not)."""
        return frozenset(self.files)

    def clip_for(self, key: str, fallback_keys: Sequence[str] = ()) -> Clip | None:
        """The recording for ``key``, else for the first fallback key the pack
        has a playable file for, else None (the synthetic voice speaks)."""
        for candidate in (key, *fallback_keys):
            clip = self._load(candidate)
            if clip is not None:
                return clip
        return None

    def load_all(self) -> int:
        """Load every recording now (warnings come at start-up, not in the
        game); the number of playable ones."""
        return sum(self._load(key) is not None for key in self.files)

    def _load(self, key: str) -> Clip | None:
        if key not in self._clips:
            self._clips[key] = None
            path = self.files.get(key)
            if path is not None:
                try:
                    clip = read_wav(path)
                except BadAudio as error:
                    log.warning("voice pack: %s: skipped", error)
                else:
                    if clip.frames == 0:
                        log.warning("voice pack: %s: no sound in it: skipped", path)
                    else:
                        self._clips[key] = clip
        return self._clips[key]

    def _read_info(self) -> PackInfo:
        path = self.folder / "pack.toml"
        default = PackInfo(self.folder.name)
        if not path.exists():
            return default
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
            log.warning("voice pack: %s: ignored (%s)", path, error)
            return default
        fields = {}
        for name in ("name", "author", "language"):
            value = data.get(name, getattr(default, name))
            if not isinstance(value, str):
                log.warning("voice pack: %s: %s must be text: ignored", path, name)
                value = getattr(default, name)
            fields[name] = value
        return PackInfo(**fields)
