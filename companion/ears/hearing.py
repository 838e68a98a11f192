"""What the listening process does: sound in, utterances out.

``hear`` runs a ``Listener`` (the sound card, or a WAV file played at its
own pace) and turns its blocks into messages for the table side:

- ``("open", start, seat, confidence, level_db)``: an utterance has begun
  (``start``: the monotonic time of its first chunk), sent the moment the
  detector is sure of it, so a flag at night is raised at once;
- ``("level", level_db)``: the open utterance has grown louder (by at
  least ``LEVEL_STEP_DB``);
- ``("seat", seat, confidence)``: the layout now knows better whose the
  open utterance is;
- ``("close", start, end, seat, confidence, level_db)``: it has ended;
- ``("word", start, seat, phrase, words, confidence)``: a forbidden
  phrase of the ruleset in the utterance that began at ``start`` (with a vosk model:
  the recogniser hears each utterance from a little before its onset to
  its end, and only its final result counts);
- ``("status", "lost" | "back" | "words_off", one line)``: the microphone
  went away or came back (reported once each; the card is retried
  meanwhile), or forbidden words cannot be listened for.

``level_db`` is the utterance's loudness so far: the loudest median of
``window`` voiced chunks in a row (dB of the loudest channel), a figure
that a weak first syllable does not hold down and one loud click does not
push up. The table side compares it with its own speakers' (the same
figure at the end of their utterances, ``watch.LevelGate``). Nothing here knows the game: the table side
decides what is a flag.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from ..core.rules import ForbiddenWords
from .attribution import loudest, tracker_for
from .capture import RATE, Block, Listener, RetryingListener, SoundDeviceListener, WavListener
from .detect import (
    CHUNK,
    DEFAULT_DETECTOR,
    LIFT_DB,
    WHISPER_LOUDNESS_DB,
    DetectorName,
    Voicing,
    segmenter_for,
)
from .floor import median

log = logging.getLogger(__name__)

Layout = Literal["single", "channels", "array"]
#: a device named so is a WAV file played at its own pace (rehearsals, tests)
FILE_PREFIX = "file:"
Send = Callable[[tuple[Any, ...]], None]
#: a louder utterance is told again only when it has grown by this much
LEVEL_STEP_DB = 2.0
NO_LEVEL = -120.0
#: the recogniser hears this much before an utterance's onset (its first
#: syllable is often in the chunks before the detector was sure)
LEAD_CHUNKS = 10
#: the card's (and a ``file:`` device's) block: six chunks, a wake-up
#: every 192 ms. Woken every 32 ms the process finds its caches cold each
#: time and its per-chunk work (Silero's included) costs about six times
#: what it does run back to back; two chunks a wake cut the whole
#: process's CPU by a quarter, four by about a third again (bench/ears_cost.py).
#: On a Pi's core the block graph's weights (1.2 MB, more than its L2)
#: are read again every block: six chunks, not four, bring the estimate
#: for a Pi 4 with every stall paid from 0.031 to 0.026 s a second
#: (bench/ears_arm.py), for 16-41 ms more before a flag at the median
#: (bench/ears.py: tuning2 208 -> 249 ms, tuning3 224 -> 240;
#: docs/listening.md "The cost"). The segments are the same whatever the
#: block.
LISTEN_BLOCK = 6 * CHUNK


@dataclass(frozen=True, slots=True)
class EarsSettings:
    """The club's ``[microphone]`` (docs/config.md)."""

    device: str | None = None  # a PortAudio index or part of a name; None: the default
    layout: Layout = "single"
    channels: int = 1  # the card's channels (channels: one per seat; array: its mics)
    detector: DetectorName = DEFAULT_DETECTOR
    calibration: Path | None = None  # the array's seat calibration (``companion calibrate``)
    words_model: str = ""  # a vosk model (name or folder) for forbidden words; "": none
    words_threshold: float = 0.8
    #: how far a voice must stand above the room's floor to be heard (detect.LIFT_DB)
    above_room_db: float = LIFT_DB
    #: the ruleset's ``[listening.words]`` (the table fills it in)
    phrases: Sequence[ForbiddenWords] = ()


def open_listener(settings: EarsSettings) -> Listener:
    device = settings.device
    if device is not None and device.startswith(FILE_PREFIX):
        path = Path(device[len(FILE_PREFIX) :])
        return WavListener(path, realtime=True, blocksize=LISTEN_BLOCK)
    return SoundDeviceListener(
        device, rate=RATE, channels=settings.channels, blocksize=LISTEN_BLOCK
    )


