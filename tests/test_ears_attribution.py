"""A microphone per seat: which channel speaks in a chunk, the per-segment
tracker, and utterances per seat when two seats talk at once."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from companion.ears.attribution import (
    ChannelSeats,
    ChannelSegments,
    chunk_power,
    loudest,
    speaking,
    tracker_for,
)
from companion.ears.calibration import CalibrationError
from companion.ears.detect import CHUNK

RATE = 16_000


def _db(*levels: float) -> np.ndarray:
    return 10 ** (np.array([levels]) / 10)


@pytest.mark.parametrize(
    ("levels", "speaks"),
    [
        # one talker at seat 3: its neighbours hear it 6-8 dB lower, the rest is the room
        ((-40, -40, -34, -26, -33, -40, -41, -40, -40, -39), [4]),
        # seats 2 and 7 at once, far apart: both count (the old "loudest by 6 dB" lost both)
        ((-38, -25, -32, -40, -40, -39, -27, -33, -40, -41), [2, 7]),
        # the room alone: every channel near the median, nobody speaks
        ((-40, -41, -39, -40, -40.5, -39.5, -40, -41, -40, -39.8), []),
        # a neighbour's voice on a seat's mic is not a local peak: the talker wins
        ((-40, -40, -40, -30, -24, -40, -40, -40, -40, -40), [5]),
        # round the table: seat 10 sits next to seat 1
        ((-30, -40, -40, -40, -40, -40, -40, -40, -40, -25), [10]),
    ],
)
def test_a_channel_speaks_where_it_stands_above_its_neighbours_and_the_room(
    levels: tuple[float, ...], speaks: list[int]
) -> None:
    mask = speaking(_db(*levels))
    assert [c + 1 for c in np.flatnonzero(mask[0])] == speaks


def test_one_or_two_channels() -> None:
    assert speaking(_db(-50)).tolist() == [[True]]
    assert speaking(_db(-30, -40)).tolist() == [[True, False]]
    assert speaking(_db(-30, -31)).tolist() == [[False, False]]  # too close to tell


def _talk(
    rng: np.random.Generator, seconds: float, seats: int, loud: dict[int, float]
) -> np.ndarray:
    """``seats`` channels of room hiss; each seat in ``loud`` speaks (noise
    bursts for speech) at that gain, heard 8 dB lower by its neighbours."""
    n = int(seconds * RATE)
    out = 0.003 * rng.standard_normal((n, seats))
    for seat, gain in loud.items():
        voice = gain * rng.standard_normal(n)
        for offset, share in ((0, 1.0), (-1, 0.4), (1, 0.4)):
            out[:, (seat - 1 + offset) % seats] += share * voice
    return out.astype(np.float32)


def test_the_tracker_names_the_seat_whose_channel_spoke_most() -> None:
    rng = np.random.default_rng(1)
    tracker = ChannelSeats(10)
    assert tracker.verdict() == (None, 0.0)
    sound = _talk(rng, 1.0, 10, {6: 0.1})
    for first in range(0, len(sound), 480):  # a card's blocks, not chunks
        tracker.feed(sound[first : first + 480])
    seat, sure = tracker.verdict()
    assert seat == 6 and sure > 0.9
    tracker.reset()
    assert tracker.verdict() == (None, 0.0)
    with pytest.raises(ValueError, match="a block of 3 channels; the table has 10"):
        tracker.feed(np.zeros((480, 3), dtype=np.float32))


def test_a_channel_that_stands_out_now_and_then_claims_nothing() -> None:
    """Sound from beyond the table: a seat's channel stands out in one chunk
    of five (the next table's talk behind that seat): not that seat's. A
    player whose channel speaks in most chunks, pauses and all, is theirs."""
    rng = np.random.default_rng(3)
    quiet, talk = _talk(rng, 0.128, 10, {}), _talk(rng, 0.032, 10, {4: 0.1})
    tracker = ChannelSeats(10)
    for _ in range(10):
        tracker.feed(np.concatenate([talk, quiet]))
    assert tracker.verdict() == (None, 0.0)
    tracker.reset()
    for _ in range(10):
        tracker.feed(np.concatenate([_talk(rng, 0.096, 10, {4: 0.1}), quiet[: CHUNK * 2]]))
    assert tracker.verdict()[0] == 4


def _loud(chunk: np.ndarray) -> float:
    """A detector that hears anything loud as speech."""
    return 0.9 if float(np.mean(chunk**2)) > 1e-4 else 0.0


def test_a_segment_its_channel_spoke_little_of_is_no_seat_s() -> None:
    """``companion listen --layout channels``: seat 4's channel stands out
    for three chunks, then one chunk in five (the next table's talk behind
    that seat): the pauses are short enough to hold its segment open, but
    the segment is no seat's. Seat 7, who speaks throughout, keeps theirs.
    The claim is made as the sound comes, whatever its blocks."""
    rng = np.random.default_rng(4)
    chunks = CHUNK / RATE
    quiet = _talk(rng, 32 * chunks, 10, {})
    now_and_then = [_talk(rng, 3 * chunks, 10, {4: 0.1})]
    for _ in range(10):
        now_and_then += [_talk(rng, 4 * chunks, 10, {}), _talk(rng, chunks, 10, {4: 0.1})]
    player = _talk(rng, 50 * chunks, 10, {7: 0.1})
    sound = np.concatenate([quiet, *now_and_then, quiet, player, quiet])
    for block in (len(sound), 480, 7 * CHUNK + 3):
        seats = ChannelSegments(10, _loud)
        found = [
            s
            for first in range(0, len(sound), block)
            for s in seats.feed(sound[first : first + block])
        ]
        found += seats.flush()
        assert [(s.seat, round(s.start / chunks)) for s in found] == [(None, 32), (7, 32 + 53 + 32)]


def test_two_seats_talking_at_once_give_two_segments() -> None:
    """Seat 3 holds the floor; seat 8 cuts in over it for a second."""
    rng = np.random.default_rng(2)
    quiet = _talk(rng, 0.8, 10, {})
    holder = _talk(rng, 1.0, 10, {3: 0.1})
    both = _talk(rng, 1.2, 10, {3: 0.1, 8: 0.08})
    sound = np.concatenate([quiet, holder, both, holder, quiet])

    seats = ChannelSegments(10, _loud)
    found = seats.feed(sound[: len(sound) // 2]) + seats.feed(sound[len(sound) // 2 :])
    found += seats.flush()
    by_seat = {s.seat: s for s in found}
    assert sorted(by_seat) == [3, 8]
    assert by_seat[3].start == pytest.approx(0.8, abs=0.1)
    assert by_seat[3].end == pytest.approx(4.0, abs=0.1)
    assert by_seat[8].start == pytest.approx(1.8, abs=0.15)
    assert by_seat[8].end == pytest.approx(3.0, abs=0.1)


def test_the_detector_hears_the_loudest_channel() -> None:
    chunk = np.zeros((CHUNK, 4), dtype=np.float32)
    chunk[:, 2] = 0.5
    assert np.all(loudest(chunk) == 0.5)
    assert chunk_power(np.zeros((CHUNK * 2 + 7, 4), dtype=np.float32)).shape == (2, 4)


def test_each_layout_has_its_tracker(tmp_path: Path) -> None:
    assert tracker_for("single", 1) is None
    assert isinstance(tracker_for("channels", 10), ChannelSeats)
    with pytest.raises(CalibrationError, match="cannot be read"):
        tracker_for("array", 8, tmp_path / "none.json")
