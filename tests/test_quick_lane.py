"""The quick lane (issue 23): a second output stream with a small buffer
plays the answer to an input, the main stream keeps its deep buffer and
every cue known ahead, and the two never talk over each other
(voice/floor.py). Fake streams on a fake clock first, heard on one
timeline as the sound server mixes them; then the real streams on the
PulseAudio null sink, recorded from its monitor. No wall-clock time."""

from __future__ import annotations

import io
import itertools
import logging
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from companion.voice.audio import AudioFormat, Clip, tone
from companion.voice.floor import PAUSE_S, Floor
from companion.voice.lane import QUICK_BLOCK, QUICK_LATENCY, QUICK_STALL_S, open_stream
from companion.voice.playback import Playback
from companion.voice.recovery import RecoveringSpeaker
from companion.voice.settings import VoiceSettings, speaker_for
from companion.voice.speaker import SoundDeviceSpeaker
from tests.test_speaker import TONES, Recorder, TimeInfo, _labels, _order, wait_for

RATE = 22050
MAIN_BLOCK = 1024
MAIN_DAC = 2048 / RATE  # ~93 ms: the deep buffer
QUICK_DAC = 256 / RATE  # ~12 ms
T0 = 100.0


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


class LaneStream:
    """Stands in for one ``sounddevice.OutputStream``: asks for a block
    every block period and keeps what it was handed, with when it sounds."""

    def __init__(self, callback: Any, clock: Clock, blocksize: int, dac: float) -> None:
        self.callback, self.clock, self.blocksize, self.dac = callback, clock, blocksize, dac
        self.samplerate, self.channels, self.latency = RATE, 1, dac
        self.blocks: list[tuple[float, np.ndarray]] = []
        self.next_at = float("inf")
        self.running = True  # False: a stalled stream (asks for nothing)
        self.active = True

    def start(self) -> None:
        self.next_at = self.clock.now

    def tick(self) -> None:
        block = np.full((self.blocksize, 1), 7, dtype=np.int16)  # garbage to overwrite
        now = self.clock.now
        self.callback(block, self.blocksize, TimeInfo(now, now + self.dac), None)
        self.blocks.append((now + self.dac, block[:, 0].copy()))
        self.next_at += self.blocksize / RATE

    def stop(self) -> None:
        pass

    def close(self) -> None:
        self.active = False


class Device:
    """A sound server with two streams mixed on one timeline, on a fake clock."""

    def __init__(self, *, quick: bool = True, second_fails: bool = False, **options: Any) -> None:
        self.clock = Clock()
        self.streams: list[LaneStream] = []
        self.asked: list[tuple[int, dict[str, Any]]] = []

        def factory(
            device: Any, fmt: AudioFormat, blocksize: int, callback: Any, **kwargs: Any
        ) -> LaneStream:
            self.asked.append((blocksize, kwargs))
            if self.streams and second_fails:
                raise OSError("Error opening OutputStream: Device unavailable [PaErrorCode -9985]")
            dac = MAIN_DAC if not self.streams else QUICK_DAC
            self.streams.append(LaneStream(callback, self.clock, blocksize, dac))
            return self.streams[-1]

        self.speaker = SoundDeviceSpeaker(
            None, stream_factory=factory, clock=self.clock, quick=quick, **options
        )

    def run(self, seconds: float) -> None:
        """Every callback due in the next ``seconds``, in time order."""
        end = self.clock.now + seconds
        while True:
            running = [s for s in self.streams if s.running]
            if not running:
                break
            stream = min(running, key=lambda s: s.next_at)
            if stream.next_at > end:
                break
            self.clock.now = stream.next_at
            stream.tick()
        self.clock.now = end

    def heard(self) -> list[np.ndarray]:
        """Each stream's sound on the common timeline (sample 0 at T0)."""
        ends = [round((at - T0) * RATE) + len(b) for s in self.streams for at, b in s.blocks]
        length = max(ends, default=0)
        lanes = []
        for stream in self.streams:
            line = np.zeros(length, dtype=np.int32)
            for at, block in stream.blocks:
                start = round((at - T0) * RATE)
                line[start : start + len(block)] += block
            lanes.append(line)
        return lanes


