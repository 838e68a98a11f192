"""The ``Speaker`` port: cues out through the sound card, or as captions.

``SoundDeviceSpeaker`` keeps ONE output stream open for the whole game. Its
callback (:class:`Playback`) copies samples from the cue playing now and,
when that ends, from the next one queued: cues never overlap. An urgent cue
(«Стоп», «Спасибо», time is up) drops the queue and cuts in over the cue
playing at the next callback. ``play`` only hands the cue over and never
blocks or raises; the callback takes no lock, and stream errors are logged
once. With no audio device the game runs on with captions
(``CaptionSpeaker``) and one warning saying why.
"""

from __future__ import annotations

import collections
import logging
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol, TextIO

from ..runner.priority import raise_priority
from .audio import TTS_FORMAT, AudioFormat, Clip, Samples

log = logging.getLogger(__name__)


class Speaker(Protocol):
    def play(self, clip: Clip | None, caption: str, *, urgent: bool = False) -> None:
        """Queue a cue and return at once; ``clip`` None: nothing to play
        (the caption is all there is)."""

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Started:
    """A cue's first sample was handed to the device at ``handed`` and will
    sound at about ``audible`` (both ``time.monotonic()`` seconds)."""

    caption: str
    handed: float
    audible: float

    @property
    def at(self) -> float:
        """The same as ``handed``."""
        return self.handed


class _Cue(NamedTuple):
    samples: Samples
    caption: str
    urgent: bool


class Playback:
    """What plays now and what comes next: the stream callback's side.

    ``add`` runs on the runtime's thread(s), ``fill`` on the audio thread.
    They share only a lock-free inbox (a deque: appends and pops are atomic);
    everything else belongs to the audio thread, so ``fill`` never waits.
    Cues are converted to the stream's format in ``add``, so ``fill`` only
    copies. ``idle`` compares two counters, each written by one side.
    """

    def __init__(
        self, fmt: AudioFormat | int = TTS_FORMAT, clock: Callable[[], float] = time.monotonic
    ) -> None:
        rate = fmt if isinstance(fmt, int) else fmt.rate
        self.format = AudioFormat(rate, 2, 1)  # mixed to mono; fill copies to every column
        self._clock = clock
        self._inbox: collections.deque[_Cue] = collections.deque()
        self._add_lock = threading.Lock()  # among producers only
        self._added = 0
        self._finished = 0  # played to the end or dropped (audio thread only)
        # Audio thread only:
        self._queue: collections.deque[_Cue] = collections.deque()
        self._current: Samples | None = None
        self._position = 0
        self._listeners: list[Callable[[Started], None]] = []
        self._listener_failed = False
        self.started: list[Started] = []

    def add(self, clip: Clip, caption: str, urgent: bool = False) -> None:
        samples = clip.converted(self.format).samples
        with self._add_lock:
            self._added += 1
            self._inbox.append(_Cue(samples, caption, urgent))

    def on_started(self, listener: Callable[[Started], None]) -> None:
        """Call ``listener(Started)`` when a cue's first sample goes out. It
        runs on the audio thread: it must only record or enqueue."""
        self._listeners.append(listener)

    @property
    def idle(self) -> bool:
        """Nothing playing and nothing queued."""
        return self._finished >= self._added

    def fill(self, out: Samples, *, now: float | None = None, delay: float = 0.0) -> None:
        """Write the next ``len(out)`` frames into ``out`` (shape ``(frames,)``
        or ``(frames, channels)``); ``delay``: seconds from now until the
        block's first frame sounds."""
        if now is None:
            now = self._clock()
        column = out if out.ndim == 1 else out[:, 0]
        self._take_inbox()
        frames = len(column)
        written = 0
        while written < frames:
            if self._current is None:
                if not self._queue:
                    break
                cue = self._queue.popleft()
                self._current, self._position = cue.samples, 0
                offset = written / self.format.rate
                self._announce(Started(cue.caption, now, now + delay + offset))
            chunk = self._current[self._position : self._position + frames - written]
            column[written : written + len(chunk)] = chunk
            written += len(chunk)
            self._position += len(chunk)
            if self._position >= len(self._current):
                self._current = None
                self._finished += 1
        column[written:] = 0
        if out.ndim == 2 and out.shape[1] > 1:
            out[:, 1:] = out[:, :1]

    def _take_inbox(self) -> None:
        while self._inbox:
            cue = self._inbox.popleft()
            if cue.urgent:  # cut in: drop what plays and what waits
                dropped = len(self._queue) + (self._current is not None)
                self._queue.clear()
                self._current = None
                self._finished += dropped
            self._queue.append(cue)

    def _announce(self, event: Started) -> None:
        self.started.append(event)
        for listener in self._listeners:
            try:
                listener(event)
            except Exception:
                if not self._listener_failed:
                    self._listener_failed = True
                    log.exception("a cue-started listener failed (reported once)")


def _open_stream(device: str | int | None, fmt: AudioFormat, blocksize: int, callback: Any) -> Any:
    """A sounddevice output stream (not started yet): mono at ``fmt.rate``
    if the device takes it, else its own rate and channel count."""
    import sounddevice  # lazily: it needs libportaudio2

    attempts: list[tuple[int, int]] = [(fmt.rate, 1)]
    try:
        info = sounddevice.query_devices(device, "output")
    except sounddevice.PortAudioError:
        if device is None:  # PortAudio says "Error querying device -1"
            raise OSError("no sound card found") from None
        info = None
    except ValueError:  # no device of that name: OutputStream below says so
        info = None
    if info is not None:
        attempts += [(int(info["default_samplerate"]), 1), (int(info["default_samplerate"]), 2)]
    error: Exception | None = None
    for rate, channels in attempts:
        try:
            stream = sounddevice.OutputStream(
                samplerate=rate,
                channels=channels,
                dtype="int16",
                blocksize=blocksize,
                latency="low",
                device=device,
                callback=callback,
            )
        except (ValueError, sounddevice.PortAudioError) as failure:
            error = error or failure
            continue
        return stream
    assert error is not None
    raise error


