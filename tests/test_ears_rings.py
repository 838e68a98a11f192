"""Issue 26's sixth round: most of the room sound's false segments were a
knock's ring that a Silero called speech. A ring jumps out of the room and
only fades, chunk by chunk; a word rises into its vowel or holds it
(``Segmenter.ring_step_db``)."""

from __future__ import annotations

from companion.ears.detect import CHUNK, segmenter_for
from companion.ears.segmenter import Segment, Segmenter
from testkit.corpus import RATE


def _fed(segmenter: Segmenter, probability: float, lifts: list[float]) -> list[Segment]:
    """2 s of room, then chunks at ``probability`` standing ``lifts`` out, then room."""
    step = CHUNK / RATE
    verdicts = [(0.0, 0.0)] * 62 + [(probability, lift) for lift in lifts] + [(0.0, 0.0)] * 40
    found = []
    for n, (p, lift) in enumerate(verdicts):
        out = segmenter.feed(n * step, p, lift, False, True)
        if out is not None:
            found.append(out)
    last = segmenter.flush()
    return found + ([last] if last is not None else [])


RING = [31.0, 26.0, 21.0, 16.0, 11.0, 6.0]  # a knock's ring: 5 dB a chunk down
WORD = [16.0, 24.0, 28.0, 27.0, 26.0, 22.0, 14.0, 8.0]  # a word: up into its vowel


def test_a_ring_opens_nothing_where_a_word_as_loud_does() -> None:
    assert _fed(segmenter_for("silero-whisper"), 0.9, RING) == []
    assert len(_fed(segmenter_for("silero-whisper"), 0.9, WORD)) == 1


def test_the_ring_rule_is_what_refuses_it() -> None:
    without = segmenter_for("silero-whisper")
    without.ring_step_db = 0.0
    assert len(_fed(without, 0.9, RING)) == 1


def test_a_quiet_fading_syllable_is_no_ring() -> None:
    # A line's syllable at 10 dB: loud for a chunk, then fading; too quiet to
    # be a knock that stands out (``RING_PEAK_DB``), so it still opens.
    line = [15.7, 11.3, 12.0, 16.0, 10.3, 13.0, 14.0, 12.0, 11.0, 13.0]
    assert len(_fed(segmenter_for("silero-whisper"), 0.7, line)) == 1
