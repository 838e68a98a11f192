"""Who speaks when, across the output lanes of one speaker.

The table's speaker may play through two streams at once (voice/speaker.py):
the *main* lane, with a deep buffer, where every cue known ahead starts at
its exact frame, and the *quick* lane, with a small one, for the answer to
an input that nobody could foresee. The sound server mixes the two, so
nothing but this keeps them from talking over each other. Before a lane
starts a cue it claims the floor for the moment the cue's first sample
sounds (each lane counts that moment on ``time.monotonic()`` from its own
device's output clock). The rules are those of one stream:

- a cue whose moment comes while the other lane is speaking waits until
  ``PAUSE_S`` after that lane's last audible sample. Only the voice
  counts, not the silence a phrase ends with (espeak-ng ends each with
  ~0.36 s of it): a host who presses a key once «Стоп» has been said is
  answered at once. On one lane, cues still follow each other whole;
- an urgent cue cuts in: the other lane falls silent at the moment the
  urgent cue starts, or, if it has already handed the device speech past
  that moment (a deep buffer cannot take sound back), at the end of what
  it has handed over, and the urgent cue starts then. What the other lane
  had queued is dropped, as on one lane;
- a cue that has to wait keeps its place from the moment it will start:
  a cue due after it (on the other lane) waits for it in turn, so cues
  follow each other in the order they came due, as in one stream's queue.

Claims are made by the lanes' audio callbacks only, under one small lock
that nothing else takes (a few dozen bytecodes, no I/O, no waiting), so
that two lanes never both take a free floor. A playback alone on its floor
(one stream) never takes it.
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass
from typing import Generic, TypeVar

#: two moments this close (s) are the same: the lanes' clocks are each
#: their device's estimate, and a handover must never wait for nothing
SLACK_S = 1e-4
#: a cue that waited for another lane's speech starts this long after its
#: last audible sample (a short pause between sentences)
PAUSE_S = 0.15
#: a cue playing that the device says will end this much later than told
#: ran dry (an underrun): its floor moves on with it. Smaller moves are the
#: device's estimates jittering from block to block.
SLIP_S = 0.005


@dataclass(frozen=True, slots=True)
class Started:
    """A cue's first sample was handed to the device at ``handed`` and will
    sound at about ``audible`` (both on the speaker's clock,
    ``time.monotonic()`` seconds). ``due``: when it should have sounded
    (its scheduled time, or when it was queued); ``scheduled``: it was
    handed over ahead of its time; ``queued``: when it was given to the
    speaker; ``free``: when the speaker was free for it (``due``, or the
    end of a cue still sounding then: cues never cut each other short);
    ``lane``: the stream it went out on ("main", or "quick" for an input's
    answer on a speaker with two)."""

    caption: str
    handed: float
    audible: float
    due: float = 0.0
    scheduled: bool = False
    queued: float = 0.0
    free: float = 0.0
    lane: str = "main"

    @property
    def at(self) -> float:
        """The same as ``handed``."""
        return self.handed


@dataclass(slots=True)
class Turn:
    """One lane's side of the floor (times on the speaker's clock): the cue
    it plays, or holds a place for."""

    lane: str
    claim: int = 0  # which claim took it: a later claim was placed around it
    speaking_from: float = float("-inf")  # when that cue starts
    speaking_until: float = float("-inf")  # its last audible sample, and a pause
    sounding_until: float = float("-inf")  # its last sample
    handed_until: float = float("-inf")  # when the last frame handed over sounds
    cut_at: float | None = None  # told by another lane's urgent cue: silent from then


Lane = TypeVar("Lane")


class Floor(Generic[Lane]):
    """The lanes of one speaker and what each is saying; see the module's
    docstring. ``Lane``: what a lane is (playback.py's ``Playback``; the
    floor only keeps them, for the lanes to look at each other)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._claims = 0
        self.order = itertools.count()  # the cues' order, across lanes
        self.turns: list[Turn] = []
        self.members: list[Lane] = []
        #: every cue's start on any lane, in order (appends are atomic)
        self.started: list[Started] = []

    def join(self, playback: Lane, lane: str) -> Turn:
        turn = Turn(lane)
        with self._lock:
            self.turns.append(turn)
            self.members.append(playback)
        return turn

    @property
    def shared(self) -> bool:
        return len(self.turns) > 1

    @property
    def sounding_until(self) -> float:
        """When the cue heard now (or last), on whichever lane, stops sounding."""
        return max((turn.sounding_until for turn in self.turns), default=float("-inf"))

    def begin_block(self, turn: Turn, ends_at: float) -> float | None:
        """``turn``'s lane is about to hand over sound up to ``ends_at``;
        returns the moment it must fall silent if that is before then."""
        with self._lock:
            turn.handed_until = ends_at
            cut = turn.cut_at
            if cut is None or cut >= ends_at:
                return None
            turn.cut_at = None
            return cut

    def claim(
        self, turn: Turn, at: float, length: float, heard: float, urgent: bool, again: bool
    ) -> tuple[float, float]:
        """``turn``'s lane would start its queue, ``length`` seconds of cues,
        the first ``heard`` of them audible, sounding at ``at`` (the other
        lanes wait for the whole of it); ``again``: it holds a place for
        this cue from an earlier claim. Returns (when it may start, when the
        other lanes' speech ended or ends). The floor is taken from then on;
        a start later than ``at`` is to be asked for again then (another
        lane's urgent cue may have cut in meanwhile)."""
        with self._lock:
            if again and turn.speaking_from > at + SLACK_S:
                return turn.speaking_from, float("-inf")  # its place is further on
            if not again:
                self._claims += 1
                turn.claim = self._claims
            start, busy = at, float("-inf")
            for other in self.turns:
                if other is turn or other.claim > turn.claim:
                    continue  # claimed after this one's place: it was placed around it
                speaking = other.speaking_until
                busy = max(busy, speaking)
                if other.sounding_until <= at + SLACK_S:
                    continue
                if urgent:  # cut in, once what it handed over has sounded
                    cut = max(at, other.handed_until)
                    other.cut_at = cut if other.cut_at is None else min(other.cut_at, cut)
                    other.sounding_until = min(other.sounding_until, cut)
                    other.speaking_until = min(speaking, cut)
                    start = max(start, min(cut, speaking))
                elif (
                    speaking > at + SLACK_S and other.speaking_from < at + heard + PAUSE_S - SLACK_S
                ):
                    start = max(start, speaking)  # wait for the end of what it says
            if start <= at + SLACK_S:
                start = at
            # Taken from ``start`` on (a place held for it, if later): a cue
            # claimed after this one waits for it, as in one stream's queue.
            turn.speaking_from = start
            turn.sounding_until = start + length
            turn.speaking_until = start + heard + PAUSE_S
            return start, busy

    def slipped(self, turn: Turn, by: float) -> None:
        """``turn``'s lane ran dry inside its cue: what it says sounds ``by``
        seconds later than it claimed (the other lanes wait that much more)."""
        with self._lock:
            if turn.cut_at is None:
                turn.sounding_until += by
                turn.speaking_until += by

    def fell_silent(self, turn: Turn, at: float) -> None:
        """``turn``'s lane dropped what it was saying at ``at``."""
        with self._lock:
            turn.sounding_until = min(turn.sounding_until, at)
            turn.speaking_until = min(turn.speaking_until, at)