def sample(at: float) -> int:
    return round((at - T0) * RATE)


def speech(value: int, seconds: float, tail: float = 0.0) -> Clip:
    """A cue: ``seconds`` of a constant voice, then ``tail`` seconds of silence."""
    voice = np.full(round(seconds * RATE), value, dtype=np.int16)
    return Clip.mono(np.concatenate([voice, np.zeros(round(tail * RATE), np.int16)]), RATE)


def first(line: np.ndarray, value: int) -> int:
    (where,) = np.flatnonzero(line == value)[:1]
    return int(where)


def last(line: np.ndarray, value: int) -> int:
    return int(np.flatnonzero(line == value)[-1])


def no_overlap(main: np.ndarray, quick: np.ndarray) -> bool:
    return not np.count_nonzero((main != 0) & (quick != 0))


# --- on fake streams ----------------------------------------------------------------


def test_an_inputs_answer_goes_out_on_the_quick_lane_a_small_buffer_later() -> None:
    device = Device()
    speaker = device.speaker
    assert [lane.name for lane in speaker.lanes] == ["main", "quick"]
    device.run(0.05)
    pressed = device.clock.now
    speaker.play(speech(1000, 0.2), "answer")
    device.run(0.3)
    (started,) = speaker.started
    assert started.lane == "quick" and not started.scheduled
    main, quick = device.heard()
    assert not main.any()
    # The next quick callback takes it, and its block sounds a quick buffer later.
    assert 0 <= first(quick, 1000) - sample(pressed) <= QUICK_BLOCK + round(QUICK_DAC * RATE)
    assert started.audible - pressed < MAIN_DAC  # sooner than the deep buffer could
    assert speaker.playback.idle


def test_an_answer_waits_for_a_voice_an_underrun_made_later() -> None:
    """The main lane's cue runs dry under load (its stream sounds 60 ms
    later from then on): the answer waiting for it waits that much longer,
    so the pause between them holds (the null sink's test saw 3 windows of
    silence instead of 6 once, after an underrun inside the cue)."""
    device = Device()
    speaker = device.speaker
    due = T0 + 0.5
    speaker.play(speech(1000, 0.4), "timer cue", at=due, ticket=1)
    device.run(due + 0.1 - device.clock.now)
    speaker.play(speech(2000, 0.1), "while it speaks")
    device.streams[0].dac += 0.06  # the underrun: the rest of the cue is heard later
    device.run(1.0)
    main, quick = device.heard()
    assert no_overlap(main, quick)
    spoken_until = last(main, 1000) + 1
    assert spoken_until > sample(due + 0.4 + 0.05)  # the cue did end later
    assert first(quick, 2000) == pytest.approx(spoken_until + PAUSE_S * RATE, abs=2)


def test_a_cue_known_ahead_starts_at_its_frame_on_the_main_lane() -> None:
    device = Device()
    due = T0 + 1.0 + 37 / RATE
    device.speaker.play(speech(2000, 0.1), "stop", at=due, ticket=1)
    device.run(1.5)
    main, quick = device.heard()
    assert first(main, 2000) == sample(due)
    assert not quick.any()
    (started,) = device.speaker.started
    assert started.lane == "main" and started.scheduled and started.audible == pytest.approx(due)