class Hearing:
    """Blocks in (any length, any channels), messages out; see the module's
    docstring. One per listening process; also driven directly by tests."""

    def __init__(self, settings: EarsSettings, send: Send, spotter: Any = None) -> None:
        """``spotter``: a ``words.WordSpotter`` given instead of the one
        ``settings.words_model`` names (tests)."""
        self.settings = settings
        self._send = send
        # What ``companion listen`` hears with too (detect.MonoSegments).
        self._voicing = Voicing(settings.detector)
        self._segmenter = segmenter_for(settings.detector, settings.above_room_db)
        self._pending = np.zeros((0, max(1, settings.channels)), dtype=np.float32)
        self._pending_at = 0.0
        self._levels: list[float] = []  # the voiced chunks' levels, the last few
        self._peak = NO_LEVEL  # the open utterance's loudness so far
        self._told = NO_LEVEL  # the loudness last sent
        self._spotter = spotter if spotter is not None else self._words(settings)
        self._tracker = self._seats(settings)
        self._mics = self._microphones()
        self._seat: tuple[int | None, float] = (None, 0.0)
        # The chunks before an utterance (all channels, and the one the
        # detector heard): the seat tracker and the recogniser hear them too.
        self._before: deque[tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]] = deque(
            maxlen=LEAD_CHUNKS
        )
        self._start = 0.0  # the utterance the recogniser hears

    def block(self, block: Block) -> None:
        samples = block.samples if block.samples.ndim == 2 else block.samples[:, None]
        if len(self._pending) == 0:
            self._pending_at = block.at
        elif self._pending.shape[1] != samples.shape[1]:
            self._pending = self._pending[:0]  # the card came back otherwise: start afresh
            self._pending_at = block.at
        self._pending = np.concatenate([self._pending, samples])
        whole = len(self._pending) // CHUNK
        if not whole:
            return
        chunks = [self._pending[k * CHUNK : (k + 1) * CHUNK] for k in range(whole)]
        self._pending = self._pending[whole * CHUNK :]
        # The detector hears the loudest channel: with a microphone per seat,
        # the speaker's own; one Silero per channel would cost ten times more.
        monos = [loudest(self._mics(chunk)) for chunk in chunks]
        stacked = np.stack(monos)
        self._voicing.expect(stacked)  # the block's chunks in one call
        # each one's mean square once (the detector's lift and the loudness
        # alike), for the block at once: the same sums as a chunk at a time
        powers = (np.square(stacked, dtype=np.float64).sum(axis=1) / CHUNK + 1e-12).tolist()
        for chunk, mono, power in zip(chunks, monos, powers, strict=True):
            at = self._pending_at
            self._pending_at += CHUNK / RATE
            self._chunk(at, chunk, mono, power)

    def _seats(self, settings: EarsSettings) -> Any:
        """Who spoke, for a layout with more than one microphone; a missing
        calibration is said once and the ears go on without seats."""
        if settings.layout == "single":
            return None
        try:
            return tracker_for(settings.layout, settings.channels, settings.calibration)
        except (ValueError, OSError) as error:
            self.status("no_seats", " ".join(str(error).split()))
            return None

    def _microphones(self) -> Callable[[np.ndarray[Any, Any]], np.ndarray[Any, Any]]:
        """The columns of a block that are microphones: the array's card
        adds its playback channels (the table's own voice, loud), which the
        detector must not hear nor the loudness count."""
        shape = getattr(getattr(self._tracker, "calibration", None), "shape", None)
        if shape is None:
            return lambda chunk: chunk
        from .array import mic_columns

        return lambda chunk: mic_columns(chunk, shape, "the array's block")

    def _words(self, settings: EarsSettings) -> Any:
        if not settings.words_model or not settings.phrases:
            return None
        from .words import open_word_spotter  # vosk: only with a model

        try:
            return open_word_spotter(
                settings.words_model, settings.phrases, settings.words_threshold
            )
        except (ValueError, OSError, ImportError) as error:
            self.status("words_off", " ".join(str(error).split()))
            return None

    def status(self, what: str, line: str) -> None:
        self._send(("status", what, line))

    def finish(self) -> None:
        """The sound ended (a file): close what is open."""
        was_open = self._segmenter.open_since is not None
        segment = self._segmenter.flush()
        seat = self._seat[0]
        if segment is not None:
            self._send(("close", segment.start, segment.end, seat, segment.confidence,
                        self._peak))  # fmt: skip
        elif was_open:
            self._send(("close", 0.0, 0.0, seat, 0.0, self._peak))
        if was_open and self._spotter is not None:
            self._recognise([], ended=True)

    def cut(self) -> None:
        """The sound stopped (the microphone went away): an utterance open
        now ends here, so that no overrun is flagged for speech nobody
        heard; what comes when the card is back starts afresh."""
        self.finish()
        self._pending = self._pending[:0]
        self._levels = []
        self._before.clear()
        self._peak = self._told = NO_LEVEL
        self._seat = (None, 0.0)
        if self._tracker is not None:
            self._tracker.reset()

    def _chunk(
        self, at: float, chunk: np.ndarray[Any, Any], mono: np.ndarray[Any, Any], power: float
    ) -> None:
        verdict = self._voicing.hear_mono(mono, power)
        probability = verdict.probability
        level = verdict.level  # detect.level_db, as the detector reckoned it
        if verdict.whispered:
            level += WHISPER_LOUDNESS_DB  # a voice at the table (detect.WHISPER_LOUDNESS_DB)
        was_open = self._segmenter.open_since is not None
        segment = self._segmenter.feed(
            at, probability, verdict.lift, verdict.sounding, verdict.steady
        )
        opened = self._segmenter.open_since
        if probability >= self._segmenter.threshold:
            self._levels = [*self._levels[-(self._segmenter.window - 1) :], level]
            if opened is not None:
                self._peak = max(self._peak, round(median(self._levels), 1))
        if opened is None:
            self._before.append((chunk, mono))
            heard = [(chunk, mono)] if was_open else []  # an utterance's last chunk
        elif was_open:
            heard = [(chunk, mono)]
        else:  # an utterance begins: the chunks before it first
            self._start = opened
            heard = [*self._before, (chunk, mono)]
            self._before.clear()
        if self._tracker is not None:
            self._track(heard if opened is not None else [], was_open)
        seat = self._seat[0]
        if opened is not None and not was_open:
            self._send(("open", opened, seat, round(probability, 3), self._peak))
            self._told = self._peak
        elif opened is not None and self._peak >= self._told + LEVEL_STEP_DB:
            self._send(("level", self._peak))
            self._told = self._peak
        if segment is not None:
            self._send(("close", segment.start, segment.end, seat, segment.confidence,
                        self._peak))  # fmt: skip
        elif was_open and opened is None:  # too short to count: closed all the same
            self._send(("close", at, at, seat, 0.0, self._peak))
        if self._spotter is not None and heard:
            self._recognise([m for _, m in heard], ended=opened is None)
        if opened is None:
            self._peak = self._told = NO_LEVEL
            self._seat = (None, 0.0)

    def _track(
        self, chunks: list[tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]], was_open: bool
    ) -> None:
        """Feed the seat tracker the utterance's chunks (none: it has ended);
        tell the table when its verdict changes."""
        if not chunks:
            if was_open:
                self._tracker.reset()
            return
        for chunk, _ in chunks:
            self._tracker.feed(chunk)
        seat, confidence = self._tracker.verdict()
        if seat != self._seat[0]:
            self._seat = (seat, round(confidence, 3))
            if was_open:
                self._send(("seat", seat, self._seat[1]))

    def _recognise(self, monos: list[np.ndarray[Any, Any]], ended: bool) -> None:
        """The recogniser hears utterances only (a lead-in, the utterance):
        free decoding of hours of room sound would cost a core."""
        hits = [hit for mono in monos for hit in self._spotter.feed(mono)]
        if ended:
            hits += self._spotter.flush()
        for hit in hits:
            self._send(("word", self._start, self._seat[0], hit.phrase, hit.words, hit.confidence))


def hear(
    settings: EarsSettings,
    send: Send,
    stopping: threading.Event,
    listener: Listener | None = None,
    *,
    pause: Callable[[float], bool] | None = None,
    ready: Callable[[], None] | None = None,
) -> None:
    """Listen until ``stopping`` (or a file's end), sending messages.
    ``pause``: the wait between tries of a lost card (``RetryingListener``);
    ``ready``: called once the detector and the source are set up (the
    listening process then says it listens: link.py)."""
    hearing = Hearing(settings, send)

    def status(what: str, line: str) -> None:
        if what == "lost":
            hearing.cut()  # its "close" goes before the news
        hearing.status(what, line)

    source = RetryingListener(listener or open_listener(settings), status, pause=pause)
    if ready is not None:
        ready()
    source.run(hearing.block, stopping)
    hearing.finish()
