"""A sound device that may go away during a game, and come back
(docs/faults.md).

``RecoveringSpeaker`` holds the table's sound device (a ``SoundDeviceSpeaker``)
and watches it from a thread of its own, once a second: a stream that
stopped by itself (PortAudio stops one whose device was unplugged) or that
has asked for no sound for ``STALL_S`` seconds is the device gone. Then:

- every cue becomes a caption (the table's caption stream; the console's
  log shows every cue anyway), and the host is told once (``voice_lost``);
- cues handed over ahead for a timer went with the device: ``holds`` says
  so, and the announcer says them when the timer fires instead;
- the device is opened again after 1, 2, 4 ... at most 30 s. PortAudio
  lists the devices once, when it starts, so it is stopped and started
  again before each try (``refresh_portaudio``): a card plugged in again is
  seen, under its new card number too. When one opens, the voice is back
  and the host is told once (``voice_back``).

Everything that decides is in ``step(now)``, on the clock given: tests
drive it with a fake clock and a fake stream, no thread.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Hashable
from typing import Any, Protocol

from .audio import Clip
from .floor import Started
from .playback import Playback
from .speaker import Speaker

log = logging.getLogger(__name__)

#: a stream that asked for no sound this long is taken for gone (PulseAudio
#: restarting an underrun stream was seen silent for up to 2 s: stack notes)
STALL_S = 5.0
#: how often a working device is looked at
CHECK_S = 1.0
#: the pauses before opening it again: FIRST_S, twice that ... at most LONGEST_S
FIRST_S = 1.0
LONGEST_S = 30.0
#: tickets remembered (a timer's cues planned ahead; far more than are ever pending)
TICKETS = 256

#: what the host is told (console/words.py has words for each)
NOTICES = ("voice_lost", "voice_back")
#: (what: one of NOTICES, one line)
Status = Callable[[str, str], None]


class Device(Protocol):
    """What a sound device's speaker offers (``SoundDeviceSpeaker``)."""

    priority: str

    @property
    def playback(self) -> Playback: ...
    @property
    def underruns(self) -> int: ...

    def play(
        self,
        clip: Clip | None,
        caption: str,
        *,
        urgent: bool = False,
        at: float | None = None,
        ticket: Hashable | None = None,
    ) -> None: ...
    def withdraw(self, ticket: Hashable) -> None: ...
    def trouble(self, now: float, stall: float) -> str | None: ...
    def wait_idle(self, timeout: float) -> bool: ...
    def on_started(self, listener: Callable[[Started], None]) -> None: ...
    def close(self) -> None: ...


def refresh_portaudio() -> None:
    """Stop PortAudio and start it again, so that it lists the devices
    plugged in since (python-sounddevice issues #47, #125: there is no
    other way). No stream may be open in this process: the dead one is
    closed first, and the microphone's capture runs in a process of its own."""
    import sounddevice  # lazily: it needs libportaudio2

    with contextlib.suppress(Exception):  # not started (a failed start before)
        sounddevice._terminate()
    sounddevice._initialize()


