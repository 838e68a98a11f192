"""Forbidden words: a ruleset's phrases found in what the recogniser heard.

vosk (Kaldi) decodes **freely**, with its whole vocabulary and no grammar:
a grammar of the forbidden phrases alone would force every utterance onto
them («отвечу» would come out «отвечаю»). Its *final* results are matched
— a partial result is a guess the recogniser revises — and only where
every word of a phrase has a confidence (``conf``, from ``SetWords(True)``)
of at least the threshold; the phrase's confidence is its lowest word's. A
result without per-word confidences matches nothing.

Two parts: :func:`match_phrases`, pure (a result dict in, hits out: the
tests give it hand-written recogniser outputs), and :class:`WordSpotter`,
the recogniser around vosk's ``Model`` and ``KaldiRecognizer`` that the
listening process feeds 16 kHz mono chunks. No threads: ``feed`` does the
work on the caller's thread and returns what it found; :func:`flag_of`
makes a hit the table's input.

Matching (the phrase syntax is ``core.ruleset_words``): words are compared
normalised (lower case, «ё» as «е»); a word the recogniser wrote with a
hyphen counts as its parts («ей-богу» is «ей» «богу»); a phrase's words must
be heard one after another. Within one ``[listening.words]`` entry a
longer phrase wins over a shorter one on the same words, and a phrase heard
over the same words as one of the entry's ``unless`` phrases is dropped
(«отвечаю на вопрос»): an exception applies whatever its confidence, so a
doubtful «на» still excuses «отвечаю». Two entries may both hit the same
words («богом клянусь» is an oath and an appeal to God): each proposes its
own offence and the host decides.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.events import MAX_WORDS_HEARD, WORD_KIND, SpeechFlagged
from ..core.rules import ForbiddenWords
from ..core.ruleset_words import normalise
from .capture import RATE
from .models import ModelError, model_folder

#: CHOICE: the default confidence a word needs; a false proposal can cost a
#: player the game (club removal.2), while vosk gives the words it is sure
#: of 1.0. Checked on no Russian recording yet (docs/listening.md).
DEFAULT_THRESHOLD = 0.8


@dataclass(frozen=True, slots=True)
class WordHit:
    phrase: str  # the ruleset's [listening.words] entry id
    words: str  # the words heard, as the recogniser wrote them
    start: float  # seconds: the recogniser's stream time (plus the spotter's origin)
    end: float
    confidence: float  # the lowest of its words' confidences


@dataclass(frozen=True, slots=True)
class _Heard:
    text: str  # normalised part of a word
    token: int  # which word of the result it is part of
    raw: str
    start: float
    end: float
    conf: float


def match_phrases(
    result: Mapping[str, Any], phrases: Sequence[ForbiddenWords], threshold: float
) -> list[WordHit]:
    """The forbidden phrases in one *final* recogniser result (the JSON of
    ``KaldiRecognizer.Result()`` or ``FinalResult()``, parsed), in the order
    heard."""
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"the confidence threshold must be 0 to 1, got {threshold!r}")
    heard = _heard(result)
    hits: list[WordHit] = []
    for entry in phrases:
        excused = {k for u in entry.unless for a, b in _spans(u, heard) for k in range(a, b)}
        found = [span for phrase in entry.phrases for span in _spans(phrase, heard)]
        kept: list[tuple[int, int]] = []
        # longest first, then earliest: «держу пари» before «пари»
        for i, j in sorted(set(found), key=lambda span: (span[0] - span[1], span[0])):
            words = heard[i:j]
            confidence = min(w.conf for w in words)
            if confidence < threshold or excused.intersection(range(i, j)):
                continue
            if any(i < b and a < j for a, b in kept):
                continue
            kept.append((i, j))
            hits.append(_hit(entry.id, words, confidence))
    hits.sort(key=lambda hit: (hit.start, hit.phrase))
    return hits


def _heard(result: Mapping[str, Any]) -> list[_Heard]:
    """The result's words, each hyphenated word as its parts; a malformed
    word entry ends the list (nothing after it can be trusted in order)."""
    out: list[_Heard] = []
    words = result.get("result")
    if not isinstance(words, list):
        return out  # no "result": an empty final, or SetWords was off
    for token, item in enumerate(words):
        try:
            raw, start, end = str(item["word"]), float(item["start"]), float(item["end"])
            conf = min(1.0, max(0.0, float(item["conf"])))
        except (TypeError, KeyError, ValueError):
            break
        for part in normalise(raw).split("-"):
            if part:
                out.append(_Heard(part, token, raw, start, end, conf))
    return out


def _spans(phrase: str, heard: Sequence[_Heard]) -> list[tuple[int, int]]:
    """Where ``phrase`` was heard: (first, past last) indices into ``heard``."""
    pattern = phrase.split(" ")
    n = len(pattern)
    return [
        (i, i + n)
        for i in range(len(heard) - n + 1)
        if all(_fits(p, heard[i + k].text) for k, p in enumerate(pattern))
    ]


def _fits(pattern: str, word: str) -> bool:
    return word.startswith(pattern[:-1]) if pattern.endswith("*") else word == pattern


def _hit(phrase: str, words: Sequence[_Heard], confidence: float) -> WordHit:
    raws = list(dict.fromkeys((w.token, w.raw) for w in words))  # «ей-богу» once
    text = " ".join(raw for _, raw in raws)[:MAX_WORDS_HEARD]
    return WordHit(phrase, text, words[0].start, words[-1].end, confidence)


def flag_of(hit: WordHit, seat: int = 0) -> SpeechFlagged:
    """The table's input for a hit (``seat`` 0: whose is not known)."""
    return SpeechFlagged(WORD_KIND, seat, round(hit.confidence, 3), hit.phrase, hit.words)


