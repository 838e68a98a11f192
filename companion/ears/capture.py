"""The microphone: the ``Listener`` port and its implementations.

A listener hands blocks of samples (float32, ``rate`` Hz, ``channels``
columns) with the monotonic time of their first sample to one consumer.
``SoundDeviceListener`` reads a sound card through sounddevice; its audio
callback only copies the block into a queue (never any analysis there: a
late callback loses sound). ``WavListener`` plays a WAV file's samples as if
they came from a card (tests, ``companion listen``).

A card that fails to open, or stops while it runs (unplugged, or no sound
from it for ``STALL_S`` seconds), is reported once and opened again with
growing pauses (``RetryingListener``), PortAudio started afresh before each
try so that a card plugged in again is found; the game goes on without
flags meanwhile, and a message says when it is back (docs/faults.md).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

log = logging.getLogger(__name__)

Samples = npt.NDArray[np.float32]  # (frames, channels), -1..1

#: what the detectors work at (webrtcvad and Silero both take 16 kHz)
RATE = 16_000
#: 30 ms: a frame size every detector here accepts
BLOCK = 480
#: no block from a stream that says it runs for this long: the card is gone
#: (PulseAudio's first block came after 1-2 s here: stack notes)
STALL_S = 5.0


@dataclass(frozen=True, slots=True)
class Block:
    samples: Samples  # (frames, channels)
    at: float  # monotonic time of the first sample


OnBlock = Callable[[Block], None]
#: (what happened, one line): "lost" / "back"
OnStatus = Callable[[str, str], None]


class Listener(Protocol):
    rate: int
    channels: int

    def run(self, on_block: OnBlock, stopping: threading.Event) -> None:
        """Hand blocks to ``on_block`` until ``stopping`` is set (or the
        source ends); raises ``OSError`` when the device fails."""


class SoundDeviceListener:
    """A sound card's input (sounddevice), ``channels`` columns at ``rate``."""

    def __init__(
        self,
        device: str | int | None = None,
        *,
        rate: int = RATE,
        channels: int = 1,
        blocksize: int = BLOCK,
        stream_factory: Callable[..., Any] | None = None,
        refresh: Callable[[], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        stall: float = STALL_S,
    ) -> None:
        """``refresh``: starts PortAudio afresh before every opening but the
        first (default: with the real stream, ``voice.recovery.refresh_portaudio``;
        none with a test's ``stream_factory``)."""
        if isinstance(device, str) and device.isdigit():
            device = int(device)
        self.device = device
        self.rate = rate
        self.channels = channels
        self.blocksize = blocksize
        self._factory = stream_factory or _input_stream
        self._refresh = refresh if refresh is not None or stream_factory else _refresh_portaudio
        self._clock, self.stall = clock, stall
        self.opened = 0  # openings tried

    def run(self, on_block: OnBlock, stopping: threading.Event) -> None:
        name = self.device if self.device is not None else "default"
        self.opened += 1
        if self.opened > 1 and self._refresh is not None:
            # PortAudio lists the cards once, when it starts: a microphone
            # plugged in again (maybe as another card number) is found only so.
            try:
                self._refresh()
            except Exception as error:
                raise OSError(f"input device {name}: PortAudio: {error}") from None
        blocks: queue.SimpleQueue[Block | BaseException] = queue.SimpleQueue()

        def callback(data: Any, frames: int, timing: Any, status: Any) -> None:
            # The audio thread: copy and go. Its block's capture time comes
            # from PortAudio's clock where it gives one.
            at = float(getattr(timing, "inputBufferAdcTime", 0.0) or 0.0) or time.monotonic()
            blocks.put(Block(np.array(data, dtype=np.float32, copy=True), at))

        def finished() -> None:  # the stream stopped by itself: the device went away
            blocks.put(OSError(f"input device {self.device or 'default'}: the stream stopped"))

        stream = self._factory(
            self.device, self.rate, self.channels, self.blocksize, callback, finished
        )
        with stream:
            last = self._clock()
            while not stopping.is_set():
                try:
                    item = blocks.get(timeout=0.5)
                except queue.Empty:
                    if not getattr(stream, "active", True):
                        raise OSError(f"input device {name}: not active") from None
                    if self._clock() - last > self.stall:
                        raise OSError(
                            f"input device {name}: no sound for {self.stall:.0f} s"
                        ) from None
                    continue
                if isinstance(item, BaseException):
                    raise item
                last = self._clock()
                on_block(item)


def _refresh_portaudio() -> None:
    from ..voice.recovery import refresh_portaudio  # the voice's: one way to do it

    refresh_portaudio()


def _input_stream(
    device: str | int | None,
    rate: int,
    channels: int,
    blocksize: int,
    callback: Any,
    finished: Callable[[], None],
) -> Any:
    try:
        import sounddevice  # lazily: it needs libportaudio2
    except OSError as error:
        raise OSError(f"no PortAudio: {error}") from None
    try:
        return sounddevice.InputStream(
            samplerate=rate,
            channels=channels,
            dtype="float32",
            blocksize=blocksize,
            device=device,
            callback=callback,
            finished_callback=finished,
        )
    except (ValueError, sounddevice.PortAudioError) as error:
        raise OSError(
            f"input device {device if device is not None else 'default'}: {error}"
        ) from None


class WavListener:
    """A WAV file's samples as a card would give them: ``realtime`` at the
    file's own pace, else as fast as the consumer takes them (its clock then
    counts the file's seconds from ``start_at``). The header is read and
    checked at once (``wav_file.WavRefused``, one line); the sound is read
    a block at a time as it is played, from the start on every ``run``."""

    def __init__(
        self,
        path: Path,
        *,
        blocksize: int = BLOCK,
        realtime: bool = False,
        start_at: float = 0.0,
    ) -> None:
        from .wav_file import WavRecording

        with WavRecording(path) as recording:
            self.rate, self.channels = recording.rate, recording.channels
        self.path = path
        self.blocksize = blocksize
        self.realtime = realtime
        self.start_at = start_at

    def run(self, on_block: OnBlock, stopping: threading.Event) -> None:
        from .wav_file import WavRecording

        origin = time.monotonic()
        first = 0
        with WavRecording(self.path) as recording:
            for samples in recording.blocks(self.blocksize):
                if stopping.is_set():
                    return
                offset = first / self.rate
                if self.realtime:
                    delay = origin + offset - time.monotonic()
                    if delay > 0 and stopping.wait(delay):
                        return
                    at = origin + offset
                else:
                    at = self.start_at + offset
                on_block(Block(samples, at))
                first += len(samples)


def read_wav(path: Path) -> tuple[Samples, int]:
    """A short WAV file held whole (tests, benches): float32 (frames,
    channels) and its rate; ``OSError`` in one line naming the file when it
    is not one. A recording of the table is streamed (``WavListener``,
    ``review``)."""
    from .wav_file import WavRecording

    with WavRecording(path) as recording:
        return recording.read_all(), recording.rate


class RetryingListener:
    """Runs a listener; when it fails, says so once, waits (1 s, 2 s, 4 s
    ... at most ``longest`` s) and starts it again, until ``stopping``.
    ``pause(seconds)``: the wait, True to stop (default: ``stopping.wait``;
    a test's moves a fake clock)."""

    def __init__(
        self,
        listener: Listener,
        on_status: OnStatus,
        *,
        first: float = 1.0,
        longest: float = 30.0,
        pause: Callable[[float], bool] | None = None,
    ) -> None:
        self.listener = listener
        self.rate, self.channels = listener.rate, listener.channels
        self._on_status = on_status
        self._first, self._longest = first, longest
        self._wait = pause

    def run(self, on_block: OnBlock, stopping: threading.Event) -> None:
        pause = self._first
        lost = False

        def heard(block: Block) -> None:
            nonlocal lost, pause
            if lost:
                lost, pause = False, self._first
                self._on_status("back", "the microphone is back")
            on_block(block)

        while not stopping.is_set():
            try:
                self.listener.run(heard, stopping)
                return  # the source ended (a file) or we were stopped
            except OSError as error:
                if not lost:
                    lost = True
                    self._on_status("lost", f"{error}; no flags until it is back")
                    log.warning("microphone lost: %s", error)
                if (self._wait or stopping.wait)(pause):
                    return
                pause = min(pause * 2, self._longest)