class SoundDeviceSpeaker:
    """Plays cues through sounddevice (PortAudio) from one output stream.

    ``stream_factory(device, fmt, blocksize, callback)`` opens the stream
    (started here once the playback side is ready); tests pass a fake one
    and drive the callback themselves.
    """

    def __init__(
        self,
        device: str | int | None = None,
        fmt: AudioFormat = TTS_FORMAT,
        *,
        blocksize: int = 128,  # 5.8 ms at 22 050 Hz: the longest a due cue waits
        stream_factory: Callable[..., Any] = _open_stream,
        clock: Callable[[], float] = time.monotonic,
        realtime: bool = False,
    ) -> None:
        """``realtime``: the audio thread asks for a real-time priority on
        its first callback (PortAudio leaves it an ordinary thread)."""
        self._clock = clock
        self._reported: set[str] = set()
        self._raise_priority = realtime
        self._stream = stream_factory(device, fmt, blocksize, self._callback)
        rate = int(getattr(self._stream, "samplerate", fmt.rate))
        channels = int(getattr(self._stream, "channels", 1))
        self.format = AudioFormat(rate, 2, channels)
        self.playback = Playback(self.format, clock)
        latency = getattr(self._stream, "latency", 0.0)
        self._latency = float(latency) if isinstance(latency, int | float) else 0.0
        try:
            self._stream.start()
        except BaseException:
            self._stream.close()
            raise

    @property
    def started(self) -> list[Started]:
        """Every cue's start, in order (for the bench and the tests)."""
        return self.playback.started

    def on_started(self, listener: Callable[[Started], None]) -> None:
        self.playback.on_started(listener)

    def play(self, clip: Clip | None, caption: str, *, urgent: bool = False) -> None:
        if clip is None:
            return
        try:
            self.playback.add(clip, caption, urgent)
        except Exception as error:  # audio is not the game: never raise into the runtime
            self._report_once("play", f"could not queue {caption!r}: {error}")

    def wait_idle(self, timeout: float) -> bool:
        """Wait until every queued cue has been handed to the device (for
        one-shot commands before they exit); False on timeout."""
        deadline = time.monotonic() + timeout
        pause = threading.Event()
        while not self.playback.idle:
            if time.monotonic() >= deadline:
                return False
            pause.wait(0.02)
        return True

    def close(self) -> None:
        try:
            self._stream.stop()
            self._stream.close()
        except Exception as error:
            self._report_once("close", f"closing the stream: {error}")

    def _callback(self, outdata: Any, frames: int, time_info: Any, status: Any) -> None:
        now = self._clock()
        try:
            if self._raise_priority:
                self._raise_priority = False
                raise_priority("audio")
            if status:
                self._report_once(str(status), f"audio output: {status}")
            delay = self._latency
            dac, current = (
                getattr(time_info, "outputBufferDacTime", 0.0),
                getattr(time_info, "currentTime", 0.0),
            )
            if dac and current and dac > current:
                delay = dac - current
            self.playback.fill(outdata, now=now, delay=delay)
        except Exception as error:  # an exception here would stop the stream
            outdata.fill(0)
            self._report_once("callback", f"audio callback failed: {error!r}")

    def _report_once(self, kind: str, message: str) -> None:
        if kind not in self._reported:
            self._reported.add(kind)
            log.warning("%s (reported once)", message)


class CaptionSpeaker:
    """No sound: every cue is a line of text on ``stream`` (standard output
    by default); ``!`` marks an urgent cue."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream
        self._failed = False

    def play(self, clip: Clip | None, caption: str, *, urgent: bool = False) -> None:
        try:
            print(f"{'!' if urgent else '»'} {caption}", file=self.stream or sys.stdout, flush=True)
        except (OSError, ValueError) as error:  # a closed or broken stream
            if not self._failed:
                self._failed = True
                log.warning("captions cannot be shown: %s", error)

    def close(self) -> None:
        pass


class Played(NamedTuple):
    caption: str
    urgent: bool
    duration: float  # seconds of sound (0 for a caption only)


class FakeSpeaker:
    """Remembers what it was asked to play (tests): ``played`` as
    (caption, urgent, duration) and ``clips`` in the same order."""

    def __init__(self) -> None:
        self.played: list[Played] = []
        self.clips: list[Clip | None] = []
        self.closed = False

    def play(self, clip: Clip | None, caption: str, *, urgent: bool = False) -> None:
        self.played.append(Played(caption, urgent, clip.duration if clip is not None else 0.0))
        self.clips.append(clip)

    def close(self) -> None:
        self.closed = True


def open_speaker(device: str | int | None = None, captions: TextIO | None = None) -> Speaker:
    """The sound card if one works, else captions with one clear warning.

    ``device``: a PortAudio device index or part of its name (``"pulse"``);
    None for the system's default.
    """
    if isinstance(device, str) and device.isdigit():
        device = int(device)
    try:
        return SoundDeviceSpeaker(device, realtime=True)
    except Exception as error:  # no libportaudio2 (OSError), no device, a busy device ...
        reason = (str(error).splitlines() or [""])[0] or type(error).__name__
        log.warning("no audio output device (%s): captions only", reason)
        return CaptionSpeaker(captions)
