"""testkit/corpus.py makes what it says: truth inside the clip, speech
louder inside the truth than outside, no truth without a speaker, the same
clip for the same seed. Real espeak-ng renders the speech."""

from __future__ import annotations

import json
import shutil
import wave
from pathlib import Path

import numpy as np
import pytest

from testkit.corpus import RATE, Clip, make_corpus, room_only, save, through_room

pytestmark = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng missing")

MINUTES = 20 / 60


def _rms(x: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(x.astype(np.float64)))))


def _in_truth(clip: Clip) -> np.ndarray:
    mask = np.zeros(len(clip.samples), dtype=bool)
    for u in clip.truth:
        mask[round(u.start_s * clip.rate) : round(u.end_s * clip.rate)] = True
    return mask


@pytest.fixture(scope="module")
def clip() -> Clip:
    return make_corpus(seed=3, minutes=MINUTES, snr_db=10, noise="room")


def test_the_truth_lies_within_the_clip_in_order(clip: Clip) -> None:
    assert clip.rate == RATE
    assert clip.samples.dtype == np.float32 and clip.samples.ndim == 1
    assert len(clip.samples) == 20 * RATE
    assert float(np.abs(clip.samples).max()) <= 1.0
    assert len(clip.truth) >= 3  # 20 s holds several phrases and their gaps
    previous_end = 0.0
    for u in clip.truth:
        assert previous_end <= u.start_s < u.end_s <= clip.seconds
        assert u.kind in {"normal", "loud", "quiet", "whisper"}
        previous_end = u.end_s


def test_speech_inside_the_truth_is_louder_than_the_noise_outside_at_20_db() -> None:
    clip = make_corpus(seed=4, minutes=MINUTES, snr_db=20, noise="pink")
    inside = _in_truth(clip)
    ratio_db = 20 * np.log10(_rms(clip.samples[inside]) / _rms(clip.samples[~inside]))
    # 20 dB at the normal level; quiet and whispered phrases, and the pauses
    # between words inside a span, pull the measured figure down (~16 dB).
    assert ratio_db > 10, ratio_db


def test_a_room_without_a_speaker_has_no_truth() -> None:
    for noise in ("white", "babble"):
        clip = room_only(seed=5, minutes=MINUTES, noise=noise)
        assert clip.truth == ()
        assert len(clip.samples) == 20 * RATE
        assert _rms(clip.samples) > 0.01  # loud: as loud as a player speaking


def test_a_room_keeps_the_level_asked_for() -> None:
    """The room's knocks peak above full scale at 0 dB: the clip clips them
    (as a card does) rather than pulling the whole room down."""
    loud = room_only(seed=5, minutes=MINUTES, noise="room", level_db=0.0)
    quiet = room_only(seed=5, minutes=MINUTES, noise="room", level_db=-10.0)
    assert float(np.abs(loud.samples).max()) == pytest.approx(1.0)
    apart = 20 * np.log10(_rms(loud.samples) / _rms(quiet.samples))
    assert apart == pytest.approx(10.0, abs=1.0)


def test_the_same_seed_gives_the_same_clip(clip: Clip) -> None:
    again = make_corpus(seed=3, minutes=MINUTES, snr_db=10, noise="room")
    assert np.array_equal(again.samples, clip.samples)
    assert again.truth == clip.truth
    other = make_corpus(seed=6, minutes=MINUTES, snr_db=10, noise="room")
    assert not np.array_equal(other.samples, clip.samples)


def test_save_writes_a_wav_and_its_truth(clip: Clip, tmp_path: Path) -> None:
    wav, side = save(clip, tmp_path / "room.wav")
    with wave.open(str(wav)) as reader:
        assert (reader.getframerate(), reader.getnchannels(), reader.getsampwidth()) == (RATE, 1, 2)
        assert reader.getnframes() == len(clip.samples)
    truth = json.loads(side.read_text(encoding="utf-8"))["truth"]
    assert [(t["start_s"], t["end_s"], t["kind"]) for t in truth] == [
        (u.start_s, u.end_s, u.kind) for u in clip.truth
    ]


def test_talk_from_the_other_tables_comes_through_a_room() -> None:
    """A click through ``through_room``: the direct sound, then a tail
    3-9 dB louder in all that decays by 60 dB over the room's RT60."""
    click = np.zeros(2 * RATE, dtype=np.float32)
    click[0] = 1.0
    heard = through_room(np.random.default_rng(7), click)
    assert heard[0] == pytest.approx(1.0)
    tail = heard[1:].astype(np.float64)
    ratio_db = 10 * np.log10(np.sum(np.square(tail)))
    assert 3.0 <= ratio_db <= 9.0
    early = np.sum(np.square(tail[: RATE // 10]))
    late = np.sum(np.square(tail[RATE // 10 : RATE // 5]))
    assert 0 < late < early  # it rings on, and dies away
