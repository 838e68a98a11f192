"""The ``Speaker`` port: cues out through the sound card, or as captions.

``SoundDeviceSpeaker`` keeps ONE output stream open for the whole game. Its
callback (:class:`Playback`) copies samples from the cue playing now and,
when that ends, from the next one queued: cues never overlap. An urgent cue
(«Стоп», «Спасибо», time is up) drops the queue and cuts in over the cue
playing. A cue whose moment is known ahead (``play(..., at=...)``) starts
at the frame that sounds at that moment, so the stream can keep a deep
buffer (``OUTPUT_LATENCY``) that a busy machine cannot run dry. ``play``
only hands the cue over and never blocks or raises; the callback takes no
lock, and stream errors are logged once. With no audio device the game runs
on with captions (``CaptionSpeaker``) and one warning saying why; a device
that goes away during the game is watched for and opened again by
``recovery.RecoveringSpeaker`` (``trouble`` says when it is gone).
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Callable, Hashable
from typing import Any, NamedTuple, Protocol, TextIO

from ..runner.priority import raise_priority
from .audio import TTS_FORMAT, AudioFormat, Clip
from .playback import Playback, Started

__all__ = ["CaptionSpeaker", "FakeSpeaker", "Playback", "SoundDeviceSpeaker", "Speaker", "Started"]

log = logging.getLogger(__name__)


#: Seconds of sound the device keeps queued. 0.1 s: with every core busy,
#: a ~10 ms buffer ran dry dozens of times a run here, and on PulseAudio
#: each underrun silenced the stream for up to two seconds while it
#: restarted (the tail of bench/cues.py). Cues known ahead are scheduled on
#: the audio clock and lose nothing to the depth; a cue for a button press
#: is heard this much later than it is handed over.
OUTPUT_LATENCY = 0.1


class Speaker(Protocol):
    def play(self, clip: Clip | None, caption: str, *, urgent: bool = False) -> None:
        """Queue a cue and return at once; ``clip`` None: nothing to play
        (the caption is all there is)."""

    def close(self) -> None: ...


class SchedulingSpeaker(Speaker, Protocol):
    """A speaker that can start a cue at a moment ahead and take it back."""

    def play(
        self,
        clip: Clip | None,
        caption: str,
        *,
        urgent: bool = False,
        at: float | None = None,
        ticket: Hashable | None = None,
    ) -> None:
        """``at``: the moment (``time.monotonic()``) it must sound;
        ``ticket``: what ``withdraw`` names it by."""

    def withdraw(self, ticket: Hashable) -> None:
        """Drop the cues of ``ticket`` that have not started yet."""


#: frames per callback with ``latency="low"`` (~12 ms at 22 050 Hz)
LOW_LATENCY_BLOCK = 256


def _open_stream(
    device: str | int | None,
    fmt: AudioFormat,
    blocksize: int,
    callback: Any,
    latency: float | str = OUTPUT_LATENCY,
) -> Any:
    """A sounddevice output stream (not started yet): mono at ``fmt.rate``
    if the device takes it, else its own rate and channel count."""
    import sounddevice  # lazily: it needs libportaudio2

    attempts: list[tuple[int, int]] = [(fmt.rate, 1)]
    try:
        info = sounddevice.query_devices(device, "output")
    except sounddevice.PortAudioError:
        if device is None:  # PortAudio says "Error querying device -1"
            raise OSError("no sound card found") from None
        info = None
    except ValueError:  # no device of that name: OutputStream below says so
        info = None
    if info is not None:
        attempts += [(int(info["default_samplerate"]), 1), (int(info["default_samplerate"]), 2)]
    error: Exception | None = None
    for rate, channels in attempts:
        try:
            stream = sounddevice.OutputStream(
                samplerate=rate,
                channels=channels,
                dtype="int16",
                blocksize=blocksize,
                latency=latency,
                device=device,
                callback=callback,
            )
        except (ValueError, sounddevice.PortAudioError) as failure:
            error = error or failure
            continue
        return stream
    assert error is not None
    raise error


class SoundDeviceSpeaker:
    """Plays cues through sounddevice (PortAudio) from one output stream.

    ``stream_factory(device, fmt, blocksize, callback)`` opens the stream
    (started here once the playback side is ready); tests pass a fake one
    and drive the callback themselves.
    """

    schedules = True  # play(at=...) and withdraw() keep their promise
    format: AudioFormat
    playback: Playback
    _stream: Any
    _latency: float

    def __init__(
        self,
        device: str | int | None = None,
        fmt: AudioFormat = TTS_FORMAT,
        *,
        # 46 ms at 22 050 Hz: a scheduled cue starts at its frame whatever
        # the block, and fewer, larger callbacks take the interpreter less
        # often (with 128, bursts of a dozen callbacks held up the loop).
        blocksize: int = 1024,
        stream_factory: Callable[..., Any] = _open_stream,
        clock: Callable[[], float] = time.monotonic,
        realtime: bool = False,
        latency: float | str | None = None,
    ) -> None:
        """``realtime``: the stream is opened and started from a thread with
        a real-time priority, so that the threads the sound stack makes for
        it inherit that priority (PortAudio's callback thread, and the
        PulseAudio client's own thread, which the callback waits on and
        which starved under load); the callback asks again on its first
        call. ``latency``: the device buffer in seconds (``OUTPUT_LATENCY``
        by default) or PortAudio's "low"/"high"."""
        self._clock = clock
        self._reported: set[str] = set()
        self._raise_priority = realtime
        self.priority = "not asked"  # what the thread that opened the stream got
        self.underruns = 0  # callbacks that PortAudio flagged with an output underflow
        self._last_callback = clock()  # when the stream last asked for sound
        self._closed = False
        options = {} if latency is None else {"latency": latency}
        if latency == "low":
            # The buffer is at least two blocks: 1024 frames would keep it
            # at ~93 ms whatever PortAudio is asked for.
            blocksize = min(blocksize, LOW_LATENCY_BLOCK)

        def open_and_start() -> None:
            self._stream = stream_factory(device, fmt, blocksize, self._callback, **options)
            rate = int(getattr(self._stream, "samplerate", fmt.rate))
            channels = int(getattr(self._stream, "channels", 1))
            self.format = AudioFormat(rate, 2, channels)
            self.playback = Playback(self.format, clock)  # before the first callback
            stream_latency = getattr(self._stream, "latency", 0.0)
            self._latency = (
                float(stream_latency) if isinstance(stream_latency, int | float) else 0.0
            )
            try:
                self._stream.start()
            except BaseException:
                self._stream.close()
                raise
            self._last_callback = clock()  # the first callback may take a second or two

        if realtime:
            self._in_realtime_thread(open_and_start)
        else:
            open_and_start()

    def _in_realtime_thread(self, work: Callable[[], None]) -> None:
        """Open and start the stream from a short-lived real-time thread:
        Linux threads inherit their creator's scheduling, and the caller
        (the main thread, the console) should not be real-time itself."""
        failure: list[BaseException] = []

        def run() -> None:
            try:
                self.priority = raise_priority("audio")
                work()
            except BaseException as error:
                failure.append(error)

        thread = threading.Thread(target=run, name="audio open")
        thread.start()
        thread.join()
        if failure:
            raise failure[0]

    @property
    def started(self) -> list[Started]:
        """Every cue's start, in order (for the bench and the tests)."""
        return self.playback.started

    def on_started(self, listener: Callable[[Started], None]) -> None:
        self.playback.on_started(listener)

    def play(
        self,
        clip: Clip | None,
        caption: str,
        *,
        urgent: bool = False,
        at: float | None = None,
        ticket: Hashable | None = None,
    ) -> None:
        """Queue a cue; ``at``: when it must sound (``time.monotonic()``),
        None for as soon as possible."""
        if clip is None:
            return
        try:
            self.playback.add(clip, caption, urgent, at=at, ticket=ticket)
        except Exception as error:  # audio is not the game: never raise into the runtime
            self._report_once("play", f"could not queue {caption!r}: {error}")

    def withdraw(self, ticket: Hashable) -> None:
        self.playback.withdraw(ticket)

    def wait_idle(self, timeout: float) -> bool:
        """Wait until every queued cue has been handed to the device (for
        one-shot commands before they exit); False on timeout."""
        deadline = time.monotonic() + timeout
        pause = threading.Event()
        while not self.playback.idle:
            if time.monotonic() >= deadline:
                return False
            pause.wait(0.02)
        return True

    def trouble(self, now: float, stall: float) -> str | None:
        """Why the stream no longer plays (None: it does): stopped by
        itself (PortAudio stops a stream whose device went away), or no
        callback for ``stall`` seconds (a device that hangs)."""
        if self._closed:
            return "closed"
        if not getattr(self._stream, "active", True):
            return "the stream stopped"
        if now - self._last_callback > stall:
            return f"no sound asked for in {stall:.0f} s"
        return None

    def close(self) -> None:
        self._closed = True
        try:
            self._stream.stop()
            self._stream.close()
        except Exception as error:
            self._report_once("close", f"closing the stream: {error}")

    def _callback(self, outdata: Any, frames: int, time_info: Any, status: Any) -> None:
        now = self._clock()
        self._last_callback = now
        try:
            if self._raise_priority:
                self._raise_priority = False
                raise_priority("audio")
            if status:
                if getattr(status, "output_underflow", False):
                    self.underruns += 1
                self._report_once(str(status), f"audio output: {status}")
            delay = self._latency
            dac, current = (
                getattr(time_info, "outputBufferDacTime", 0.0),
                getattr(time_info, "currentTime", 0.0),
            )
            if dac and current and dac > current:
                delay = dac - current
            self.playback.fill(outdata, now=now, delay=delay)
        except Exception as error:  # an exception here would stop the stream
            outdata.fill(0)
            self._report_once("callback", f"audio callback failed: {error!r}")

    def _report_once(self, kind: str, message: str) -> None:
        if kind not in self._reported:
            self._reported.add(kind)
            log.warning("%s (reported once)", message)


