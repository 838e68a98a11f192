"""Who spoke: the ``SeatTracker`` port and the microphone-per-seat layout.

A ``SeatTracker`` is fed the chunks of one segment (frames x the card's
channels) and gives that segment one seat with a confidence; ``reset``
readies it for the next. Two implement it: ``ChannelSeats`` here (a
microphone per seat, channel n is seat n + 1) and ``array.ArraySeats`` (a
small array in the middle, after ``companion calibrate``). The live
listener and ``companion listen`` use either the same way.

With a microphone per seat every voice reaches every microphone, its own
seat's loudest: in a reverberant room a neighbour's cardioid gooseneck
hears it only 6-8 dB lower, an omnidirectional one 2-4 dB lower
(testkit/room.py). A 32 ms chunk counts for a channel (``speaking``)
where that channel is louder than both its neighbours round the table and
at least ``ABOVE_ROOM_DB`` above the median channel (the room's level).
Neighbours, not all others: two players talking at once at either end of
the table both count, each on their own channel, so an interjection over
the speaker whose minute it is is not lost (a rule of "the loudest by
6 dB" zeroed those chunks, and in a reverberant room half of every
utterance with them, docs/listening.md). ``ChannelSegments`` turns that into an utterance per
seat, with one voice detector on the loudest channel rather than one per
channel (twelve would cost twelve times the ears' CPU budget).

Sound from beyond the table (the next table's talk, a chair on the floor)
reaches every microphone at a like level: now and then one channel stands
out for a chunk or two, but none speaks for long. ``ChannelSeats``
therefore gives a seat only to a segment whose channel spoke in at least
``CLAIM_SHARE`` of its chunks; ``ChannelSegments`` judges its own
segments alike (``SEGMENT_CLAIM_SHARE``). The table's end does not flag
what no seat claims (``watch.FlagWatcher``'s and ``flags.flags_for``'s
``needs_seat``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt

from .capture import RATE, Samples
from .detect import (
    CHUNK,
    LIFT_DB,
    Chunker,
    ChunkJudge,
    DetectorName,
    Segment,
    Voicing,
    segmenter_for,
)

#: a channel speaks only this far above the room (the median channel's level)
ABOVE_ROOM_DB = 3.0
#: a seat claims a segment only where its channel spoke in at least this
#: share of the chunks fed: a player's channel speaks in most of theirs,
#: sound from beyond the table makes one channel speak now and then
#: (docs/listening.md: on the simulated club's room alone no claim was
#: left from 0.3 up, and no utterance of the table's was lost up to 0.5)
CLAIM_SHARE = 1 / 3
#: the same for a segment of ``ChannelSegments``: cut to where its channel
#: speaks, a player's holds more of it than an utterance with the chunks
#: before its onset does (on the simulated club: the table's normal and
#: loud speech 0.6-1.0, the room alone 0.2-0.5)
SEGMENT_CLAIM_SHARE = 0.5

Mask = npt.NDArray[np.bool_]
Floats = npt.NDArray[np.float64]


class SeatTracker(Protocol):
    def feed(self, chunk: Samples) -> None:
        """More of the segment: (frames, channels) as the card gives them."""

    def verdict(self) -> tuple[int | None, float]:
        """The segment's seat (None: cannot tell) and a confidence 0..1."""

    def reset(self) -> None:
        """Forget the segment: the next one starts."""


def tracker_for(layout: str, channels: int, calibration: Path | None = None) -> SeatTracker | None:
    """The tracker of a layout: none for one microphone, ``ChannelSeats``
    for a microphone per seat, ``ArraySeats`` for the array from its
    calibration (None: the club's, ``calibration.default_path()``);
    ``CalibrationError`` in one line when that is missing or bad."""
    if layout == "channels":
        return ChannelSeats(channels)
    if layout != "array":
        return None
    from .array import ArraySeats
    from .calibration import default_path, load

    return ArraySeats(load(calibration or default_path()))


def chunk_power(samples: Samples) -> Floats:
    """Mean power of each whole ``CHUNK`` of each channel: (chunks, channels)."""
    usable = len(samples) - len(samples) % CHUNK
    frames = samples[:usable].reshape(-1, CHUNK, samples.shape[1])
    sums = np.einsum("kfc,kfc->kc", frames, frames)  # float32 and fast; exact enough to compare
    power: Floats = sums.astype(np.float64) / CHUNK + 1e-12
    return power


