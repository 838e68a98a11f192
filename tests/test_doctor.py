"""``companion doctor`` (issue 12) as a whole: the exit status, the
summary, JSON, a check that breaks, the config that cannot be used, the
words in both languages, and the command as a user runs it on this
machine. Each check's own cases: test_doctor_hardware.py (GPIO, the pin
map, the speaker, the microphone) and test_doctor_software.py (the voice,
the words model, space, priority, the clock)."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import string
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from doctor_fakes import healthy, raises, swap, table
from helpers import ROOT

from companion.config.values import Config
from companion.ops.doctor import seats, sound, system, voice
from companion.ops.doctor.command import CHECKS, WORDS, Probes, doctor_command, run_checks
from companion.ops.doctor.result import exit_status
from companion.ops.doctor.sound import OutputReport
from companion.voice.tts import RenderError

# --- the whole doctor on fakes ---------------------------------------------------------


def doctor(config: Config, probes: Probes, lang: str = "ru") -> tuple[int, list[str]]:
    """The command's exit status and printed lines, on fakes."""
    out = io.StringIO()
    status = doctor_command(lang, False, False, out=out, probes=probes)
    return status, out.getvalue().splitlines()


def line_of(lines: list[str], start: str) -> str:
    (found,) = [line for line in lines if line[2:].startswith(start)]
    return found


def test_a_healthy_table_is_all_ticks_and_exit_status_0(tmp_path: Path) -> None:
    config = table(tmp_path)
    status, lines = doctor(config, healthy(config))
    assert status == 0
    assert len(lines) == len(CHECKS) + 1  # one line per check, then the summary
    assert all(line.startswith("✓ ") for line in lines[:-1]), lines
    assert lines[-1] == f"Итого: в порядке {len(CHECKS)}, предупреждений 0, ошибок 0."
    assert line_of(lines, "GPIO:") == (
        "✓ GPIO: LGPIOFactory, /dev/gpiochip0 и ещё 1 доступны на чтение и запись;"
        " пользователь club в группе gpio"
    )
    assert line_of(lines, "Динамик") == (
        "✓ Динамик: USB Audio (ALSA), 48000 Гц: прозвучало «Проверка звука. Раз, два, три.»"
    )


def test_warnings_alone_keep_exit_status_0_and_a_failure_makes_it_1(tmp_path: Path) -> None:
    config = table(tmp_path)
    unsynced = swap(healthy(config), "system", timedatectl=lambda: False)
    status, lines = doctor(config, unsynced)
    assert status == 0
    assert lines[-1] == f"Итого: в порядке {len(CHECKS) - 1}, предупреждений 1, ошибок 0."
    broken = swap(unsynced, "voice", espeak=lambda: None, render=raises(RenderError("gone")))
    status, lines = doctor(config, broken)
    assert status == 1
    assert lines[-1] == f"Итого: в порядке {len(CHECKS) - 2}, предупреждений 1, ошибок 1."


def test_json_lists_every_check_with_its_status_and_fix(tmp_path: Path) -> None:
    config = table(tmp_path)
    probes = swap(healthy(config), "system", try_fifo=lambda p: "Operation not permitted")
    out = io.StringIO()
    assert doctor_command("en", True, False, out=out, probes=probes) == 0
    listed = json.loads(out.getvalue())
    assert [item["check"] for item in listed] == list(CHECKS)
    priority = listed[CHECKS.index("priority")]
    assert priority["status"] == "warning"
    assert priority["line"].startswith("Priority: no real-time (Operation not permitted)")
    assert "rtprio 30" in priority["fix"]
    assert listed[0]["fix"] is None


def test_a_check_that_breaks_is_a_failure_line_and_the_others_still_run(tmp_path: Path) -> None:
    config = table(tmp_path)
    probes = swap(healthy(config), "system", now=raises(RuntimeError("clock probe broke")))
    results = run_checks(tmp_path / "config.toml", "en", probes=probes)
    assert [r.check for r in results] == list(CHECKS)
    assert results[-1].status == "failure"
    assert results[-1].line == "clock: the check itself failed: RuntimeError: clock probe broke"
    assert exit_status(results) == 1


