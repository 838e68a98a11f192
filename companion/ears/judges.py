"""The detectors a chunk can be judged by (``detect``'s docstring says
what each is): their names, and each as a ``ChunkJudge`` (a 512-sample
mono chunk in, the probability that it is speech out)."""

from __future__ import annotations

from typing import Literal, Protocol

import numpy as np
import numpy.typing as npt

from .capture import RATE, Samples
from .silero import SileroJudge

WEBRTC_FRAME = 480  # webrtcvad takes 10, 20 or 30 ms: the chunk's first 30 ms

DetectorName = Literal["webrtc", "silero", "both", "silero-whisper", "silero-whisper-strict"]
DETECTORS: tuple[DetectorName, ...] = (
    "webrtc",
    "silero",
    "both",
    "silero-whisper",
    "silero-whisper-strict",
)
#: the whisper channel's detectors: ``silero-whisper-strict`` is the one of
#: issue 26's third round, without what its fourth added (the fresh look, the
#: half-believed word, the voiced end): fewer one-word remarks heard, and on
#: the blind part no false segment on any bed (docs/listening.md), for a
#: room whose hum the fourth round flags
WHISPER_DETECTORS: tuple[DetectorName, ...] = ("silero-whisper", "silero-whisper-strict")


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
    what it heard: itself); ``silero-whisper``'s voiced part is Silero."""
    if not isinstance(name, str):
        return name
    if name == "webrtc":
        return WebRtcJudge()
    if name == "silero" or name in WHISPER_DETECTORS:
        return SileroJudge()
    return BothJudge()


def _int16(samples: Samples) -> npt.NDArray[np.int16]:
    scaled: npt.NDArray[np.float32] = np.clip(samples * 32768.0, -32768, 32767)
    return scaled.astype(np.int16)
