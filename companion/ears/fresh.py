"""A fresh look: a second Silero, its state new, on a sound that stands
out of the room while the running Silero doubts it (issue 26).

Silero is a recurrent network: after minutes of a room's noise its state
expects more of it, and a short word said into that room (or just after
a knock) is given 0.0-0.3 chunk after chunk. The same chunks heard by a
Silero whose state is new (three chunks of the room before them, to warm
it) are given 0.6-0.99 (testkit/hard_corpus.py's tuning parts: 20 of 23
missed words and short lines). So where a chunk's speech band rises
``TRIGGER_DB`` above the room's floor and the running Silero is under
``DOUBT``, a second Silero is reset, fed the ``WARM`` chunks before it, and
then hears each chunk while the sound still stands ``HOLD_DB`` out, for at
most ``LONGEST`` chunks. What it says counts where it says more.

It costs a second Silero only over sounds that rise out of the room, and
not while the running one already believes them (bench/ears_cost.py
prints the whole process's CPU).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Protocol

import numpy as np
import numpy.typing as npt

Samples = npt.NDArray[np.float32]


class FreshJudge(Protocol):
    def __call__(self, chunk: Samples) -> float:
        """The probability (0..1) that a 512-sample mono chunk is speech."""

    def reset(self) -> None:
        """Forget every chunk heard."""


#: a sound rising this far (dB) over the speech band's floor is looked at afresh
TRIGGER_DB = 12.0
#: where it rose at least ``RISE_DB`` over the chunk before, and less than
#: ``IMPULSE_DB``: a knock or a chair's thud jumps 20-40 dB in one chunk
#: and then decays, and a new state calls its ringing tail speech
RISE_DB = 3.0
IMPULSE_DB = 15.0
#: while the running Silero gives it less than this
DOUBT = 0.5
#: and it is heard afresh while it stands this far out (dB)
HOLD_DB = 6.0
#: the chunks of the room the fresh Silero hears first (its state warms on them)
WARM = 3
#: at most this many chunks (1 s) a look: a word is shorter, and a longer
#: sound the running Silero has had time to judge
LONGEST = 32


class FreshLook:
    """``make_judge``: makes the Silero of its own, on the first look."""

    def __init__(self, make_judge: Callable[[], FreshJudge]) -> None:
        self._make = make_judge
        self._judge: FreshJudge | None = None
        self._before: deque[Samples] = deque(maxlen=WARM)
        self._left = 0  # chunks of the present look still to hear
        self._last = 0.0  # the last chunk's lift
        #: chunks heard afresh (the bench's count of the cost)
        self.heard = 0

    def hear(self, chunk: Samples, probability: float, lift: float) -> float:
        """One mono chunk, the running Silero's ``probability`` of it and its
        speech band's ``lift`` over the floor: the probability to use."""
        rise = lift - self._last
        rising = lift >= TRIGGER_DB and RISE_DB <= rise < IMPULSE_DB
        self._last = lift
        fresh = 0.0
        if self._left and lift < HOLD_DB:
            self._left = 0
        if not self._left and rising and probability < DOUBT:
            judge = self._start()
            for before in self._before:
                judge(before)
            self._left = LONGEST
        if self._left and self._judge is not None:
            fresh = self._judge(chunk)
            self.heard += 1
            self._left -= 1
        self._before.append(chunk)
        return max(probability, fresh)

    def _start(self) -> FreshJudge:
        if self._judge is None:
            self._judge = self._make()
        self._judge.reset()
        return self._judge
