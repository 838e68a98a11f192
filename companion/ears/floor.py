"""The room's floor: how loud the room is under the speech, per channel
(or per band: ``whisper.Bands``), learned from every chunk heard
(docs/listening.md, "The room's floor")."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from .capture import RATE

CHUNK = 512  # detect.CHUNK: 32 ms at 16 kHz
#: the room's floor: this percentile of the chunk levels heard in the last
#: ``FLOOR_S`` (speech among them: a floor that a wrong start cannot freeze)
FLOOR_S = 8.0
FLOOR_PERCENTILE = 20.0
#: chunks between two reckonings of the floor (it moves slowly)
FLOOR_EVERY = 8
#: quieter than any microphone's own hiss: a gap in the signal (a file's
#: digital silence) counts as this loud, so that a floor never sinks to
#: the -120 dB of zeros
SILENT_DB = -90.0


class RoomFloor:
    """The room's level under the speech: ``FLOOR_PERCENTILE`` of each
    channel's chunk levels over the last ``FLOOR_S`` seconds. Fed every
    chunk, speech or not."""

    def __init__(self, channels: int = 1, seconds: float = FLOOR_S) -> None:
        self._size = max(1, round(seconds * RATE / CHUNK))
        self._levels = np.zeros((self._size, channels))
        self._count = 0
        self._floor = np.zeros(channels)
        self._floor_one = 0.0  # the first channel's, as a float (``feed_one``)

    def feed(self, levels: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """One chunk's levels (dB, one per channel); the floor under them."""
        self._levels[self._count % self._size] = np.maximum(levels, SILENT_DB)
        self._reckon()
        return self._floor

    def feed_one(self, level: float) -> float:
        """``feed`` for one channel: the floor under ``level``, the same to
        the bit without numpy's cost a call on every chunk (a Pi's core
        spends more on a ufunc of one value than on the arithmetic)."""
        self._levels[self._count % self._size, 0] = max(level, SILENT_DB)
        self._reckon()
        return self._floor_one

    def feed_block(self, levels: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """(chunks, channels): ``feed`` for each row in turn, to the bit,
        each row's floor out, with numpy called per block, not per chunk
        (the rows between two reckonings share a floor)."""
        floors = np.empty_like(levels)
        clipped = np.maximum(levels, SILENT_DB)
        done = 0
        while done < len(levels):
            # the rows up to the next reckoning (or the ring's end)
            at = self._count % self._size
            upto = len(levels) - done
            upto = min(upto, self._size - at, self._next_reckoning() - self._count)
            self._levels[at : at + upto] = clipped[done : done + upto]
            floors[done : done + upto - 1] = self._floor
            self._count += upto - 1
            self._reckon()
            floors[done + upto - 1] = self._floor
            done += upto
        return floors

    def _next_reckoning(self) -> int:
        """The count after which the floor is next reckoned."""
        if self._count < FLOOR_EVERY:
            return self._count + 1
        return (self._count // FLOOR_EVERY + 1) * FLOOR_EVERY

    def _reckon(self) -> None:
        self._count += 1
        if self._count <= FLOOR_EVERY or self._count % FLOOR_EVERY == 0:
            heard = self._levels[: min(self._count, self._size)]
            # The k-th lowest, not np.percentile's interpolation: the same to
            # a fraction of a dB, and here 8 µs against 290 µs.
            k = int(len(heard) * FLOOR_PERCENTILE / 100)
            self._floor = np.partition(heard, k, axis=0)[k]
            self._floor_one = float(self._floor[0])

    def lift(self, level: float) -> float:
        """How far one channel's chunk stands above the room: ``level``
        fed, less the floor."""
        return level - float(self.feed([level])[0])


def median(values: Sequence[float]) -> float:
    """``np.median``'s value for a handful of floats (the same to the bit:
    the middle one, or the mean of the two), without its cost: some 20 us
    a call here, and it was called on most voiced chunks."""
    ordered = sorted(values)
    half = len(ordered) // 2
    return ordered[half] if len(ordered) % 2 else (ordered[half - 1] + ordered[half]) / 2
