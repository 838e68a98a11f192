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

A speaker with two streams has a playback per stream (a *lane*) on one
``Floor`` (voice/floor.py): a lane that starts a cue claims the floor
first, so that the lanes never talk over each other, and a lane whose
stream has stalled has the cues it has not taken yet played by another.
"""

from __future__ import annotations

import bisect
import collections
import logging
import math
import threading
import time
from collections.abc import Callable, Hashable
from typing import NamedTuple

import numpy as np

from .audio import TTS_FORMAT, AudioFormat, Clip, Samples
from .floor import SLACK_S, SLIP_S, Floor, Started

log = logging.getLogger(__name__)

_NOW = float("-inf")  # the due time of a cue played as soon as it is taken
#: a sample louder than this is heard (1 % of full scale, as ``Clip.without_lead_in``)
AUDIBLE = 330


class _Cue(NamedTuple):
    samples: Samples
    caption: str
    urgent: bool
    due: float  # _NOW, or the speaker's clock time its first sample must sound
    queued: float  # when it was handed to ``add``
    ticket: Hashable | None
    order: int
    heard: int  # frames up to its last audible one (the rest is the silence it ends with)


class _Withdraw(NamedTuple):
    ticket: Hashable


class Playback:
    """Cues in, samples out; see the module's docstring."""

    def __init__(
        self,
        fmt: AudioFormat | int = TTS_FORMAT,
        clock: Callable[[], float] = time.monotonic,
        *,
        floor: Floor[Playback] | None = None,
        lane: str = "main",
        stall: float | None = None,
    ) -> None:
        """``floor``: shared with the speaker's other lanes (None: alone);
        ``lane``: this one's name; ``stall``: after this many seconds
        without a ``fill`` (its stream stalled, or not started yet), another
        lane plays the cues this one has not taken (None: never)."""
        rate = fmt if isinstance(fmt, int) else fmt.rate
        self.format = AudioFormat(rate, 2, 1)  # mixed to mono; fill copies to every column
        self._clock = clock
        self._inbox: collections.deque[_Cue | _Withdraw] = collections.deque()
        self._add_lock = threading.Lock()  # among producers only
        self._added = 0
        self._finished = 0  # played to the end, dropped or withdrawn (audio thread only)
        # Audio thread only:
        self._waiting: list[tuple[float, int, _Cue]] = []  # by due time, then order
        self._queue: collections.deque[_Cue] = collections.deque()
        self._current: Samples | None = None
        self._position = 0
        self._current_ends = float("-inf")  # when the cue playing stops sounding, as last told
        self._ended_at = float("-inf")  # when the last cue's last sample sounds
        self._cut_at: float | None = None  # another lane's urgent cue starts then
        self._holding: int | None = None  # the cue that holds a place on the floor
        self._listeners: list[Callable[[Started], None]] = []
        self._listener_failed = False
        self.lane = lane
        self.stall = stall
        self.last_fill = float("-inf")  # read by the other lanes: one float, swapped whole
        self._floor: Floor[Playback] = floor if floor is not None else Floor()
        self._order = self._floor.order  # one count for every lane: cues may change lanes
        self._turn = self._floor.join(self, lane)
        self.started: list[Started] = self._floor.started  # every lane's, in order

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
        loud = np.flatnonzero(np.abs(samples.astype(np.int32)) > AUDIBLE)
        heard = int(loud[-1]) + 1 if len(loud) else 0
        queued = self._clock()
        with self._add_lock:
            self._added += 1
            due = _NOW if at is None else at
            self._inbox.append(
                _Cue(samples, caption, urgent, due, queued, ticket, next(self._order), heard)
            )

    def withdraw(self, ticket: Hashable) -> None:
        """Drop every cue of ``ticket`` that has not started to play yet
        (one that has, was heard: it plays on)."""
        self._inbox.append(_Withdraw(ticket))

    def on_started(self, listener: Callable[[Started], None]) -> None:
        """Call ``listener(Started)`` when a cue's first sample goes out (on
        this lane). It runs on the audio thread: it must only record or
        enqueue."""
        self._listeners.append(listener)

    @property
    def sounding_until(self) -> float:
        """When the cue heard now (or last), on any lane, stops sounding, on
        the speaker's clock: the ears take what they hear until then for the
        table's own voice, not a player's."""
        return self._floor.sounding_until

    @property
    def idle(self) -> bool:
        """Nothing playing, queued or waiting for its moment, on any lane (a
        cue one lane took over from another counts where it was added)."""
        members = self._floor.members
        return sum(m._finished for m in members) >= sum(m._added for m in members)

    @property
    def playing(self) -> bool:
        """A cue is being handed over now (on this lane; audio thread)."""
        return self._current is not None

    def stalled(self, now: float) -> bool:
        """Its stream has not asked for sound in ``stall`` seconds: new cues
        had better go to another lane."""
        return self.stall is not None and now - self.last_fill > self.stall

    def fill(self, out: Samples, *, now: float | None = None, delay: float = 0.0) -> None:
        """Write the next ``len(out)`` frames into ``out`` (shape ``(frames,)``
        or ``(frames, channels)``); ``delay``: seconds from ``now`` until the
        block's first frame sounds."""
        if now is None:
            now = self._clock()
        self.last_fill = now
        column = out if out.ndim == 1 else out[:, 0]
        self._take_inbox()
        frames = len(column)
        sounds_at = now + delay  # when frame 0 of this block is heard
        rate = self.format.rate
        if self._floor.shared:
            if self.stall is None:
                self._take_over(now)
            if self._silent_until(sounds_at + frames / rate):
                out.fill(0)  # the quick lane, nearly always: as little work as can be
                return
            cut = self._floor.begin_block(self._turn, sounds_at + frames / rate)
            if cut is not None:
                self._cut_at = cut if self._cut_at is None else min(self._cut_at, cut)
            if self._current is not None:
                # An underrun inside the cue: the rest of it sounds later
                # than told, and so must what waits for it on another lane.
                ends = sounds_at + (len(self._current) - self._position) / rate
                if ends - self._current_ends > SLIP_S:
                    self._floor.slipped(self._turn, ends - self._current_ends)
                    self._current_ends = ends
        written = 0
        while written < frames:
            # Fall silent where another lane's urgent cue cuts in; release
            # the cues whose moment falls at or before this frame; copy up
            # to the next one's frame.
            until = frames
            if self._cut_at is not None:
                # (each block's moment is the device's estimate, and they
                # jitter: a cut told for this block may fall past its end)
                frame = math.ceil((self._cut_at - sounds_at) * rate - 1e-6)
                if frame <= written:
                    self._drop(sounds_at + written / rate)
                    self._cut_at = None
                else:
                    until = min(frames, frame)
            while self._waiting:
                due, _, cue = self._waiting[0]
                frame = 0 if due == _NOW else round((due - sounds_at) * rate)
                if frame > written:
                    until = min(until, frame)
                    break
                self._waiting.pop(0)
                self._release(cue, sounds_at + written / rate)
            written = self._copy(column, written, until, now, sounds_at)
        if out.ndim == 2 and out.shape[1] > 1:
            out[:, 1:] = out[:, :1]

    def _copy(self, column: Samples, written: int, until: int, now: float, sounds_at: float) -> int:
        """Frames ``written``..``until`` from the cue playing and the queue;
        silence where there is none (or while another lane has the floor)."""
        rate = self.format.rate
        while written < until:
            if self._current is None:
                if not self._queue:
                    break
                cue = self._queue[0]
                audible = sounds_at + written / rate
                length = len(cue.samples) / rate
                if self._floor.shared:
                    # The floor for what is queued here, one cue after another.
                    before = sum(len(queued.samples) for queued in self._queue) / rate
                    last = self._queue[-1]
                    heard = before - (len(last.samples) - last.heard) / rate
                    again = self._holding == cue.order
                    start, busy = self._floor.claim(
                        self._turn, audible, before, heard, cue.urgent, again
                    )
                    if start > audible + SLACK_S:  # another lane is speaking: silence till then
                        self._holding = cue.order
                        frame = min(until, max(written + 1, math.ceil((start - sounds_at) * rate)))
                        column[written:frame] = 0
                        written = frame
                        continue
                    self._holding = None
                else:
                    busy = float("-inf")
                    self._turn.sounding_until = audible + length
                self._queue.popleft()
                self._current, self._position = cue.samples, 0
                self._current_ends = audible + length
                due = cue.queued if cue.due == _NOW else cue.due
                free = max(due, min(audible, max(self._ended_at, busy)))
                scheduled = cue.due > cue.queued
                self._announce(
                    Started(cue.caption, now, audible, due, scheduled, cue.queued, free, self.lane)
                )
            chunk = self._current[self._position : self._position + until - written]
            column[written : written + len(chunk)] = chunk
            written += len(chunk)
            self._position += len(chunk)
            if self._position >= len(self._current):
                self._ended_at = sounds_at + written / rate
                self._current = None
                self._finished += 1
        column[written:until] = 0
        return until

    def _silent_until(self, ends_at: float) -> bool:
        """Nothing to play, cut or release before ``ends_at``: then only the
        moment its sound is handed over to is noted, without the floor's
        lock (one float, swapped whole; silence may be cut at any time)."""
        if self._inbox or self._current is not None or self._queue or self._cut_at is not None:
            return False
        if self._turn.cut_at is not None or (self._waiting and self._waiting[0][0] < ends_at):
            return False
        self._turn.handed_until = ends_at
        return True

    def _drop(self, at: float) -> None:
        """Another lane's urgent cue cuts in at ``at``: drop what plays and
        what waits its turn here (as an urgent cue of this lane would)."""
        self._finished += len(self._queue) + (self._current is not None)
        self._queue.clear()
        self._current = None
        self._floor.fell_silent(self._turn, at)

    def _take_over(self, now: float) -> None:
        """Play the cues a stalled lane has not taken yet (only cues: what a
        lane is told to withdraw is told to every lane)."""
        for other in self._floor.members:
            if other is self or other.format != self.format or not other.stalled(now):
                continue
            while other._inbox:
                try:
                    item = other._inbox.popleft()
                except IndexError:  # it woke up and took it after all
                    break
                if isinstance(item, _Cue):
                    self._inbox.append(item)
            self._take_inbox()

    def _release(self, cue: _Cue, at: float) -> None:
        """The cue's moment (``at``, as heard) has come: it plays now
        (urgent) or next."""
        if cue.urgent:  # cut in: drop what plays and what waits
            dropped = len(self._queue) + (self._current is not None)
            self._queue.clear()
            self._current = None
            self._finished += dropped
            if dropped and self._floor.shared:
                self._floor.fell_silent(self._turn, at)
        self._queue.append(cue)

    def _take_inbox(self) -> None:
        while self._inbox:
            try:
                item = self._inbox.popleft()
            except IndexError:  # another lane took it over meanwhile
                break
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
