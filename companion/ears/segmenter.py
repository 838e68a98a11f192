"""The segmenter: chunk verdicts (speech probability, lift above the
room's floor) in, utterances out.

``Segmenter`` turns chunk verdicts into utterances: one starts after
``start_chunks`` speech chunks among the last ``window`` (a cough or a knock
is one or two), and only where those chunks stand ``LIFT_DB`` above the
room's floor (``RoomFloor``); it ends after ``hangover_s`` without speech
(the pauses between words stay inside one utterance) or ``fade_s`` without
speech ``KEEP_DB`` above the floor, and counts only from ``min_s`` long.
One continuous utterance gives one segment, so one flag. Its onset goes
back over the voiced chunks just before it and, up to ``reach_s``, over
the chunks that sounded like a word the detector had not believed yet
(``detect.Voicing.sounding``: a short word after a knock). A loud short
word counts from ``short_s``: sure (``short_confidence``), or only half
believed but steady throughout (``word_confidence``, ``steady``: a chair's
scrape chatters); a sure one is as long as its voiced chunks
(``voiced_end``). Voiced chunks that only fade from a loud start are a
knock's ring, not a word, and open nothing (``ring_step_db``).

The lift is what tells a player at the microphone from the café around the
table: to every detector the next tables' talk is speech, but talk from
several people at once, smeared by the room, never falls silent between
syllables, so its level hardly stands above its own low points; a voice
close to the microphone rises well above the room it speaks into, whatever
that room's level (docs/listening.md, "The room's floor").
"""

from __future__ import annotations

from array import array
from collections import deque
from dataclasses import dataclass, field
from itertools import pairwise

import numpy as np

from .capture import RATE
from .floor import CHUNK, median

#: an utterance opens only where its voiced chunks' median level stands
#: this far above the room's floor (chosen by bench/ears.py's figures,
#: docs/listening.md)
LIFT_DB = 11.0
#: and an open utterance ends once none of its speech has stood this far
#: above the floor for ``Segmenter.fade_s``: when the voice that stood out
#: stops, the talk around it (still speech to the detector) does not hold
#: the utterance open for ever
KEEP_DB = 6.0


@dataclass(frozen=True, slots=True)
class Segment:
    start: float  # seconds, on the listener's clock
    end: float
    confidence: float  # the mean speech probability of its chunks
    seat: int | None = None


