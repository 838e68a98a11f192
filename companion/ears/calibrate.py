"""``companion calibrate``: each seat's fingerprint for the array.

The host runs it with the array plugged in. Seat by seat it asks
(«Место 3: скажите несколько слов», printed, and spoken where the table
has a voice), takes the first utterance of at least ``MIN_UTTERANCE_S``
from that seat and measures its delays (``calibration.fingerprint``), and
asks the next seat once no utterance has been open for ``QUIET_S`` (a
player who goes on after a pause is still the seat before). Live, the
prompt's own sound, which the array hears too, is let go. A
seat that says nothing within ``--wait`` seconds of sound is "not heard";
two seats whose utterances fit each other's fingerprints are "alike". The
calibration is saved for ``companion listen --layout array`` and the live
listener. ``--from-wav`` takes a recording in which the seats speak in turn
instead of the card (tests; calibrating from a recording).

Waiting is counted in the sound's own frames, never on the wall clock: a
recording and a card run the same code, and a test waits for nothing.
"""

from __future__ import annotations

import logging
import queue
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import numpy as np

from .array import CrossSpectra, Geometry, geometry, mic_columns
from .calibration import alike, azimuth, calibration_of, default_path, fingerprint, save
from .capture import RATE, Listener, Samples, SoundDeviceListener, WavListener
from .detect import CHUNK, DEFAULT_DETECTOR, ChunkJudge, DetectorName, Segmenter, judge
from .wav_file import WavRefused

if TYPE_CHECKING:  # the voice (sounddevice, espeak-ng) is loaded only when it speaks
    from ..voice.speaker import SoundDeviceSpeaker
    from ..voice.tts import WavCache

log = logging.getLogger(__name__)

#: the shortest utterance a seat is calibrated from
MIN_UTTERANCE_S = 1.0
#: sound let go by after a spoken prompt (its echo, the card's buffer)
AFTER_PROMPT_S = 0.5
#: after a seat is heard, the next is asked only once no utterance has been
#: open for this long: a player who goes on after a pause is still that seat
QUIET_S = 0.6

MESSAGES: dict[str, dict[str, str]] = {
    "ru": {
        "ask": "Место {seat}: скажите несколько слов",
        "heard": "Место {seat}: услышано {seconds:.1f} с, направление {angle:.0f}°",
        "missed": "Место {seat}: не услышано",
        "alike": "Места {a} и {b} звучат из одной точки: их не различить",
        "saved": "Калибровка сохранена: {path} (мест: {count} из {total})",
        "redo": "Повторите калибровку, когда молчавшие места будут готовы",
    },
    "en": {
        "ask": "Seat {seat}: say a few words",
        "heard": "Seat {seat}: heard {seconds:.1f} s, direction {angle:.0f}°",
        "missed": "Seat {seat}: not heard",
        "alike": "Seats {a} and {b} sound as if from one place: they cannot be told apart",
        "saved": "Calibration saved: {path} ({count} of {total} seats)",
        "redo": "Calibrate again when the seats not heard are ready",
    },
}