class CaptionSpeaker:
    """No sound: every cue is a line of text on ``stream`` (standard output
    by default); ``!`` marks an urgent cue."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream
        self._failed = False

    def play(self, clip: Clip | None, caption: str, *, urgent: bool = False) -> None:
        try:
            print(f"{'!' if urgent else '»'} {caption}", file=self.stream or sys.stdout, flush=True)
        except (OSError, ValueError) as error:  # a closed or broken stream
            if not self._failed:
                self._failed = True
                log.warning("captions cannot be shown: %s", error)

    def close(self) -> None:
        pass


class Played(NamedTuple):
    caption: str
    urgent: bool
    duration: float  # seconds of sound (0 for a caption only)


class Scheduled(NamedTuple):
    caption: str
    urgent: bool
    at: float | None
    ticket: Hashable | None


class FakeSpeaker:
    """Remembers what it was asked to play (tests): ``played`` as
    (caption, urgent, duration) and ``clips`` in the same order. With
    ``schedules``, a cue given a ``ticket`` goes to ``scheduled`` instead,
    and ``withdrawn`` lists the tickets taken back."""

    def __init__(self, *, schedules: bool = False) -> None:
        self.schedules = schedules
        self.played: list[Played] = []
        self.clips: list[Clip | None] = []
        self.scheduled: list[Scheduled] = []
        self.withdrawn: list[Hashable] = []
        self.closed = False

    def play(
        self,
        clip: Clip | None,
        caption: str,
        *,
        urgent: bool = False,
        at: float | None = None,
        ticket: Hashable | None = None,
    ) -> None:
        if ticket is not None:
            self.scheduled.append(Scheduled(caption, urgent, at, ticket))
            return
        self.played.append(Played(caption, urgent, clip.duration if clip is not None else 0.0))
        self.clips.append(clip)

    def withdraw(self, ticket: Hashable) -> None:
        self.withdrawn.append(ticket)

    def close(self) -> None:
        self.closed = True


def open_speaker(
    device: str | int | None = None,
    captions: TextIO | None = None,
    *,
    latency: float | str | None = None,
) -> Speaker:
    """The sound card if one works, else captions with one clear warning.

    ``device``: a PortAudio device index or part of its name (``"pulse"``);
    None for the system's default. ``latency``: the device buffer
    (``OUTPUT_LATENCY`` by default; "low", ~12 ms, brings a button's cue
    from ~0.12 s to ~0.02 s where the machine keeps up: docs/architecture.md,
    "Timing on a busy machine").
    """
    if isinstance(device, str) and device.isdigit():
        device = int(device)
    try:
        return SoundDeviceSpeaker(device, realtime=True, latency=latency)
    except Exception as error:  # no libportaudio2 (OSError), no device, a busy device ...
        reason = (str(error).splitlines() or [""])[0] or type(error).__name__
        log.warning("no audio output device (%s): captions only", reason)
        return CaptionSpeaker(captions)