#: ``ABOVE_ROOM_DB`` as a power ratio (the rule compares powers: no logarithms)
_ABOVE_ROOM = 10 ** (ABOVE_ROOM_DB / 10)


def speaking(power: Floats) -> Mask:
    """Which channel speaks in each chunk (chunks, channels): louder than
    both neighbours round the table and ``ABOVE_ROOM_DB`` over the median
    channel (the lower one of an even count). One channel: it speaks (there
    is no one else's)."""
    channels = power.shape[1]
    if channels == 1:
        return np.ones_like(power, dtype=bool)
    before, after = _neighbours(channels)
    left, right = power[:, before], power[:, after]
    middle = (channels - 1) // 2
    room = np.partition(power, middle, axis=1)[:, middle : middle + 1]
    mask: Mask = (power > left) & (power > right) & (power >= room * _ABOVE_ROOM)
    return mask


@cache
def _neighbours(channels: int) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """Each seat's neighbours round the table: the one before and after."""
    order = np.arange(channels)
    return order - 1, (order + 1) % channels


def loudest(chunk: Samples) -> Samples:
    """The loudest channel of a chunk: what the one voice detector hears."""
    if chunk.shape[1] == 1:
        return chunk[:, 0]
    mono: Samples = chunk[:, int(np.argmax(chunk_power(chunk)[0]))]
    return mono


def loudest_track(samples: Samples) -> Samples:
    """A recording as the one voice detector hears it: each chunk from its
    loudest channel."""
    power = chunk_power(samples)
    columns = np.repeat(power.argmax(axis=1), CHUNK)
    track: Samples = samples[np.arange(len(columns)), columns]
    return track


class ChannelSeats:
    """A ``SeatTracker`` for a microphone per seat: the seat whose channel
    spoke in most of the segment's chunks (``speaking``), provided it spoke
    in at least ``CLAIM_SHARE`` of all the chunks fed (else no seat: sound
    from beyond the table); the confidence is its share of the chunks in
    which any channel spoke."""

    def __init__(self, channels: int) -> None:
        self.channels = channels
        self._chunks = Chunker()
        self._counts = np.zeros(channels, dtype=np.int64)
        self._energy = np.zeros(channels)
        self._fed = 0  # whole chunks

    def feed(self, chunk: Samples) -> None:
        if chunk.shape[1] != self.channels:
            raise ValueError(f"a block of {chunk.shape[1]} channels; the table has {self.channels}")
        whole = self._chunks.take(chunk)
        if len(whole):
            power = chunk_power(whole)
            self._counts += speaking(power).sum(axis=0)
            self._energy += power.sum(axis=0)
            self._fed += len(power)

    def verdict(self) -> tuple[int | None, float]:
        total = int(self._counts.sum())
        if total == 0:
            return None, 0.0
        # Most chunks; between equal counts, the louder channel.
        best = int(np.lexsort((self._energy, self._counts))[-1])
        if self._counts[best] < CLAIM_SHARE * self._fed:
            return None, 0.0  # no channel spoke for long: no seat's
        return best + 1, round(float(self._counts[best]) / total, 3)

    def reset(self) -> None:
        self._chunks.clear()
        self._counts[:] = 0
        self._energy[:] = 0.0
        self._fed = 0


Judge = Callable[[Samples], float]


