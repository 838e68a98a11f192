"""The speaker: the stream callback's order and cut-in driven block by
block, and the same code path through a real sound stream on a PulseAudio
null sink, recorded from its monitor (issue 3)."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from companion.voice.audio import Clip, tone
from companion.voice.speaker import CaptionSpeaker, FakeSpeaker, Playback

RATE = 22050


class Ticks:
    """A clock for Playback that counts callbacks."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def run(playback: Playback, ticks: Ticks, blocks: int, size: int = 128) -> np.ndarray:
    out = []
    for _ in range(blocks):
        block = np.full(size, 7, dtype=np.int16)  # garbage the callback must overwrite
        playback.fill(block)
        out.append(block)
        ticks.now += size / RATE
    return np.concatenate(out)


def constant(value: int, samples: int) -> Clip:
    return Clip(np.full(samples, value, dtype=np.int16), RATE)


def test_cues_play_one_after_another_and_silence_follows() -> None:
    ticks = Ticks()
    playback = Playback(RATE, ticks)
    playback.add(constant(1, 300), "first")
    playback.add(constant(2, 200), "second")
    audio = run(playback, ticks, 6)
    assert list(audio[:300]) == [1] * 300
    assert list(audio[300:500]) == [2] * 200
    assert not audio[500:].any()
    assert [s.caption for s in playback.started] == ["first", "second"]
    assert playback.idle


def test_an_urgent_cue_cuts_in_at_the_next_callback_and_drops_the_queue() -> None:
    ticks = Ticks()
    playback = Playback(RATE, ticks)
    playback.add(constant(1, 1000), "long")
    playback.add(constant(2, 1000), "queued")
    first = run(playback, ticks, 1)
    playback.add(constant(3, 200), "Стоп", urgent=True)
    rest = run(playback, ticks, 4)
    assert list(first) == [1] * 128
    assert list(rest[:200]) == [3] * 200 and not rest[200:].any()
    assert [s.caption for s in playback.started] == ["long", "Стоп"]
    assert playback.started[1].at == pytest.approx(128 / RATE)


def test_idle_is_silence() -> None:
    playback = Playback(RATE, Ticks())
    assert not run(playback, Ticks(), 3).any()
    assert playback.started == []


def test_clips_at_another_rate_are_resampled_once() -> None:
    playback = Playback(RATE, Ticks())
    playback.add(Clip(np.full(441, 5, dtype=np.int16), 44100), "cd rate")
    audio = run(playback, Ticks(), 2)
    assert (audio[:220] == 5).all() and not audio[222:].any()


def test_captions_and_fake() -> None:
    lines: list[str] = []

    class Lines:
        def write(self, text: str) -> None:
            lines.append(text)

        def flush(self) -> None:
            pass

    captions = CaptionSpeaker(Lines())  # type: ignore[arg-type]
    captions.play(None, "Спасибо", urgent=True)
    assert "".join(lines) == "! Спасибо\n"
    fake = FakeSpeaker()
    fake.play(tone(440, 0.5), "a")
    assert fake.played == [("a", False, 0.5)]


# --- through a real stream ------------------------------------------------------


def _pulse_running() -> bool:
    if not os.environ.get("PULSE_SERVER") or shutil.which("parec") is None:
        return False
    return subprocess.run(["pactl", "info"], capture_output=True).returncode == 0


needs_pulse = pytest.mark.skipif(
    not _pulse_running(),
    reason="no PulseAudio null sink (run-tests starts one: scripts/pulse-null-sink.sh)",
)


@pytest.fixture
def monitor(tmp_path: Path) -> Iterator[Path]:
    """Records what reaches the null sink, as raw 16-bit mono samples."""
    path = tmp_path / "monitor.raw"
    with path.open("wb") as sink:
        recorder = subprocess.Popen(
            ["parec", "-d", "vsink.monitor", "--format=s16le", f"--rate={RATE}", "--channels=1"],
            stdout=sink,
        )
        try:
            yield path
        finally:
            recorder.terminate()
            recorder.wait(timeout=10)


def _wait(condition: object, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "the audio did not arrive in time"
        time.sleep(0.02)


def _dominant(samples: np.ndarray, window: int = 1024) -> list[int]:
    """The loudest frequency (Hz, rounded to 110) of each loud window."""
    found = []
    for start in range(0, len(samples) - window, window):
        chunk = samples[start : start + window].astype(np.float64)
        if np.sqrt(np.mean(chunk**2)) < 500:
            continue
        spectrum = np.abs(np.fft.rfft(chunk * np.hanning(window)))
        hz = np.fft.rfftfreq(window, 1 / RATE)[int(np.argmax(spectrum))]
        found.append(int(round(hz / 110) * 110))
    return found


@needs_pulse
def test_cues_through_a_real_stream_in_order_with_cut_in(monitor: Path) -> None:
    from companion.voice.speaker import SoundDeviceSpeaker

    speaker = SoundDeviceSpeaker("pulse", rate=RATE)
    try:
        speaker.play(tone(440, 3.0, RATE), "a")
        speaker.play(tone(880, 0.6, RATE), "b")
        # Once "a" is heard at the sink, the urgent cue cuts it and drops "b".
        _wait(lambda: 440 in _dominant(np.fromfile(monitor, dtype="<i2")))
        speaker.play(tone(1320, 0.6, RATE), "urgent", urgent=True)
        _wait(lambda: speaker.playback.idle)
        _wait(lambda: 1320 in _dominant(np.fromfile(monitor, dtype="<i2")))
        time.sleep(0.3)  # let the tail of the urgent cue reach the monitor
    finally:
        speaker.close()
    heard = _dominant(np.fromfile(monitor, dtype="<i2"))
    order = [hz for i, hz in enumerate(heard) if i == 0 or heard[i - 1] != hz]
    assert order == [440, 1320], heard
    assert [s.caption for s in speaker.playback.started] == ["a", "urgent"]
