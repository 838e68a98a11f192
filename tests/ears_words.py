"""Two one-word remarks that issue 26's fourth round hears and its third
did not, laid as testkit/hard_corpus.py lays its clips (tests of the fresh
look, of the half-believed word and of the strict detector)."""

from __future__ import annotations

from typing import Any

import numpy as np

from testkit.corpus import RATE, add, render
from testkit.hard_corpus import near_room
from testkit.hard_sounds import BEDS, bed

Clip = tuple[np.ndarray[Any, Any], tuple[float, float]]


def word_after_a_room() -> Clip:
    """«Да!» at 15 dB over pink noise, after 20 s of it: the running
    Silero's state has settled on the room and gives the word next to
    nothing; the fresh look hears it. The mix and when the word was said."""
    rng = np.random.default_rng(3)
    mix = bed("pink", rng, 25 * RATE)
    word = render("Да!", "ru+m3", 200)
    add(mix, 20 * RATE, near_room(word, rng) * 10 ** ((BEDS["pink"] + 15) / 20))
    return mix, (20.0, 20.0 + len(word) / RATE)


def half_believed_word() -> Clip:
    """«Ха!» (0.34 s) at 15 dB over a quiet room's hiss: Silero only half
    believes it; the half-believed word rule hears it."""
    rng = np.random.default_rng(7)
    mix = bed("low-white", rng, 6 * RATE)
    word = render("Ха!", "ru+f3", 165)
    add(mix, 4 * RATE, near_room(word, rng) * 10 ** ((BEDS["low-white"] + 15) / 20))
    return mix, (4.0, 4.0 + len(word) / RATE)
