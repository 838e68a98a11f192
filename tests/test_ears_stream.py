"""``companion listen`` hears a recording as it comes (issue 24, item 7):
each layout's segmenter fed in blocks of any size gives what it gives fed
the whole recording at once, and the array's seats are those of each
utterance's whole span fed at once (main's ``one_seat_each``, kept here as
the reference). bench/listen_same.py compares the command's output with
main's whole-file command over 33 simulated recordings."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from companion.ears.array import ArraySeats, Calibration, geometry
from companion.ears.attribution import ChannelSegments, chunk_power, speaking
from companion.ears.detect import CHUNK, MonoSegments, Segment, segments
from companion.ears.seated import SeatedSegments

RATE = 16_000
SHAPE = geometry("respeaker-6mic")
#: each seat's delay at each microphone (samples): where the sound comes from
DELAYS = {1: (0, 2, 4, 5, 3, 1), 2: (5, 3, 1, 0, 2, 4), 3: (3, 5, 4, 1, 0, 2)}


def _loud(chunk: np.ndarray) -> float:
    """A detector that hears anything loud as speech."""
    return 0.9 if float(np.mean(chunk**2)) > 1e-4 else 0.0


def _array_sound(rng: np.random.Generator) -> np.ndarray:
    """Six microphones hearing seats 1-3 in turn (noise bursts, words and
    short pauses, one of them 40 s without a pause long enough to end it),
    each from its own direction, over the room's hiss."""
    parts = []
    for seat, seconds in ((1, 2.0), (2, 3.1), (3, 40.0), (1, 1.3), (2, 0.2), (3, 2.7)):
        n = int(seconds * RATE)
        voice = rng.standard_normal(n + 8) * 0.1
        voice[(np.arange(n + 8) // 2400) % 3 == 2] *= 0.02  # 0.15 s pauses between "words"
        mics = np.column_stack([voice[8 - d : 8 - d + n] for d in DELAYS[seat]])
        gap = int(rng.uniform(0.8, 1.6) * RATE)
        parts += [np.zeros((gap, 6)), mics]
    sound = np.concatenate([*parts, np.zeros((RATE, 6))])
    return (sound + rng.standard_normal(sound.shape) * 0.002).astype(np.float32)


def _calibration() -> Calibration:
    pairs = list(combinations(range(6), 2))
    seats = {s: tuple((d[j] - d[i]) / RATE for i, j in pairs) for s, d in DELAYS.items()}
    return Calibration(SHAPE.name, RATE, seats)


def _one_seat_each(mono: np.ndarray, samples: np.ndarray, tracker: ArraySeats) -> list[Segment]:
    """main's ``review.one_seat_each``: the recording whole, each segment's
    span fed to the tracker at once."""
    found = []
    for segment in segments(mono, _loud):
        tracker.reset()
        tracker.feed(samples[round(segment.start * RATE) : round(segment.end * RATE)])
        seat, sure = tracker.verdict()
        found.append(Segment(segment.start, segment.end, round(segment.confidence * sure, 3), seat))
    return found


def _fed(segmenter: MonoSegments | ChannelSegments | SeatedSegments, sound: np.ndarray, sizes: list[int]) -> list[Segment]:  # fmt: skip
    found, first = [], 0
    while first < len(sound):
        size = sizes[len(found) % len(sizes)] if sizes else len(sound)
        found += segmenter.feed(sound[first : first + size])
        first += size
    return found + segmenter.flush()


BLOCKS = [[], [CHUNK], [480, 4_000, 1, 65_536], [CHUNK * 128]]


@pytest.mark.parametrize("sizes", BLOCKS)
def test_the_array_s_seats_are_those_of_each_utterance_heard_whole(sizes: list[int]) -> None:
    rng = np.random.default_rng(11)
    sound = _array_sound(rng)
    whole = _one_seat_each(sound.mean(axis=1), sound, ArraySeats(_calibration()))
    streamed = _fed(SeatedSegments(ArraySeats(_calibration()), _loud), sound, sizes)
    assert streamed == whole
    # The 0.2 s one is too short to count; the 40 s one is one utterance.
    assert [s.seat for s in whole] == [1, 2, 3, 1, 3]
    assert whole[2].end - whole[2].start > 39


class Spans:
    """A seat tracker that keeps what it was fed for each utterance."""

    def __init__(self) -> None:
        self.fed: list[np.ndarray] = []
        self.spans: list[np.ndarray] = []

    def feed(self, chunk: np.ndarray) -> None:
        assert len(chunk) <= CHUNK  # a frame at most a call: CrossSpectra adds them in order
        self.fed.append(chunk.copy())

    def verdict(self) -> tuple[int | None, float]:
        self.spans.append(np.concatenate(self.fed) if self.fed else np.zeros((0, 6)))
        return len(self.spans), 1.0

    def reset(self) -> None:
        self.fed = []


@pytest.mark.parametrize("sizes", BLOCKS)
def test_the_tracker_hears_each_utterance_from_its_onset_to_its_end(sizes: list[int]) -> None:
    """Its onset known chunks after it came, its end a second after it
    went: the tracker is fed exactly the utterance's span all the same."""
    sound = _array_sound(np.random.default_rng(11))
    tracker = Spans()
    found = _fed(SeatedSegments(tracker, _loud), sound, sizes)
    assert len(found) == len(tracker.spans) == 5
    for segment, span in zip(found, tracker.spans, strict=True):
        assert np.array_equal(span, sound[round(segment.start * RATE) : round(segment.end * RATE)])


@pytest.mark.parametrize("sizes", BLOCKS[1:])
def test_one_microphone_gives_the_same_segments_whatever_the_blocks(sizes: list[int]) -> None:
    sound = _array_sound(np.random.default_rng(12))
    mono = sound[:, 0]
    assert _fed(MonoSegments(_loud), mono, sizes) == segments(mono, _loud)


@pytest.mark.parametrize("sizes", BLOCKS[1:])
def test_a_microphone_per_seat_gives_the_same_seats_whatever_the_blocks(sizes: list[int]) -> None:
    rng = np.random.default_rng(13)
    seats = 6
    parts = []
    for seat, seconds in ((1, 1.5), (4, 35.0), (2, 0.9), (6, 2.2), (5, 1.1)):
        n = int(seconds * RATE)
        part = rng.standard_normal((n, seats)) * 0.003
        voice = rng.standard_normal(n) * 0.1
        voice[(np.arange(n) // 2400) % 3 == 2] *= 0.02
        for offset, share in ((0, 1.0), (-1, 0.4), (1, 0.4)):
            part[:, (seat - 1 + offset) % seats] += share * voice
        parts += [rng.standard_normal((RATE, seats)) * 0.003, part]
    # the room alone: everything at a like level, one channel up now and then
    parts.append(rng.standard_normal((3 * RATE, seats)) * 0.05)
    sound = np.concatenate(parts).astype(np.float32)
    whole = _fed(ChannelSegments(seats, _loud), sound, [])
    assert _fed(ChannelSegments(seats, _loud), sound, sizes) == whole
    assert [s.seat for s in whole if s.seat is not None] == [1, 4, 2, 6, 5]
    # A seat is claimed where its channel spoke in half the segment's chunks or more.
    mask = speaking(chunk_power(sound))
    for s in whole:
        if s.seat is not None:
            spoke = mask[round(s.start * RATE / CHUNK) : round(s.end * RATE / CHUNK), s.seat - 1]
            assert spoke.mean() >= 0.5


def _per_seat(rng: np.random.Generator, pattern: str, seats: int = 6, seat: int = 3) -> np.ndarray:
    """A chunk of sound per letter: "x" seat ``seat`` speaks, "." the room."""
    out = rng.standard_normal((len(pattern) * CHUNK, seats)) * 0.003
    for k, letter in enumerate(pattern):
        if letter == "x":
            voice = rng.standard_normal(CHUNK) * 0.1
            for offset, share in ((0, 1.0), (-1, 0.4), (1, 0.4)):
                out[k * CHUNK : (k + 1) * CHUNK, (seat - 1 + offset) % seats] += share * voice
    return out.astype(np.float32)


@pytest.mark.parametrize(("repeats", "seat"), [(3, 3), (4, None)])
def test_a_seat_is_claimed_by_half_of_its_segment_s_chunks_its_onset_s_too(
    repeats: int, seat: int | None
) -> None:
    """Three chunks at the onset, then one in three: 6 of 12 chunks is
    half (claimed), 7 of 15 is not."""
    pattern = "." * 40 + "xxx" + "..x" * repeats + "." * 40
    sound = _per_seat(np.random.default_rng(14), pattern)
    for sizes in ([], [CHUNK], [700]):
        (found,) = _fed(ChannelSegments(6, _loud), sound, sizes)
        assert round(found.start * RATE / CHUNK) == 40
        assert round(found.end * RATE / CHUNK) == 43 + 3 * repeats
        assert found.seat == seat
