"""The voice-activity detectors on real audio: Russian speech rendered by
espeak-ng, mixed with generated room sound (testkit/corpus.py), through
webrtcvad and Silero's ONNX model as shipped. One utterance gives one
segment; loud white noise is speech to webrtcvad alone."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest

from companion.ears.detect import Segmenter, chunks, judge, segments
from companion.ears.floor import RoomFloor, median
from testkit.corpus import make_corpus, room_only


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
    fast, sure = judge("webrtc"), judge("silero")
    heard = [(fast(chunk), sure(chunk)) for _, chunk in chunks(noise.samples)]
    assert np.mean([f for f, _ in heard]) > 0.5  # the fast stage hears speech in most of it
    assert np.mean([s >= 0.5 for _, s in heard]) < 0.05  # the model hardly any
    assert segments(noise.samples, "both") == []


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


def test_speech_that_does_not_stand_out_of_the_room_opens_nothing() -> None:
    """Talk all round the table is speech to the detector but hardly rises
    above its own low points: no utterance until a voice stands out."""
    segmenter = Segmenter()
    murmur = [segmenter.feed(n * 0.032, 0.9, 4.0) for n in range(100)]
    assert murmur == [None] * 100 and segmenter.open_since is None
    for n in range(100, 110):
        segmenter.feed(n * 0.032, 0.9, 15.0)
    assert segmenter.open_since is not None


def test_a_soft_start_keeps_its_onset() -> None:
    """The first syllables stood out less than the rest: the utterance
    still begins at them, not where it was first sure."""
    segmenter = Segmenter()
    for n in range(5):
        segmenter.feed(n * 0.032, 0.0, 0.0)
    for n in range(5, 12):  # voiced, not yet 9 dB above the room
        segmenter.feed(n * 0.032, 0.9, 5.0)
    assert segmenter.open_since is None
    for n in range(12, 16):
        segmenter.feed(n * 0.032, 0.9, 14.0)
    assert segmenter.open_since == pytest.approx(5 * 0.032)


def test_the_floor_is_the_room_under_the_speech_and_follows_it() -> None:
    floor = RoomFloor()
    rng = np.random.default_rng(0)
    # A quiet room (-60 dB) with a voice (-25 dB) in 60 % of the chunks.
    for _ in range(400):
        floor.feed([-25.0 if rng.random() < 0.6 else -60.0 + rng.normal()])
    assert floor.feed([-60.0])[0] == pytest.approx(-61, abs=2)
    for _ in range(300):  # the next table sits down: the room is 20 dB louder
        floor.feed([-40.0 + rng.normal()])
    assert floor.feed([-40.0])[0] == pytest.approx(-41, abs=2)


def test_one_floor_per_microphone() -> None:
    floor = RoomFloor(channels=2)
    for _ in range(50):
        under = floor.feed([-50.0, -30.0])
    assert under.tolist() == pytest.approx([-50.0, -30.0])


def test_a_club_room_with_talk_at_the_players_level_opens_no_utterance() -> None:
    """The room's mix (talk from the other tables, chairs, knocks, hum) as
    loud as a player: once the ears have heard it a while (a table's
    set-up), none of it stands out of the room as a voice at the table does."""
    room = room_only(seed=21, minutes=0.75, noise="room", level_db=0.0)
    found = segments(room.samples, "silero")
    assert [s for s in found if s.start >= 10.0] == []


def test_speech_over_that_room_still_stands_out() -> None:
    clip = make_corpus(seed=22, minutes=0.5, snr_db=10.0, noise="room")
    found = segments(clip.samples, "silero")
    spoken = [u for u in clip.truth if u.kind in ("normal", "loud") and u.end_s - u.start_s >= 0.5]
    assert spoken
    for utterance in spoken:
        assert any(s.start < utterance.end_s and s.end > utterance.start_s for s in found)


def test_the_talk_around_a_voice_does_not_hold_its_utterance_open() -> None:
    """The voice stops; the murmur around it goes on, speech to the
    detector but no longer standing out: the utterance ends ``fade_s``
    later, at the voice's last chunk. A dip shorter than that does not
    cut the voice in two."""
    segmenter = Segmenter()
    voice = [(0.9, 15.0)] * 20 + [(0.9, 3.0)] * 15 + [(0.9, 15.0)] * 20  # a 0.5 s dip
    murmur = [(0.9, 3.0)] * 60
    out = [
        s
        for n, (p, lift) in enumerate(voice + murmur)
        if (s := segmenter.feed(n * 0.032, p, lift)) is not None
    ]
    assert len(out) == 1
    assert out[0].start == 0.0 and out[0].end == pytest.approx(55 * 0.032, abs=1e-9)
    assert segmenter.open_since is None  # and the murmur opens nothing after it


def test_the_config_and_listen_defaults_are_the_detector_s() -> None:
    from companion.config.values import MicrophoneConfig
    from companion.ears.detect import LIFT_DB
    from companion.ears.hearing import EarsSettings

    assert MicrophoneConfig().above_room_db == LIFT_DB == EarsSettings().above_room_db
    import argparse

    from companion.commands.offline import listen_parser

    parser = argparse.ArgumentParser()
    listen_parser(parser.add_subparsers(dest="command"))
    assert parser.parse_args(["listen", "x.wav"]).above_room == LIFT_DB


def test_one_default_detector_whatever_runs_it() -> None:
    """The live table, the config, companion listen and the segmenters a
    test or bench builds all hear with ``DEFAULT_DETECTOR`` unless told
    otherwise: a recording reviewed offline is heard as the table heard it."""
    import argparse
    import inspect

    from companion.commands.offline import listen_parser
    from companion.config.values import MicrophoneConfig
    from companion.ears.detect import DEFAULT_DETECTOR, MonoSegments
    from companion.ears.hearing import EarsSettings
    from companion.ears.review import review

    parser = argparse.ArgumentParser()
    listen_parser(parser.add_subparsers(dest="command"))
    assert parser.parse_args(["listen", "x.wav"]).detector == DEFAULT_DETECTOR
    assert MicrophoneConfig().detector == EarsSettings().detector == DEFAULT_DETECTOR
    for built in (MonoSegments, segments, review):
        assert inspect.signature(built).parameters["detector"].default == DEFAULT_DETECTOR


def test_a_club_can_ask_less_of_a_voice_in_a_loud_room() -> None:
    """Speech 5 dB over a loud room: the default holds back much of it,
    ``above_room_db`` 8 hears it (docs/listening.md, "The room's floor")."""
    clip = make_corpus(seed=23, minutes=0.5, snr_db=5.0, noise="room")
    spoken = [u for u in clip.truth if u.kind in ("normal", "loud") and u.end_s - u.start_s >= 0.5]

    def heard(lift_db: float) -> int:
        found = segments(clip.samples, "silero", lift_db)
        return sum(any(s.start < u.end_s and s.end > u.start_s for s in found) for u in spoken)

    assert heard(8.0) == len(spoken) > heard(20.0)


def test_the_median_of_a_handful_is_numpys_to_the_bit() -> None:
    rng = np.random.default_rng(7)
    for size in range(1, 13):
        for _ in range(300):
            levels = list(rng.uniform(-90.0, 0.0, size))
            assert median(levels) == float(np.median(levels)), levels
    assert median([3.0, 1.0]) == 2.0 and median([-5.0]) == -5.0


@pytest.mark.parametrize("seconds", [0.2, 8.0])  # a ring of 6 chunks, and the room's 250
def test_a_floor_fed_a_block_gives_each_row_the_floor_fed_row_by_row(seconds: float) -> None:
    """``RoomFloor.feed_block`` (the whisper channel's bands, a card's
    block at once) is ``feed`` a row at a time, to the bit: the floor
    reckoned after the same rows, the ring wrapping where it wraps."""
    rng = np.random.default_rng(12)
    levels = rng.normal(-50.0, 15.0, (600, 3))
    levels[rng.random(600) < 0.05] = -120.0  # digital silence: counted as SILENT_DB
    together, apart = RoomFloor(3, seconds), RoomFloor(3, seconds)
    first, seen = 0, []
    while first < len(levels):
        block = levels[first : first + int(rng.integers(1, 12))]
        floors = together.feed_block(block)
        for row, floor in zip(block, floors, strict=True):
            alone = apart.feed(row).copy()
            assert np.array_equal(floor, alone), first
            seen.append(alone)
        first += len(block)
    changes = sum(not np.array_equal(a, b) for a, b in pairwise(seen))
    assert changes > 50  # the floor moved: reckoned every eighth chunk
    one = RoomFloor(1, seconds)
    assert [one.feed_one(v) for v in levels[:40, 0]] == list(
        RoomFloor(1, seconds).feed_block(levels[:40, :1])[:, 0]
    )
