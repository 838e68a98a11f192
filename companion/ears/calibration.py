"""The array's calibration: each seat's fingerprint, kept in a small file.

``companion calibrate`` hears each seat say a few words, measures that
utterance's delays between every pair of the array's microphones
(``fingerprint``) and saves them (``save``) as JSON in the club's data
folder (``default_path``)::

    {"companion": "array-calibration", "version": 1,
     "geometry": "respeaker-6mic", "rate": 16000, "made": "2026-05-01",
     "pairs": [[0, 1], [0, 2], ...],
     "seats": {"1": [12.5, -40.1, ...], "2": [...]}}

``seats`` holds each calibrated seat's delays in microseconds, one per pair.
``load`` refuses a file that is not one, naming the file and the key in one
line (``CalibrationError``).
"""

from __future__ import annotations

import datetime
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import platformdirs

from ..config.values import APP
from .array import (
    GEOMETRIES,
    Calibration,
    CrossSpectra,
    Geometry,
    estimate_delays,
    mic_columns,
    seat_scores,
)
from .capture import RATE

KIND = "array-calibration"
VERSION = 1
FILE_NAME = "array-calibration.json"
#: two seats whose utterances fit each other's fingerprint this well (as a
#: share of their own) cannot be told apart
ALIKE = 0.95


class CalibrationError(ValueError):
    """A calibration file that cannot be used; ``str()`` is one line naming
    the file and the key."""


def default_path() -> Path:
    """Where ``companion calibrate`` saves and ``companion listen`` looks:
    the club's data folder (beside the journals and the roster)."""
    return platformdirs.user_data_path(APP, appauthor=False) / FILE_NAME


def fingerprint(
    samples: npt.NDArray[np.float32], shape: Geometry, rate: int = RATE
) -> CrossSpectra:
    """One seat's utterance (frames, the array's or its card's channels) as
    summed cross-spectra: ``estimate_delays`` of it is the seat's fingerprint."""
    spectra = CrossSpectra(shape.mics, rate)
    spectra.feed(mic_columns(samples, shape, "the calibration utterance"))
    return spectra


def calibration_of(
    heard: Mapping[int, CrossSpectra], shape: Geometry, rate: int = RATE
) -> Calibration:
    """The calibration from each heard seat's utterance."""
    seats = {
        seat: tuple(float(d) for d in estimate_delays(spectra, shape.max_delay))
        for seat, spectra in sorted(heard.items())
    }
    return Calibration(shape.name, rate, seats)


def alike(heard: Mapping[int, CrossSpectra], calibration: Calibration) -> list[tuple[int, int]]:
    """Pairs of seats too close to tell apart: the utterance of one fits the
    other's fingerprint nearly as well as its own (``ALIKE``)."""
    seats = sorted(calibration.seats)
    prints = np.array([calibration.seats[s] for s in seats])
    pairs: set[tuple[int, int]] = set()
    for i, seat in enumerate(seats):
        spectra = heard[seat]
        fits = seat_scores(spectra.gcc(), spectra.freqs, prints)
        if fits[i] <= 0:
            continue
        for j, other in enumerate(seats):
            if j != i and fits[j] >= ALIKE * fits[i]:
                pairs.add((min(seat, other), max(seat, other)))
    return sorted(pairs)


def azimuth(delays: tuple[float, ...], shape: Geometry) -> float:
    """The direction (degrees, 0-360, in the board's own frame) that the
    delays point to: the far-field plane wave that best explains them. For
    the host's eye: the seats should go round the table in order."""
    points = np.asarray(shape.positions)[:, :2]
    rows = [points[j] - points[i] for i, j in _pairs(shape)]
    # delay = (p_j - p_i) . u / c  for a wave travelling along u: from the seat, it is -u
    travel, *_ = np.linalg.lstsq(np.array(rows), np.asarray(delays) * 343.0, rcond=None)
    return float(np.degrees(np.arctan2(-travel[1], -travel[0])) % 360)


