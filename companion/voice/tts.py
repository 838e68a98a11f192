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
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from .audio import BadAudio, Clip, read_wav

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


@dataclass(frozen=True, slots=True)
class TtsVoice:
    """An espeak-ng voice and how it speaks: ``voice`` is a language voice
    with an optional variant (``"ru"``, ``"ru+f3"``, ``"en-us+m3"``), ``rate``
    is in words per minute, ``volume`` is 0..2 (1 is espeak's normal)."""

    voice: str = "ru"
    rate: int = 165
    volume: float = 1.0

    def __post_init__(self) -> None:
        if not self.voice or any(c.isspace() for c in self.voice):
            raise ValueError(f"espeak-ng voice {self.voice!r}: give a name like ru or ru+f3")
        if not 80 <= self.rate <= 450:
            raise ValueError(f"speech rate {self.rate}: espeak-ng speaks 80..450 words a minute")
        if not 0.0 <= self.volume <= 2.0:
            raise ValueError(f"volume {self.volume}: 0..2 (1 is normal)")

    @property
    def language(self) -> str:
        return self.voice.partition("+")[0]

    @property
    def variant(self) -> str:
        return self.voice.partition("+")[2]


@dataclass(frozen=True, slots=True)
class EspeakVoice:
    """A voice espeak-ng has: ``id`` is what ``-v`` (and :class:`TtsVoice`) takes."""

    id: str
    name: str
    language: str
    gender: str = ""


def _espeak_binary() -> str | None:
    return shutil.which("espeak-ng") or shutil.which("espeak")


