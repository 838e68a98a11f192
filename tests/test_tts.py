"""The voice with real espeak-ng: phrases render to non-silent WAV of
plausible length, every phrase of both catalogues renders, the cache renders
once, renderers do not collide, pyttsx3's traps are kept out (stdout, hangs,
no engine); WAV files and voice packs (issue 3)."""

from __future__ import annotations

import concurrent.futures
import logging
import shutil
import struct
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import spread

from companion.config.rulesets import load_ruleset
from companion.core.effects import Say
from companion.voice.announcer import Announcer
from companion.voice.audio import AudioFormat, BadAudio, Clip, is_silent, read_wav, tone, write_wav
from companion.voice.catalogue_load import load_catalogue
from companion.voice.espeak_voices import list_variants, list_voices
from companion.voice.pack import PackInfo, VoicePack
from companion.voice.pyttsx3_host import Pyttsx3Host
from companion.voice.speaker import FakeSpeaker
from companion.voice.tts import TtsRenderer, TtsVoice, WavCache

needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng missing")

VOICES = {"ru": TtsVoice("ru"), "en": TtsVoice("en")}


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> WavCache:
    return WavCache(tmp_path_factory.mktemp("voice"), TtsRenderer())


# --- rendering with real espeak-ng ---------------------------------------------------

PHRASES = [
    ("ru", "Спасибо.", "Кто за то, чтобы игрок номер двенадцать покинул стол?"),
    ("en", "Thank you.", "Who is for player number twelve leaving the table?"),
]


@needs_espeak
@pytest.mark.parametrize(("lang", "short", "long"), PHRASES)
def test_a_phrase_renders_to_speech_of_plausible_length(
    cache: WavCache, lang: str, short: str, long: str
) -> None:
    quick, slow = cache.clip(short, VOICES[lang]), cache.clip(long, VOICES[lang])
    assert quick.format == slow.format == AudioFormat(22050, 2, 1)
    assert not is_silent(quick) and not is_silent(slow)
    assert 0.3 < quick.duration < 5 and 0.3 < slow.duration < 8
    assert slow.duration > quick.duration + 1
    assert cache.renderer.backend == "pyttsx3"


@needs_espeak
@pytest.mark.parametrize("lang", ["ru", "en"])
@pytest.mark.parametrize("ruleset", ["tournament", "club"])
def test_every_phrase_a_game_can_need_renders(cache: WavCache, lang: str, ruleset: str) -> None:
    """Every phrase (under ``--fast``, every fourth of them in their order)."""
    catalogue = load_catalogue(lang)
    every = {text for _, _, text in catalogue.variants(load_ruleset(ruleset), 12)}
    texts = spread(sorted(every))
    clips = cache.render_all(texts, VOICES[lang])
    assert len(every) > 300 and len(clips) == len(texts) > 300 // 4
    for text, clip in clips.items():
        assert not is_silent(clip), text
        # Plausible: espeak at 165 words a minute says 8–25 characters a second.
        assert len(text) / 25 - 0.3 < clip.duration < len(text) / 8 + 1.0, (text, clip.duration)


