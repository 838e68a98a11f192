"""The voice with real espeak-ng: every phrase of both catalogues renders
to a non-silent WAV of plausible length; the cache renders once; pyttsx3's
stdout chatter is kept out; voice packs override cue by cue (issue 3)."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import numpy as np
import pytest

from companion.core.effects import Say
from companion.rulesets import load_ruleset
from companion.voice.announcer import Announcer
from companion.voice.audio import Clip, is_silent, tone, write_wav
from companion.voice.pack import VoicePack
from companion.voice.phrases import Catalogue
from companion.voice.speaker import FakeSpeaker
from companion.voice.tts import TtsRenderer, TtsVoice, WavCache

pytestmark = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng missing")

VOICES = {"ru": TtsVoice("ru"), "en": TtsVoice("en")}


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> WavCache:
    return WavCache(tmp_path_factory.mktemp("voice"), TtsRenderer())


def test_a_russian_phrase_renders_to_speech(
    cache: WavCache, capsys: pytest.CaptureFixture[str]
) -> None:
    short = cache.clip("Спасибо", VOICES["ru"])
    long = cache.clip("Слово предоставляется игроку номер двенадцать", VOICES["ru"])
    assert not is_silent(short) and not is_silent(long)
    assert 0.2 < short.seconds < 2 < long.seconds < 6
    assert capsys.readouterr().out == ""  # pyttsx3's "Audio saved to …" stays out of stdout


def test_the_cache_renders_each_phrase_once(tmp_path: Path) -> None:
    cache = WavCache(tmp_path)
    first = cache.clip("Принято", VOICES["ru"])
    again = cache.clip("Принято", VOICES["ru"])
    faster = cache.clip("Принято", TtsVoice("ru", rate=220))
    assert cache.renderer.renders == 2
    assert np.array_equal(first.samples, again.samples)
    assert faster.seconds < first.seconds


@pytest.mark.parametrize("lang", ["ru", "en"])
@pytest.mark.parametrize("ruleset", ["tournament", "club"])
def test_every_phrase_a_game_can_need_renders(cache: WavCache, lang: str, ruleset: str) -> None:
    catalogue = Catalogue.load(lang)
    texts = {text for _, _, text in catalogue.variants(load_ruleset(ruleset), 12)}
    clips = cache.render_all(texts, VOICES[lang])
    assert len(clips) == len(texts) > 300
    for text, clip in clips.items():
        assert not is_silent(clip), text
        # Plausible: espeak at 165 words a minute says 8–25 characters a second.
        assert len(text) / 25 - 0.3 < clip.seconds < len(text) / 8 + 1.0, (text, clip.seconds)


def test_the_announcer_plays_from_memory_and_a_pack_overrides(
    tmp_path: Path, cache: WavCache, caplog: pytest.LogCaptureFixture
) -> None:
    pack_dir = tmp_path / "pack"
    pack_dir.mkdir()
    write_wav(pack_dir / "thanks.wav", tone(660, 0.4))
    (pack_dir / "vote_question-seat-3.wav").write_bytes(b"not a wav")
    speaker = FakeSpeaker()
    rules = load_ruleset("tournament")
    announcer = Announcer(
        Catalogue.load("ru"), rules, speaker, cache, VOICES["ru"], VoicePack(pack_dir)
    )
    with caplog.at_level(logging.WARNING):
        assert announcer.prepare(10) > 300
    assert any("vote_question-seat-3.wav" in r.message for r in caplog.records)
    announcer.say(Say("thanks", (), urgent=True))
    announcer.say(Say("vote_question", (("seat", 3),)))
    announcer.say(Say("tie", (("seats", "3,6,9"),)))  # not known ahead: rendered late
    announcer.close()
    assert speaker.played[0] == ("Спасибо.", True, pytest.approx(0.4))
    assert speaker.played[1][0] == "Кто за то, чтобы игрок номер три покинул стол?"
    assert speaker.played[1][2] > 1  # the bad recording fell back to the synthetic voice
    assert "три, шесть и девять" in speaker.played[2][0]


def test_clips_are_plain_values() -> None:
    clip = Clip(np.zeros(2205, dtype=np.int16), 22050)
    assert clip.seconds == pytest.approx(0.1) and is_silent(clip)
