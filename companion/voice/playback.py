"""What plays now and what comes next: the stream callback's side of the speaker.

A cue is either *due now* (an input from a person: nobody could know it was
coming) or *scheduled*: its moment is known ahead (every timer's cue, see
``LiveLoop``'s foresight), so it is handed over early and starts on the
audio clock at the exact frame that sounds at its due time. A scheduled cue
therefore does not care how late the callback runs or how deep the device's
buffer is, as long as the buffer does not run dry: that is what lets the
stream keep a deep, underrun-proof buffer (docs/architecture.md, "Timing").

``add`` and ``withdraw`` run on the runtime's thread(s), ``fill`` on the
audio thread. They share only a lock-free inbox (a deque: appends and pops
are atomic); everything else belongs to the audio thread, so ``fill`` never
waits. Cues are converted to the stream's format in ``add``, so ``fill``
only copies. ``idle`` compares two counters, each written by one side.
"""

from __future__ import annotations

import bisect
import collections
import itertools
import logging
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import NamedTuple

from .audio import TTS_FORMAT, AudioFormat, Clip, Samples

log = logging.getLogger(__name__)

_NOW = float("-inf")  # the due time of a cue played as soon as it is taken


@dataclass(frozen=True, slots=True)
class Started:
    """A cue's first sample was handed to the device at ``handed`` and will
    sound at about ``audible`` (both on the speaker's clock,
    ``time.monotonic()`` seconds). ``due``: when it should have sounded
    (its scheduled time, or when it was queued); ``scheduled``: it was
    handed over ahead of its time; ``queued``: when it was given to the
    speaker; ``free``: when the speaker was free for it (``due``, or the
    end of a cue still sounding then: cues never cut each other short)."""

    caption: str
    handed: float
    audible: float
    due: float = 0.0
    scheduled: bool = False
    queued: float = 0.0
    free: float = 0.0

    @property
    def at(self) -> float:
        """The same as ``handed``."""
        return self.handed


class _Cue(NamedTuple):
    samples: Samples
    caption: str
    urgent: bool
    due: float  # _NOW, or the speaker's clock time its first sample must sound
    queued: float  # when it was handed to ``add``
    ticket: Hashable | None
    order: int


class _Withdraw(NamedTuple):
    ticket: Hashable


