"""Audio as values: formats, clips, WAV files.

Clips are 16-bit mono numpy arrays at a known rate. Everything the speaker
plays is converted once, at load time, to the output stream's format, so the
audio callback only copies samples.
"""

from __future__ import annotations

import wave
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

Samples = npt.NDArray[np.int16]


@dataclass(frozen=True, slots=True)
class AudioFormat:
    rate: int = 22050  # espeak-ng's own rate: no resampling for TTS cues
    width: int = 2  # bytes per sample
    channels: int = 1


@dataclass(frozen=True)
class Clip:
    samples: Samples  # mono int16
    rate: int

    @property
    def seconds(self) -> float:
        return len(self.samples) / self.rate

    def resampled(self, rate: int) -> Clip:
        """The clip at another rate (linear interpolation: fine for speech)."""
        if rate == self.rate or len(self.samples) == 0:
            return self if rate == self.rate else Clip(self.samples, rate)
        count = round(len(self.samples) * rate / self.rate)
        positions = np.linspace(0, len(self.samples) - 1, count)
        values = np.interp(positions, np.arange(len(self.samples)), self.samples)
        return Clip(values.round().astype(np.int16), rate)


class BadAudio(ValueError):
    """A file that is not a WAV we can play; the message names the file."""


def read_wav(path: Path) -> Clip:
    """A 16-bit PCM WAV file (mono or stereo, mixed down) as a clip."""
    try:
        with wave.open(str(path), "rb") as wav:
            width, channels, rate = wav.getsampwidth(), wav.getnchannels(), wav.getframerate()
            frames = wav.readframes(wav.getnframes())
    except (wave.Error, EOFError, OSError) as error:
        raise BadAudio(f"{path}: not a readable WAV file ({error})") from None
    if width != 2:
        raise BadAudio(f"{path}: {8 * width}-bit samples; record 16-bit PCM")
    samples = np.frombuffer(frames, dtype="<i2").astype(np.int16)
    if channels > 1:
        samples = samples.reshape(-1, channels).mean(axis=1).round().astype(np.int16)
    return Clip(samples, rate)


def write_wav(path: Path, clip: Clip) -> None:
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(clip.rate)
        wav.writeframes(clip.samples.astype("<i2").tobytes())


def rms(samples: Samples) -> float:
    """Loudness as root mean square, in 16-bit units (0 for silence)."""
    if len(samples) == 0:
        return 0.0
    return float(np.sqrt(np.mean(samples.astype(np.float64) ** 2)))


def is_silent(clip: Clip, threshold: float = 100.0) -> bool:
    return rms(clip.samples) < threshold


def tone(frequency: float, seconds: float, rate: int = 22050, level: float = 0.3) -> Clip:
    """A sine tone (test signals and the bench's stand-in cues)."""
    t = np.arange(round(seconds * rate)) / rate
    wave_ = np.sin(2 * np.pi * frequency * t) * level * 32767
    return Clip(wave_.round().astype(np.int16), rate)
