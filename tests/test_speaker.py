"""The speaker: the stream callback driven block by block through a fake
stream (order, no overlap, urgent cut-in, draining, silence), and the same
code through a real sounddevice stream on a PulseAudio null sink, recorded
from its monitor by ``parec`` (issue 3)."""

from __future__ import annotations

import io
import itertools
import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from companion.voice.audio import AudioFormat, Clip, read_wav, tone
from companion.voice.speaker import (
    CaptionSpeaker,
    FakeSpeaker,
    Played,
    SoundDeviceSpeaker,
    Started,
    open_speaker,
)

RATE = 22050
BLOCK = 128


class Ticks:
    """A clock that moves only when a block is pumped."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@dataclass
class TimeInfo:
    currentTime: float  # PortAudio's names
    outputBufferDacTime: float


class FakeStream:
    """Stands in for ``sounddevice.OutputStream``: the test pulls blocks."""

    def __init__(self, callback: Callable[..., None], ticks: Ticks, channels: int, dac: float):
        self.callback = callback
        self.ticks = ticks
        self.samplerate = RATE
        self.channels = channels
        self.latency = 0.05
        self.dac = dac
        self.started = self.closed = False

    def start(self) -> None:
        self.started = True

    def pump(self, blocks: int, status: str = "") -> np.ndarray:
        out = []
        for _ in range(blocks):
            block = np.full((BLOCK, self.channels), 7, dtype=np.int16)  # garbage to overwrite
            now = self.ticks.now
            self.callback(block, BLOCK, TimeInfo(now, now + self.dac), status)
            out.append(block)
            self.ticks.now += BLOCK / RATE
        return np.concatenate(out)

    def stop(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True


def fake_speaker(channels: int = 1, dac: float = 0.02) -> tuple[SoundDeviceSpeaker, FakeStream]:
    ticks = Ticks()
    streams: list[FakeStream] = []

    def factory(device: Any, fmt: AudioFormat, blocksize: int, callback: Any) -> FakeStream:
        streams.append(FakeStream(callback, ticks, channels, dac))
        return streams[0]

    speaker = SoundDeviceSpeaker(None, stream_factory=factory, clock=ticks)
    assert streams[0].started
    return speaker, streams[0]


def constant(value: int, frames: int) -> Clip:
    return Clip.mono(np.full(frames, value, dtype=np.int16), RATE)


def runs(audio: np.ndarray) -> list[tuple[int, int]]:
    """Run-length encoding: [(value, count), ...]."""
    values = audio.reshape(-1)
    edges = np.flatnonzero(np.diff(values)) + 1
    starts = np.concatenate(([0], edges))
    ends = np.concatenate((edges, [len(values)]))
    return [(int(values[s]), int(e - s)) for s, e in zip(starts, ends, strict=True)]


# A step is ("cue", value, frames), ("urgent", value, frames) or ("pump", blocks).
# Each cue is a constant clip of its value, captioned "c<value>".
SCENARIOS: list[tuple[str, list[tuple[Any, ...]], list[tuple[int, int]]]] = [
    (
        "cues play one after another, then silence",
        [("cue", 1, 300), ("cue", 2, 200), ("pump", 6)],
        [(1, 300), (2, 200), (0, 268)],
    ),
    ("idle is silence", [("pump", 3)], [(0, 384)]),
    (
        "an urgent cue cuts in at the next block and drops the queue",
        [("cue", 1, 1000), ("cue", 2, 1000), ("pump", 1), ("urgent", 3, 200), ("pump", 4)],
        [(1, 128), (3, 200), (0, 312)],
    ),
    (
        "an urgent cue with nothing playing just plays",
        [("pump", 1), ("urgent", 3, 100), ("pump", 1)],
        [(0, 128), (3, 100), (0, 28)],
    ),
    (
        "a cue queued after an urgent one plays after it",
        [("cue", 1, 1000), ("pump", 1), ("urgent", 3, 100), ("cue", 4, 100), ("pump", 2)],
        [(1, 128), (3, 100), (4, 100), (0, 56)],
    ),
    (
        "a later urgent cue cuts an earlier one",
        [("urgent", 3, 1000), ("pump", 1), ("urgent", 5, 100), ("pump", 1)],
        [(3, 128), (5, 100), (0, 28)],
    ),
    (
        "two urgent cues in one block: the last wins",
        [("cue", 1, 500), ("urgent", 3, 100), ("urgent", 5, 100), ("pump", 1)],
        [(5, 100), (0, 28)],
    ),
    (
        "a long queue drains in order across blocks",
        [*[("cue", v, 70) for v in range(1, 6)], ("pump", 3)],
        [(1, 70), (2, 70), (3, 70), (4, 70), (5, 70), (0, 34)],
    ),
    (
        "cues queued while one plays wait for its end",
        [("cue", 1, 200), ("pump", 1), ("cue", 2, 100), ("pump", 2)],
        [(1, 200), (2, 100), (0, 84)],
    ),
]


@pytest.mark.parametrize(("name", "steps", "expected"), SCENARIOS, ids=[s[0] for s in SCENARIOS])
def test_the_callback_plays_cues_in_order_without_overlap(
    name: str, steps: list[tuple[Any, ...]], expected: list[tuple[int, int]]
) -> None:
    speaker, stream = fake_speaker()
    audio = []
    for step in steps:
        if step[0] == "pump":
            audio.append(stream.pump(step[1]))
        else:
            speaker.play(constant(step[1], step[2]), f"c{step[1]}", urgent=step[0] == "urgent")
    assert runs(np.concatenate(audio)) == expected
    started = [s.caption for s in speaker.started]
    assert started == [f"c{value}" for value, _ in expected if value]
    assert speaker.playback.idle


def test_idle_only_after_the_last_sample_was_handed_over() -> None:
    speaker, stream = fake_speaker()
    assert speaker.playback.idle
    speaker.play(constant(1, 300), "a")
    speaker.play(constant(2, 100), "b")
    assert not speaker.playback.idle
    stream.pump(3)  # 384 of 400 frames
    assert not speaker.playback.idle
    stream.pump(1)
    assert speaker.playback.idle and speaker.wait_idle(0)


def test_cue_start_times_are_the_callback_time_and_when_it_sounds() -> None:
    speaker, stream = fake_speaker(dac=0.02)
    seen: list[Started] = []
    speaker.on_started(seen.append)
    start = stream.ticks.now
    speaker.play(constant(1, 100), "a")
    speaker.play(constant(2, 100), "b")  # starts 100 frames into the first block
    stream.pump(1)
    assert seen == speaker.started
    a, b = speaker.started
    assert (a.caption, a.handed, a.audible) == ("a", start, pytest.approx(start + 0.02))
    assert (b.caption, b.handed) == ("b", start)
    assert b.audible == pytest.approx(start + 0.02 + 100 / RATE)


def test_a_failing_listener_is_reported_once_and_playback_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    speaker, stream = fake_speaker()

    def broken(event: Started) -> None:
        raise RuntimeError("listener bug")

    speaker.on_started(broken)
    speaker.play(constant(1, 100), "a")
    speaker.play(constant(2, 100), "b")
    with caplog.at_level(logging.WARNING):
        audio = stream.pump(2)
    assert runs(audio) == [(1, 100), (2, 100), (0, 56)]
    assert sum("listener" in r.message for r in caplog.records) == 1


def test_stereo_devices_get_the_cue_on_every_channel() -> None:
    speaker, stream = fake_speaker(channels=2)
    speaker.play(constant(4, 50), "a")
    audio = stream.pump(1)
    assert audio.shape == (BLOCK, 2)
    assert runs(audio[:, 0]) == runs(audio[:, 1]) == [(4, 50), (0, 78)]


def test_clips_at_another_rate_or_in_stereo_are_converted_when_queued() -> None:
    speaker, stream = fake_speaker()
    cd = Clip(np.full((441, 2), 5, dtype=np.int16), AudioFormat(44100, 2, 2))
    speaker.play(cd, "cd quality")
    audio = stream.pump(2)
    assert runs(audio) == [(5, 220), (0, 36)]  # 10 ms at 22 050 Hz


def test_stream_trouble_is_logged_once_and_never_raised(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    speaker, stream = fake_speaker()
    with caplog.at_level(logging.WARNING):
        stream.pump(3, status="output underflow")

        def broken(*args: Any, **kwargs: Any) -> None:
            raise RuntimeError("bug inside")

        monkeypatch.setattr(speaker.playback, "fill", broken)
        audio = stream.pump(3)
        monkeypatch.setattr(speaker.playback, "add", broken)
        speaker.play(constant(1, 10), "a")
        speaker.play(constant(1, 10), "b")
    assert not audio.any()  # silence, not garbage, when the callback fails
    messages = [r.message for r in caplog.records]
    assert sum("underflow" in m for m in messages) == 1
    assert sum("callback failed" in m for m in messages) == 1
    assert sum("could not queue" in m for m in messages) == 1
    speaker.close()
    assert stream.closed


def test_a_cue_without_sound_plays_nothing() -> None:
    speaker, stream = fake_speaker()
    speaker.play(None, "a caption only")
    assert speaker.playback.idle and not stream.pump(1).any()


def test_captions_print_one_line_per_cue() -> None:
    text = io.StringIO()
    captions = CaptionSpeaker(text)
    captions.play(None, "Слово предоставляется игроку номер три.")
    captions.play(tone(440, 0.1), "Стоп.", urgent=True)
    assert text.getvalue() == "» Слово предоставляется игроку номер три.\n! Стоп.\n"
    text.close()
    captions.play(None, "to a closed stream: no exception")


def test_the_fake_speaker_records_what_it_was_asked() -> None:
    fake = FakeSpeaker()
    fake.play(tone(440, 0.5), "a")
    fake.play(None, "b", urgent=True)
    fake.close()
    assert fake.played == [Played("a", False, 0.5), ("b", True, 0.0)]
    assert fake.clips[1] is None and fake.closed


def test_without_portaudio_the_game_goes_on_with_captions(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(sys.modules, "sounddevice", None)  # as if libportaudio2 were missing
    text = io.StringIO()
    with caplog.at_level(logging.WARNING):
        speaker = open_speaker(None, captions=text)
    assert isinstance(speaker, CaptionSpeaker)
    [warning] = [r.message for r in caplog.records]
    assert warning.startswith("no audio output device (") and warning.endswith("): captions only")
    speaker.play(None, "Спасибо.", urgent=True)
    assert text.getvalue() == "! Спасибо.\n"


def test_a_device_that_does_not_exist_means_captions(caplog: pytest.LogCaptureFixture) -> None:
    pytest.importorskip("sounddevice", exc_type=OSError)
    with caplog.at_level(logging.WARNING):
        speaker = open_speaker("no such sound card 42")
    assert isinstance(speaker, CaptionSpeaker)
    assert "captions only" in caplog.records[-1].message


# --- through a real stream on the PulseAudio null sink --------------------------------

TONES = {"a": 440, "b": 660, "c": 880, "urgent": 1320}
WINDOW = 512  # 23 ms
FULL = 0.3 * 32767 * WINDOW / 4  # a tone()'s peak in a Hann-windowed spectrum


def _labels(samples: np.ndarray) -> list[str]:
    """Per window: the cue whose tone is loud in it ("" for none, "+" for
    two at once)."""
    bins = np.fft.rfftfreq(WINDOW, 1 / RATE)
    labels = []
    for start in range(0, len(samples) - WINDOW + 1, WINDOW):
        spectrum = np.abs(np.fft.rfft(samples[start : start + WINDOW] * np.hanning(WINDOW)))
        loud = [
            name
            for name, hz in TONES.items()
            if spectrum[int(np.argmin(np.abs(bins - hz)))] > 0.1 * FULL
        ]
        labels.append(loud[0] if len(loud) == 1 else "+" if loud else "")
    return labels


def _order(labels: list[str]) -> list[str]:
    """The cues in the order they were heard (silence and handovers left out)."""
    tones = [x for x in labels if x not in ("", "+")]
    return [x for i, x in enumerate(tones) if i == 0 or tones[i - 1] != x]


class Recorder:
    """``parec`` recording the null sink's monitor into a file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file = path.open("wb")
        self._process = subprocess.Popen(
            [
                "parec",
                "--device=vsink.monitor",
                "--format=s16le",
                f"--rate={RATE}",
                "--channels=1",
                "--latency-msec=20",
            ],
            stdout=self._file,
        )

    def samples(self) -> np.ndarray:
        data = self.path.read_bytes()
        return np.frombuffer(data[: len(data) & ~1], "<i2").astype(np.float64)

    def stop(self) -> None:
        self._process.terminate()
        self._process.wait(timeout=10)
        self._file.close()