def _voices_table(kind: str) -> list[tuple[EspeakVoice, frozenset[str]]]:
    """Voices from ``espeak-ng --voices[=variant]``, each with the names
    ``-v`` accepts for it (language, other languages, file, voice name)."""
    binary = _espeak_binary()
    if binary is None:
        return []
    option = "--voices" if kind == "language" else f"--voices={kind}"
    try:
        out = subprocess.run(
            [binary, option], capture_output=True, text=True, timeout=10, check=True
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    voices = []
    for line in out.splitlines()[1:]:
        # Pty Language Age/Gender VoiceName File (other-language priority)...
        parts = line.split()
        if len(parts) < 5:
            continue
        gender = {"M": "male", "F": "female"}.get(parts[2].rpartition("/")[2], "")
        name = parts[3].replace("_", " ")
        if kind == "variant":  # "!v/f3": used as the "+f3" of a voice
            voice = EspeakVoice(parts[4].removeprefix("!v/"), name, "", gender)
            aliases = {voice.id}
        else:
            voice = EspeakVoice(parts[1], name, parts[1], gender)
            others = [p.lstrip("(") for p in parts[5:] if p.startswith("(")]
            aliases = {parts[1], parts[3], parts[4], *others}
        voices.append((voice, frozenset(a.lower() for a in aliases)))
    return voices


@cache
def _language_table() -> tuple[tuple[EspeakVoice, frozenset[str]], ...]:
    return tuple(_voices_table("language"))


@cache
def list_voices() -> tuple[EspeakVoice, ...]:
    """The language voices espeak-ng has here (``ru``, ``en-gb``, ``en-us`` ...)."""
    return tuple(voice for voice, _ in _language_table())


@cache
def list_variants() -> tuple[EspeakVoice, ...]:
    """Voice variants (``f3``, ``m3``, ``klatt`` ...), said as ``ru+f3``."""
    return tuple(voice for voice, _ in _voices_table("variant"))


def check_voice(voice: TtsVoice) -> None:
    """Raise ValueError for a voice espeak-ng does not have (when it can tell)."""
    names = set().union(*(aliases for _, aliases in _language_table()))
    if names and voice.language.lower() not in names:
        raise ValueError(
            f"espeak-ng has no voice {voice.language!r} (see `espeak-ng --voices`;"
            " Russian is ru, English en)"
        )
    variants = {v.id.lower() for v in list_variants()}
    if voice.variant and variants and voice.variant.lower() not in variants:
        raise ValueError(
            f"espeak-ng has no variant {voice.variant!r} (see `espeak-ng --voices=variant`;"
            " e.g. ru+f3, ru+m3)"
        )


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


# --- the process's one pyttsx3 engine ------------------------------------------------


@dataclass
class _Job:
    text: str
    voice: TtsVoice
    path: Path
    timeout: float
    done: threading.Event = field(default_factory=threading.Event)
    error: BaseException | None = None


class Pyttsx3Host:
    """The one thread that creates and uses the process's pyttsx3 engine.

    Renderers share one (``TtsRenderer(engine=None)``); a test may make its
    own around a stand-in engine (``engine_factory``).
    """

    def __init__(self, engine_factory: Any = None, settle: Any = None) -> None:
        self._factory = engine_factory or _pyttsx3_engine
        # Called after each render; see _settle_espeak. A stand-in engine needs none.
        self._settle = settle or (_settle_espeak if engine_factory is None else lambda: None)
        self._jobs: queue.Queue[_Job] = queue.Queue()
        self._ready = threading.Event()
        self.failure = ""  # why pyttsx3 cannot be used ("" while it can)
        self.busy_since: float | None = None
        self._thread = threading.Thread(target=self._run, name="pyttsx3", daemon=True)
        self._thread.start()

    def wait_ready(self, timeout: float) -> bool:
        if not self._ready.wait(timeout):
            self.failure = f"pyttsx3 did not start in {timeout:g} s"
        return not self.failure

    def render(self, job: _Job) -> None:
        """Render in the engine's thread; raise TimeoutError when it hangs."""
        self._jobs.put(job)
        while not job.done.wait(0.05):
            since = self.busy_since
            if self.failure or (since is not None and time.monotonic() - since > job.timeout):
                self.failure = (
                    self.failure or f"pyttsx3 did not finish a render in {job.timeout:g} s"
                )
                raise TimeoutError(self.failure)
        if job.error is not None:
            raise job.error

    def _run(self) -> None:
        try:
            engine = self._factory()
        except Exception as error:  # no pyttsx3, no libespeak-ng1, ...
            self.failure = f"pyttsx3 could not start ({error})"
            self._ready.set()
            return
        errors: list[BaseException] = []
        finished = threading.Event()
        completed: list[bool] = []

        def on_error(**notice: Any) -> None:
            errors.append(notice.get("exception") or RuntimeError("pyttsx3 failed"))

        def on_finished(**notice: Any) -> None:  # on espeak's thread
            completed.append(bool(notice.get("completed", True)))
            finished.set()

        engine.connect("error", on_error)
        engine.connect("finished-utterance", on_finished)
        self._ready.set()
        while True:
            job = self._jobs.get()
            if self.failure:  # given up on after a hang: the command renders these
                job.error = RuntimeError(self.failure)
                job.done.set()
                continue
            self.busy_since = time.monotonic()
            errors.clear()
            completed.clear()
            finished.clear()
            try:
                engine.setProperty("voice", job.voice.voice)
                engine.setProperty("rate", job.voice.rate)
                engine.setProperty("volume", job.voice.volume)
                engine.save_to_file(job.text, str(job.path))
                engine.runAndWait()
                if errors:
                    raise errors[0]
                # espeak synthesises on a thread of its own and the driver
                # writes the file from there: runAndWait may return first.
                if not finished.wait(job.timeout):
                    self.failure = f"pyttsx3 did not finish a render in {job.timeout:g} s"
                    raise TimeoutError(self.failure)
                try:
                    self._settle()
                except Exception as error:
                    self.failure = f"pyttsx3 cannot be used here ({error})"
                    raise
                if not completed[0]:
                    raise RuntimeError("pyttsx3 cancelled the render")
            except BaseException as error:
                job.error = error
            self.busy_since = None
            job.done.set()


def _settle_espeak() -> None:
    """Wait until espeak's own thread is done with the last text (it
    announces the end from inside its callback and then still runs the
    driver's bookkeeping), so the next render starts on a quiet engine."""
    from pyttsx3.drivers import _espeak

    _espeak.Synchronize()


def _pyttsx3_engine() -> Any:
    import pyttsx3
    import pyttsx3.drivers.espeak as espeak_driver

    # The driver announces every saved file with a bare print(): give its
    # module a print of its own instead of touching sys.stdout.
    espeak_driver.print = lambda *args, **kwargs: None
    engine = pyttsx3.init(driverName="espeak")
    # runAndWait calls the driver's stop(), which asks espeak whether it is
    # still "playing" the previous text; right after a render it often is,
    # and the flag it leaves cancels a later render halfway. Nothing here
    # ever interrupts a render, so this engine's driver gets a stop() that
    # does nothing.
    engine.proxy._driver.stop = lambda: None
    return engine


_host_lock = threading.Lock()
_host: Pyttsx3Host | None = None


def _pyttsx3_host() -> Pyttsx3Host:
    global _host
    with _host_lock:
        if _host is None:
            _host = Pyttsx3Host()
        return _host


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
        engine = self._engine or _pyttsx3_host()
        if not engine.wait_ready(self._timeout):
            self._use("espeak-ng", engine.failure)
            return False
        try:
            engine.render(_Job(text, voice, path, self._timeout))
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
        binary = _espeak_binary()
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
