"""Text to WAV with espeak-ng, ahead of time, into a cache.

pyttsx3 drives espeak-ng here, with its traps kept out (stack notes, and
what its espeak driver was seen doing here):

- The driver is one C library per process with one global callback: two
  pyttsx3 engines, or one engine used from two threads, steal each other's
  audio. So one process-wide thread (:class:`Pyttsx3Host`) owns the only
  engine, and every :class:`TtsRenderer` hands it its jobs.
- It is only asked to render files: ``say()`` shells out to ``aplay`` and can
  later overwrite a saved file; it is never called.
- The driver prints "Audio saved to …" on stdout. Its module's ``print`` is
  replaced; ``sys.stdout`` (which other threads use) is left alone.
- espeak synthesises on a thread of its own and the driver writes the file
  from there: ``runAndWait`` can return before the file exists. A render is
  done when the driver says "finished-utterance", and espeak is let to settle
  before the next one (else the driver's ``stop()`` cancels it halfway).
- ``setProperty`` errors are swallowed in pyttsx3's command queue (an unknown
  voice quietly keeps the previous one), so voices are checked against
  ``espeak-ng --voices`` first, and its ``error`` notifications are collected.
- ``runAndWait`` never returns, or the file never comes, when the driver
  fails inside espeak's callback. Each render has a deadline; after a hang,
  or when pyttsx3 cannot start, the ``espeak-ng`` command renders instead
  (same library, same sound), and the renderer says so once
  (:attr:`TtsRenderer.backend`, a warning in the log).
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
import logging
import os
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path

from .audio import BadAudio, Clip, read_wav

# TtsVoice as TtsVoice: what every caller hands the renderer and the cache,
# so it is theirs to import from here too
from .espeak_voices import TtsVoice as TtsVoice
from .espeak_voices import check_voice, espeak_binary
from .pyttsx3_host import Job, Pyttsx3Host, shared_host

log = logging.getLogger(__name__)

#: How long one phrase may take to render (espeak takes ~15 ms for a phrase).
RENDER_TIMEOUT_S = 10.0
#: The longest text handed to espeak-ng. The longest phrase of the shipped
#: catalogues is ~130 characters; 1000 are about 70 s of speech and render in
#: under a second. Far longer texts crash libespeak-ng inside pyttsx3 (a
#: segfault from ~28 kB of UTF-8 here, espeak-ng 1.51) and pyttsx3 collects
#: the sound in quadratic time.
MAX_TEXT_CHARS = 1000
_CACHE_VERSION = 1  # bump when rendering changes, so old files are not reused


class RenderError(OSError):
    """The espeak-ng command could not render a text; ``str()`` is one line."""


def check_text(text: str) -> None:
    """Raise ValueError for a text that must not reach espeak-ng: empty, or
    longer than :data:`MAX_TEXT_CHARS`."""
    if not text.strip():
        raise ValueError("nothing to say: the text is empty")
    if len(text) > MAX_TEXT_CHARS:
        raise ValueError(
            f"too long to speak: {len(text)} characters (at most {MAX_TEXT_CHARS}):"
            f" {text[:40]!r}..."
        )


def default_cache() -> Path:
    """``$XDG_CACHE_HOME/companion/voice`` (``~/.cache/companion/voice``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "companion" / "voice"


# --- renderer and cache ---------------------------------------------------------------


class TtsRenderer:
    """Renders text to WAV files on one worker thread.

    ``submit`` returns a Future; ``render`` blocks. ``backend`` is
    ``"pyttsx3"`` or ``"espeak-ng"`` (the command) once the first render ran.
    ``prefer="espeak-ng"`` skips pyttsx3; ``engine`` replaces the shared
    pyttsx3 host (tests). ``renders`` counts the files actually rendered.
    """

    def __init__(
        self,
        *,
        prefer: str = "pyttsx3",
        timeout: float = RENDER_TIMEOUT_S,
        engine: Pyttsx3Host | None = None,
    ) -> None:
        if prefer not in ("pyttsx3", "espeak-ng"):
            raise ValueError(f"unknown TTS backend {prefer!r}: pyttsx3 or espeak-ng")
        self._prefer = prefer
        self._timeout = timeout
        self._engine = engine
        self._pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="tts")
        self._checked: set[TtsVoice] = set()
        self.backend = ""
        self.renders = 0

    def submit(self, text: str, voice: TtsVoice, path: Path) -> concurrent.futures.Future[Path]:
        check_text(text)
        return self._pool.submit(self._render, text, voice, path)

    def render(self, text: str, voice: TtsVoice, path: Path) -> Path:
        return self.submit(text, voice, path).result()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> TtsRenderer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- on the worker thread -------------------------------------------------
    def _render(self, text: str, voice: TtsVoice, path: Path) -> Path:
        if voice not in self._checked:
            check_voice(voice)
            self._checked.add(voice)
        path.parent.mkdir(parents=True, exist_ok=True)
        # A name of its own in the same folder, then an atomic rename: two
        # renderers (threads or processes) writing one key never mix files.
        fd, name = tempfile.mkstemp(prefix=".render-", suffix=".wav", dir=path.parent)
        os.close(fd)
        partial = Path(name)
        try:
            if not self._with_pyttsx3(text, voice, partial):
                self._with_command(text, voice, partial)
            read_wav(partial)  # a file we cannot read must not enter the cache
            partial.replace(path)
        finally:
            partial.unlink(missing_ok=True)
        self.renders += 1
        return path

    def _with_pyttsx3(self, text: str, voice: TtsVoice, path: Path) -> bool:
        if self._prefer != "pyttsx3" or self.backend == "espeak-ng":
            self._use("espeak-ng", "asked for")
            return False
        engine = self._engine or shared_host()
        if not engine.wait_ready(self._timeout):
            self._use("espeak-ng", engine.failure)
            return False
        try:
            engine.render(Job(text, voice, path, self._timeout))
            if read_wav(path).frames > 0:
                self._use("pyttsx3", "")
                return True
            reason = "pyttsx3 rendered an empty file"
        except Exception as error:
            if engine.failure:  # hung, or broken for good: the command from now on
                self._use("espeak-ng", engine.failure)
                return False
            reason = f"pyttsx3 failed ({error})"
        log.warning("%s for %r: rendering it with the espeak-ng command", reason, text)
        return False

    def _use(self, backend: str, reason: str) -> None:
        if self.backend == backend:
            return
        if backend == "espeak-ng" and reason != "asked for":
            log.warning("%s: rendering with the espeak-ng command", reason)
        else:
            log.info("rendering speech with %s", backend)
        self.backend = backend

    def _with_command(self, text: str, voice: TtsVoice, path: Path) -> None:
        binary = espeak_binary()
        if binary is None:
            raise RenderError("cannot render speech: pyttsx3 failed and espeak-ng is not installed")
        command = [binary, "-v", voice.voice, "-s", str(voice.rate)]
        command += ["-a", str(round(100 * voice.volume)), "-w", str(path), "--stdin"]
        # The text on stdin: a phrase starting with "-" is not an option.
        try:
            done = subprocess.run(
                command, input=text.encode(), capture_output=True, timeout=self._timeout
            )
        except subprocess.TimeoutExpired:
            raise RenderError(
                f"espeak-ng did not render {text[:40]!r} in {self._timeout:g} s"
            ) from None
        if done.returncode != 0:
            lines = done.stderr.decode(errors="replace").strip().splitlines()
            message = lines[0] if lines else f"exit {done.returncode}"
            raise RenderError(f"espeak-ng could not render {text[:40]!r}: {message}")


