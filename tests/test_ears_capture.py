"""The microphone port: a sound card's blocks through a fake stream driven
block by block, a WAV file as a card, and a card that fails and comes back
(reported once, retried with growing pauses, the blocks flowing again)."""

from __future__ import annotations

import threading
import wave
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from companion.ears.capture import (
    Block,
    RetryingListener,
    SoundDeviceListener,
    WavListener,
    read_wav,
)


class FakeStream:
    """What sounddevice.InputStream gives, fed by the test: each ``blocks``
    entry is one callback; then the stream ``dies`` (unplugged) or idles."""

    def __init__(self, callback: Any, finished: Any, blocks: list[np.ndarray], dies: bool) -> None:
        self.callback, self.finished = callback, finished
        self.blocks, self.dies = blocks, dies
        self.active = True

    def __enter__(self) -> FakeStream:
        for n, data in enumerate(self.blocks):
            timing = type("T", (), {"inputBufferAdcTime": 100.0 + n * 0.03})()
            self.callback(data, len(data), timing, None)
        if self.dies:
            self.active = False
            self.finished()
        return self

    def __exit__(self, *exc: object) -> None:
        self.active = False


class Card:
    """A card that fails to open ``failures`` times, then gives blocks and
    (once) dies mid-stream, then gives more."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.opened = 0

    def __call__(
        self, device: Any, rate: int, channels: int, size: int, callback: Any, finished: Any
    ) -> FakeStream:
        self.opened += 1
        if self.failures > 0:
            self.failures -= 1
            raise OSError(f"input device {device}: Device unavailable")
        first = self.opened == 2
        level = 0.5 if first else 0.25
        return FakeStream(
            callback, finished, [np.full((size, channels), level, np.float32)] * 3, dies=first
        )


def test_a_failing_card_is_reported_once_retried_and_heard_again() -> None:
    card = Card(failures=1)
    statuses: list[tuple[str, str]] = []
    blocks: list[Block] = []
    stopping = threading.Event()
    pauses: list[float] = []

    listener = RetryingListener(
        SoundDeviceListener("USB", stream_factory=card),
        lambda k, t: statuses.append((k, t)),
        first=0.001,
    )
    real_wait = stopping.wait

    def on_block(block: Block) -> None:
        blocks.append(block)
        if len(blocks) == 6:  # three from each good opening
            stopping.set()

    stopping.wait = lambda t=None: (pauses.append(t), real_wait(0))[1]  # type: ignore[method-assign]
    listener.run(on_block, stopping)
    assert [k for k, _ in statuses] == ["lost", "back", "lost", "back"]
    assert "USB" in statuses[0][1] and "Device unavailable" in statuses[0][1]
    assert len(blocks) == 6 and blocks[0].samples.shape == (480, 1)
    assert blocks[0].at == pytest.approx(100.0)  # the card's own capture clock
    assert card.opened == 3


def test_the_pause_grows_while_the_card_stays_away() -> None:
    card = Card(failures=5)
    stopping = threading.Event()
    pauses: list[float] = []
    real_wait = stopping.wait

    def wait(timeout: float | None = None) -> bool:
        pauses.append(timeout or 0.0)
        if len(pauses) == 5:
            stopping.set()
        return real_wait(0)

    stopping.wait = wait  # type: ignore[method-assign]
    statuses: list[str] = []
    RetryingListener(
        SoundDeviceListener(stream_factory=card),
        lambda k, t: statuses.append(k),
        first=1,
        longest=4,
    ).run(lambda b: None, stopping)
    assert pauses == [1, 2, 4, 4, 4]
    assert statuses == ["lost"]  # once, however long it stays away


def test_a_wav_file_as_a_card(tmp_path: Path) -> None:
    path = tmp_path / "two.wav"
    pcm = (np.arange(1000, dtype=np.int16) * 7).reshape(500, 2)
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(2)
        wav.setsampwidth(2)
        wav.setframerate(16_000)
        wav.writeframes(pcm.tobytes())
    listener = WavListener(path, blocksize=200, start_at=5.0)
    got: list[Block] = []
    listener.run(got.append, threading.Event())
    assert listener.channels == 2 and [len(b.samples) for b in got] == [200, 200, 100]
    assert [b.at for b in got] == [5.0, 5.0125, 5.025]
    assert np.array_equal(np.concatenate([b.samples for b in got]), pcm / 32768.0)


def test_a_file_that_is_not_a_wav_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "notes.wav"
    path.write_text("hello")
    with pytest.raises(OSError, match=r"notes\.wav: not a WAV file"):
        read_wav(path)