class RecoveringSpeaker:
    """A ``Speaker`` that goes on as captions while its device is gone."""

    def __init__(
        self,
        device: Device,
        reopen: Callable[[], Device],
        captions: Speaker,
        *,
        name: str = "default",
        clock: Callable[[], float] = time.monotonic,
        refresh: Callable[[], None] = refresh_portaudio,
        first: float = FIRST_S,
        longest: float = LONGEST_S,
        stall: float = STALL_S,
        every: float = CHECK_S,
        watch: bool = True,
    ) -> None:
        """``device``: the one open now; ``reopen``: opens it again (raises
        when it cannot); ``captions``: where cues go meanwhile. ``watch``:
        run ``step`` on a thread of its own (False: the caller does, tests)."""
        self._device: Device | None = device
        self._last = device  # the latest device, gone or not (its playback's figures)
        self._reopen, self._captions, self._refresh = reopen, captions, refresh
        self.name = name
        self._clock = clock
        self.first, self.longest, self.stall, self.every = first, longest, stall, every
        self._pause = first
        self._retry_at = 0.0
        self._generation = 0  # counts the devices lost: a ticket names the one it went to
        self._tickets: dict[Hashable, int] = {}
        self._lock = threading.Lock()  # the device and the status listeners, together
        self._statuses: list[Status] = []
        self._lost_line = ""
        self._started: list[Callable[[Started], None]] = []
        self._underruns_before = 0
        self.tries = 0  # openings tried since the device went (the tests count them)
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        if watch:
            self._thread = threading.Thread(target=self._watch, name="sound watch", daemon=True)
            self._thread.start()

    # --- the speaker ---------------------------------------------------------------
    @property
    def schedules(self) -> bool:
        """Cues can be handed over ahead (only to a device that is there)."""
        return self._device is not None

    @property
    def sound_now(self) -> bool:
        return self._device is not None

    def play(
        self,
        clip: Clip | None,
        caption: str,
        *,
        urgent: bool = False,
        at: float | None = None,
        ticket: Hashable | None = None,
    ) -> None:
        generation = self._generation  # before the device: a loss in between is seen
        device = self._device
        if device is None:
            if ticket is None:
                self._captions.play(clip, caption, urgent=urgent)
            else:  # for a timer: said as a caption when it fires (``holds``)
                self._remember(ticket, -1)
            return
        if ticket is not None:
            self._remember(ticket, generation)
        device.play(clip, caption, urgent=urgent, at=at, ticket=ticket)

    def withdraw(self, ticket: Hashable) -> None:
        self._tickets.pop(ticket, None)
        device = self._device
        if device is not None:
            device.withdraw(ticket)

    def holds(self, ticket: Hashable) -> bool:
        """The cues of ``ticket`` are with a device that is still there (asked
        once, when their timer fires)."""
        generation = self._tickets.pop(ticket, None)
        return generation == self._generation and self._device is not None

    def wait_idle(self, timeout: float) -> bool:
        device = self._device
        return device.wait_idle(timeout) if device is not None else True

    def close(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(5.0)
        with self._lock:
            device, self._device = self._device, None
        if device is not None:
            device.close()
        self._captions.close()

    # --- what the table reads ------------------------------------------------------
    @property
    def playback(self) -> Playback:
        return self._last.playback

    @property
    def started(self) -> list[Started]:
        return self._last.playback.started

    @property
    def underruns(self) -> int:
        return self._underruns_before + self._last.underruns

    @property
    def priority(self) -> str:
        return self._last.priority

    def on_started(self, listener: Callable[[Started], None]) -> None:
        self._started.append(listener)
        self._last.on_started(listener)

    def on_status(self, listener: Status) -> None:
        """Tell ``listener`` when the device goes and when it is back (at
        once if it is gone now)."""
        with self._lock:
            self._statuses.append(listener)
            gone = self._lost_line if self._device is None else ""
        if gone:
            _tell(listener, "voice_lost", gone)

    # --- the watch -----------------------------------------------------------------
    def step(self, now: float) -> float:
        """Look at the device (or try to open it again); returns when to
        look next."""
        device = self._device
        if device is not None:
            trouble = device.trouble(now, self.stall)
            if trouble is None:
                return now + self.every
            self._lose(device, trouble)
            self._retry_at = now + self._pause
            return self._retry_at
        if now < self._retry_at:
            return self._retry_at
        self.tries += 1
        try:
            self._refresh()
            fresh = self._reopen()
        except Exception as error:  # gone still: PortAudioError, OSError, ValueError ...
            log.info("audio output %s: not back yet (%s)", self.name, _one_line(error))
            self._pause = min(self._pause * 2, self.longest)
            self._retry_at = now + self._pause
            return self._retry_at
        self._back(fresh)
        return now + self.every

    def _lose(self, device: Device, trouble: str) -> None:
        with self._lock:
            self._generation += 1
            self._device = None
            self._lost_line = f"{self.name}: {trouble}"
            self._pause = self.first
            self.tries = 0
            listeners = list(self._statuses)
        log.info("audio output %s; captions until it is back", self._lost_line)
        for listener in listeners:
            _tell(listener, "voice_lost", self._lost_line)
        self._underruns_before += device.underruns
        try:  # before PortAudio is started again: no stream may be open then
            device.close()
        except Exception as error:
            log.info("closing the lost audio output: %s", _one_line(error))

    def _back(self, fresh: Device) -> None:
        for started in self._started:
            fresh.on_started(started)
        with self._lock:
            self._device = self._last = fresh
            self._lost_line = ""
            listeners = list(self._statuses)
        log.info("audio output %s is back", self.name)
        for listener in listeners:
            _tell(listener, "voice_back", self.name)

    def _remember(self, ticket: Hashable, generation: int) -> None:
        tickets = self._tickets
        tickets[ticket] = generation
        while len(tickets) > TICKETS:  # tickets never asked about (a game closed)
            tickets.pop(next(iter(tickets)), None)

    def _watch(self) -> None:
        while not self._stopping.is_set():
            try:
                due = self.step(self._clock())
            except Exception:  # the watch must outlive its own bugs
                log.exception("watching the audio output failed")
                due = self._clock() + self.every
            if self._stopping.wait(max(0.05, due - self._clock())):
                return


def _tell(listener: Status, what: str, line: str) -> None:
    try:
        listener(what, line)
    except Exception:  # the console's trouble never stops the voice
        log.exception("the sound device's news could not be told")


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__


def device_opener(
    device: str | None, latency: float | str | None, quick: bool = True
) -> Callable[[], Any]:
    """Opens the sound device the settings name, as ``open_speaker`` does."""
    from .speaker import SoundDeviceSpeaker

    def open_device() -> Any:
        chosen: str | int | None = int(device) if device and device.isdigit() else device
        return SoundDeviceSpeaker(chosen, realtime=True, latency=latency, quick=quick)

    return open_device