@needs_espeak
def test_pyttsx3_says_nothing_on_stdout_and_stdout_still_works(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    cache = WavCache(tmp_path)
    cache.render_all(["Ночь наступает.", "Город просыпается."], VOICES["ru"])
    assert cache.renderer.backend == "pyttsx3" and cache.renderer.renders == 2
    out, _ = capfd.readouterr()
    assert out == ""  # no "Audio saved to …", not even at the file-descriptor level
    print("still printing")
    assert capfd.readouterr().out == "still printing\n"


@needs_espeak
def test_the_cache_renders_each_phrase_once(tmp_path: Path) -> None:
    cache = WavCache(tmp_path)
    first = cache.clip("Принято", VOICES["ru"])
    clips = cache.render_all(["Принято", "Стоп", "Принято"], VOICES["ru"])
    assert cache.renderer.renders == 2
    assert np.array_equal(clips["Принято"].samples, first.samples)
    again = WavCache(tmp_path)  # a later start: everything is on disk
    again.render_all(["Принято", "Стоп"], VOICES["ru"])
    assert again.renderer.renders == 0
    faster = again.clip("Принято", TtsVoice("ru", rate=260))
    assert again.renderer.renders == 1 and faster.duration < first.duration


@pytest.mark.parametrize(
    "other",
    [
        ("Принято!", TtsVoice("ru")),
        ("Принято", TtsVoice("ru+f3")),
        ("Принято", TtsVoice("ru", rate=166)),
        ("Принято", TtsVoice("ru", volume=0.9)),
    ],
    ids=["text", "voice", "rate", "volume"],
)
def test_the_cache_key_is_text_voice_rate_and_volume(
    tmp_path: Path, other: tuple[str, TtsVoice]
) -> None:
    cache = WavCache(tmp_path)
    base = cache.path_for("Принято", TtsVoice("ru"))
    assert cache.path_for("Принято", TtsVoice("ru")) == base
    assert cache.path_for(*other) != base
    assert base.is_relative_to(tmp_path) and base.suffix == ".wav"


def test_the_default_cache_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert WavCache().folder == tmp_path / "companion" / "voice"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert WavCache().folder == tmp_path / ".cache" / "companion" / "voice"


@needs_espeak
def test_two_renderers_on_two_threads_do_not_collide(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    texts = [f"Игрок номер {n}." for n in ("один", "два", "три", "четыре", "пять", "шесть")]
    texts += [f"{n} голосов. Принято." for n in ("Пять", "Шесть", "Семь", "Восемь", "Девять")]
    # The reference: the espeak-ng command, one process per phrase.
    reference = WavCache(tmp_path / "reference", TtsRenderer(prefer="espeak-ng"))
    expected = reference.render_all(texts, VOICES["ru"])
    # Two caches on ONE folder, each with its own renderer, rendering at once
    # (the other's phrases in the other order).
    shared = tmp_path / "shared"
    caches = [WavCache(shared, TtsRenderer()), WavCache(shared, TtsRenderer())]
    orders = [texts, texts[::-1]]
    with caplog.at_level(logging.WARNING), concurrent.futures.ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda c, t: c.render_all(t, VOICES["ru"]), caches, orders))
    assert [c.renderer.backend for c in caches] == ["pyttsx3", "pyttsx3"]
    assert caplog.records == []  # no render was cancelled, timed out or fell back
    for clips in results:
        for text in texts:
            # espeak's timing varies a little with what it said before (up
            # to ~6 % here); a collision mixes phrases or cuts them off.
            assert clips[text].duration == pytest.approx(expected[text].duration, rel=0.12), text
            assert not is_silent(clips[text])
    assert not [p for p in shared.rglob("*") if p.name.startswith(".render-")]


@needs_espeak
def test_a_renderer_gives_futures(tmp_path: Path) -> None:
    with TtsRenderer() as renderer:
        futures = [
            renderer.submit(t, VOICES["en"], tmp_path / f"{i}.wav") for i, t in enumerate("ab")
        ]
        paths = [f.result(timeout=30) for f in futures]
    assert [p.name for p in paths] == ["0.wav", "1.wav"]
    assert all(not is_silent(read_wav(p)) for p in paths)


class StandInEngine:
    """A pyttsx3 engine that never finishes (``runAndWait`` blocks)."""

    def __init__(self, release: threading.Event) -> None:
        self.release = release

    def connect(self, topic: str, callback: Any) -> None:
        pass

    def setProperty(self, name: str, value: object) -> None:  # pyttsx3's names
        pass

    def save_to_file(self, text: str, path: str) -> None:
        pass

    def runAndWait(self) -> None:
        self.release.wait()