class WavCache:
    """Rendered phrases on disk, keyed by text and voice, loaded into memory
    so that a cue plays the moment it is due."""

    def __init__(self, folder: Path | None = None, renderer: TtsRenderer | None = None) -> None:
        self.folder = folder or default_cache()
        self.renderer = renderer or TtsRenderer()

    def path_for(self, text: str, voice: TtsVoice) -> Path:
        key = json.dumps([_CACHE_VERSION, text, voice.voice, voice.rate, voice.volume])
        digest = hashlib.sha256(key.encode()).hexdigest()[:32]
        return self.folder / voice.voice.replace("+", "_").replace("/", "_") / f"{digest}.wav"

    def clip(self, text: str, voice: TtsVoice) -> Clip:
        """The clip for ``text``, rendered now if it is not cached (blocks)."""
        return self.render_all([text], voice)[text]

    def render_all(self, texts: Iterable[str], voice: TtsVoice) -> dict[str, Clip]:
        """Render what is missing and load every clip into memory."""
        wanted = {text: self.path_for(text, voice) for text in dict.fromkeys(texts)}
        clips: dict[str, Clip] = {}
        for text, path in wanted.items():
            if path.exists():
                try:
                    clips[text] = read_wav(path)
                except BadAudio as error:  # a damaged cache file: render it again
                    log.warning("voice cache: %s: rendering again", error)
        pending = {
            text: self.renderer.submit(text, voice, path)
            for text, path in wanted.items()
            if text not in clips
        }
        for text, future in pending.items():
            clips[text] = read_wav(future.result())
        return {text: clips[text] for text in wanted}
