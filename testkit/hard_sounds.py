"""The room sounds of issue 26's harder corpus (testkit/hard_corpus.py):
its beds (brown, pink, hum over pink, low white noise, each at a level of
its own) and its transients (knocks, chair scrapes, clatter, a chair
moved, paper handled), each at unit active RMS."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from testkit.corpus import RATE, active_rms, clatter, hum, knocks, scrapes, shaped

Audio = npt.NDArray[np.float32]

#: the beds and their active level in dBFS (normal speech is about -23)
BEDS: dict[str, float] = {"brown": -42.0, "pink": -45.0, "hum+pink": -45.0, "low-white": -55.0}
TRANSIENTS = ("knock", "scrape", "clatter", "chair", "paper")


def _one(make: Callable[[np.random.Generator, int], Audio], rng: np.random.Generator) -> Audio:
    """One event of a maker that scatters events over a track: a track
    made until it holds one, cut to it."""
    for _ in range(50):
        track = make(rng, 6 * RATE)
        loud = np.flatnonzero(np.abs(track) > 1e-3 * np.abs(track).max(initial=0.0))
        if len(loud):
            return track[loud[0] : min(len(track), loud[0] + int(1.5 * RATE))]
    return np.zeros(int(0.1 * RATE), dtype=np.float32)


def _chair(rng: np.random.Generator) -> Audio:
    """A chair moved: a thud (40-120 Hz, decaying) and a short scrape."""
    t = np.arange(int(0.3 * RATE)) / RATE
    thud = np.sin(2 * np.pi * rng.uniform(40, 120) * t) * np.exp(-t / rng.uniform(0.03, 0.08))
    thud += rng.standard_normal(len(t)) * np.exp(-t / 0.004) * 0.5
    scrape = _one(scrapes, rng)[: int(rng.uniform(0.2, 0.5) * RATE)]
    scrape = scrape * (0.5 / max(1e-9, active_rms(scrape)) * active_rms(thud))
    return np.concatenate([thud, scrape]).astype(np.float32)


def _paper(rng: np.random.Generator) -> Audio:
    """Paper handled: crackles (dense clicks, 0.3-2 ms, log-normal
    loudness) over a rustle, 0.4-2 s, most of it above 3 kHz."""
    n = int(rng.uniform(0.4, 2.0) * RATE)
    out = np.zeros(n)
    count = int(rng.uniform(150, 600) * n / RATE)
    for at in rng.integers(0, n, count):
        length = int(rng.uniform(0.0003, 0.002) * RATE) + 2
        click = rng.standard_normal(length) * np.exp(-np.arange(length) / (length / 3))
        end = min(n, at + length)
        out[at:end] += click[: end - at] * rng.lognormal(0.0, 0.8)
    out += rng.standard_normal(n) * 0.15
    spectrum = np.fft.rfft(out)
    freqs = np.fft.rfftfreq(n, 1 / RATE)
    spectrum *= 1.0 / (1.0 + (3000.0 / np.maximum(freqs, 1.0)) ** 4)
    shaped = np.fft.irfft(spectrum, n) * np.hanning(n) ** 0.3
    return shaped.astype(np.float32)


def transient(name: str, rng: np.random.Generator) -> Audio:
    """One transient, at unit active RMS."""
    makers: dict[str, Callable[[np.random.Generator], Audio]] = {
        "knock": lambda r: _one(knocks, r)[: int(0.3 * RATE)],
        "scrape": lambda r: _one(scrapes, r),
        "clatter": lambda r: _one(clatter, r),
        "chair": _chair,
        "paper": _paper,
    }
    x = makers[name](rng)
    return (x / active_rms(x)).astype(np.float32)


def bed(name: str, rng: np.random.Generator, n: int) -> Audio:
    """``n`` samples of a bed at its level (``BEDS``)."""
    if name == "brown":
        x = shaped(rng, n, 2.0)
    elif name == "pink":
        x = shaped(rng, n, 1.0)
    elif name == "hum+pink":
        pink, mains = shaped(rng, n, 1.0), hum(rng, n)
        x = pink / active_rms(pink) + mains / active_rms(mains) * 10 ** (-3 / 20)
    elif name == "low-white":
        x = rng.standard_normal(n).astype(np.float32)
    else:
        raise ValueError(f"unknown bed {name!r}: one of {', '.join(BEDS)}")
    return (x * (10 ** (BEDS[name] / 20) / active_rms(x))).astype(np.float32)
