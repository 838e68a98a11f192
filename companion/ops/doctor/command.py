"""``companion doctor``: every check in order, one line each, and the exit
status (1 when a check failed). ``--json`` prints the results as a list;
``--no-sound`` opens the speaker without playing the test phrase."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ...config.load import load_config
from ...config.values import Config, ConfigError, config_path
from .result import Result, Words, as_json, exit_status, say, summary

if TYPE_CHECKING:  # the checks (numpy, the voice, gpiozero) load only when the doctor runs
    from .listening import ListeningProbes
    from .seats import GpioProbes
    from .sound import SoundProbes
    from .system import SystemProbes
    from .voice import VoiceProbes

#: every check's name, in the order the doctor runs and prints them
CHECKS = (
    "config",
    "gpio",
    "pinmap",
    "speaker",
    "microphone",
    "listening",
    "voice",
    "words_model",
    "space",
    "priority",
    "clock",
)

WORDS: Words = {
    "ru": {
        "read": "Настройки: {path}",
        "missing": "Настройки: файла {path} нет, всё по умолчанию",
        "bad": "Настройки не читаются: {error}; остальное проверено по умолчанию",
        "fix_bad": "исправьте названную строку (docs/config.md); companion config show покажет, что действует",
        "crashed": "{check}: проверка сама упала: {error}",
        "fix_crashed": "сообщите разработчикам эту строку",
    },
    "en": {
        "read": "Config: {path}",
        "missing": "Config: no file {path}, every value is a default",
        "bad": "Config cannot be used: {error}; the rest is checked with the defaults",
        "fix_bad": "correct the line it names (docs/config.md); companion config show prints what is in effect",
        "crashed": "{check}: the check itself failed: {error}",
        "fix_crashed": "report this line to the developers",
    },
}


def _gpio() -> GpioProbes:
    from .seats import GpioProbes

    return GpioProbes()


def _sound() -> SoundProbes:
    from .sound import SoundProbes

    return SoundProbes()


def _voice() -> VoiceProbes:
    from .voice import VoiceProbes

    return VoiceProbes()


def _system() -> SystemProbes:
    from .system import SystemProbes

    return SystemProbes()


def _listening() -> ListeningProbes:
    from .listening import ListeningProbes

    return ListeningProbes()


@dataclass(frozen=True, slots=True)
class Probes:
    """Everything the checks read off the machine; each part swappable."""

    load_config: Callable[[Path], Config] = load_config
    gpio: GpioProbes = field(default_factory=_gpio)
    sound: SoundProbes = field(default_factory=_sound)
    voice: VoiceProbes = field(default_factory=_voice)
    system: SystemProbes = field(default_factory=_system)
    listening: ListeningProbes = field(default_factory=_listening)


def check_config(path: Path, probes: Probes, lang: str) -> tuple[Config, Result]:
    """The club's config, and the line about it; the defaults when it cannot
    be used (the other checks still tell what they can)."""
    try:
        config = probes.load_config(path)
    except ConfigError as error:
        line = say(WORDS, lang, "bad", error=error)
        return Config(), Result("config", "failure", line, say(WORDS, lang, "fix_bad"))
    key = "read" if config.source is not None else "missing"
    return config, Result("config", "ok", say(WORDS, lang, key, path=path))


def run_checks(
    path: Path,
    lang: str = "ru",
    *,
    sound: bool = True,
    probes: Probes | None = None,
    each: Callable[[Result], None] | None = None,
) -> list[Result]:
    """Every check in :data:`CHECKS` order, on the config at ``path``.
    ``each`` is told every result as soon as it is known (a speaker test
    takes a few seconds: the lines before it are already on screen)."""
    from .listening import check_listening
    from .seats import check_gpio, check_pinmap
    from .sound import check_microphone, check_speaker
    from .system import check_clock, check_priority, check_space
    from .voice import check_voice, check_words_model

    probes = probes or Probes()
    config, first = check_config(path, probes, lang)
    results = [first]
    if each is not None:
        each(first)
    checks: list[tuple[str, Callable[[], Result]]] = [
        ("gpio", lambda: check_gpio(config, probes.gpio, lang)),
        ("pinmap", lambda: check_pinmap(config, probes.gpio, lang)),
        ("speaker", lambda: check_speaker(config, probes.sound, lang, sound)),
        ("microphone", lambda: check_microphone(config, probes.sound, lang)),
        ("listening", lambda: check_listening(config, probes.listening, lang)),
        ("voice", lambda: check_voice(config, probes.voice, lang)),
        ("words_model", lambda: check_words_model(config, probes.voice, lang)),
        ("space", lambda: check_space(config, probes.system, lang)),
        ("priority", lambda: check_priority(config, probes.system, lang)),
        ("clock", lambda: check_clock(config, probes.system, lang)),
    ]
    for name, check in checks:
        try:
            result = check()
        except Exception as error:  # a check that breaks must not hide the others
            text = " ".join(f"{type(error).__name__}: {error}".split())[:200]
            result = Result(
                name,
                "failure",
                say(WORDS, lang, "crashed", check=name, error=text),
                say(WORDS, lang, "fix_crashed"),
            )
        results.append(result)
        if each is not None:
            each(result)
    return results


def doctor_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    doctor = sub.add_parser(
        "doctor",
        parents=[common],
        help="check the table: GPIO, pin map, speaker, microphone, the service's listening "
        "process, voice, model, space, priority, clock",
    )
    doctor.add_argument("--json", action="store_true", help="print the results as a JSON list")
    doctor.add_argument(
        "--no-sound",
        "--quiet",
        dest="no_sound",
        action="store_true",
        help="open the speaker but play no test phrase",
    )


def doctor_command(
    lang: str | None,
    as_json_list: bool,
    no_sound: bool,
    out: TextIO | None = None,
    probes: Probes | None = None,
) -> int:
    """``companion doctor``: 0 when nothing failed (warnings allowed), 1 when
    a check failed. ``lang`` None: the config's language; ``probes``: fakes
    (tests), default the machine's."""
    stream = out or sys.stdout
    path = config_path()
    if lang is None:  # the config's language (Russian when the config cannot be read)
        try:
            lang = load_config(path).lang
        except ConfigError:
            lang = "ru"
    shown: str = lang

    def show(result: Result) -> None:
        if not as_json_list:
            print(result.text(shown), file=stream, flush=True)

    # The checks say what they find in their lines; the warnings that the
    # parts they open would log (no sound card: captions only) say it twice.
    logger = logging.getLogger("companion")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        results = run_checks(path, shown, sound=not no_sound, probes=probes, each=show)
    finally:
        logger.setLevel(level)
    print(as_json(results) if as_json_list else summary(results, shown), file=stream)
    return exit_status(results)