class ChannelSegments:
    """Utterances per seat, block by block: ``judge`` (a voice detector)
    hears the loudest channel of each chunk, and each channel's ``Segmenter``
    gets its probability where that channel speaks (``speaking``) and 0
    elsewhere. Overlapping talk from two seats gives two segments.

    A segment keeps its seat only where that seat's channel spoke in at
    least ``SEGMENT_CLAIM_SHARE`` of its chunks; else its seat is None:
    sound from beyond the table. The count comes from a running tally of
    each channel's chunks that spoke, kept for the last few seconds only:
    an utterance's onset lies at most ``Segmenter.lookback_s`` before the
    chunk that opened it, and its end at most ``fade_s`` before the chunk
    that closed it, so memory does not grow with the recording."""

    def __init__(
        self,
        channels: int,
        judge: DetectorName | ChunkJudge,
        start_at: float = 0.0,
        lift_db: float = LIFT_DB,
    ) -> None:
        self.channels = channels
        # Each seat's microphone has its own room's floor (and, with the
        # whisper channel, its own whispers: loudest at their own seat).
        self._voicing = Voicing(judge, channels)
        self._segmenters = [segmenter_for(judge, lift_db) for _ in range(channels)]
        self._chunks = Chunker()
        self._start_at = start_at
        self._count = 0  # chunks judged: their time from a count, not a running sum
        self._silent = [0] * channels  # silent chunks each closed segmenter was fed in a row
        # _spoke[i % KEEP]: each channel's chunks that spoke before chunk i
        # (i from count - KEEP + 1 to count), for the claim
        first = self._segmenters[0]
        reach = max(first.lookback_s + first.window * CHUNK / RATE, first.fade_s, first.hangover_s)
        self._keep = int(reach * RATE / CHUNK) + 8
        self._spoke = np.zeros((self._keep, channels), dtype=np.int64)
        self._since = [
            (0, 0)
        ] * channels  # an open segment's (first chunk, its channel's tally there)

    def feed(self, block: Samples) -> list[Segment]:
        """A block of any length (frames, channels); the utterances that ended in it."""
        whole = self._chunks.take(block)
        if not len(whole):
            return []
        power = chunk_power(whole)
        mask = speaking(power)
        ended: list[Segment] = []
        columns = np.argmax(power, axis=1)
        self._voicing.expect(whole.reshape(-1, CHUNK, self.channels), columns)
        for k in range(len(mask)):
            column = int(columns[k])
            heard, lifts = self._voicing.hear(whole[k * CHUNK : (k + 1) * CHUNK], column, power[k])
            row = mask[k]
            whispered = self._voicing.whispered
            if whispered.any():
                # A whisper is loud at its own seat in 1-5 kHz, not in the
                # room's low rumble: which seat speaks is judged there.
                row = row | (whispered & speaking(self._voicing.mid_power[None])[0])
            at = self._start_at + self._count * CHUNK / RATE
            self._spoke[(self._count + 1) % self._keep] = (
                self._spoke[self._count % self._keep] + row
            )
            self._count += 1
            for channel, segmenter in enumerate(self._segmenters):
                probability = float(heard[channel]) if row[channel] else 0.0
                sounding = bool(row[channel] and self._voicing.sounding[channel])
                # A silent seat's segmenter, closed and with only silence in
                # its window, would learn nothing from one more silent chunk.
                if probability == 0.0 and not sounding and segmenter.open_since is None:
                    if self._silent[channel] >= segmenter.window:
                        continue
                    self._silent[channel] += 1
                else:
                    self._silent[channel] = 0
                was_open = segmenter.open_since is not None
                steady = bool(self._voicing.steady[channel])
                found = segmenter.feed(at, probability, float(lifts[channel]), sounding, steady)
                if not was_open and segmenter.open_since is not None:
                    first = self._chunk_of(segmenter.open_since)
                    self._since[channel] = (first, self._tally(first, channel))
                if found is not None:
                    ended.append(self._claimed(found, channel))
        return ended

    def flush(self) -> list[Segment]:
        """The utterances still open when the sound ends."""
        ended = []
        for channel, segmenter in enumerate(self._segmenters):
            found = segmenter.flush()
            if found is not None:
                ended.append(self._claimed(found, channel))
        return ended

    def _chunk_of(self, seconds: float) -> int:
        return round((seconds - self._start_at) * RATE / CHUNK)

    def _tally(self, chunk: int, channel: int) -> int:
        """How many chunks before ``chunk`` ``channel`` spoke in."""
        if not self._count - self._keep < chunk <= self._count:
            raise RuntimeError(f"chunk {chunk} is no longer kept (at {self._count})")
        return int(self._spoke[chunk % self._keep, channel])

    def _claimed(self, segment: Segment, channel: int) -> Segment:
        """The segment with its channel's seat where that channel spoke in
        at least ``SEGMENT_CLAIM_SHARE`` of its chunks, else with none."""
        first, before = self._since[channel]
        last = self._chunk_of(segment.end)
        if last > first and (self._tally(last, channel) - before) / (last - first) >= (
            SEGMENT_CLAIM_SHARE
        ):
            return Segment(segment.start, segment.end, segment.confidence, channel + 1)
        return Segment(segment.start, segment.end, segment.confidence, None)