def test_an_answer_waits_for_the_other_lanes_voice_not_for_the_silence_after_it() -> None:
    device = Device()
    speaker = device.speaker
    due = T0 + 0.5
    # The main lane speaks 0.2 s, then its clip is silent for 0.6 s.
    speaker.play(speech(1000, 0.2, tail=0.6), "timer cue", at=due, ticket=1)
    device.run(due + 0.1 - device.clock.now)
    speaker.play(speech(2000, 0.1), "while it speaks")
    device.run(0.6)
    speaker.play(speech(3000, 0.1), "in its silence")
    device.run(0.5)
    main, quick = device.heard()
    assert no_overlap(main, quick)
    spoken_until = last(main, 1000) + 1
    # Waits for the voice, and a pause (PAUSE_S) after it ...
    assert first(quick, 2000) == pytest.approx(spoken_until + PAUSE_S * RATE, abs=2)
    # ... but not for the silence the main lane's clip ends with.
    assert first(quick, 3000) < sample(due + 0.8)
    assert [s.lane for s in speaker.started] == ["main", "quick", "quick"]
    waited = speaker.started[1]
    assert waited.free == pytest.approx(waited.audible, abs=1e-3)  # measured from when it could


@pytest.mark.parametrize("urgent", [False, True])
def test_a_timer_cue_due_while_the_quick_lane_speaks(urgent: bool) -> None:
    """A cue known ahead whose moment comes during an input's answer waits
    for it and what was queued behind it, as on one stream; an urgent one
    («Стоп») cuts in at its exact frame, and the answer's lane falls silent
    there and drops its queue."""
    device = Device()
    speaker = device.speaker
    device.run(0.05)
    speaker.play(speech(1000, 1.0), "answer")
    speaker.play(speech(4000, 0.2), "queued after it")
    device.run(0.1)
    due = T0 + round(0.55 * RATE) / RATE  # on a sample, 0.4 s on
    speaker.play(speech(2000, 0.2), "timer cue", urgent=urgent, at=due, ticket=1)
    device.run(2.0)
    main, quick = device.heard()
    assert no_overlap(main, quick)
    captions = [s.caption for s in speaker.started]
    if urgent:
        assert first(main, 2000) == sample(due)  # sample-exact all the same
        assert last(quick, 1000) + 1 == sample(due)  # cut there
        assert captions == ["answer", "timer cue"]
    else:
        assert first(main, 2000) == pytest.approx(last(quick, 4000) + 1 + PAUSE_S * RATE, abs=2)
        assert captions == ["answer", "queued after it", "timer cue"]
    assert speaker.playback.idle


def test_an_urgent_answer_cuts_the_main_lane_where_its_buffer_ends() -> None:
    device = Device()
    speaker = device.speaker
    due = T0 + 0.3
    speaker.play(speech(1000, 1.0), "long timer cue", at=due, ticket=1)
    speaker.play(speech(4000, 0.2), "its queue", at=due + 0.01, ticket=2)
    device.run(due + 0.3 - device.clock.now)
    speaker.play(speech(2000, 0.2), "Спасибо.", urgent=True)
    device.run(1.5)
    main, quick = device.heard()
    assert no_overlap(main, quick)
    handed_over = last(main, 1000) + 1
    assert first(quick, 2000) == handed_over  # at once after what the deep buffer held
    # (the next quick callback asks; by then the main one may have handed a block more)
    held = MAIN_BLOCK + round(MAIN_DAC * RATE) + QUICK_BLOCK
    assert handed_over - sample(due + 0.3) <= held
    assert [s.caption for s in speaker.started] == ["long timer cue", "Спасибо."]
    assert speaker.playback.idle


def test_where_a_second_stream_cannot_be_opened_the_main_one_plays_everything(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.INFO, logger="companion.voice.speaker"):
        device = Device(second_fails=True)
    speaker = device.speaker
    assert [lane.name for lane in speaker.lanes] == ["main"] and speaker.quick is None
    assert any("one output stream only" in r.message for r in caplog.records)
    speaker.play(speech(1000, 0.1), "answer")
    device.run(0.5)
    (main,) = device.heard()
    assert first(main, 1000) > 0
    assert [s.lane for s in speaker.started] == ["main"]


