"""One output stream of the speaker and the playback that feeds it (a *lane*).

``SoundDeviceSpeaker`` (voice/speaker.py) keeps a *main* lane, a stream with
a deep buffer that a busy machine cannot run dry, where every cue known
ahead starts at its exact frame; and, where the sound stack can mix a
second stream into the first (PulseAudio, PipeWire, ALSA's dmix), a *quick*
lane with a small buffer for the answer to an input. Each lane's callback
copies samples from its ``Playback`` (voice/playback.py), takes no lock but
the floor's (voice/floor.py), never raises, and logs stream trouble once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from ..runner.priority import raise_priority
from .audio import AudioFormat
from .floor import Floor
from .playback import Playback

log = logging.getLogger(__name__)

#: Seconds of sound the main stream keeps queued. 0.1 s: with every core
#: busy, a ~10 ms buffer ran dry dozens of times a run here, and on
#: PulseAudio each underrun silenced the stream for up to two seconds while
#: it restarted (the tail of bench/cues.py). Cues known ahead are scheduled
#: on the audio clock and lose nothing to the depth; a cue for a button
#: press is heard this much later than it is handed over, unless the quick
#: lane plays it.
OUTPUT_LATENCY = 0.1

#: frames per callback with ``latency="low"`` (~12 ms at 22 050 Hz)
LOW_LATENCY_BLOCK = 256

#: The quick lane: frames per callback and seconds of sound queued. An
#: input's answer waits for the next callback (at most a block) and is then
#: heard a buffer later: 128 frames (5.8 ms at 22 050 Hz) and ~12 ms, so
#: ~12-18 ms from the press at the null sink here (bench/cues.py). It is
#: silent nearly all the time, so an underrun there is seldom heard.
QUICK_BLOCK = 128
QUICK_LATENCY = 0.01

#: A quick lane whose callback has not run for this long is taken for
#: stalled (PulseAudio restarting it after an underrun, or not started
#: yet): new cues go to the main lane, which also plays those the quick one
#: has not taken. Its callbacks come every ~6 ms, in bursts of a few.
QUICK_STALL_S = 0.06


def open_stream(
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


class Lane:
    """One stream, opened (not started) by ``stream_factory(device, fmt,
    blocksize, callback, **options)``, and its playback on ``floor``.

    ``realtime``: the callback raises its thread's priority on its first
    call (PortAudio leaves it an ordinary thread). ``stall``: see
    ``Playback``."""

    def __init__(
        self,
        name: str,
        device: str | int | None,
        fmt: AudioFormat,
        blocksize: int,
        stream_factory: Callable[..., Any],
        clock: Callable[[], float],
        floor: Floor[Playback],
        *,
        options: dict[str, Any] | None = None,
        realtime: bool = False,
        stall: float | None = None,
    ) -> None:
        self.name = name
        self._clock = clock
        self._raise_priority = realtime
        self._reported: set[str] = set()
        self.underruns = 0  # callbacks that PortAudio flagged with an output underflow
        self.underruns_in_cue = 0  # of those, while a cue was playing (a gap may be heard)
        self.last_callback = clock()  # when the stream last asked for sound
        self.stream = stream_factory(device, fmt, blocksize, self._callback, **(options or {}))
        rate = int(getattr(self.stream, "samplerate", fmt.rate))
        channels = int(getattr(self.stream, "channels", 1))
        self.format = AudioFormat(rate, 2, channels)
        self.block_s = blocksize / rate
        # before the first callback
        self.playback = Playback(self.format, clock, floor=floor, lane=name, stall=stall)
        stream_latency = getattr(self.stream, "latency", 0.0)
        self.latency = float(stream_latency) if isinstance(stream_latency, int | float) else 0.0

    def start(self) -> None:
        try:
            self.stream.start()
        except BaseException:
            self.stream.close()
            raise
        self.last_callback = self._clock()  # the first callback may take a second or two

    def trouble(self, now: float, stall: float) -> str | None:
        """Why the stream no longer plays (None: it does): stopped by
        itself (PortAudio stops a stream whose device went away), or no
        callback for ``stall`` seconds (a device that hangs)."""
        if not getattr(self.stream, "active", True):
            return "the stream stopped"
        if now - self.last_callback > stall:
            return f"no sound asked for in {stall:.0f} s"
        return None

    def close(self) -> None:
        try:
            self.stream.stop()
            self.stream.close()
        except Exception as error:
            self.report_once("close", f"closing the stream: {error}")

    def _callback(self, outdata: Any, frames: int, time_info: Any, status: Any) -> None:
        now = self._clock()
        self.last_callback = now
        try:
            if self._raise_priority:
                self._raise_priority = False
                raise_priority("audio")
            if status:
                if getattr(status, "output_underflow", False):
                    self.underruns += 1
                    self.underruns_in_cue += self.playback.playing
                self.report_once(str(status), f"audio output: {status}")
            delay = self.latency
            dac, current = (
                getattr(time_info, "outputBufferDacTime", 0.0),
                getattr(time_info, "currentTime", 0.0),
            )
            if dac and current and dac > current:
                delay = dac - current
            self.playback.fill(outdata, now=now, delay=delay)
        except Exception as error:  # an exception here would stop the stream
            outdata.fill(0)
            self.report_once("callback", f"audio callback failed: {error!r}")

    def report_once(self, kind: str, message: str) -> None:
        if kind not in self._reported:
            self._reported.add(kind)
            where = "" if self.name == "main" else f" ({self.name} lane)"
            log.warning("%s%s (reported once)", message, where)