@dataclass
class UtteranceCatcher:
    """Blocks in (frames x the card's channels); the first utterance at
    least ``min_s`` long out, as the array's samples over its span."""

    shape: Geometry
    judging: ChunkJudge
    min_s: float = MIN_UTTERANCE_S
    _segmenter: Segmenter = field(default_factory=Segmenter)
    _audio: Samples = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    _offset: int = 0  # the frame (since the reset) that _audio starts at
    _frames: int = 0  # frames taken since the reset
    _judged: int = 0  # of which judged (whole chunks)
    _busy: int = 0  # the end of the last chunk heard inside an utterance

    def __post_init__(self) -> None:
        self.reset()

    def feed(self, block: Samples) -> Samples | None:
        mics = mic_columns(block, self.shape, "the array's card")
        self._audio = np.concatenate([self._audio, mics]) if len(self._audio) else mics.copy()
        self._frames += len(block)
        while self._frames - self._judged >= CHUNK:
            at = self._judged - self._offset
            chunk = self._audio[at : at + CHUNK].mean(axis=1)
            found = self._segmenter.feed(self._judged / RATE, self.judging(chunk))
            self._judged += CHUNK
            if self._segmenter.open_since is not None or found is not None:
                self._busy = self._judged
            if found is not None:
                first = round(found.start * RATE) - self._offset
                span: Samples = self._audio[max(0, first) : round(found.end * RATE) - self._offset]
                return span
        if self._segmenter.open_since is None:
            # Nothing open: only the last few chunks can become an utterance's start.
            keep = (self._segmenter.window + 1) * CHUNK + (self._frames - self._judged)
            if len(self._audio) > keep:
                self._offset += len(self._audio) - keep
                self._audio = self._audio[-keep:]
        return None

    @property
    def heard_s(self) -> float:
        return self._frames / RATE

    @property
    def quiet_s(self) -> float:
        """How long no utterance has been open (a stray voiced chunk of the
        room's babble opens none)."""
        return (self._judged - self._busy) / RATE

    def reset(self) -> None:
        self._segmenter = Segmenter(min_s=self.min_s)
        self._audio = np.zeros((0, self.shape.mics), dtype=np.float32)
        self._offset = self._frames = self._judged = self._busy = 0


_END = None  # the listener has stopped (the recording ended, or the card failed)


def calibrate(
    listener: Listener,
    shape: Geometry,
    seats: int,
    judging: ChunkJudge,
    *,
    wait_s: float,
    ask: Callable[[int], None],
    told: Callable[[str], None],
    lang: str = "ru",
    live: bool = True,
) -> dict[int, CrossSpectra]:
    """Hear each seat in turn (``ask`` prompts it and returns when the
    prompt is over); each heard seat's summed cross-spectra. ``live``: a
    card, whose sound during the prompt is let go (a recording: none is)."""
    words = MESSAGES[lang]
    blocks: queue.SimpleQueue[Samples | BaseException | None] = queue.SimpleQueue()
    stopping = threading.Event()

    def run() -> None:
        try:
            listener.run(lambda block: blocks.put(block.samples), stopping)
        except BaseException as error:  # handed to the main thread, which says it
            blocks.put(error)
        blocks.put(_END)

    thread = threading.Thread(target=run, name="calibrate-listener", daemon=True)
    thread.start()
    catcher = UtteranceCatcher(shape, judging)
    heard: dict[int, CrossSpectra] = {}
    ended = False
    try:
        for seat in range(1, seats + 1):
            if ended:
                told(words["missed"].format(seat=seat))
                continue
            ask(seat)
            catcher.reset()
            ended, utterance = _hear(blocks, catcher, wait_s, live=live)
            if utterance is None:
                told(words["missed"].format(seat=seat))
                continue
            heard[seat] = fingerprint(utterance, shape)
            angle = azimuth(calibration_of({seat: heard[seat]}, shape).seats[seat], shape)
            told(words["heard"].format(seat=seat, seconds=len(utterance) / RATE, angle=angle))
            if seat < seats:
                ended = _settle(blocks, catcher, wait_s)
    finally:
        stopping.set()
        thread.join(timeout=5.0)  # the card closed before the results are told
    return heard


def _hear(
    blocks: queue.SimpleQueue[Samples | BaseException | None],
    catcher: UtteranceCatcher,
    wait_s: float,
    *,
    live: bool,
) -> tuple[bool, Samples | None]:
    """(the sound ended, the utterance or None). Live, what the card heard
    while the prompt was spoken is let go, and ``AFTER_PROMPT_S`` more."""
    skip = 0
    if live:
        while True:
            try:
                item = blocks.get_nowait()
            except queue.Empty:
                break
            if item is None or isinstance(item, BaseException):
                return _ended(item)
        skip = int(AFTER_PROMPT_S * RATE)
    while True:
        item = blocks.get()
        if item is None or isinstance(item, BaseException):
            return _ended(item)
        if skip > 0:
            skip -= len(item)
            continue
        utterance = catcher.feed(item)
        if utterance is not None:
            return False, utterance
        if catcher.heard_s >= wait_s:
            return False, None


