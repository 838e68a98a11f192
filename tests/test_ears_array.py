"""The array's seat attribution on made-up plane waves (numpy alone, fast):
GCC-PHAT finds a known delay, whole or fractional; the tracker gives each
utterance the seat whose fingerprint it fits; the calibration file reads
back what was written and refuses a bad one in one line naming the file
and the key. The simulated room and the commands as a user runs them are
in test_ears_calibrate.py."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from array_sound import SIX, delayed, plane_wave

from companion.ears.array import (
    ArraySeats,
    Calibration,
    CrossSpectra,
    estimate_delays,
    gcc_phat,
    geometry,
    mic_columns,
)
from companion.ears.calibration import (
    CalibrationError,
    alike,
    azimuth,
    calibration_of,
    fingerprint,
    load,
    save,
)

RATE = 16_000


@pytest.mark.parametrize("delay", [3.0, -2.0, 2.37, -0.6, 0.25])
def test_gcc_phat_finds_a_known_delay(delay: float) -> None:
    rng = np.random.default_rng(1)
    first = rng.standard_normal(RATE)
    second = delayed(first, delay) + 0.1 * rng.standard_normal(RATE)
    found = gcc_phat(first, second, RATE, max_delay=4 / RATE)
    assert found * RATE == pytest.approx(delay, abs=0.05)


def test_the_delays_of_a_plane_wave_point_back_to_it() -> None:
    rng = np.random.default_rng(2)
    for degrees in (0.0, 75.0, 200.0, 330.0):
        spectra = fingerprint(plane_wave(rng, 1.0, degrees), SIX)
        delays = tuple(float(d) for d in estimate_delays(spectra, SIX.max_delay))
        assert azimuth(delays, SIX) == pytest.approx(degrees, abs=3.0)


def _calibrated(rng: np.random.Generator, angles: dict[int, float]) -> tuple[Calibration, dict]:
    heard = {seat: fingerprint(plane_wave(rng, 1.5, a), SIX) for seat, a in angles.items()}
    return calibration_of(heard, SIX), heard


def test_the_tracker_gives_each_utterance_its_seat_chunk_by_chunk() -> None:
    rng = np.random.default_rng(3)
    angles = {seat: 30.0 * (seat - 1) + 7 for seat in range(1, 13)}  # 12 seats, 30 degrees apart
    calibration, _ = _calibrated(rng, angles)
    tracker = ArraySeats(calibration)
    for seat, angle in angles.items():
        tracker.reset()
        # The player has moved a little since (2 degrees), and the card's blocks are 480 frames.
        heard = plane_wave(rng, 1.0, angle + 2.0, noise=0.3)
        for first in range(0, len(heard), 480):
            tracker.feed(heard[first : first + 480])
        found, sure = tracker.verdict()
        assert found == seat and 0.0 < sure <= 1.0


def test_a_tracker_fed_too_little_cannot_tell() -> None:
    rng = np.random.default_rng(4)
    calibration, _ = _calibrated(rng, {1: 10.0, 2: 100.0})
    tracker = ArraySeats(calibration)
    assert tracker.verdict() == (None, 0.0)
    tracker.feed(plane_wave(rng, 0.1, 10.0))
    assert tracker.verdict() == (None, 0.0)


def test_a_card_with_playback_channels_gives_the_mics_first() -> None:
    samples = np.zeros((10, 8), dtype=np.float32)
    assert mic_columns(samples, SIX, "card").shape == (10, 6)
    with pytest.raises(ValueError, match="card: 5 channel"):
        mic_columns(np.zeros((10, 5), dtype=np.float32), SIX, "card")


def test_two_seats_at_one_place_are_told_as_alike() -> None:
    rng = np.random.default_rng(5)
    calibration, heard = _calibrated(rng, {1: 0.0, 2: 1.0, 3: 90.0, 4: 180.0})
    assert alike(heard, calibration) == [(1, 2)]


def test_a_calibration_reads_back_as_it_was_saved(tmp_path: Path) -> None:
    rng = np.random.default_rng(6)
    calibration, _ = _calibrated(rng, {1: 0.0, 3: 120.0, 10: 240.0})
    path = tmp_path / "club" / "array-calibration.json"
    save(calibration, path)
    again = load(path)
    assert again.geometry == "respeaker-6mic" and again.rate == RATE
    assert sorted(again.seats) == [1, 3, 10]
    for seat, delays in calibration.seats.items():
        assert np.allclose(again.seats[seat], delays, atol=1e-8)
    assert json.loads(path.read_text())["companion"] == "array-calibration"


def _body(**changes: object) -> dict:
    pairs = [[i, j] for i in range(6) for j in range(i + 1, 6)]
    body: dict = {
        "companion": "array-calibration",
        "version": 1,
        "geometry": "respeaker-6mic",
        "rate": 16000,
        "pairs": pairs,
        "seats": {"1": [0.0] * 15, "2": [10.0] * 15},
    }
    body.update(changes)
    return body


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("{not json", "bad JSON at line 1"),
        (json.dumps({"companion": "journal"}), "not an array calibration"),
        (json.dumps(_body(version=7)), "'version': 7"),
        (json.dumps(_body(geometry="matrix-voice")), "'geometry': 'matrix-voice': one of respeaker-6mic"),
        (json.dumps(_body(rate=44100)), "'rate': 44100; the ears take 16000 Hz"),
        (json.dumps(_body(pairs=[[0, 1]])), "'pairs': not the respeaker-6mic array's 15 pairs"),
        (json.dumps(_body(seats={})), "'seats': no seat calibrated"),
        (json.dumps(_body(seats={"one": [0.0] * 15})), "'seats.one': a seat is a number from 1 to 99"),
        (json.dumps(_body(seats={"3": [0.0] * 14})), "'seats.3': 14 delays; the respeaker-6mic array has 15 pairs"),
        (json.dumps(_body(seats={"3": [0.0] * 14 + [900.0]})), "'seats.3': 900.0 is not a delay in microseconds"),
        (json.dumps(_body(seats={"3": [0.0] * 14 + ["x"]})), "'seats.3': 'x' is not a delay"),
    ],
)  # fmt: skip
def test_a_bad_calibration_file_is_one_line_naming_file_and_key(
    tmp_path: Path, text: str, says: str
) -> None:
    path = tmp_path / "cal.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CalibrationError) as caught:
        load(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and says in message and "\n" not in message


def test_a_missing_calibration_says_to_calibrate(tmp_path: Path) -> None:
    with pytest.raises(CalibrationError, match=r"cannot be read .*run companion calibrate"):
        load(tmp_path / "none.json")


def test_an_unknown_array_is_refused_by_name() -> None:
    with pytest.raises(
        ValueError, match="unknown array 'x': one of respeaker-6mic, respeaker-4mic"
    ):
        geometry("x")


def test_the_summed_spectra_do_not_care_how_the_sound_was_cut() -> None:
    rng = np.random.default_rng(7)
    heard = plane_wave(rng, 1.0, 45.0)
    whole, pieces = CrossSpectra(6, RATE), CrossSpectra(6, RATE)
    whole.feed(heard)
    for first in range(0, len(heard), 333):
        pieces.feed(heard[first : first + 333])
    assert whole.frames == pieces.frames
    assert np.allclose(whole.sum, pieces.sum)