def _pairs(shape: Geometry) -> list[tuple[int, int]]:
    return [(i, j) for i in range(shape.mics) for j in range(i + 1, shape.mics)]


def save(calibration: Calibration, path: Path) -> None:
    """Write the file whole (a temporary file renamed over the old one)."""
    body: dict[str, object] = {
        "companion": KIND,
        "version": VERSION,
        "geometry": calibration.geometry,
        "rate": calibration.rate,
        "made": datetime.date.today().isoformat(),
        "pairs": [list(p) for p in _pairs(calibration.shape)],
    }
    seats = {
        str(seat): [round(d * 1e6, 2) for d in delays]
        for seat, delays in sorted(calibration.seats.items())
    }
    # One line a key and a seat: a file a person can read and compare.
    lines = [f" {json.dumps(key)}: {json.dumps(value)}," for key, value in body.items()]
    rows = [f"  {json.dumps(seat)}: {json.dumps(delays)}" for seat, delays in seats.items()]
    text = "{\n" + "\n".join(lines) + '\n "seats": {\n' + ",\n".join(rows) + "\n }\n}\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)


def load(path: Path) -> Calibration:
    """The calibration in ``path``; ``CalibrationError`` naming the file
    (and the key) when it cannot be used."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise CalibrationError(
            f"{path}: cannot be read ({error.strerror or error}); run companion calibrate"
        ) from None
    except UnicodeDecodeError:
        raise CalibrationError(f"{path}: not a calibration file (not UTF-8 text)") from None
    try:
        body = json.loads(text)
    except json.JSONDecodeError as error:
        raise CalibrationError(
            f"{path}: not a calibration file (bad JSON at line {error.lineno}: {error.msg})"
        ) from None
    if not isinstance(body, dict) or body.get("companion") != KIND:
        raise CalibrationError(f'{path}: not an array calibration (no "companion": "{KIND}")')
    if body.get("version") != VERSION:
        raise CalibrationError(
            f"{path}: 'version': {body.get('version')!r}; this companion reads {VERSION}"
        )
    name = body.get("geometry")
    if name not in GEOMETRIES:
        raise CalibrationError(f"{path}: 'geometry': {name!r}: one of {', '.join(GEOMETRIES)}")
    shape = GEOMETRIES[name]
    if body.get("rate") != RATE:
        raise CalibrationError(f"{path}: 'rate': {body.get('rate')!r}; the ears take {RATE} Hz")
    pairs = _pairs(shape)
    if body.get("pairs", [list(p) for p in pairs]) != [list(p) for p in pairs]:
        raise CalibrationError(
            f"{path}: 'pairs': not the {name} array's {len(pairs)} pairs in order"
        )
    return Calibration(name, RATE, _seats(path, body.get("seats"), shape, len(pairs)))


def _seats(path: Path, raw: Any, shape: Geometry, count: int) -> dict[int, tuple[float, ...]]:
    if not isinstance(raw, dict) or not raw:
        raise CalibrationError(f"{path}: 'seats': no seat calibrated")
    # A delay no pair of this array can show (plus a sample's slack) is not a measurement.
    limit = (shape.max_delay + 1.0 / RATE) * 1e6
    seats: dict[int, tuple[float, ...]] = {}
    for key, delays in raw.items():
        where = f"{path}: 'seats.{key}'"
        if not (isinstance(key, str) and key.isdigit() and 1 <= int(key) <= 99):
            raise CalibrationError(f"{where}: a seat is a number from 1 to 99")
        if not isinstance(delays, list) or len(delays) != count:
            got = len(delays) if isinstance(delays, list) else type(delays).__name__
            raise CalibrationError(
                f"{where}: {got} delays; the {shape.name} array has {count} pairs"
            )
        for value in delays:
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not abs(value) <= limit
            ):
                raise CalibrationError(
                    f"{where}: {value!r} is not a delay in microseconds within ±{limit:.0f}"
                )
        seats[int(key)] = tuple(float(v) / 1e6 for v in delays)
    return seats
