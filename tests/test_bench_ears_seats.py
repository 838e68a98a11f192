"""bench/ears_seats.py's false flags of the multi-microphone layouts, as
behaviour: the room-only passes are at the levels asked for, a segment is
counted as a flag only where the table's end would raise one (a seat
claims it, and it is as loud as the table's speakers), and the loudness
the bench gates on is the one the listening process tells the table.
Nothing here measures a rate (those are the bench's figures)."""

from __future__ import annotations

import shutil
from typing import Any

import numpy as np
import pytest

from bench.ears_seats import Heard, RoomTally
from companion.ears.capture import BLOCK, RATE, Block
from companion.ears.detect import Segment, segments
from companion.ears.hearing import EarsSettings, Hearing
from companion.ears.watch import LevelGate
from testkit.room import Spoken

needs_voices = pytest.mark.skipif(
    shutil.which("espeak-ng") is None, reason="espeak-ng missing (the simulated voices)"
)


def _gate(reference: float) -> LevelGate:
    gate = LevelGate(needs=1)
    gate.learn(reference)
    return gate


def test_a_segment_counts_as_a_flag_only_when_a_seat_claims_it_and_it_is_loud_enough() -> None:
    gate = _gate(-20.0)  # passes from -32 dB
    segments = [Segment(1.0, 2.0, 0.9, 3), Segment(3.0, 4.0, 0.9), Segment(5.0, 6.0, 0.9, 4)]
    loudness = [-25.0, -20.0, -40.0]  # the seatless one is loud; seat 4's is far below the gate
    seats, one_microphone = RoomTally(), RoomTally(needs_seat=False)
    for tally in (seats, one_microphone):
        tally.count(0.0, 60.0, segments, loudness, gate)
    assert seats.figures()["room_heard_per_30_min"] == {"0": 90.0}
    assert seats.figures()["room_claimed_per_30_min"] == {"0": 60.0}
    assert seats.figures()["room_flags_per_30_min"] == {"0": 30.0}
    assert one_microphone.figures()["room_flags_per_30_min"] == {"0": 60.0}


def test_the_rule_s_cost_counts_utterances_no_claimed_segment_holds() -> None:
    truth = [
        Spoken(1.0, 2.0, 3, "normal"),  # found, claimed: kept
        Spoken(3.0, 4.0, 5, "loud"),  # found, nobody's: lost to the rule
        Spoken(5.0, 6.0, 6, "normal"),  # found, claimed but too quiet: lost to the gate
        Spoken(7.0, 8.0, 7, "whisper"),  # not counted
        Spoken(9.0, 10.0, 8, "normal"),  # not found
    ]
    segments = [
        Segment(1.0, 2.0, 0.9, 3),
        Segment(3.0, 4.0, 0.9),
        Segment(5.0, 6.0, 0.9, 6),
        Segment(7.0, 8.0, 0.9),
    ]
    tally = RoomTally()
    tally.speech(segments, [-20.0, -20.0, -40.0, -20.0], truth, _gate(-20.0))
    figures = tally.figures()
    assert (figures["speech_found"], figures["speech_dropped_no_seat"]) == (3, 1)
    assert figures["speech_dropped_with_gate"] == 2
    assert figures["gate_reference_db"] == [-20.0]


@needs_voices
def test_the_bench_gates_on_the_loudness_the_listening_process_tells() -> None:
    from testkit.corpus import render

    speech = render("Я мирный житель, голосую за третьего", "ru", 165)
    pause = np.zeros(RATE // 2, dtype=np.float32)
    track = np.concatenate([pause, speech * 0.05, pause, speech * 0.2, pause])
    messages: list[tuple[Any, ...]] = []
    hearing = Hearing(EarsSettings(), messages.append)
    for first in range(0, len(track), BLOCK):
        hearing.block(Block(track[first : first + BLOCK, None], first / RATE))
    hearing.finish()
    told = [m[5] for m in messages if m[0] == "close" and m[2] > m[1]]
    heard = Heard("silero")
    measured = [heard.loudness(s) for s in segments(track, heard)]
    assert len(told) == 2
    assert measured == told  # the second's window holds the first's last chunks, as live


@pytest.mark.slow  # the simulated room
@needs_voices
def test_the_room_alone_is_at_the_levels_asked_for() -> None:
    pytest.importorskip("pyroomacoustics")
    from testkit.corpus import SPEECH_RMS, active_rms
    from testkit.room import ROOM_LEVELS, make_table, room_passes

    table = make_table(7, seats=10)
    passes = room_passes(table, 71, 0.1)
    assert list(passes) == list(ROOM_LEVELS)
    for level, sound in passes.items():
        assert sound.truth == ()
        assert sound.channels.shape == (6 * RATE, 10) and sound.array.shape == (6 * RATE, 6)
        at_the_array = active_rms(sound.array.mean(axis=1).astype(np.float64))
        assert 20 * np.log10(at_the_array / SPEECH_RMS) == pytest.approx(level, abs=0.5)
