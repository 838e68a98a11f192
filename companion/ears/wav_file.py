"""A recording a person named, read as it goes: ``companion listen``,
``companion calibrate --from-wav`` and the ``file:`` microphone.

A recording of an evening is long (a 4-hour mono file at 16 kHz is
460 MB, ten channels of it 4.6 GB), and the path may be anything. So the
file is opened through ``regular_file.open_regular`` (a FIFO, a device, a
folder or a link to ``/dev/zero`` is refused at once, without waiting or
reading), its header is read and checked before any sound (the format,
the channels, the rate, the sample width, a declared length that the file
holds and that lasts at most ``MAX_HOURS``), and its sound is handed out a
block of frames at a time (``WavRecording.blocks``), as float32 in the
same values the voice's reader gives (``voice.audio.decode``): memory
holds a block, whatever the file's length.

A recording refused is ``WavRefused`` (a ``FileRefused``, so an
``OSError``): one line naming the file and what is wrong with it, in the
user's language (``wav_words.WAV_LINES``).
"""

from __future__ import annotations

import errno
import os
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO

import numpy as np
import numpy.typing as npt

from ..textfiles.regular_file import FileRefused, open_regular
from ..voice.audio import EXTENSIBLE, FLOAT, PCM, decode
from .wav_words import wav_line

__all__ = ["MAX_HOURS", "WavFormat", "WavRecording", "WavRefused"]

Samples = npt.NDArray[np.float32]  # (frames, channels), -1..1

#: the longest recording read: an evening is a few hours, a day is not one
MAX_HOURS = 24
#: a recording's channels (a card with a microphone per seat: 12 seats, 16-18 inputs)
MAX_CHANNELS = 32
#: sample rates a recording may have (the ears then want 16 kHz: ``review``)
RATES = (1000, 384_000)
#: chunks looked through for ``fmt `` and ``data`` (LIST, fact, bext...): a
#: file of a million empty chunks is not a recorder's
MAX_CHUNKS = 64
#: widths decoded (``voice.audio.decode``), by kind
WIDTHS = {PCM: (8, 16, 24, 32), FLOAT: (32, 64)}
#: no file is this long: the size limit of ``open_regular`` left open
NO_LIMIT = 2**63 - 1


class WavRefused(FileRefused):
    """A recording that cannot be read: ``said(lang)`` is one line naming
    the file, the why from ``wav_words.WAV_LINES[key]``; ``str()`` English."""

    def __init__(self, path: Path | str, key: str, **fields: Any) -> None:
        self.key, self.fields = key, fields
        OSError.__init__(self, errno.EINVAL, wav_line(key, "en", **fields), str(path))
        self.path, self.reason, self.size, self.limit = Path(path), key, 0, 0

    def why(self, lang: str) -> str:
        return wav_line(self.key, lang, **self.fields)


@dataclass(frozen=True, slots=True)
class WavFormat:
    """What a header says: the sample kind (``PCM``, ``FLOAT``), bits per
    sample, channels and rate."""

    kind: int
    bits: int
    channels: int
    rate: int

    @property
    def frame_bytes(self) -> int:
        return self.channels * self.bits // 8


