"""``companion doctor``'s checks of the seats and the sound: each failing
case with fakes for what this machine lacks (GPIO, a sound card), its line
and its fix; the real pin-map loader, gpiozero's mock pins (a busy pin),
and the speaker and the microphone on the PulseAudio null sink."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from doctor_fakes import healthy, raises, swap, table
from gpiozero import Button
from gpiozero.pins.mock import MockFactory, MockPWMPin

from companion.config.values import MicrophoneConfig, SeatsConfig, TableConfig
from companion.config.values import VoiceConfig as Voice
from companion.ops.doctor.result import Result
from companion.ops.doctor.seats import ChipAccess, GpioProbes, GroupInfo, check_gpio, check_pinmap
from companion.ops.doctor.sound import (
    NoPortAudio,
    OutputReport,
    SoundProbes,
    channel_levels,
    check_microphone,
    check_speaker,
)
from companion.seats.gpio import GpioUnavailable
from companion.voice.audio import tone
from companion.voice.speaker import SoundDeviceSpeaker


@pytest.mark.parametrize(
    ("chips", "group", "fix"),
    [
        (
            [ChipAccess("/dev/gpiochip0", False)],
            GroupInfo("club", root=False, member=False),
            "sudo usermod -aG gpio club, затем выйдите и войдите снова",
        ),
        (
            [ChipAccess("/dev/gpiochip0", False)],
            GroupInfo("club", root=False, member=True),
            "нет доступа к /dev/gpiochip0: дайте его группе gpio",
        ),
        ([], GroupInfo("club", root=False, member=True), "это не Raspberry Pi или ядро без GPIO"),
        (
            [ChipAccess("/dev/gpiochip0", True)],
            GroupInfo("club", root=False, member=True),
            "установите lgpio",
        ),
    ],
)
def test_gpio_that_cannot_be_had_fails_with_the_fix_for_why(
    tmp_path: Path, chips: list[ChipAccess], group: GroupInfo, fix: str
) -> None:
    config = table(tmp_path)
    why = GpioUnavailable("no GPIO here (lgpio: No module named 'lgpio')")
    probes = swap(
        healthy(config), "gpio", pin_factory=raises(why), chips=lambda: chips, group=lambda: group
    )
    found = check_gpio(config, probes.gpio, "ru")
    assert found.status == "failure"
    assert found.line == "GPIO недоступен: no GPIO here (lgpio: No module named 'lgpio')"
    assert found.fix.startswith(fix)
    assert " — как исправить: " + fix in found.text()


def test_mock_pins_on_a_gpio_table_are_a_warning(tmp_path: Path) -> None:
    config = table(tmp_path)
    probes = swap(healthy(config), "gpio", pin_factory=lambda: MockFactory())
    found = check_gpio(config, probes.gpio, "en")
    assert found.status == "warning"
    assert found.line == (
        "GPIO: simulated pins (MockFactory with MockPin): nobody can press the seats' buttons"
    )
    assert found.fix == "remove GPIOZERO_PIN_FACTORY from the environment (and from the service)"


def test_simulated_seats_need_no_gpio(tmp_path: Path) -> None:
    config = table(tmp_path, seats=SeatsConfig(mode="simulated"))
    probes = swap(healthy(config), "gpio", pin_factory=raises(GpioUnavailable("no GPIO here")))
    found = check_gpio(config, probes.gpio, "ru")
    assert found == Result(
        "gpio", "ok", "GPIO не нужен: места в консоли (так в настройках); фабрика выводов: нет"
    )


def test_a_pin_map_using_a_pin_twice_fails_with_the_loaders_line(tmp_path: Path) -> None:
    pins = tmp_path / "pins.toml"
    pins.write_text("[seats]\n1 = { button = 4, led = 17 }\n2 = { button = 17 }\n")
    config = table(tmp_path, seats=SeatsConfig(mode="gpio", pin_map=pins))
    found = check_pinmap(config, healthy(config).gpio, "ru")
    assert found.status == "failure"
    assert found.line == (
        f"Карта выводов не читается: {pins}:3: seats.2.button: GPIO 17 is already used by seats.1.led"
    )
    assert found.fix.startswith("исправьте названную строку (docs/wiring.md)")


def test_a_pin_map_with_fewer_seats_than_the_table_is_a_warning(tmp_path: Path) -> None:
    config = table(tmp_path, table=TableConfig(seats=12))
    found = check_pinmap(config, healthy(config).gpio, "en")
    assert found.status == "warning"
    assert found.line == "Pin map: hardware/default.toml: it wires 10 seats, the table has 12"
    assert found.fix.startswith('[seats] pin_map = "twelve" (12 seats)')


def test_the_pin_map_is_opened_on_the_pins_and_a_busy_pin_fails(tmp_path: Path) -> None:
    config = table(tmp_path)
    factory = MockFactory(pin_class=MockPWMPin)
    probes = dataclasses.replace(
        healthy(config).gpio, pin_factory=lambda: factory, open_pins=GpioProbes().open_pins
    )
    opened = check_pinmap(config, probes, "ru")
    assert opened == Result(
        "pinmap",
        "ok",
        "Карта выводов: hardware/default.toml, мест 10, выводов 24, ни один не занят дважды;"
        " все открываются",
    )
    holder = Button(17, pin_factory=factory)  # another program has seat 1's LED pin
    try:
        busy = check_pinmap(config, probes, "ru")
    finally:
        holder.close()
    assert busy.status == "failure"
    assert busy.line.startswith("Карта выводов: hardware/default.toml: выводы не открываются: ")
    assert "sudo systemctl stop companion" in busy.fix


@pytest.mark.parametrize(
    ("device", "error", "line", "fix"),
    [
        (
            None,
            NoPortAudio("libportaudio.so.2: cannot open shared object file"),
            "Динамик: нет PortAudio (libportaudio.so.2: cannot open shared object file):"
            " игра пойдёт с субтитрами",
            "sudo apt install libportaudio2",
        ),
        (
            None,
            OSError("no sound card found"),
            "Динамик: звука нет (no sound card found): игра пойдёт с субтитрами",
            "подключите динамик (USB или разъём 3,5 мм)",
        ),
        (
            "Jabra",
            OSError("No output device matching 'Jabra'"),
            "Динамик: звука нет (No output device matching 'Jabra'): игра пойдёт с субтитрами",
            "проверьте [voice] device = 'Jabra'; выходы здесь: 0 USB Audio, 1 pulse",
        ),
    ],
)
def test_a_speaker_that_cannot_be_opened_fails(
    tmp_path: Path, device: str | None, error: OSError, line: str, fix: str
) -> None:
    config = table(tmp_path, voice=Voice(device=device))
    probes = swap(healthy(config), "sound", play=raises(error))
    found = check_speaker(config, probes.sound, "ru")
    assert (found.status, found.line) == ("failure", line)
    assert found.fix.startswith(fix)


def test_a_speaker_that_takes_no_sound_fails(tmp_path: Path) -> None:
    config = table(tmp_path)
    probes = swap(
        healthy(config),
        "sound",
        play=lambda device, latency, clip, timeout: OutputReport("hw:1,0 (ALSA)", 48_000, False),
    )
    found = check_speaker(config, probes.sound, "en")
    assert found.status == "failure"
    assert found.line == "Speaker: hw:1,0 (ALSA) opened but took no sound in 5 s"
    assert found.fix.startswith("another program holding the device?")


def test_captions_only_needs_no_speaker(tmp_path: Path) -> None:
    config = table(tmp_path, voice=Voice(captions_only=True))
    probes = swap(healthy(config), "sound", play=raises(AssertionError("not to be opened")))
    assert check_speaker(config, probes.sound, "ru").status == "ok"


@pytest.mark.parametrize(
    ("capture", "status", "line", "fix"),
    [
        (
            raises(OSError("input device ReSpeaker: No input device matching 'ReSpeaker'")),
            "failure",
            "Микрофон: ReSpeaker не открывается: input device ReSpeaker:"
            " No input device matching 'ReSpeaker'",
            "проверьте [microphone] device = 'ReSpeaker'; входы здесь: 0 USB Audio,"
            " 2 ReSpeaker 4 Mic Array",
        ),
        (
            lambda *args: (np.zeros((16_000, 1), np.float32), 16_000),
            "warning",
            "Микрофон: ReSpeaker: только тишина (-120 dBFS за 1,0 с)",
            "микрофон выключен или без звука?",
        ),
        (
            lambda *args: (np.full((16_000, 1), 1.0, np.float32), 16_000),
            "warning",
            "Микрофон: ReSpeaker: перегружен (пики в 0 dBFS; уровень 0 dBFS)",
            "убавьте усиление входа",
        ),
    ],
)
def test_a_microphone_that_fails_or_hears_nothing_or_clips(
    tmp_path: Path, capture: Callable[..., Any], status: str, line: str, fix: str
) -> None:
    config = table(tmp_path, microphone=MicrophoneConfig(listen=True, device="ReSpeaker"))
    probes = swap(healthy(config), "sound", capture=capture)
    found = check_microphone(config, probes.sound, "ru")
    assert (found.status, found.line) == (status, line)
    assert found.fix.startswith(fix)


def test_a_microphone_shows_its_level_and_each_channels(tmp_path: Path) -> None:
    config = table(tmp_path, microphone=MicrophoneConfig(listen=True, channels=2))
    found = check_microphone(config, healthy(config).sound, "en")
    assert found == Result(
        "microphone",
        "ok",
        "Microphone: the system's input, level -45 dBFS over 1.0 s (by channel -45, -45)",
    )
    off = check_microphone(table(tmp_path), healthy(config).sound, "en")
    assert off.line == "Microphone: off ([microphone] listen = false)"


def test_levels_are_dbfs_of_the_mean_square() -> None:
    t = np.arange(16_000) / 16_000
    sine = np.sin(2 * np.pi * 440 * t).astype(np.float32)
    loud, quiet = channel_levels(np.stack([sine, sine / 100], axis=1))
    assert loud == pytest.approx(-3.0, abs=0.05)
    assert quiet == pytest.approx(-43.0, abs=0.05)


@pytest.fixture
def null_sink(pulse_server: str, tmp_path: Path) -> Iterator[Any]:
    from test_speaker import Recorder

    recorder = Recorder(tmp_path / "monitor.raw")
    try:
        yield recorder
    finally:
        recorder.stop()


def test_the_speaker_plays_its_test_phrase_through_the_device(
    null_sink: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from test_speaker import _voiced_windows, wait_for

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    wait_for(lambda: len(null_sink.samples()) > 2205, "the monitor recording to start")
    config = table(tmp_path, voice=Voice(device="pulse"))
    found = check_speaker(config, SoundProbes(), "ru")
    assert found.status == "ok", found.text()
    assert found.line.startswith("Динамик: pulse (ALSA), ")
    assert found.line.endswith(": прозвучало «Проверка звука. Раз, два, три.»")
    # the phrase reached the sink: about two seconds of speech
    wait_for(lambda: _voiced_windows(null_sink.samples()) > 30, "the phrase at the sink", 10)


def test_the_microphone_hears_what_the_sink_plays(
    pulse_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PULSE_SOURCE", "vsink.monitor")
    speaker = SoundDeviceSpeaker("pulse")
    try:
        speaker.play(tone(440, 20.0), "a tone at 0.3 of full scale: -13.5 dBFS")
        config = table(tmp_path, microphone=MicrophoneConfig(listen=True, device="pulse"))
        found = check_microphone(config, SoundProbes(), "en")
    finally:
        speaker.close()
    assert found.status == "ok", found.text()
    level = float(found.line.split("level ")[1].split(" dBFS")[0])
    assert -20 < level < -8
