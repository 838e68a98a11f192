"""The ``Speaker`` port: cues out through the sound card, or as captions.

``SoundDeviceSpeaker`` keeps ONE output stream open for the whole game; its
callback copies samples from the cue playing now and, when it ends, from the
next one queued. Cues never overlap. An urgent cue («Стоп», «Спасибо», time
is up) empties the queue and cuts in at the next callback. Nothing here
blocks the runtime: ``play`` only queues. With no audio device the game runs
on with captions (``CaptionSpeaker``) and one warning.
"""

from __future__ import annotations

import collections
import logging
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Protocol, TextIO

import numpy as np

from .audio import Clip, Samples

log = logging.getLogger(__name__)


class Speaker(Protocol):
    def play(self, clip: Clip | None, caption: str, *, urgent: bool = False) -> None:
        """Queue a cue (``clip`` None: nothing to play, show the caption)."""

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class Started:
    """A cue's first sample went to the device at ``at`` (monotonic seconds)."""

    caption: str
    at: float


class Playback:
    """The stream callback's side: what plays now and what comes next.

    ``fill`` runs on the audio thread; ``add`` on the runtime's. They share
    a short lock; ``fill`` never allocates beyond numpy slicing.
    """

    def __init__(self, rate: int, clock: Any = time.monotonic) -> None:
        self.rate = rate
        self._clock = clock
        self._lock = threading.Lock()
        self._queue: collections.deque[tuple[Samples, str]] = collections.deque()
        self._current: Samples | None = None
        self._caption = ""
        self._position = 0
        self.started: list[Started] = []

    def add(self, clip: Clip, caption: str, urgent: bool = False) -> None:
        samples = clip.resampled(self.rate).samples
        with self._lock:
            if urgent:
                self._queue.clear()
                self._current = None  # cut in at the next callback
            self._queue.append((samples, caption))

    @property
    def idle(self) -> bool:
        with self._lock:
            return self._current is None and not self._queue

    def fill(self, out: Samples) -> None:
        """Write the next ``len(out)`` samples into ``out``."""
        written = 0
        frames = len(out)
        with self._lock:
            while written < frames:
                if self._current is None:
                    if not self._queue:
                        break
                    self._current, self._caption = self._queue.popleft()
                    self._position = 0
                    self.started.append(Started(self._caption, self._clock()))
                chunk = self._current[self._position : self._position + frames - written]
                out[written : written + len(chunk)] = chunk
                written += len(chunk)
                self._position += len(chunk)
                if self._position >= len(self._current):
                    self._current = None
        out[written:] = 0


class SoundDeviceSpeaker:
    """Plays through sounddevice (PortAudio) from one output stream."""

    def __init__(
        self, device: str | int | None = None, rate: int = 22050, blocksize: int = 128
    ) -> None:
        import sounddevice  # lazily: it needs libportaudio2

        self.playback = Playback(rate)
        self._errors = 0
        self._stream = sounddevice.OutputStream(
            samplerate=rate,
            channels=1,
            dtype="int16",
            blocksize=blocksize,
            latency="low",
            device=device,
            callback=self._callback,
        )
        self._stream.start()

    def _callback(self, outdata: Any, frames: int, time_info: Any, status: Any) -> None:
        if status and self._errors == 0:
            self._errors += 1
            log.warning("audio output: %s", status)
        self.playback.fill(outdata[:, 0])

    def play(self, clip: Clip | None, caption: str, *, urgent: bool = False) -> None:
        if clip is not None:
            self.playback.add(clip, caption, urgent)

    def close(self) -> None:
        self._stream.stop()
        self._stream.close()


class CaptionSpeaker:
    """No sound: every cue is a line of text."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stdout

    def play(self, clip: Clip | None, caption: str, *, urgent: bool = False) -> None:
        print(f"{'!' if urgent else '»'} {caption}", file=self.stream, flush=True)

    def close(self) -> None:
        pass


class FakeSpeaker:
    """Remembers what it was asked to play (tests)."""

    def __init__(self) -> None:
        self.played: list[tuple[str, bool, float]] = []  # caption, urgent, seconds

    def play(self, clip: Clip | None, caption: str, *, urgent: bool = False) -> None:
        self.played.append((caption, urgent, clip.seconds if clip is not None else 0.0))

    def close(self) -> None:
        pass


def open_speaker(device: str | int | None = None, captions: TextIO | None = None) -> Speaker:
    """The sound card if one works, else captions, with one clear warning."""
    try:
        return SoundDeviceSpeaker(device)
    except Exception as error:  # no libportaudio2, no device, a busy device
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        print(f"companion: no audio output device ({reason}): captions only", file=sys.stderr)
        return CaptionSpeaker(captions)


def silence(frames: int) -> Samples:
    return np.zeros(frames, dtype=np.int16)