@dataclass(slots=True)
class Segmenter:
    """Chunk verdicts in, utterances out; see the module's docstring."""

    threshold: float = 0.5
    window: int = 4
    start_chunks: int = 3
    hangover_s: float = 0.4
    min_s: float = 0.3
    lift_db: float = LIFT_DB
    keep_db: float = KEEP_DB
    #: an utterance ends when nothing of it has stood ``keep_db`` out for this long
    fade_s: float = 1.0
    #: how far back an utterance that took a while to stand out may begin
    lookback_s: float = 1.0
    #: a loud short word: an utterance whose voiced chunks stand (75th
    #: percentile) ``short_lift_db`` above, at ``short_confidence``, the room counts from ``short_s`` long
    short_s: float = 0.3
    short_lift_db: float = 99.0
    short_confidence: float = 0.8
    #: or a word the detector only half believes (its recurrent state is
    #: slow on a short word): at least ``word_chunks`` voiced chunks, mean
    #: probability ``word_confidence``, and ``word_steady`` of them steady
    #: (``feed``'s ``steady``); 1.01: no such rule
    word_confidence: float = 1.01
    word_chunks: int = 4
    word_steady: float = 0.75
    #: a sure utterance (``short_confidence``) that stood out (its louder
    #: chunks ``lift_db``) is as long as its voiced chunks, standing out at
    #: its end or not: a short remark's last syllable fades into the room;
    #: and it counts from ``sure_s`` (eight chunks) long
    voiced_end: bool = False
    sure_s: float = 0.25
    #: how far back over ``sounding`` chunks an utterance's onset may go
    #: (0: not at all)
    reach_s: float = 0.0
    #: a knock's ring is no utterance: voiced chunks whose lifts only fall,
    #: each at least ``ring_step_db`` under the one before, from at least
    #: ``ring_peak_db`` by at least ``ring_drop_db`` in all, open none
    #: (0: no such rule)
    ring_step_db: float = 0.0
    ring_drop_db: float = 8.0
    ring_peak_db: float = 18.0
    #: (at, probability, lift above the room's floor or None: not known, steady)
    _recent: deque[tuple[float, float, float | None, bool]] = field(default_factory=deque)
    _voiced: deque[float] = field(default_factory=deque)  # when, in the last ``lookback_s``
    _sounded: deque[float] = field(default_factory=deque)  # the ``sounding`` chunks, as ``_voiced``
    _start: float | None = None
    _last_speech: float = 0.0
    _last_standing: float = 0.0  # the last speech chunk ``keep_db`` above the floor
    #: the open utterance's chunks' probabilities, packed (8 bytes a chunk,
    #: not a float object's 32: an utterance that never ends in a 4-hour
    #: file holds 3.6 MB)
    _probabilities: array[float] = field(default_factory=lambda: array("d"))
    #: the open utterance's voiced chunks' lifts (the short-word rule)
    _lifts: array[float] = field(default_factory=lambda: array("d"))
    _steady: int = 0  # the open utterance's voiced chunks that were steady

    def feed(
        self,
        at: float,
        probability: float,
        lift: float | None = None,
        sounding: bool = False,
        steady: bool = True,
    ) -> Segment | None:
        """One chunk starting at ``at``; an utterance when one has ended.
        ``lift``: the chunk's level above the room's floor (``RoomFloor``);
        None: not known, and not asked for. ``sounding``: a word's sound
        that the detector does not (yet) call speech (``Voicing.sounding``);
        ``steady``: its sound does not chatter (``Voicing.steady``)."""
        speech = probability >= self.threshold
        standing = speech and (lift is None or lift >= self.keep_db)
        self._recent.append((at, probability, lift, steady))
        if len(self._recent) > self.window:
            self._recent.popleft()
        if self._start is None:
            if speech:
                self._voiced.append(at)
            elif sounding and self.reach_s > 0:
                self._sounded.append(at)
            while self._voiced and self._voiced[0] < at - self.lookback_s:
                self._voiced.popleft()
            while self._sounded and self._sounded[0] < at - self.lookback_s:
                self._sounded.popleft()
            voiced = [r for r in self._recent if r[1] >= self.threshold]
            lifts = [r[2] for r in voiced]
            if (
                len(voiced) >= self.start_chunks
                and self._stands_out(lifts)
                and not self._rings(lifts)
            ):
                self._start = self._onset(voiced[0][0])
                self._probabilities = array("d", [r[1] for r in voiced])
                self._lifts = array("d", [r[2] for r in voiced if r[2] is not None])
                self._steady = sum(r[3] for r in voiced)
                self._last_speech = self._last_standing = at
            return None
        if speech:
            self._last_speech = at
            self._probabilities.append(probability)
            self._steady += steady
            if lift is not None and self.short_s < self.min_s:
                self._lifts.append(lift)
        if standing:
            self._last_standing = at
        if at - self._last_speech >= self.hangover_s or at - self._last_standing >= self.fade_s:
            return self._close()
        return None

    def _onset(self, first: float) -> float:
        """Where the utterance began: its first words may have stood out
        less than the rest (a soft start, a noisy room), so back from
        ``first`` over voiced chunks no further apart than ``hangover_s``."""
        start = first
        for t in reversed(self._voiced):
            if t < start and start - t <= self.hangover_s:
                start = t
        # and over the word's sound just before, chunk by chunk, that the
        # detector had not believed yet
        earliest, step = start - self.reach_s, CHUNK / RATE
        for t in reversed(self._sounded):
            if earliest - 1e-6 <= t < start and start - t <= step + 1e-6:
                start = t
        return start

    def _stands_out(self, lifts: list[float | None]) -> bool:
        known = [d for d in lifts if d is not None]
        return len(known) < len(lifts) or median(known) >= self.lift_db

    def _rings(self, lifts: list[float | None]) -> bool:
        """Whether the voiced chunks sound like a knock's ring: loud at
        once, then only fading (``ring_step_db``). A word rises into its
        vowel or holds it; a knock, a thud or a dropped spoon jumps out
        of the room and decays chunk by chunk, and a Silero state (most
        often the young one of ``fresh.FreshLook``) may call the ring
        speech."""
        known = [d for d in lifts if d is not None]
        if self.ring_step_db <= 0 or len(known) < 2:
            return False
        falling = all(b <= a - self.ring_step_db for a, b in pairwise(known))
        return (
            falling and known[0] >= self.ring_peak_db and known[0] - known[-1] >= self.ring_drop_db
        )

    def flush(self) -> Segment | None:
        """The utterance still open when the sound ends."""
        return self._close() if self._start is not None else None

    @property
    def open_since(self) -> float | None:
        """When the utterance being heard began (None: silence)."""
        return self._start

    def _close(self) -> Segment | None:
        assert self._start is not None
        start, end = self._start, self._last_standing + CHUNK / RATE
        confidence = float(np.mean(self._probabilities)) if self._probabilities else 0.0
        shortest = self.min_s
        voiced = len(self._probabilities)
        sure = confidence >= self.short_confidence
        half_believed = (
            confidence >= self.word_confidence
            and voiced >= self.word_chunks
            and self._steady >= self.word_steady * voiced
        )
        # Its louder syllables (the 75th percentile): a short word's last
        # chunks fade into the room.
        louder = float(np.percentile(self._lifts, 75)) if self._lifts else -np.inf
        short: float | None = None
        if louder >= self.short_lift_db and (sure or half_believed):
            short = self.short_s
        elif self.voiced_end and louder >= self.lift_db and sure:
            short = self.sure_s
        if short is not None:
            shortest = min(shortest, short)
            # and it ends with its last voiced chunk, standing out or not
            end = max(end, self._last_speech + CHUNK / RATE)
        self._start, self._probabilities, self._lifts = None, array("d"), array("d")
        self._steady = 0
        self._recent.clear()
        self._voiced.clear()
        self._sounded.clear()
        return Segment(start, end, round(confidence, 3)) if end - start >= shortest else None