class Playback:
    """Cues in, samples out; see the module's docstring."""

    def __init__(
        self, fmt: AudioFormat | int = TTS_FORMAT, clock: Callable[[], float] = time.monotonic
    ) -> None:
        rate = fmt if isinstance(fmt, int) else fmt.rate
        self.format = AudioFormat(rate, 2, 1)  # mixed to mono; fill copies to every column
        self._clock = clock
        self._inbox: collections.deque[_Cue | _Withdraw] = collections.deque()
        self._add_lock = threading.Lock()  # among producers only
        self._order = itertools.count()
        self._added = 0
        self._finished = 0  # played to the end, dropped or withdrawn (audio thread only)
        # Audio thread only:
        self._waiting: list[tuple[float, int, _Cue]] = []  # by due time, then order
        self._queue: collections.deque[_Cue] = collections.deque()
        self._current: Samples | None = None
        self._position = 0
        self._ended_at = float("-inf")  # when the last cue's last sample sounds
        self._sounding_until = float("-inf")  # read by other threads: one float, swapped whole
        self._listeners: list[Callable[[Started], None]] = []
        self._listener_failed = False
        self.started: list[Started] = []

    def add(
        self,
        clip: Clip,
        caption: str,
        urgent: bool = False,
        *,
        at: float | None = None,
        ticket: Hashable | None = None,
    ) -> None:
        """Queue a cue. ``at``: the moment (speaker's clock) its first
        sample must sound; None or a moment already past: as soon as
        possible. ``ticket``: what ``withdraw`` names it by. When its moment
        comes, an urgent cue cuts in over what plays and drops the queue;
        another waits for the cue playing then, as if queued at that moment."""
        samples = clip.converted(self.format).samples
        queued = self._clock()
        with self._add_lock:
            self._added += 1
            due = _NOW if at is None else at
            self._inbox.append(
                _Cue(samples, caption, urgent, due, queued, ticket, next(self._order))
            )

    def withdraw(self, ticket: Hashable) -> None:
        """Drop every cue of ``ticket`` that has not started to play yet
        (one that has, was heard: it plays on)."""
        self._inbox.append(_Withdraw(ticket))

    def on_started(self, listener: Callable[[Started], None]) -> None:
        """Call ``listener(Started)`` when a cue's first sample goes out. It
        runs on the audio thread: it must only record or enqueue."""
        self._listeners.append(listener)

    @property
    def sounding_until(self) -> float:
        """When the cue heard now (or last) stops sounding, on the speaker's
        clock: the ears take what they hear until then for the table's own
        voice, not a player's."""
        return self._sounding_until

    @property
    def idle(self) -> bool:
        """Nothing playing, queued or waiting for its moment."""
        return self._finished >= self._added

    def fill(self, out: Samples, *, now: float | None = None, delay: float = 0.0) -> None:
        """Write the next ``len(out)`` frames into ``out`` (shape ``(frames,)``
        or ``(frames, channels)``); ``delay``: seconds from ``now`` until the
        block's first frame sounds."""
        if now is None:
            now = self._clock()
        column = out if out.ndim == 1 else out[:, 0]
        self._take_inbox()
        frames = len(column)
        sounds_at = now + delay  # when frame 0 of this block is heard
        rate = self.format.rate
        written = 0
        while written < frames:
            # Release the cues whose moment falls at or before this frame;
            # copy up to the next one's frame.
            until = frames
            while self._waiting:
                due, _, cue = self._waiting[0]
                frame = 0 if due == _NOW else round((due - sounds_at) * rate)
                if frame > written:
                    until = min(until, frame)
                    break
                self._waiting.pop(0)
                self._release(cue)
            written = self._copy(column, written, until, now, sounds_at)
        if out.ndim == 2 and out.shape[1] > 1:
            out[:, 1:] = out[:, :1]

    def _copy(self, column: Samples, written: int, until: int, now: float, sounds_at: float) -> int:
        """Frames ``written``..``until`` from the cue playing and the queue;
        silence where there is none."""
        while written < until:
            if self._current is None:
                if not self._queue:
                    break
                cue = self._queue.popleft()
                self._current, self._position = cue.samples, 0
                due = cue.queued if cue.due == _NOW else cue.due
                audible = sounds_at + written / self.format.rate
                free = max(due, self._ended_at)
                self._sounding_until = audible + len(cue.samples) / self.format.rate
                self._announce(
                    Started(cue.caption, now, audible, due, cue.due > cue.queued, cue.queued, free)
                )
            chunk = self._current[self._position : self._position + until - written]
            column[written : written + len(chunk)] = chunk
            written += len(chunk)
            self._position += len(chunk)
            if self._position >= len(self._current):
                self._ended_at = sounds_at + written / self.format.rate
                self._current = None
                self._finished += 1
        column[written:until] = 0
        return until

    def _release(self, cue: _Cue) -> None:
        """The cue's moment has come: it plays now (urgent) or next."""
        if cue.urgent:  # cut in: drop what plays and what waits
            dropped = len(self._queue) + (self._current is not None)
            self._queue.clear()
            self._current = None
            self._finished += dropped
        self._queue.append(cue)

    def _take_inbox(self) -> None:
        while self._inbox:
            item = self._inbox.popleft()
            if isinstance(item, _Withdraw):
                kept = [w for w in self._waiting if w[2].ticket != item.ticket]
                self._finished += len(self._waiting) - len(kept)
                self._waiting = kept
            else:
                bisect.insort(self._waiting, (item.due, item.order, item), key=_by_time)

    def _announce(self, event: Started) -> None:
        self.started.append(event)
        for listener in self._listeners:
            try:
                listener(event)
            except Exception:
                if not self._listener_failed:
                    self._listener_failed = True
                    log.exception("a cue-started listener failed (reported once)")


def _by_time(entry: tuple[float, int, _Cue]) -> tuple[float, int]:
    return entry[0], entry[1]