def _settle(
    blocks: queue.SimpleQueue[Samples | BaseException | None],
    catcher: UtteranceCatcher,
    wait_s: float,
) -> bool:
    """Let the seat finish: sound goes by until ``QUIET_S`` without speech
    (or ``wait_s``); True when the sound ended meanwhile."""
    catcher.reset()
    while catcher.quiet_s < QUIET_S and catcher.heard_s < wait_s:
        item = blocks.get()
        if item is None or isinstance(item, BaseException):
            return _ended(item)[0]
        catcher.feed(item)
    return False


def _ended(item: BaseException | None) -> tuple[bool, None]:
    if isinstance(item, BaseException):
        raise item
    return True, None


class Prompter:
    """Asks each seat: printed, and spoken where a voice works (the prompt's
    sound must be over before listening starts: the card hears it too)."""

    def __init__(self, lang: str, out: TextIO, speak: bool, device: str | None = None) -> None:
        self.lang, self.out = lang, out
        self._speaker: SoundDeviceSpeaker | None = None
        self._cache: WavCache | None = None
        if speak:
            self._open(device)

    def _open(self, device: str | None) -> None:
        try:
            from ..voice.speaker import SoundDeviceSpeaker, open_speaker
            from ..voice.tts import WavCache

            speaker = open_speaker(device)
            if isinstance(speaker, SoundDeviceSpeaker):
                self._speaker, self._cache = speaker, WavCache()
        except Exception as error:  # a voice is a help here, never a reason to stop
            log.warning("no voice for the prompts (%s): printed only", error)

    def __call__(self, seat: int) -> None:
        text = MESSAGES[self.lang]["ask"].format(seat=seat)
        print(text, file=self.out, flush=True)
        if self._speaker is None or self._cache is None:
            return
        from ..voice.tts import TtsVoice

        try:
            clip = self._cache.clip(text, TtsVoice(self.lang, 165))
            self._speaker.play(clip, text)
            self._speaker.wait_idle(clip.duration + 2.0)
        except Exception as error:
            log.warning("prompt not spoken (%s): printed only", error)
            self._speaker = None

    def close(self) -> None:
        if self._speaker is not None:
            self._speaker.close()


def run_command(
    *,
    seats: int,
    array: str,
    out: Path | None,
    from_wav: Path | None,
    device: str | None,
    wait_s: float,
    speak: bool,
    lang: str,
    voice_device: str | None = None,
    detector: DetectorName = DEFAULT_DETECTOR,
    stream: TextIO | None = None,
) -> int:
    """What ``companion calibrate`` does; 0 once a calibration is saved."""
    shape = geometry(array)
    if not 2 <= seats <= 99:
        raise ValueError(f"--seats {seats}: give a number from 2 to 99")
    if not wait_s > 0:
        raise ValueError(f"--wait {wait_s:g}: give a number of seconds above 0")
    text = stream or sys.stdout
    listener: Listener
    if from_wav is not None:
        listener = WavListener(from_wav)  # its header checked now (WavRefused)
        if listener.rate != RATE:
            raise WavRefused(from_wav, "wav_rate", rate=listener.rate, want=RATE)
        # the right channels, said at once
        mic_columns(np.zeros((1, listener.channels), dtype=np.float32), shape, str(from_wav))
        speak = False
    else:
        listener = SoundDeviceListener(device, channels=shape.device_channels)
    words = MESSAGES[lang]
    prompter = Prompter(lang, text, speak, voice_device)

    def told(line: str) -> None:
        print(line, file=text, flush=True)

    try:
        heard = calibrate(
            listener,
            shape,
            seats,
            judge(detector),
            wait_s=wait_s,
            ask=prompter,
            told=told,
            lang=lang,
            live=from_wav is None,
        )
    finally:
        prompter.close()
    if len(heard) < 2:
        raise ValueError(f"calibrate: {len(heard)} of {seats} seats heard; nothing saved")
    result = calibration_of(heard, shape)
    for a, b in alike(heard, result):
        told(words["alike"].format(a=a, b=b))
    path = out or default_path()
    save(result, path)
    told(words["saved"].format(path=path, count=len(heard), total=seats))
    if len(heard) < seats:
        told(words["redo"])
    return 0