@needs_espeak
def test_a_hanging_pyttsx3_gives_way_to_the_espeak_command(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    release = threading.Event()
    host = Pyttsx3Host(engine_factory=lambda: StandInEngine(release))
    cache = WavCache(tmp_path, TtsRenderer(engine=host, timeout=0.3))
    try:
        with caplog.at_level(logging.WARNING):
            clips = cache.render_all(["Стоп.", "Спасибо."], VOICES["ru"])
    finally:
        release.set()
    assert cache.renderer.backend == "espeak-ng" and cache.renderer.renders == 2
    assert all(not is_silent(c) for c in clips.values())
    [warning] = [r.message for r in caplog.records]
    assert "did not finish a render in 0.3 s" in warning and "espeak-ng command" in warning


@needs_espeak
def test_without_pyttsx3_the_espeak_command_renders(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    def no_engine() -> None:
        raise ImportError("No module named 'pyttsx3'")

    cache = WavCache(tmp_path, TtsRenderer(engine=Pyttsx3Host(engine_factory=no_engine)))
    with caplog.at_level(logging.WARNING):
        clip = cache.clip("-десять секунд", VOICES["ru"])  # starts with "-": not an option
    assert cache.renderer.backend == "espeak-ng" and not is_silent(clip)
    [warning] = [r.message for r in caplog.records]
    assert warning.startswith("pyttsx3 could not start (No module named 'pyttsx3')")


@needs_espeak
@pytest.mark.parametrize(
    ("voice", "message"),
    [("xx", "no voice 'xx'"), ("ru+nobody", "no variant 'nobody'")],
)
def test_an_unknown_voice_is_an_error_not_a_different_voice(
    tmp_path: Path, voice: str, message: str
) -> None:
    # pyttsx3 alone would quietly keep the previous voice.
    with pytest.raises(ValueError, match=message):
        WavCache(tmp_path).clip("Стоп", TtsVoice(voice))


@pytest.mark.parametrize(
    ("fields", "message"),
    [(("ru stop",), "give a name"), (("ru", 20), "words a minute"), (("ru", 165, 3.0), "volume")],
)
def test_voice_settings_are_checked(fields: tuple[Any, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        TtsVoice(*fields)


@needs_espeak
def test_espeak_lists_russian_english_and_variants() -> None:
    voices = {v.id: v for v in list_voices()}
    assert voices["ru"].name == "Russian" and voices["ru"].language == "ru"
    assert "en-gb" in voices and "en-us" in voices
    assert {"f3", "m3"} <= {v.id for v in list_variants()}


# --- WAV files ------------------------------------------------------------------------


def wav_bytes(tag: int, channels: int, rate: int, bits: int, data: bytes) -> bytes:
    """A WAV file by hand (formats the ``wave`` module cannot write)."""
    block = channels * bits // 8
    if tag == 0xFFFE:  # extensible: sub-format PCM
        fmt = struct.pack("<HHIIHH", tag, channels, rate, rate * block, block, bits)
        fmt += struct.pack("<HHI", 22, bits, 0) + struct.pack("<H14s", 1, b"\x00" * 14)
    else:
        fmt = struct.pack("<HHIIHH", tag, channels, rate, rate * block, block, bits)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt
    body += b"data" + struct.pack("<I", len(data)) + data
    return b"RIFF" + struct.pack("<I", len(body)) + body


RAMP = np.array([0, 1000, -1000, 32767, -32768], dtype=np.int16)

FORMATS = [
    ("16-bit", wav_bytes(1, 1, 22050, 16, RAMP.tobytes()), RAMP),
    (
        "8-bit",
        wav_bytes(1, 1, 8000, 8, bytes([128, 132, 124, 255, 0])),
        [0, 1024, -1024, 32512, -32768],
    ),
    (
        "24-bit",
        wav_bytes(
            1,
            1,
            48000,
            24,
            b"".join((int(v) * 256).to_bytes(3, "little", signed=True) for v in RAMP),
        ),
        RAMP,
    ),
    ("32-bit", wav_bytes(1, 1, 44100, 32, (RAMP.astype("<i4") << 16).tobytes()), RAMP),
    ("float", wav_bytes(3, 1, 44100, 32, (RAMP / 32767).astype("<f4").tobytes()), RAMP),
    ("extensible", wav_bytes(0xFFFE, 1, 22050, 16, RAMP.tobytes()), RAMP),
]


@pytest.mark.parametrize(("name", "data", "expected"), FORMATS, ids=[f[0] for f in FORMATS])
def test_wav_files_as_recorders_write_them(
    tmp_path: Path, name: str, data: bytes, expected: Any
) -> None:
    path = tmp_path / "x.wav"
    path.write_bytes(data)
    clip = read_wav(path)
    assert clip.samples.tolist() == list(expected)


def test_a_clip_round_trips_and_converts(tmp_path: Path) -> None:
    stereo = Clip(np.array([[100, 300], [200, 400]] * 50, dtype=np.int16), AudioFormat(44100, 2, 2))
    write_wav(tmp_path / "s.wav", stereo)
    back = read_wav(tmp_path / "s.wav")
    assert back.format == stereo.format and np.array_equal(back.samples, stereo.samples)
    mono = back.converted(AudioFormat(22050, 2, 1))
    assert mono.frames == 50 and mono.duration == pytest.approx(100 / 44100)
    assert mono.samples.min() >= 200 and mono.samples.max() <= 300  # the mean of the channels
    assert back.converted(back.format) is back


# --- voice packs ---------------------------------------------------------------------

BAD_FILES = [
    ("thanks.wav", b"ID3\x03\x00 an mp3 with the wrong name", "not a WAV file"),
    ("thanks.wav", wav_bytes(2, 1, 22050, 4, b"\x00" * 64), "compressed WAV"),
    ("thanks.wav", wav_bytes(1, 1, 22050, 12, b"\x00" * 64), "12-bit"),
    ("thanks.wav", b"RIFF\x04\x00\x00\x00WAVE", "no fmt chunk"),
    ("thanks.wav", wav_bytes(1, 1, 22050, 16, b""), "no sound"),
    ("thanks.mp3", b"ID3", "not a .wav file"),
]


@pytest.mark.parametrize(("name", "data", "message"), BAD_FILES, ids=[b[2] for b in BAD_FILES])
def test_a_bad_pack_file_is_named_in_one_warning_and_skipped(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, name: str, data: bytes, message: str
) -> None:
    (tmp_path / name).write_bytes(data)
    write_wav(tmp_path / "stop.wav", tone(660, 0.2))
    with caplog.at_level(logging.WARNING):
        pack = VoicePack(tmp_path)
        assert pack.clip_for("thanks") is None
        assert pack.clip_for("thanks", ["stop"]) is not None  # the fallback key
        assert pack.load_all() == 1
    [warning] = [r.getMessage() for r in caplog.records]
    assert str(tmp_path / name) in warning and message in warning
    assert "\n" not in warning


def test_a_pack_gives_recordings_by_key_with_fallbacks(tmp_path: Path) -> None:
    write_wav(tmp_path / "time_up.wav", tone(440, 0.3))
    write_wav(tmp_path / "vote_question-seat-3.wav", tone(550, 0.5, rate=44100))
    (tmp_path / "pack.toml").write_text('name = "Полночь"\nauthor = "Андрей"\n', encoding="utf-8")
    (tmp_path / "README.md").write_text("how we recorded it")
    pack = VoicePack(tmp_path)
    assert pack.info == PackInfo("Полночь", "Андрей", "ru")
    assert pack.keys == {"time_up", "vote_question-seat-3"}
    seat3 = pack.clip_for("vote_question-seat-3")
    assert seat3 is not None and seat3.rate == 44100 and seat3.duration == pytest.approx(0.5)
    assert pack.clip_for("vote_question-seat-4") is None
    clip = pack.clip_for("time_up-seat-4", ["time_up"])
    assert clip is not None and clip.duration == pytest.approx(0.3)


def test_a_broken_pack_toml_is_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "pack.toml").write_text("name = [unclosed", encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        pack = VoicePack(tmp_path)
    assert pack.info == PackInfo(tmp_path.name)
    assert "pack.toml: ignored" in caplog.records[0].getMessage()


def test_a_missing_pack_folder_is_an_error_at_start(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no such voice pack folder"):
        VoicePack(tmp_path / "nowhere")


def test_bad_audio_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(BadAudio, match=r"missing\.wav: cannot be read"):
        read_wav(tmp_path / "missing.wav")


# --- the announcer (the runtime's side) ----------------------------------------------


@needs_espeak
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
        load_catalogue("ru"), rules, speaker, cache, VOICES["ru"], VoicePack(pack_dir)
    )
    with caplog.at_level(logging.WARNING):
        assert announcer.prepare(10) > 300
    assert any("vote_question-seat-3.wav" in r.getMessage() for r in caplog.records)
    announcer.say(Say("thanks", (), urgent=True))
    announcer.say(Say("vote_question", (("seat", 3),)))
    announcer.say(Say("tie", (("seats", "3,6,9"),)))  # not known ahead: rendered late
    announcer.close()
    assert speaker.played[0] == ("Спасибо.", True, pytest.approx(0.4))
    assert speaker.played[1][0] == "Кто за то, чтобы игрок номер три покинул стол?"
    assert speaker.played[1].duration > 1  # the bad recording fell back to the synthetic voice
    assert "три, шесть и девять" in speaker.played[2].caption


@needs_espeak
def test_prepared_cues_start_with_their_sound(cache: WavCache) -> None:
    """espeak-ng opens every phrase with ~13 ms of near-silence; the announcer
    cuts it so that the voice starts when the cue is due."""
    rules = load_ruleset("tournament")
    announcer = Announcer(load_catalogue("ru"), rules, FakeSpeaker(), cache, VOICES["ru"])
    announcer.prepare(10)
    announcer.close()
    key = announcer.catalogue.key("thanks", {})
    rendered = cache.clip("Спасибо.", VOICES["ru"])
    lead = np.flatnonzero(np.abs(announcer.clips[key].samples.astype(np.int32)) > 330)[0]
    raw = np.flatnonzero(np.abs(rendered.samples.astype(np.int32)) > 330)[0]
    assert lead == round(0.002 * rendered.rate) < raw
    assert announcer.clips[key].frames == rendered.frames - (raw - lead)
