"""Audio as values: formats, clips, WAV files.

A :class:`Clip` is 16-bit samples (a numpy ``int16`` array, one column per
channel) in a known :class:`AudioFormat`. Whatever a speaker plays is
converted to its stream's format once, when the cue is queued
(:meth:`Clip.converted`), so the audio callback only copies samples.

:func:`read_wav` reads the WAV files people actually record (8/16/24/32-bit
PCM and 32/64-bit float, plain or "extensible" headers, any rate, mono or
stereo) with a small RIFF reader of its own: the standard ``wave`` module of
Python 3.11 refuses extensible headers and float samples.
"""

from __future__ import annotations

import struct
import wave
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

Samples = npt.NDArray[np.int16]

PCM = 1
FLOAT = 3
EXTENSIBLE = 0xFFFE


@dataclass(frozen=True, slots=True)
class AudioFormat:
    """Sample rate (Hz), sample width (bytes) and channel count."""

    rate: int = 22050
    width: int = 2
    channels: int = 1

    def __post_init__(self) -> None:
        if not 1000 <= self.rate <= 384000:
            raise ValueError(f"sample rate {self.rate} Hz is out of range")
        if self.width != 2:
            raise ValueError(f"{8 * self.width}-bit audio: clips are 16-bit")
        # 32: a recording from a microphone per seat (12 seats, a 16- or 18-input card)
        if not 1 <= self.channels <= 32:
            raise ValueError(f"{self.channels} channels is out of range")

    def frames(self, seconds: float) -> int:
        return round(seconds * self.rate)


#: What espeak-ng renders (and so what the speaker opens by default: no resampling).
TTS_FORMAT = AudioFormat(22050, 2, 1)


@dataclass(frozen=True, eq=False, slots=True)
class Clip:
    """A sound in memory: ``samples`` has shape ``(frames,)`` for mono or
    ``(frames, channels)``; it is never written to after construction."""

    samples: Samples
    format: AudioFormat = TTS_FORMAT

    def __post_init__(self) -> None:
        if self.samples.dtype != np.int16:
            raise TypeError(f"clip samples must be int16, not {self.samples.dtype}")
        channels = 1 if self.samples.ndim == 1 else self.samples.shape[1]
        if self.samples.ndim > 2 or channels != self.format.channels:
            raise ValueError(
                f"samples of shape {self.samples.shape} do not fit {self.format.channels} channel(s)"
            )

    @classmethod
    def mono(cls, samples: npt.ArrayLike, rate: int = TTS_FORMAT.rate) -> Clip:
        return cls(np.asarray(samples, dtype=np.int16).reshape(-1), AudioFormat(rate, 2, 1))

    @property
    def frames(self) -> int:
        return int(self.samples.shape[0])

    @property
    def rate(self) -> int:
        return self.format.rate

    @property
    def duration(self) -> float:
        """Length in seconds."""
        return self.frames / self.format.rate

    def converted(self, target: AudioFormat) -> Clip:
        """The clip in another format: channels mixed down (mean) or copied,
        the rate changed by linear interpolation (fine for speech cues)."""
        if target == self.format:
            return self
        data = self.samples.astype(np.float64).reshape(self.frames, self.format.channels)
        if target.channels != self.format.channels:
            mono = data.mean(axis=1, keepdims=True)
            data = np.repeat(mono, target.channels, axis=1)
        if target.rate != self.format.rate and self.frames > 0:
            count = max(1, round(self.frames * target.rate / self.format.rate))
            positions = np.linspace(0, self.frames - 1, count)
            index = np.arange(self.frames)
            data = np.column_stack(
                [np.interp(positions, index, data[:, c]) for c in range(target.channels)]
            )
        out = np.clip(np.round(data), -32768, 32767).astype(np.int16)
        return Clip(out.reshape(-1) if target.channels == 1 else out, target)

    def without_lead_in(self, threshold: int = 330, keep: float = 0.002) -> Clip:
        """The clip from just before its first sample louder than
        ``threshold`` (1 % of full scale): a cue must sound the moment it
        starts, and espeak-ng opens every phrase with ~13 ms of near-silence
        (a recording, often with far more). ``keep`` seconds stay before
        it so that the onset is not clipped. A silent clip is left whole."""
        data = self.samples.reshape(self.frames, self.format.channels)
        loud = np.flatnonzero((np.abs(data.astype(np.int32)) > threshold).any(axis=1))
        start = int(loud[0]) - self.format.frames(keep) if len(loud) else 0
        if start <= 0:
            return self
        return Clip(self.samples[start:].copy(), self.format)


class BadAudio(ValueError):
    """A file that is not a WAV we can play; the message names the file."""


#: the largest clip read whole (a voice pack's phrase is seconds long; this
#: is ~25 minutes of 22 kHz stereo): a recording of the table is streamed
#: instead (``ears.wav_file``)
MAX_CLIP = 128 * 2**20


