"""The self-test's voice (issue 12): every prompt is a cue of
``core.vocabulary.SELFTEST_CUES``, each shipped catalogue words it with only
its declared arguments, and the prompter shows it and speaks it, from clips
rendered ahead with the real espeak-ng (none of the sound hardware: a fake
speaker takes what would be played)."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from seat_table import SeatTable
from selftest_player import HOSTS, Listener, answering_factory

from companion.config.values import Config, VoiceConfig
from companion.core.vocabulary import SELFTEST_CUES, names
from companion.seats.buzzer import GpioBuzzer
from companion.seats.pinmap import load_pinmap
from companion.seats.selftest import Prompt, run_selftest
from companion.seats.selftest_command import open_prompter
from companion.voice.catalogue_load import load_catalogue, parse_catalogue
from companion.voice.phrases import VOICES_DIR, CatalogueError
from companion.voice.prompts import Prompter, Said
from companion.voice.speaker import FakeSpeaker
from companion.voice.tts import TtsRenderer, TtsVoice, WavCache

SHIPPED = sorted(path.stem for path in VOICES_DIR.glob("*.toml"))
needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng missing")


@pytest.mark.parametrize("lang", SHIPPED)
def test_every_selftest_cue_has_a_phrase_with_its_declared_arguments(lang: str) -> None:
    catalogue = load_catalogue(lang)
    missing = sorted(set(SELFTEST_CUES) - catalogue.cues)
    assert not missing, f"{catalogue.source} has no phrase for {missing}"
    for cue, args in SELFTEST_CUES.items():
        assert set(catalogue.entries[cue].args) <= set(names(args)), (lang, cue)


def test_a_selftest_phrase_may_use_only_the_declared_arguments() -> None:
    with pytest.raises(CatalogueError, match="cue 'selftest_seat' is given seat"):
        parse_catalogue('[cues]\nselftest_seat = "Стол {table}."\n', "probe.toml")


def whole_run(voice: Prompter, *, silent: int | None = None) -> list[str]:
    """The default map's test, seat ``silent`` never answering, the host
    buttons pressed and the buzzer beeping (without waiting); the cues said."""
    pinmap = load_pinmap("default")
    table = SeatTable(pinmap, answering_factory(pinmap, lambda n: None if n == silent else n))
    heard = Listener(table)
    buzzer = GpioBuzzer(18, pin_factory=table.factory, sleep=lambda seconds: None)

    def both(prompt: Prompt) -> None:
        heard(prompt)  # presses the host buttons asked for
        voice.say(prompt.cue, dict(prompt.args), urgent=prompt.urgent)

    try:
        run_selftest(table.seats, both, timeout=0, hosts=HOSTS, buzzer=(18, buzzer.beep))
    finally:
        buzzer.close()
        table.close()
    return heard.cues


def test_the_prompts_are_shown_in_russian_as_the_voice_says_them() -> None:
    screen = io.StringIO()
    voice = Prompter(load_catalogue("ru"), screen=screen)  # captions: no speaker
    cues = whole_run(voice, silent=3)
    assert [said.cue for said in voice.said] == cues
    assert voice.said[3] == Said("selftest_seat", (("seat", 3),), "Место три, нажмите кнопку.")
    assert voice.said[12] == Said(
        "selftest_host", (("button", "pause"),), "Кнопка ведущего «Пауза», нажмите её."
    )
    lines = screen.getvalue().splitlines()
    assert lines == [f"» {said.text}" for said in voice.said]
    assert lines[-4:] == [
        "» Кнопка ведущего «Нарушение», нажмите её.",
        "» Сейчас прозвучит зуммер.",
        "» Нет ответа: место три.",
        "» Проверка окончена, есть ошибки. Смотрите экран.",
    ]


@needs_espeak
def test_the_prompts_are_spoken_from_clips_rendered_ahead(tmp_path: Path) -> None:
    """espeak-ng renders every prompt of the map before the test begins;
    each is played the moment it is said, a seat's or a host button's
    cutting in over the one before; the silent seats, known only at the
    end, are rendered then."""
    catalogue = load_catalogue("ru")
    speaker = FakeSpeaker()
    cache = WavCache(tmp_path / "cache", TtsRenderer(prefer="espeak-ng"))
    voice = Prompter(catalogue, speaker, screen=io.StringIO(), cache=cache, voice=TtsVoice("ru"))
    ahead: list[tuple[str, dict[str, int | str]]] = [("selftest_begins", {})]
    ahead += [("selftest_seat", {"seat": n}) for n in range(1, 11)]
    ahead += [("selftest_host", {"button": name}) for name in HOSTS]
    ahead += [("selftest_buzzer", {}), ("selftest_ok", {}), ("selftest_failed", {})]
    assert voice.prepare(ahead) == 17
    rendered = cache.renderer.renders
    whole_run(voice, silent=7)
    played = speaker.played
    assert [p.caption for p in played] == [said.text for said in voice.said]
    assert all(p.duration > 0.3 for p in played)  # real speech, not silence
    assert [p.urgent for p in played] == [
        said.cue in ("selftest_seat", "selftest_host") for said in voice.said
    ]
    assert played[-2].caption == "Нет ответа: место семь."
    assert cache.renderer.renders == rendered + 1  # only the silent seats' phrase was new


def test_captions_mean_no_speaker_and_no_rendering() -> None:
    config = Config(voice=VoiceConfig())
    voice = open_prompter(config, "ru", True, None, load_pinmap("default"))
    assert voice.speaker is None and voice.clips == {}
    voice = open_prompter(
        Config(voice=VoiceConfig(captions_only=True)), "en", False, None, load_pinmap("default")
    )
    assert voice.speaker is None and voice.catalogue.language == "en"


def test_no_sound_device_is_one_line_and_the_prompts_are_shown(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PULSE_SERVER", f"unix:{tmp_path}/no-pulse")
    voice = open_prompter(Config(), "ru", False, "no-such-sound-device", load_pinmap("default"))
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith("selftest: no sound device (")
    assert line.endswith("): the prompts are shown, not spoken")
    assert voice.speaker is None
