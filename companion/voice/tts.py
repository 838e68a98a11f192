"""Text to WAV with espeak-ng, ahead of time, into a cache.

pyttsx3 drives espeak-ng here, with its traps kept out (stack-notes): it is
only ever asked to render files, from one worker thread that owns the
engine; its "Audio saved to …" print is silenced in its own module (not by
swapping ``sys.stdout``, which other threads use); ``say()`` (which shells out
to ``aplay``) is never called. If pyttsx3 cannot start, or a render does not
finish in time, the ``espeak-ng`` command renders instead.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import logging
import os
import shutil
import subprocess
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .audio import BadAudio, Clip, read_wav

log = logging.getLogger(__name__)

_RENDER_TIMEOUT_S = 10.0


@dataclass(frozen=True, slots=True)
class TtsVoice:
    """An espeak-ng voice and how it speaks."""

    voice: str = "ru"  # espeak-ng voice: "ru", "ru+f3", "en", ...
    rate: int = 165  # words per minute
    volume: float = 1.0

    @property
    def language(self) -> str:
        return self.voice.split("+")[0]


def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "companion" / "voice"


class TtsRenderer:
    """Renders text to WAV files in one worker thread."""

    def __init__(self) -> None:
        self._pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="tts")
        self._engine: Any = None
        self._voice_ids: dict[str, str] = {}
        self.backend = "none"
        self.renders = 0
        self._lock = threading.Lock()

    def render(self, text: str, voice: TtsVoice, path: Path) -> None:
        """Render ``text`` to ``path`` (blocking; one render at a time)."""
        future = self._pool.submit(self._render, text, voice, path)
        future.result(timeout=_RENDER_TIMEOUT_S * 2)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    # --- in the worker thread ------------------------------------------------
    def _render(self, text: str, voice: TtsVoice, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".part.wav")
        with self._lock:
            self.renders += 1
        if self._pyttsx3_ready() and self._pyttsx3_render(text, voice, partial):
            partial.replace(path)
            return
        self._espeak_render(text, voice, partial)
        partial.replace(path)

    def _pyttsx3_ready(self) -> bool:
        if self._engine is not None:
            return True
        if self.backend == "espeak-ng":
            return False
        try:
            import pyttsx3
            import pyttsx3.drivers.espeak as espeak_driver

            # The driver announces every saved file on stdout: silence it there.
            espeak_driver.print = lambda *args, **kwargs: None
            self._engine = pyttsx3.init(driverName="espeak")
            for v in self._engine.getProperty("voices"):
                for language in v.languages or ():
                    self._voice_ids.setdefault(str(language), v.id)
            self.backend = "pyttsx3"
            return True
        except Exception as error:  # no pyttsx3, no libespeak-ng1, ...
            log.warning("pyttsx3 could not start (%s): rendering with the espeak-ng command", error)
            self.backend = "espeak-ng"
            return False

    def _pyttsx3_render(self, text: str, voice: TtsVoice, path: Path) -> bool:
        engine = self._engine
        language = voice.language
        voice_id = self._voice_ids.get(language, language)
        variant = voice.voice.partition("+")[2]
        engine.setProperty("voice", f"{voice_id}+{variant}" if variant else voice_id)
        engine.setProperty("rate", voice.rate)
        engine.setProperty("volume", voice.volume)
        engine.save_to_file(text, str(path))
        engine.runAndWait()
        try:
            return read_wav(path).samples.size != 0
        except BadAudio:
            return False

    def _espeak_render(self, text: str, voice: TtsVoice, path: Path) -> None:
        binary = shutil.which("espeak-ng") or shutil.which("espeak")
        if binary is None:
            raise RuntimeError("neither pyttsx3 nor the espeak-ng command can speak here")
        amplitude = str(round(100 * voice.volume))
        command = [
            binary,
            "-v",
            voice.voice,
            "-s",
            str(voice.rate),
            "-a",
            amplitude,
            "-w",
            str(path),
            text,
        ]
        subprocess.run(command, check=True, timeout=_RENDER_TIMEOUT_S, capture_output=True)


class WavCache:
    """Rendered phrases on disk, keyed by text and voice; loaded into memory
    so that a cue plays the moment it is due."""

    def __init__(self, folder: Path | None = None, renderer: TtsRenderer | None = None) -> None:
        self.folder = folder or default_cache()
        self.renderer = renderer or TtsRenderer()

    def path_for(self, text: str, voice: TtsVoice) -> Path:
        key = f"{voice.voice}|{voice.rate}|{voice.volume}|{text}"
        digest = hashlib.sha256(key.encode()).hexdigest()[:24]
        return self.folder / voice.voice.replace("+", "_") / f"{digest}.wav"

    def clip(self, text: str, voice: TtsVoice) -> Clip:
        """The clip for ``text``, rendered now if it is not cached."""
        path = self.path_for(text, voice)
        if not path.exists():
            self.renderer.render(text, voice, path)
        return read_wav(path)

    def render_all(self, texts: Iterable[str], voice: TtsVoice) -> dict[str, Clip]:
        """Render what is missing and load every clip into memory."""
        return {text: self.clip(text, voice) for text in dict.fromkeys(texts)}


@dataclass(frozen=True, slots=True)
class EspeakVoice:
    id: str
    language: str
    name: str


def list_voices() -> list[EspeakVoice]:
    """The voices espeak-ng has here."""
    binary = shutil.which("espeak-ng")
    if binary is None:
        return []
    out = subprocess.run([binary, "--voices"], capture_output=True, text=True, timeout=10).stdout
    voices = []
    for line in out.splitlines()[1:]:
        parts = line.split()
        if len(parts) >= 5:
            voices.append(EspeakVoice(id=parts[1], language=parts[1], name=parts[3]))
    return voices
