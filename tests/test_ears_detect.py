"""The voice-activity detectors on real audio: Russian speech rendered by
espeak-ng, mixed with generated room sound (bench/ears_corpus.py), through
webrtcvad and Silero's ONNX model as shipped. One utterance gives one
segment; loud white noise is speech to webrtcvad alone."""

from __future__ import annotations

import numpy as np
import pytest

from bench.ears_corpus import make_corpus, room_only
from companion.ears.detect import Segmenter, segments


@pytest.fixture(scope="module")
def speech_in_pink_noise():  # type: ignore[no-untyped-def]
    return make_corpus(seed=3, minutes=0.4, snr_db=10.0, noise="pink")


@pytest.mark.parametrize("detector", ["silero", "both"])
def test_each_loud_enough_utterance_gives_one_segment(speech_in_pink_noise, detector) -> None:  # type: ignore[no-untyped-def]
    clip = speech_in_pink_noise
    found = segments(clip.samples, detector)
    spoken = [u for u in clip.truth if u.kind in ("normal", "loud") and u.end_s - u.start_s >= 0.5]
    assert spoken
    for utterance in spoken:
        overlapping = [s for s in found if s.start < utterance.end_s and s.end > utterance.start_s]
        assert len(overlapping) >= 1, (utterance, found)
        assert abs(overlapping[0].start - utterance.start_s) < 0.3  # its onset, not a later word
    for segment in found:  # and nothing where nobody spoke
        assert any(
            segment.start < u.end_s + 0.5 and segment.end > u.start_s - 0.5 for u in clip.truth
        )


def test_loud_white_noise_fools_webrtcvad_alone() -> None:
    noise = room_only(seed=4, minutes=0.3, noise="white")
    assert segments(noise.samples, "webrtc")  # the fast stage hears speech in it
    assert segments(noise.samples, "both") == []  # the model stage rejects it


def test_a_knock_is_too_short_to_open_an_utterance() -> None:
    segmenter = Segmenter()
    verdicts = [0.0, 0.9, 0.9, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    out = [segmenter.feed(n * 0.032, p) for n, p in enumerate(verdicts)]
    assert out == [None] * len(verdicts) and segmenter.flush() is None


def test_pauses_between_words_stay_inside_one_utterance() -> None:
    segmenter = Segmenter()
    words = [0.9] * 10 + [0.0] * 5 + [0.9] * 10 + [0.0] * 20  # a 0.16 s pause between two words
    out = [s for n, p in enumerate(words) if (s := segmenter.feed(n * 0.032, p)) is not None]
    assert len(out) == 1
    assert out[0].start == 0.0 and out[0].end == pytest.approx(25 * 0.032, abs=1e-9)
    assert np.isclose(out[0].confidence, 0.9)