def test_without_sound_the_speaker_is_opened_and_plays_nothing(tmp_path: Path) -> None:
    config = table(tmp_path)
    asked: list[object] = []

    def play(device: str | None, latency: str, clip: object, timeout: float) -> OutputReport:
        asked.append(clip)
        return OutputReport("pulse (ALSA)", 22_050, None if clip is None else True)

    probes = swap(healthy(config), "sound", play=play)
    results = run_checks(tmp_path / "config.toml", "ru", sound=False, probes=probes)
    assert asked == [None]
    speaker = results[CHECKS.index("speaker")]
    assert speaker.text() == (
        "✓ Динамик: pulse (ALSA), 22050 Гц: открывается; тестовая фраза не звучала (--no-sound)"
    )


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


@pytest.mark.parametrize("words", [seats.WORDS, sound.WORDS, voice.WORDS, system.WORDS, WORDS])
def test_every_line_has_the_same_placeholders_in_russian_and_english(words: Any) -> None:
    assert words["ru"].keys() == words["en"].keys()
    for key, text in words["ru"].items():
        assert placeholders(text) == placeholders(words["en"][key]), key


def test_a_config_that_cannot_be_used_fails_and_the_rest_runs_on_defaults(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[table]\nseats = 99\n", encoding="utf-8")
    probes = dataclasses.replace(healthy(table(tmp_path)), load_config=Probes().load_config)
    results = run_checks(path, "ru", probes=probes)
    assert results[0].text() == (
        f"✗ Настройки не читаются: {path}:2: table.seats: must be at most 40, got 99;"
        " остальное проверено по умолчанию — как исправить: исправьте названную строку"
        " (docs/config.md); companion config show покажет, что действует"
    )
    assert len(results) == len(CHECKS)
    assert exit_status(results) == 1


# --- as a user runs it ---------------------------------------------------------------------


def run_doctor(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    config = tmp_path / "config.toml"
    config.write_text(
        f'[paths]\njournals = "{tmp_path / "journals"}"\ngames = "{tmp_path / "games"}"\n'
        f'roster = "{tmp_path / "roster.toml"}"\n',
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PULSE", "GPIOZERO"))}
    env.update(
        COMPANION_CONFIG=str(config),
        HOME=str(tmp_path),
        XDG_RUNTIME_DIR=str(tmp_path),  # no PulseAudio server there
        XDG_CACHE_HOME=str(tmp_path / "cache"),
    )
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", "doctor", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )


def test_the_command_prints_one_line_per_check_on_this_machine(tmp_path: Path) -> None:
    done = run_doctor(tmp_path, "--no-sound")
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == len(CHECKS) + 1, done.stdout
    assert all(line[:2] in ("✓ ", "! ", "✗ ") for line in lines[:-1]), done.stdout
    assert lines[0] == f"✓ Настройки: {tmp_path / 'config.toml'}"
    assert lines[-1].startswith("Итого: в порядке ")
    failed = any(line.startswith("✗ ") for line in lines)
    assert done.returncode == (1 if failed else 0)
    assert all(" — как исправить: " in line for line in lines if line[:2] in ("! ", "✗ "))


def test_the_command_in_english_as_json(tmp_path: Path) -> None:
    done = run_doctor(tmp_path, "--json", "--quiet", "--lang", "en")
    assert "Traceback" not in done.stderr, done.stderr
    listed = json.loads(done.stdout)
    assert [item["check"] for item in listed] == list(CHECKS)
    assert listed[0]["line"] == f"Config: {tmp_path / 'config.toml'}"
    assert all(item["status"] in ("ok", "warning", "failure") for item in listed)
    assert all(bool(item["fix"]) == (item["status"] != "ok") for item in listed)
    assert done.returncode == (1 if any(i["status"] == "failure" for i in listed) else 0)