def test_a_stalled_quick_lanes_cues_are_played_by_the_main_one() -> None:
    device = Device()
    speaker = device.speaker
    device.run(0.1)
    quick_stream = device.streams[1]
    quick_stream.running = False  # PulseAudio restarting it, say
    speaker.play(speech(1000, 0.1), "taken before the stall showed")
    device.run(QUICK_STALL_S + 0.3)
    speaker.play(speech(2000, 0.1), "after it showed")
    device.run(0.5)
    main, quick = device.heard()
    assert first(main, 1000) < first(main, 2000) and not quick[sample(T0 + 0.1) :].any()
    assert [s.lane for s in speaker.started] == ["main", "main"]
    assert speaker.playback.idle


def test_low_latency_still_shrinks_the_main_stream_and_keeps_the_quick_lane() -> None:
    device = Device(latency="low")
    (main_block, main_options), (quick_block, quick_options) = device.asked
    assert (main_block, main_options) == (256, {"latency": "low"})
    assert (quick_block, quick_options) == (QUICK_BLOCK, {"latency": QUICK_LATENCY})


def test_no_quick_lane_unless_asked() -> None:
    device = Device(quick=False)
    assert len(device.streams) == 1 and len(device.speaker.lanes) == 1


def test_the_ears_and_the_table_see_every_lane() -> None:
    """``sounding_until`` (the ears' guard against the table's own voice),
    ``started`` and ``idle`` cover both lanes; tickets go to the main one."""
    device = Device()
    speaker = device.speaker
    speaker.play(speech(1000, 0.5), "answer")
    assert not speaker.playback.idle
    device.run(0.1)
    (started,) = speaker.started
    assert speaker.playback.sounding_until == pytest.approx(started.audible + 0.5)
    speaker.play(speech(2000, 0.1), "planned", at=T0 + 2, ticket=7)
    speaker.withdraw(7)
    device.run(2.5)
    assert [s.caption for s in speaker.started] == ["answer"] and speaker.playback.idle
    assert speaker.underruns == 0


# --- on the PulseAudio null sink ----------------------------------------------------


@pytest.fixture
def recorder(pulse_server: str, tmp_path: Path) -> Iterator[Recorder]:
    recorder = Recorder(tmp_path / "monitor.raw")
    try:
        yield recorder
    finally:
        recorder.stop()


def _sink_inputs() -> int:
    listed = subprocess.run(
        ["pactl", "list", "short", "sink-inputs"], capture_output=True, text=True, check=True
    )
    return len(listed.stdout.splitlines())