class WordSpotter:
    """A vosk recogniser over one 16 kHz mono stream, matching each final
    result against ``phrases``. ``model`` is a loaded ``vosk.Model`` (one
    model can serve several spotters); ``origin`` is added to every time
    (the listener's time of the stream's first sample)."""

    def __init__(
        self,
        model: object,
        phrases: Sequence[ForbiddenWords],
        threshold: float = DEFAULT_THRESHOLD,
        origin: float = 0.0,
    ) -> None:
        from vosk import KaldiRecognizer

        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"the confidence threshold must be 0 to 1, got {threshold!r}")
        self.phrases = tuple(phrases)
        self.threshold = threshold
        self.origin = origin
        self._recognizer = KaldiRecognizer(model, RATE)
        self._recognizer.SetWords(True)  # per-word conf, start and end
        #: the last final result (parsed JSON), for a log of what was heard
        self.last_final: dict[str, Any] | None = None

    def feed(self, samples: npt.NDArray[Any]) -> list[WordHit]:
        """Hand the next chunk (int16, or float -1..1; mono: ``(n,)`` or
        ``(n, 1)``); the forbidden phrases of a final result it completed."""
        pcm = _pcm(samples)
        if not self._recognizer.AcceptWaveform(pcm.tobytes()):
            return []  # the utterance goes on: only a partial result so far
        return self._final(self._recognizer.Result())

    def flush(self) -> list[WordHit]:
        """The end of the stream: what the recogniser still held, as final."""
        return self._final(self._recognizer.FinalResult())

    def _final(self, text: str) -> list[WordHit]:
        result = json.loads(text)
        self.last_final = result
        hits = match_phrases(result, self.phrases, self.threshold)
        if not self.origin:
            return hits
        return [
            WordHit(h.phrase, h.words, h.start + self.origin, h.end + self.origin, h.confidence)
            for h in hits
        ]


def _pcm(samples: npt.NDArray[Any]) -> npt.NDArray[np.int16]:
    data = np.asarray(samples)
    if data.ndim == 2 and data.shape[1] == 1:
        data = data[:, 0]
    if data.ndim != 1:
        raise ValueError(f"the spotter takes mono samples, got shape {data.shape}")
    if data.dtype == np.int16:
        return data.astype(np.int16, copy=False)
    if not np.issubdtype(data.dtype, np.floating):
        raise TypeError(f"samples must be int16 or float, not {data.dtype}")
    scaled: npt.NDArray[np.float64] = np.clip(data, -1.0, 1.0) * 32767.0
    return scaled.astype(np.int16)


def load_model(folder: Path) -> object:
    """A vosk model from its folder (quietly: Kaldi logs every file it reads)."""
    import vosk

    if not folder.is_dir():
        raise ModelError(f"{folder}: no speech model folder there")
    vosk.SetLogLevel(-1)
    try:
        return vosk.Model(str(folder))
    except Exception as error:  # vosk raises a bare Exception("Failed to create a model")
        raise ModelError(f"{folder}: not a vosk model ({error})") from None


def open_word_spotter(
    model: str, phrases: Sequence[ForbiddenWords], threshold: float = DEFAULT_THRESHOLD
) -> WordSpotter:
    """The spotter the listening process runs: ``model`` is a name that
    ``companion models fetch`` installs (``ru-small``) or a model's folder.
    A model that is not there is a one-line :class:`ModelError` saying
    how to get it."""
    return WordSpotter(load_model(model_folder(model)), phrases, threshold)