@pytest.fixture
def recorder(pulse_server: str, tmp_path: Path) -> Iterator[Recorder]:
    recorder = Recorder(tmp_path / "monitor.raw")
    try:
        yield recorder
    finally:
        recorder.stop()


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    """Wait (on an event, checking every 20 ms) until ``condition`` holds."""
    deadline = time.monotonic() + timeout
    tick = threading.Event()
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"waited {timeout:g} s for {what}")
        tick.wait(0.02)


def test_cues_through_a_real_stream_in_order_and_urgent_cuts_in(recorder: Recorder) -> None:
    wait_for(lambda: len(recorder.samples()) > RATE // 10, "the monitor recording to start")
    speaker = SoundDeviceSpeaker("pulse")
    try:
        speaker.play(tone(440, 0.6), "a")
        speaker.play(tone(660, 3.0), "b")  # cut short by the urgent cue
        speaker.play(tone(880, 0.6), "c")  # dropped by it
        # Once b has sounded for 0.3 s at the sink, the urgent cue cuts it.
        wait_for(lambda: _labels(recorder.samples()).count("b") >= 13, "cue b at the sink")
        asked = time.monotonic()
        speaker.play(tone(1320, 0.6), "urgent", urgent=True)
        wait_for(lambda: speaker.playback.idle, "the urgent cue to be handed over")

        def tail_recorded() -> bool:  # the urgent tone, then 0.2 s of silence
            labels = _labels(recorder.samples())
            return "urgent" in labels and labels[-10:] == [""] * 10

        wait_for(tail_recorded, "the urgent cue and silence after it at the sink")
    finally:
        speaker.close()
    labels = _labels(recorder.samples())
    heard = [(x, len(list(g))) for x, g in itertools.groupby(labels)]
    assert _order(labels) == ["a", "b", "urgent"], heard
    assert "c" not in labels
    assert labels.count("+") <= 2  # only the windows where one cue hands over to the next
    seconds = {name: labels.count(name) * WINDOW / RATE for name in TONES}
    assert seconds["a"] == pytest.approx(0.6, abs=0.1)  # played whole
    assert seconds["urgent"] == pytest.approx(0.6, abs=0.1)
    assert 0 < seconds["b"] < 2.5  # cut
    assert [s.caption for s in speaker.started] == ["a", "b", "urgent"]
    print("heard (cue, 23 ms windows):", heard)
    urgent = speaker.started[-1]
    print(f"urgent cue: handed to the device {1000 * (urgent.handed - asked):.1f} ms after play()")


def _voiced_windows(samples: np.ndarray) -> int:
    """How many 23 ms windows are louder than 1 % of full scale (RMS)."""
    windows = len(samples) // WINDOW
    blocks = samples[: windows * WINDOW].astype(np.float64).reshape(windows, WINDOW)
    return int(np.count_nonzero(np.sqrt(np.mean(blocks**2, axis=1)) > 330))


def test_say_plays_the_whole_cue_and_then_ends(recorder: Recorder, tmp_path: Path) -> None:
    """``companion say`` on a sound device (issue 8): the process ends by
    itself, and only once its cue has been heard whole (it used to close
    the stream first and then wait for it for ever)."""
    wait_for(lambda: len(recorder.samples()) > RATE // 10, "the monitor recording to start")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    command = [sys.executable, "-m", "companion.cli", "say", "vote_question", "seat=3"]
    done = subprocess.run(
        [*command, "--device", "pulse"],
        cwd=Path(__file__).resolve().parent.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["Кто за то, чтобы игрок номер три покинул стол?"]
    assert "Traceback" not in done.stderr
    (wav,) = (tmp_path / "cache").rglob("*.wav")
    clip = read_wav(wav)
    assert clip.format.rate == RATE
    voiced = _voiced_windows(clip.samples)
    assert voiced > 40  # about two seconds of speech
    # What the sink got by the time the process had ended (give parec a moment
    # to write out what it already has): the speech, whole.
    wait_for(
        lambda: _voiced_windows(recorder.samples()) >= voiced - 3, "the whole cue at the sink", 5
    )


def test_a_realtime_speaker_raises_its_audio_thread_on_the_first_callback() -> None:
    """PortAudio leaves its callback thread an ordinary one; asked to, the
    speaker raises it (the callback, not the thread that opened the stream)."""
    ticks = Ticks()
    streams: list[FakeStream] = []

    def factory(device: Any, fmt: AudioFormat, blocksize: int, callback: Any) -> FakeStream:
        streams.append(FakeStream(callback, ticks, 1, 0.02))
        return streams[0]

    speaker = SoundDeviceSpeaker(None, stream_factory=factory, clock=ticks, realtime=True)
    assert os.sched_getscheduler(0) == os.SCHED_OTHER  # opening changed nothing here
    policies: list[int] = []

    def audio_thread() -> None:
        streams[0].pump(2)
        policies.append(os.sched_getscheduler(0))

    thread = threading.Thread(target=audio_thread)
    thread.start()
    thread.join()
    speaker.close()
    can_fifo = _can_use_fifo()
    assert policies == [os.SCHED_FIFO if can_fifo else os.SCHED_OTHER]


def _can_use_fifo() -> bool:
    def probe() -> None:
        try:
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
            allowed.append(True)
        except OSError:
            allowed.append(False)

    allowed: list[bool] = []
    thread = threading.Thread(target=probe)
    thread.start()
    thread.join()
    return allowed[0]