def test_two_real_streams_take_turns_at_the_sink(recorder: Recorder) -> None:
    """A timer cue on the main stream, an input's answer pressed while it
    sounds (it waits), and one after silence (heard on the quick lane):
    all three heard in order at the null sink, never two at once."""
    wait_for(lambda: len(recorder.samples()) > RATE // 10, "the monitor recording to start")
    speaker = SoundDeviceSpeaker("pulse", quick=True)
    try:
        assert [lane.name for lane in speaker.lanes] == ["main", "quick"]
        # the server mixes two streams (the second one's sink input shows a
        # moment after its stream starts: under load pactl listed one)
        wait_for(lambda: _sink_inputs() == 2, "two sink inputs at the server")
        due = speaker._clock() + 0.5
        speaker.play(tone(TONES["a"], 0.6), "a", at=due, ticket=1)
        wait_for(lambda: _labels(recorder.samples()).count("a") >= 5, "cue a at the sink")
        speaker.play(tone(TONES["b"], 0.4), "b")  # pressed while a sounds: waits for it
        wait_for(lambda: speaker.playback.idle, "b to be handed over")
        wait_for(lambda: _labels(recorder.samples())[-8:] == [""] * 8, "silence after b")
        speaker.play(tone(TONES["c"], 0.4), "c")
        wait_for(lambda: speaker.playback.idle, "c to be handed over")
        wait_for(lambda: _labels(recorder.samples())[-8:] == [""] * 8, "silence after c")
    finally:
        speaker.close()
    labels = _labels(recorder.samples())
    heard = [(x, len(list(g))) for x, g in itertools.groupby(labels)]
    assert _order(labels) == ["a", "b", "c"], heard
    # b waited for a: never both at once. (Under heavy load an underrun of
    # the quick lane may put a click into b or c, loud at every tone: a "+"
    # window inside a cue, or at its abrupt start, not two cues.)
    # The pause (PAUSE_S, ~6 windows) follows a before b starts.
    last_a = max(i for i, x in enumerate(labels) if x == "a")
    assert labels[last_a + 1 : last_a + 5] == [""] * 4, heard
    assert [(s.caption, s.lane) for s in speaker.started] == [
        ("a", "main"),
        ("b", "quick"),
        ("c", "quick"),
    ]


def test_a_real_second_stream_refused_leaves_the_main_one_playing(
    recorder: Recorder, caplog: pytest.LogCaptureFixture
) -> None:
    """As on a bare ALSA card without dmix: the second stream cannot be
    opened, and every cue goes out on the main stream, heard all the same."""
    wait_for(lambda: len(recorder.samples()) > RATE // 10, "the monitor recording to start")
    opened: list[int] = []

    def one_stream_only(*args: Any, **kwargs: Any) -> Any:
        if opened:
            raise OSError("Error opening OutputStream: Device unavailable [PaErrorCode -9985]")
        opened.append(1)
        return open_stream(*args, **kwargs)

    with caplog.at_level(logging.INFO, logger="companion.voice.speaker"):
        speaker = SoundDeviceSpeaker("pulse", quick=True, stream_factory=one_stream_only)
    try:
        assert speaker.quick is None and _sink_inputs() == 1
        speaker.play(tone(TONES["a"], 0.4), "a")
        wait_for(lambda: speaker.playback.idle, "a to be handed over")
        wait_for(lambda: "a" in _labels(recorder.samples()), "a at the sink")
    finally:
        speaker.close()
    assert [s.lane for s in speaker.started] == ["main"]
    assert any("one output stream only" in r.message for r in caplog.records)


@pytest.mark.parametrize("quick", [True, False])
def test_the_tables_speaker_opens_the_quick_lane_as_its_settings_say(
    pulse_server: str, quick: bool
) -> None:
    speaker = speaker_for(VoiceSettings(device="pulse", quick=quick), io.StringIO())
    try:
        assert isinstance(speaker, RecoveringSpeaker)
        lanes = speaker._last.lanes  # type: ignore[attr-defined]
        assert [lane.name for lane in lanes] == (["main", "quick"] if quick else ["main"])
    finally:
        speaker.close()


def test_a_cut_survives_the_devices_estimates_jittering_between_blocks() -> None:
    """Each block's moment is the device's estimate: in a burst of
    callbacks (PulseAudio asks in bursts under load) the next block may seem
    to sound no later than the last, and a cut at the very end of the last
    then falls past the end of the next. Seen under load: the lane wrote
    past its block and the callback failed."""
    floor: Floor[Playback] = Floor()
    quick = Playback(RATE, floor=floor, lane="quick")
    Playback(RATE, floor=floor, lane="main")  # a second lane: the floor is shared
    quick.add(speech(1000, 1.0), "answer")
    out = np.zeros(QUICK_BLOCK, dtype=np.int16)
    quick.fill(out, now=0.0, delay=0.0)
    floor.turns[0].cut_at = (2 * QUICK_BLOCK - 0.5) / RATE  # another lane's urgent cue
    quick.fill(out, now=0.0, delay=QUICK_BLOCK / RATE)
    assert (out == 1000).all()  # up to the cut: the block's last frame
    quick.fill(out, now=0.0, delay=(QUICK_BLOCK - 23) / RATE)  # "sounds" before the last one
    assert (out == 1000).all()  # still before the cut, as this block's moment says
    quick.fill(out, now=0.0, delay=(2 * QUICK_BLOCK - 23) / RATE)
    assert (out[:23] == 1000).all() and not out[23:].any()  # cut where the moment comes
    assert quick.idle