class WavRecording:
    """An open WAV file whose header has been checked; ``blocks`` reads its
    sound. Use it in ``with``, or ``close`` it."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        fd = open_regular(self.path, os.O_RDONLY, NO_LIMIT)
        self._file: BinaryIO = open(fd, "rb")  # noqa: SIM115  # closed by close()
        try:
            self.format, self.data_at, self.frames = self._header(os.fstat(fd).st_size)
        except BaseException:
            self._file.close()
            raise

    @property
    def rate(self) -> int:
        return self.format.rate

    @property
    def channels(self) -> int:
        return self.format.channels

    @property
    def seconds(self) -> float:
        return self.frames / self.format.rate

    def blocks(self, frames: int) -> Iterator[Samples]:
        """The sound from its start, ``frames`` frames a block (the last
        one shorter), float32 (frames, channels); ``WavRefused`` if the file
        grows shorter meanwhile."""
        fmt, left = self.format, self.frames
        self._file.seek(self.data_at)
        while left > 0:
            count = min(frames, left)
            data = self._file.read(count * fmt.frame_bytes)
            if len(data) < count * fmt.frame_bytes:
                raise WavRefused(self.path, "wav_cut")
            pcm = decode(self.path, data, fmt.kind, fmt.bits).reshape(count, fmt.channels)
            # The voice's reader's values exactly: int16, then / 32768.
            yield pcm.astype(np.float32) / 32768.0
            left -= count

    def read_all(self) -> Samples:
        """The whole sound in memory: for short files only (tests, a clip)."""
        parts = list(self.blocks(1 << 16))
        if not parts:
            return np.zeros((0, self.channels), dtype=np.float32)
        return np.concatenate(parts)

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> WavRecording:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # --- the header ----------------------------------------------------------------

    def _header(self, size: int) -> tuple[WavFormat, int, int]:
        """(format, where the sound starts, frames): every field checked."""
        head = self._file.read(12)
        if len(head) < 12 or head[:4] != b"RIFF" or head[8:12] != b"WAVE":
            raise WavRefused(self.path, "wav_not_wav")
        fmt: WavFormat | None = None
        at = 12
        for _ in range(MAX_CHUNKS):
            self._file.seek(at)
            chunk = self._file.read(8)
            if len(chunk) < 8:
                break
            name, length = chunk[:4], struct.unpack("<I", chunk[4:])[0]
            if name == b"fmt ":
                fmt = self._format(self._file.read(min(length, 64)), length)
            elif name == b"data":
                if fmt is None:
                    raise WavRefused(self.path, "wav_no_chunk", chunk="fmt")
                return fmt, at + 8, self._frames(fmt, length, size - at - 8)
            at += 8 + length + (length & 1)
        raise WavRefused(self.path, "wav_no_chunk", chunk="fmt" if fmt is None else "data")

    def _format(self, body: bytes, length: int) -> WavFormat:
        if length < 16 or len(body) < 16:
            raise WavRefused(self.path, "wav_no_chunk", chunk="fmt")
        tag, channels, rate, _, _, bits = struct.unpack_from("<HHIIHH", body)
        if tag == EXTENSIBLE:
            if len(body) < 26:
                raise WavRefused(self.path, "wav_header", what="WAVE_FORMAT_EXTENSIBLE")
            tag = struct.unpack_from("<H", body, 24)[0]  # the sub-format GUID's first field
        if tag not in WIDTHS:
            raise WavRefused(self.path, "wav_compressed", tag=f"{tag:#x}")
        if bits not in WIDTHS[tag]:
            raise WavRefused(self.path, "wav_bits", bits=bits)
        if not 1 <= channels <= MAX_CHANNELS:
            raise WavRefused(self.path, "wav_channels", channels=channels, most=MAX_CHANNELS)
        if not RATES[0] <= rate <= RATES[1]:
            raise WavRefused(self.path, "wav_rate_bad", rate=rate)
        return WavFormat(tag, bits, channels, rate)

    def _frames(self, fmt: WavFormat, declared: int, present: int) -> int:
        """The whole frames of sound: the declared length, which the file
        must hold; at most ``MAX_HOURS`` of them."""
        if declared > present:
            raise WavRefused(self.path, "wav_short", declared=declared, present=max(0, present))
        frames = declared // fmt.frame_bytes  # a torn last frame is left out
        if frames > MAX_HOURS * 3600 * fmt.rate:
            minutes = frames // fmt.rate // 60
            raise WavRefused(
                self.path, "wav_too_long", hours=minutes // 60, minutes=minutes % 60, most=MAX_HOURS
            )
        return frames
