"""The fresh look (``ears/fresh.py``, issue 26): a second Silero whose
state is kept young (reset every ``EVERY_S`` of quiet, warmed on the
chunks before), asked where the running Silero doubts a steady sound;
never just after a knock's jump. On real audio: a word said after 20 s of
a room, which the running Silero's state has settled on."""

from __future__ import annotations

from typing import Any

import numpy as np
from ears_words import word_after_a_room

from companion.ears.detect import MonoSegments
from companion.ears.fresh import (
    EVERY_CHUNKS,
    IMPULSE_CHUNKS,
    IMPULSE_DB,
    QUIET_CHUNKS,
    SURE,
    WARM,
    FreshLook,
)


class Judge:
    """A Silero stand-in: what it heard (each chunk's first sample) and
    its resets; it says ``says`` of every chunk."""

    def __init__(self, says: float = 0.9) -> None:
        self.heard: list[float] = []
        self.resets = 0
        self.says = says

    def __call__(self, chunk: np.ndarray[Any, Any]) -> float:
        self.heard.append(float(chunk[0]))
        return self.says

    def reset(self) -> None:
        self.resets += 1


def chunk(n: float) -> np.ndarray[Any, Any]:
    return np.full(512, n, dtype=np.float32)


def test_the_young_silero_is_reset_in_quiet_and_warmed_on_the_room_before() -> None:
    judge = Judge(says=0.0)
    look = FreshLook(lambda: judge)
    for n in range(EVERY_CHUNKS + 1):
        look.hear(chunk(n), 0.0, 0.0, True)
    assert judge.resets == 1 and look.resets == 1
    # heard every chunk once, then the WARM chunks before the reset again
    assert judge.heard[EVERY_CHUNKS:] == [
        float(n) for n in range(EVERY_CHUNKS - WARM, EVERY_CHUNKS + 1)
    ]
    for n in range(EVERY_CHUNKS + 1, 2 * EVERY_CHUNKS + 1):
        look.hear(chunk(n), 0.0, 0.0, True)
    assert judge.resets == 2  # every EVERY_S


def test_not_reset_inside_a_word() -> None:
    judge = Judge(says=0.9)  # it hears speech: never quiet
    look = FreshLook(lambda: judge)
    for n in range(3 * EVERY_CHUNKS):
        look.hear(chunk(n), 0.0, 0.0, True)
    assert judge.resets == 0
    judge.says = 0.0
    for n in range(QUIET_CHUNKS + 1):
        look.hear(chunk(n), 0.0, 0.0, True)
    assert judge.resets == 1  # quiet long enough, and its time long past


def test_the_young_verdict_counts_where_the_running_one_doubts_a_steady_sound() -> None:
    look = FreshLook(lambda: Judge(says=0.9))
    assert look.hear(chunk(0), 0.1, 12.0, True) == 0.9
    assert look.hear(chunk(0), 0.1, 12.0, False) == 0.1  # it chatters: a scrape
    unsure = FreshLook(lambda: Judge(says=SURE - 0.01))
    assert unsure.hear(chunk(0), 0.1, 12.0, True) == 0.1
    assert unsure.hear(chunk(0), 0.6, 12.0, True) == 0.6


def test_where_both_hear_speech_the_surer_verdict_counts() -> None:
    look = FreshLook(lambda: Judge(says=0.9))
    assert look.hear(chunk(0), 0.6, 12.0, True) == 0.9
    assert look.hear(chunk(0), 0.95, 12.0, True) == 0.95  # the running one surer still
    assert look.hear(chunk(0), 0.6, 12.0, False) == 0.6  # it chatters: a chair's scrape


def test_not_just_after_a_knock() -> None:
    look = FreshLook(lambda: Judge(says=0.9))
    out = [look.hear(chunk(0), 0.0, lift, True) for lift in [0.0, 0.0, IMPULSE_DB + 5, 22.0]]
    out += [look.hear(chunk(0), 0.0, 20.0, True) for _ in range(IMPULSE_CHUNKS)]
    # the jump and the chunks of its ring: the running one's 0.0; then the young one
    assert out == [0.9, 0.9] + [0.0] * IMPULSE_CHUNKS + [0.9, 0.9]
    # and where the running one half believes the ring, it stays half believed
    ring = FreshLook(lambda: Judge(says=0.9))
    ring.hear(chunk(0), 0.0, 0.0, True)
    assert ring.hear(chunk(0), 0.6, IMPULSE_DB + 5, True) == 0.6


def _heard(mix: np.ndarray[Any, Any], fresh: bool) -> list[Any]:
    heard = MonoSegments("silero-whisper")
    if not fresh:
        heard._voicing.fresh = None  # the detector as before the fresh look
    return heard.feed(mix) + heard.flush()


def test_a_word_after_twenty_seconds_of_a_room_is_heard_by_the_fresh_look() -> None:
    mix, said = word_after_a_room()
    assert _heard(mix, fresh=False) == []
    found = _heard(mix, fresh=True)
    assert len(found) == 1 and found[0].start < said[1] + 0.1 and found[0].end > said[0]
