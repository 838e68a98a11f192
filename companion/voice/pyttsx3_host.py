"""The process's one pyttsx3 engine, on a thread of its own.

pyttsx3's espeak driver is one C library per process with one global
callback: two engines, or one engine used from two threads, steal each
other's audio. So one process-wide thread (``Pyttsx3Host``) owns the only
engine and every ``tts.TtsRenderer`` hands it its jobs; the traps it keeps
out are listed in ``voice/tts.py``.
"""

from __future__ import annotations

import queue
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .espeak_voices import TtsVoice


@dataclass
class Job:
    """One text to render into ``path``; ``done`` once it is (or ``error``)."""

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
        self._jobs: queue.Queue[Job] = queue.Queue()
        self._ready = threading.Event()
        self.failure = ""  # why pyttsx3 cannot be used ("" while it can)
        self.busy_since: float | None = None
        self._thread = threading.Thread(target=self._run, name="pyttsx3", daemon=True)
        self._thread.start()

    def wait_ready(self, timeout: float) -> bool:
        if not self._ready.wait(timeout):
            self.failure = f"pyttsx3 did not start in {timeout:g} s"
        return not self.failure

    def render(self, job: Job) -> None:
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


def shared_host() -> Pyttsx3Host:
    """The process's one host, started when first asked for."""
    global _host
    with _host_lock:
        if _host is None:
            _host = Pyttsx3Host()
        return _host
