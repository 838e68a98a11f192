"""One seat for each utterance of a recording, as its sound comes: the
array's layout in ``companion listen`` (and the bench's seat trackers).

``SeatedSegments`` hears the mean of the columns (``detect.MonoSegments``)
and gives each utterance the seat that a ``SeatTracker`` finds in that
utterance's span of the columns, from its first chunk to its last. An
utterance's onset is known only once the detector is sure of it (up to
``Segmenter.lookback_s`` earlier) and its end only once it has been quiet
for a while (up to ``fade_s`` later), so the last few seconds of the
columns are kept and the tracker is fed a chunk once it is that far
behind: memory holds those seconds, not the utterance, however long it
lasts, and not the recording.

The tracker is fed one chunk a call, in order: ``array.CrossSpectra``
adds its frames one after another either way, so the seat and its
confidence are those of the whole span fed at once.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable

import numpy as np

from .attribution import SeatTracker
from .capture import RATE, Samples
from .detect import CHUNK, LIFT_DB, Chunker, ChunkJudge, DetectorName, MonoSegments, Segment


class SeatedSegments:
    """``feed`` blocks (frames, columns), get the utterances that ended in
    them with a seat each (None: the tracker cannot tell, or no seat
    claims it); ``flush`` at the end. The confidence is the detector's
    times the seat's."""

    def __init__(
        self,
        tracker: SeatTracker,
        detector: DetectorName | ChunkJudge = "both",
        lift_db: float = LIFT_DB,
        mono: Callable[[Samples], Samples] | None = None,
    ) -> None:
        """``mono``: what the detector hears of whole chunks (frames,
        columns) -> (frames,); the columns' mean unless given."""
        self._tracker = tracker
        self._mono = mono or _mean
        self._heard = MonoSegments(detector, lift_db)
        self._chunks = Chunker()
        heard = self._heard.segmenter
        # A chunk is surely inside an open utterance once it is this far
        # behind the newest: the utterance would have closed otherwise.
        self._lag = math.ceil(max(heard.fade_s, heard.hangover_s) * RATE / CHUNK) + 2
        behind = math.ceil((heard.lookback_s + heard.window * CHUNK / RATE) * RATE / CHUNK)
        self._recent: deque[Samples] = deque(maxlen=max(self._lag, behind) + 8)
        self._fed: int | None = None  # the next sample the tracker gets (None: no utterance)

    def feed(self, block: Samples) -> list[Segment]:
        whole = self._chunks.take(block)
        if not len(whole):
            return []
        mono = self._mono(whole)
        found = []
        for first in range(0, len(whole), CHUNK):
            self._recent.append(whole[first : first + CHUNK])
            segment = self._heard.chunk(mono[first : first + CHUNK])
            opened = self._heard.open_since
            if opened is not None and self._fed is None:  # an utterance begins
                self._tracker.reset()
                self._fed = round(opened * RATE)
            if opened is not None:
                self._feed_to((self._heard.count - self._lag) * CHUNK)
            elif self._fed is not None:  # it has ended (or was too short to count)
                if segment is not None:
                    found.append(self._seated(segment))
                self._fed = None
        return found

    def flush(self) -> list[Segment]:
        found = [self._seated(segment) for segment in self._heard.flush()]
        self._fed = None
        return found

    def _seated(self, segment: Segment) -> Segment:
        self._feed_to(round(segment.end * RATE), whole=True)
        seat, sure = self._tracker.verdict()
        return Segment(segment.start, segment.end, round(segment.confidence * sure, 3), seat)

    def _feed_to(self, end: int, whole: bool = False) -> None:
        """Feed the tracker the kept samples from ``_fed`` to ``end``, a
        chunk a call. ``whole``: all of it must be there (the utterance's end)."""
        assert self._fed is not None
        newest = self._heard.count * CHUNK
        oldest = newest - len(self._recent) * CHUNK
        if self._fed < oldest or (whole and end < self._fed) or end > newest:
            raise RuntimeError(f"samples {self._fed}-{end} not kept ({oldest}-{newest})")
        while self._fed < end:
            index = (self._fed - oldest) // CHUNK
            offset = self._fed - oldest - index * CHUNK
            piece = self._recent[index][offset : offset + end - self._fed]
            self._tracker.feed(np.ascontiguousarray(piece))
            self._fed += len(piece)


def _mean(chunks: Samples) -> Samples:
    mixed: Samples = chunks.mean(axis=1)
    return mixed
