"""The fresh look (``ears/fresh.py``, issue 26): a second Silero, its state
new, on a sound rising out of the room while the running one doubts it;
never on a knock's jump and its ringing tail. On real audio: a word said
after 20 s of a room, which the running Silero's state has settled on."""

from __future__ import annotations

from typing import Any

import numpy as np
from ears_words import word_after_a_room

from companion.ears.detect import MonoSegments
from companion.ears.fresh import LONGEST, WARM, FreshLook


class Judge:
    """A Silero stand-in: what it heard, and 0.9 for every chunk."""

    def __init__(self) -> None:
        self.heard: list[float] = []
        self.resets = 0

    def __call__(self, chunk: np.ndarray[Any, Any]) -> float:
        self.heard.append(float(chunk[0]))
        return 0.9

    def reset(self) -> None:
        self.resets += 1


def _look(lifts: list[float], running: float = 0.0) -> tuple[list[float], Judge]:
    judge = Judge()
    look = FreshLook(lambda: judge)
    out = [
        look.hear(np.full(512, n, dtype=np.float32), running, lift) for n, lift in enumerate(lifts)
    ]
    return out, judge


def test_a_sound_rising_out_of_the_room_is_heard_afresh_after_the_room_before_it() -> None:
    out, judge = _look([0.0, 1.0, 0.5, 0.0, 7.0, 14.0, 20.0, 18.0, 3.0, 1.0])
    assert out[:5] == [0.0] * 5 and out[5:8] == [0.9] * 3
    assert out[8:] == [0.0, 0.0]  # fallen under HOLD_DB: the look ends
    assert judge.resets == 1
    # the new state warmed on the chunks just before the rise, then heard it
    assert judge.heard == [2.0, 3.0, 4.0, 5.0, 6.0, 7.0] and WARM == 3


def test_a_knock_jumping_out_of_the_room_is_not_looked_at() -> None:
    out, judge = _look([0.0, 0.0, 32.0, 26.0, 20.0, 14.0, 9.0, 4.0, 1.0])
    assert max(out) == 0.0 and judge.heard == []


def test_the_running_silero_sure_already_needs_no_look() -> None:
    out, judge = _look([0.0, 6.0, 14.0, 20.0], running=0.8)
    assert out == [0.8] * 4 and judge.heard == []


def test_a_look_lasts_a_second_at_most() -> None:
    out, _ = _look([0.0, 13.0] + [20.0] * (LONGEST + 10))
    assert out.count(0.9) == LONGEST


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