def read_wav(path: Path) -> Clip:
    """A WAV file as a 16-bit clip in the file's own rate and channels;
    regular files of at most ``MAX_CLIP`` bytes only (a FIFO is refused at
    once, not waited on)."""
    from ..textfiles.regular_file import read_regular

    try:
        data = read_regular(path, MAX_CLIP)
    except OSError as error:
        raise BadAudio(f"{path}: cannot be read ({error.strerror or error})") from None
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise BadAudio(f"{path}: not a WAV file (no RIFF/WAVE header)")
    fmt: tuple[int, int, int, int] | None = None  # tag, channels, rate, bits
    payload: bytes | None = None
    at = 12
    while at + 8 <= len(data) and payload is None:
        chunk, size = data[at : at + 4], struct.unpack_from("<I", data, at + 4)[0]
        body = data[at + 8 : at + 8 + size]  # a streamed file may claim more than it has
        if chunk == b"fmt " and len(body) >= 16:
            tag, channels, rate, _, _, bits = struct.unpack_from("<HHIIHH", body)
            if tag == EXTENSIBLE and len(body) >= 26:
                tag = struct.unpack_from("<H", body, 24)[0]  # the sub-format GUID's first field
            fmt = (tag, channels, rate, bits)
        elif chunk == b"data":
            payload = body
        at += 8 + size + (size & 1)
    if fmt is None or payload is None:
        raise BadAudio(f"{path}: broken WAV file (no {'fmt' if fmt is None else 'data'} chunk)")
    tag, channels, rate, bits = fmt
    if channels < 1 or rate < 1000:
        raise BadAudio(f"{path}: broken WAV header ({channels} channels, {rate} Hz)")
    samples = decode(path, payload, tag, bits)
    samples = samples[: len(samples) - len(samples) % channels]
    if channels > 1:
        samples = samples.reshape(-1, channels)
    try:
        return Clip(samples, AudioFormat(rate, 2, channels))
    except ValueError as error:
        raise BadAudio(f"{path}: {error}") from None


def decode(path: Path | str, payload: bytes, tag: int, bits: int) -> Samples:
    """Raw sample bytes (``tag``: 1 PCM, 3 float) as int16, one value a
    sample; a whole file's or a block of whole frames' (``ears.wav_file``
    streams a recording through it, block by block)."""
    if tag == FLOAT and bits in (32, 64):
        values = np.frombuffer(
            payload[: len(payload) - len(payload) % (bits // 8)], f"<f{bits // 8}"
        )
        return np.clip(np.round(values * 32767), -32768, 32767).astype(np.int16)
    if tag != PCM:
        raise BadAudio(f"{path}: compressed WAV (format {tag:#x}); save it as PCM")
    if bits == 8:
        return ((np.frombuffer(payload, np.uint8).astype(np.int16) - 128) << 8).astype(np.int16)
    if bits == 16:
        return np.frombuffer(payload[: len(payload) & ~1], "<i2").astype(np.int16)
    if bits == 24:
        raw = np.frombuffer(payload[: len(payload) - len(payload) % 3], np.uint8).reshape(-1, 3)
        return (raw[:, 2].astype(np.int8).astype(np.int16) << 8 | raw[:, 1]).astype(np.int16)
    if bits == 32:
        values = np.frombuffer(payload[: len(payload) & ~3], "<i4")
        return (values >> 16).astype(np.int16)
    raise BadAudio(f"{path}: {bits}-bit samples; save it as 16-bit PCM")


def write_wav(path: Path, clip: Clip) -> None:
    """Write a 16-bit PCM WAV file."""
    with wave.open(str(path), "wb") as out:
        out.setnchannels(clip.format.channels)
        out.setsampwidth(2)
        out.setframerate(clip.format.rate)
        out.writeframes(clip.samples.astype("<i2").tobytes())


def rms(clip: Clip | Samples) -> float:
    """Loudness as root mean square, in 16-bit units (0 for silence)."""
    samples = clip.samples if isinstance(clip, Clip) else clip
    if samples.size == 0:
        return 0.0
    return float(np.sqrt(np.mean(samples.astype(np.float64) ** 2)))


def is_silent(clip: Clip | Samples, threshold: float = 100.0) -> bool:
    """True when the RMS is below ``threshold`` (about -50 dBFS by default)."""
    return rms(clip) < threshold


def tone(frequency: float, seconds: float, rate: int = 22050, level: float = 0.3) -> Clip:
    """A sine tone (test signals, stand-in cues for the bench)."""
    t = np.arange(round(seconds * rate)) / rate
    values = np.sin(2 * np.pi * frequency * t) * level * 32767
    return Clip.mono(values.round().astype(np.int16), rate)


def silence(seconds: float, fmt: AudioFormat = TTS_FORMAT) -> Clip:
    shape = (fmt.frames(seconds),) if fmt.channels == 1 else (fmt.frames(seconds), fmt.channels)
    return Clip(np.zeros(shape, dtype=np.int16), fmt)
