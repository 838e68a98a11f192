"""The ``Speaker`` port: cues out through the sound card, or as captions.

``SoundDeviceSpeaker`` keeps its output streams open for the whole game.
Cues never overlap: one plays after another, and an urgent cue («Стоп»,
«Спасибо», time is up) drops the queue and cuts in over the cue playing. A
cue whose moment is known ahead (``play(..., at=...)``) starts at the frame
that sounds at that moment, so the main stream can keep a deep buffer
(``OUTPUT_LATENCY``) that a busy machine cannot run dry. The answer to an
input cannot be known ahead: with ``quick``, a second stream with a small
buffer (the *quick lane*, voice/lane.py) plays it, and the sound server
mixes the two; where a second stream cannot be opened (a bare ALSA card
without dmix), or while it is stalled, the main stream plays it a buffer
later. ``play`` only hands the cue over and never blocks or raises; stream
errors are logged once. With no audio device the game runs on with
captions (``CaptionSpeaker``) and one warning saying why; a device that
goes away during the game is watched for and opened again by
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
from ..textfiles.printable import printable
from .audio import TTS_FORMAT, AudioFormat, Clip
from .floor import Floor, Started
from .lane import (
    LOW_LATENCY_BLOCK,
    OUTPUT_LATENCY,
    QUICK_BLOCK,
    QUICK_LATENCY,
    QUICK_STALL_S,
    Lane,
    open_stream,
)
from .playback import Playback

__all__ = [
    "OUTPUT_LATENCY",
    "CaptionSpeaker",
    "FakeSpeaker",
    "Playback",
    "SoundDeviceSpeaker",
    "Speaker",
    "Started",
]

log = logging.getLogger(__name__)


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


class SoundDeviceSpeaker:
    """Plays cues through sounddevice (PortAudio): the main stream, and with
    ``quick`` a second one for the answers to inputs.

    ``stream_factory(device, fmt, blocksize, callback, **options)`` opens a
    stream (started here once the playback side is ready); tests pass a
    fake one and drive the callbacks themselves.
    """

    schedules = True  # play(at=...) and withdraw() keep their promise
    format: AudioFormat
    main: Lane
    quick: Lane | None

    def __init__(
        self,
        device: str | int | None = None,
        fmt: AudioFormat = TTS_FORMAT,
        *,
        # 46 ms at 22 050 Hz: a scheduled cue starts at its frame whatever
        # the block, and fewer, larger callbacks take the interpreter less
        # often (with 128, bursts of a dozen callbacks held up the loop).
        blocksize: int = 1024,
        stream_factory: Callable[..., Any] = open_stream,
        clock: Callable[[], float] = time.monotonic,
        realtime: bool = False,
        latency: float | str | None = None,
        quick: bool = False,
    ) -> None:
        """``realtime``: the streams are opened and started from a thread
        with a real-time priority, so that the threads the sound stack makes
        for them inherit that priority (PortAudio's callback threads, and
        the PulseAudio client's own thread, which the callback waits on and
        which starved under load); each callback asks again on its first
        call. ``latency``: the main stream's buffer in seconds
        (``OUTPUT_LATENCY`` by default) or PortAudio's "low"/"high".
        ``quick``: open the quick lane too (if it cannot be opened, the main
        stream plays everything, and one line says so)."""
        self._clock = clock
        self._reported: set[str] = set()
        self.priority = "not asked"  # what the thread that opened the streams got
        self._closed = False
        self.quick = None
        options = {} if latency is None else {"latency": latency}
        if latency == "low":
            # The buffer is at least two blocks: 1024 frames would keep it
            # at ~93 ms whatever PortAudio is asked for.
            blocksize = min(blocksize, LOW_LATENCY_BLOCK)
        floor: Floor[Playback] = Floor()

        def open_and_start() -> None:
            self.main = Lane(
                "main",
                device,
                fmt,
                blocksize,
                stream_factory,
                clock,
                floor,
                options=options,
                realtime=realtime,
            )
            self.format = self.main.format
            self.main.start()
            if quick:
                self.quick = self._open_quick(device, fmt, stream_factory, floor, realtime)

        if realtime:
            self._in_realtime_thread(open_and_start)
        else:
            open_and_start()

    def _open_quick(
        self,
        device: str | int | None,
        fmt: AudioFormat,
        stream_factory: Callable[..., Any],
        floor: Floor[Playback],
        realtime: bool,
    ) -> Lane | None:
        try:
            lane = Lane(
                "quick",
                device,
                fmt,
                QUICK_BLOCK,
                stream_factory,
                self._clock,
                floor,
                options={"latency": QUICK_LATENCY},
                realtime=realtime,
                stall=QUICK_STALL_S,
            )
            lane.start()
        except Exception as error:  # a card without a mixer takes one stream only
            reason = (str(error).splitlines() or [""])[0] or type(error).__name__
            log.info(
                "one output stream only (a second one: %s): an input's cue is heard "
                "a buffer (~%.0f ms) after it",
                reason,
                self.main.latency * 1000,
            )
            return None
        return lane

    def _in_realtime_thread(self, work: Callable[[], None]) -> None:
        """Open and start the streams from a short-lived real-time thread:
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

    # --- what the table and the benches read ------------------------------------
    @property
    def lanes(self) -> list[Lane]:
        return [self.main] if self.quick is None else [self.main, self.quick]

    @property
    def playback(self) -> Playback:
        """The main lane's playback; ``started``, ``sounding_until`` and
        ``idle`` cover every lane."""
        return self.main.playback

    @property
    def started(self) -> list[Started]:
        """Every cue's start, on any lane, in order (for the bench and the tests)."""
        return self.main.playback.started

    @property
    def underruns(self) -> int:
        return sum(lane.underruns for lane in self.lanes)

    @property
    def _latency(self) -> float:
        return self.main.latency

    def _callback(self, outdata: Any, frames: int, time_info: Any, status: Any) -> None:
        """The main stream's callback (tests call it by hand)."""
        self.main._callback(outdata, frames, time_info, status)

    def on_started(self, listener: Callable[[Started], None]) -> None:
        for lane in self.lanes:
            lane.playback.on_started(listener)

    # --- the speaker ---------------------------------------------------------------
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
        None for as soon as possible. A cue due now goes to the quick lane
        while it runs; one with a moment ahead or a ticket to the main one."""
        if clip is None:
            return
        lane = self.main
        quick = self.quick
        if quick is not None and ticket is None:
            now = self._clock()
            if (at is None or at <= now) and not quick.playback.stalled(now):
                lane = quick
        try:
            lane.playback.add(clip, caption, urgent, at=at, ticket=ticket)
        except Exception as error:  # audio is not the game: never raise into the runtime
            self._report_once("play", f"could not queue {caption!r}: {error}")

    def withdraw(self, ticket: Hashable) -> None:
        self.main.playback.withdraw(ticket)  # tickets only ever go to the main lane

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
        """Why the main stream no longer plays (None: it does): see
        ``Lane.trouble``. A quick lane in trouble only sends its cues to the
        main one."""
        if self._closed:
            return "closed"
        return self.main.trouble(now, stall)

    def close(self) -> None:
        self._closed = True
        for lane in self.lanes:
            lane.close()

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
            shown = printable(caption)  # a name or a ruleset's word: never a terminal's command
            print(f"{'!' if urgent else '»'} {shown}", file=self.stream or sys.stdout, flush=True)
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
    quick: bool = True,
) -> Speaker:
    """The sound card if one works, else captions with one clear warning.

    ``device``: a PortAudio device index or part of its name (``"pulse"``);
    None for the system's default. ``latency``: the main stream's buffer
    (``OUTPUT_LATENCY`` by default; "low", ~23 ms). ``quick``: a second
    stream for the answers to inputs, heard ~15 ms after the press instead
    of ~0.1 s (docs/voice.md, "Timing").
    """
    if isinstance(device, str) and device.isdigit():
        device = int(device)
    try:
        return SoundDeviceSpeaker(device, realtime=True, latency=latency, quick=quick)
    except Exception as error:  # no libportaudio2 (OSError), no device, a busy device ...
        reason = (str(error).splitlines() or [""])[0] or type(error).__name__
        log.warning("no audio output device (%s): captions only", reason)
        return CaptionSpeaker(captions)
