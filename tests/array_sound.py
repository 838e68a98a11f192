"""Made-up sound for the array's tests: a talker far off as the ReSpeaker
6-mic array hears it (a plane wave, fractional delays by FFT)."""

from __future__ import annotations

import numpy as np

from companion.ears.array import GEOMETRIES, SOUND_SPEED

RATE = 16_000
SIX = GEOMETRIES["respeaker-6mic"]


def delayed(signal: np.ndarray, delay: float) -> np.ndarray:
    """``signal`` later by ``delay`` samples (a fractional delay by FFT)."""
    n = len(signal)
    spectrum = np.fft.rfft(signal, 2 * n)
    shift = np.exp(-2j * np.pi * np.fft.rfftfreq(2 * n) * delay)
    return np.fft.irfft(spectrum * shift, 2 * n)[:n]


def plane_wave(
    rng: np.random.Generator, seconds: float, degrees: float, noise: float = 0.05
) -> np.ndarray:
    """What the 6-mic array hears of a talker far off at ``degrees`` (noise
    for speech, a little hiss of its own on each microphone)."""
    source = rng.standard_normal(int(seconds * RATE))
    towards = np.array([np.cos(np.radians(degrees)), np.sin(np.radians(degrees)), 0.0])
    points = np.asarray(SIX.positions)
    # A mic nearer the talker hears it sooner: delay = -p . towards / c.
    delays = -(points @ towards) / SOUND_SPEED * RATE
    mics = [delayed(source, d + 10) for d in delays]
    heard = np.column_stack(mics) + noise * rng.standard_normal((len(source), len(mics)))
    return heard.astype(np.float32)
