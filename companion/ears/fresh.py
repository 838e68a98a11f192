"""A fresh look: a second Silero whose state is kept young, asked where
the running Silero doubts a sound or half believes it (issue 26).

Silero is a recurrent network: after minutes of a room's noise its state
expects more of it, and a word said into that room (or just after a
knock) is given 0.0-0.3 chunk after chunk. The same chunks heard by a
Silero whose state is young (a second or two of the room behind it) are
given 0.6-0.99 (testkit/hard_corpus.py's tuning parts). Silero kept young
alone is no answer: it calls a knock's ring, a scrape or paper speech
(on ``tuning3``'s room sound, reset every 2 s: 5.5-24 false segments per
30 min a bed, against none for the running one).

So both listen to every chunk. The young one is reset once it has heard
``EVERY_S`` since its last reset and its last ``QUIET_CHUNKS`` chunks were
all under ``QUIET`` (never inside a word), and warmed on the ``WARM``
chunks before. Its verdict counts (``FreshLook.hear``: the surer of the
two) where it is sure (``SURE``), the sound is steady (its speech band
does not chatter: the caller says) and no knock jumped out of the room
in the ``IMPULSE_CHUNKS`` chunks before (a chunk ``IMPULSE_DB`` over the
one before it: a knock's ring is steady, and a young state calls it
speech). The fifth round asked it only where the running Silero doubted
(under 0.5); the sixth asks it also where the running one half believes
a short word (0.5-0.75, too little for the short-word rules): two words
more on a spent blind part, no false segment more in 16 h of tuning room
sound (docs/listening.md). Not on a chattering chunk: a chair's thud and
scrape that both half believe became a sure short word.

Its cost is a second Silero on every chunk, asked in one call with the
running one where both are Silero's (``Paired``: a card's block of
chunks in one call; bench/ears_cost.py prints the whole process's CPU).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from .capture import RATE
from .floor import CHUNK

Samples = npt.NDArray[np.float32]


class FreshJudge(Protocol):
    def __call__(self, chunk: Samples) -> float:
        """The probability (0..1) that a 512-sample mono chunk is speech."""

    def reset(self) -> None:
        """Forget every chunk heard."""


#: the young Silero is reset after this long (seconds) since its last reset
EVERY_S = 2.0
EVERY_CHUNKS = int(EVERY_S * RATE / CHUNK)
#: once its last ``QUIET_CHUNKS`` chunks were all under ``QUIET``
QUIET = 0.2
QUIET_CHUNKS = 8
#: the chunks of the room it hears again after a reset (its state warms on them)
WARM = 3
#: and the young one's verdict counts from this
SURE = 0.8
#: not within this many chunks of a jump of ``IMPULSE_DB`` over the chunk
#: before (a knock, a chair's thud: they jump 15-40 dB and ring)
IMPULSE_DB = 15.0
IMPULSE_CHUNKS = 4


class FreshLook:
    """``make_judge``: makes the Silero of its own, on the first chunk."""

    def __init__(self, make_judge: Callable[[], FreshJudge]) -> None:
        self._make = make_judge
        self._judge: FreshJudge | None = None
        self._before: deque[Samples] = deque(maxlen=WARM)
        self._recent: deque[float] = deque(maxlen=QUIET_CHUNKS)
        self._since = 0  # chunks heard since the last reset
        self._last_lift = 0.0
        self._after_jump = IMPULSE_CHUNKS  # chunks since a knock's jump
        #: resets so far (the bench's and the tests' count)
        self.resets = 0

    def hear(
        self,
        chunk: Samples,
        probability: float,
        lift: float,
        steady: bool,
        young: float | None = None,
    ) -> float:
        """One mono chunk, the running Silero's ``probability`` of it, its
        speech band's ``lift`` over the floor and whether that band is
        ``steady``: the probability to use. ``young``: the young Silero's
        verdict on the chunk where the caller asked it (after ``ready``,
        in one call with the running one: ``silero.SileroStreams``)."""
        if young is None:
            young = self.ready()(chunk)
        self._recent.append(young)
        self._since += 1
        self._before.append(chunk)
        jumped = lift - self._last_lift >= IMPULSE_DB
        self._last_lift = lift
        self._after_jump = 0 if jumped else self._after_jump + 1
        if young < SURE or not steady or self._after_jump < IMPULSE_CHUNKS:
            return probability
        # The surer of the two: where the running state half believes a
        # short word (0.5-0.75), too little for the short-word rules, the
        # young one's surety counts as well as where it doubts.
        return max(probability, young)

    def due(self) -> bool:
        """Whether the young Silero is reset before the next chunk."""
        quiet = len(self._recent) == QUIET_CHUNKS and max(self._recent) < QUIET
        return self._since >= EVERY_CHUNKS and quiet

    def ready(self) -> FreshJudge:
        """The young Silero, reset first when its time has come."""
        if self._judge is None:
            self._judge = self._make()
        if self.due():
            self._judge.reset()
            for before in self._before:
                self._judge(before)
            self._since = 0
            self.resets += 1
        return self._judge


def same_chunk(expected: Samples, chunk: Samples) -> bool:
    """Whether ``chunk`` holds the very samples ``expected`` does (their
    bytes compared: a seventh of a comparison's and ``all``'s cost, on
    every chunk)."""
    return expected.shape == chunk.shape and expected.tobytes() == chunk.tobytes()


class Streams(Protocol):
    """Sileros on one session (``silero.SileroStreams``): the running one
    is stream 0, the young one stream 1."""

    def hear(self, chunk: Samples) -> npt.NDArray[np.float32]: ...

    def hear_block(self, chunks: npt.NDArray[Any]) -> npt.NDArray[np.float32]: ...

    def hear_one(self, stream: int, chunk: Samples) -> float: ...

    def rewind_context(self, stream: int, before: Samples) -> None: ...


class Paired:
    """The running Silero and the fresh look's young one on one session:
    a chunk heard by both in one call (``hear``), and the chunks a caller
    says are coming (``expect``: a card's block) in one call for them all.
    The verdicts are those of a chunk at a time, to the bit: where the
    young state is due its reset inside such a block, the young one hears
    the block's rest again a chunk at a time, from where it would have
    been reset (``redone`` counts those chunks)."""

    def __init__(self, streams: Streams, fresh: FreshLook) -> None:
        self._streams = streams
        self._fresh = fresh
        self._ahead: deque[tuple[Samples, float, float]] = deque()
        self._previous: Samples | None = None  # the chunk heard last
        self._stale = False  # the young one's verdicts ahead are void (it was reset)
        self.redone = 0

    def expect(self, chunks: npt.NDArray[Any]) -> None:
        """(chunks, 512): the next chunks ``hear`` is given, in order."""
        self._ahead.clear()
        if len(chunks) < 2:
            return
        self._fresh.ready()  # a reset due before the first of them, as ``hear`` would
        verdicts = self._streams.hear_block(chunks)
        self._ahead.extend(
            zip(chunks, verdicts[:, 0].tolist(), verdicts[:, 1].tolist(), strict=True)
        )
        self._stale = False

    def hear(self, chunk: Samples) -> tuple[float, float]:
        """(the running Silero's probability, the young one's) for the next chunk."""
        if not self._ahead:
            self._fresh.ready()  # a young state reset, when due, before both hear the chunk
            running, young = (float(p) for p in self._streams.hear(chunk))
            self._previous = chunk
            return running, young
        expected, running, young = self._ahead.popleft()
        if not same_chunk(expected, chunk):
            raise RuntimeError("Paired.hear: a chunk other than the one expected")
        if not self._stale and self._previous is not None and self._fresh.due():
            # The block was heard past this chunk: the young stream's
            # context back to the chunk before, where its reset comes.
            self._streams.rewind_context(1, self._previous)
            self._stale = True
        if self._stale:
            self._fresh.ready()
            young = self._streams.hear_one(1, chunk)
            self.redone += 1
        self._previous = chunk
        return running, young
