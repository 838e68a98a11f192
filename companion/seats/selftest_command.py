"""``companion selftest``: the self-test (seats/selftest.py) on the pins,
with the voice, and its result kept for the console (seats/silent.py).

The pin map and the voice are the club's config's unless the options say
otherwise (``--pins``, ``--device``, ``--captions``). Every prompt is a
line on standard output (``» Место три, нажмите кнопку.``) and, with a
sound device, spoken; without one (or with ``--captions``) the lines are
all there is, and one line says why.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from .selftest import MAX_TIMEOUT_S, Prompt, SelfTestReport, run_selftest

if TYPE_CHECKING:
    from ..config.values import Config
    from ..voice.prompts import Prompter
    from .pinmap import PinMap

#: How long the end of the test may take to be heard before the sound closes.
FINISH_S = 10.0


def selftest_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser], common: Any) -> None:
    selftest = sub.add_parser(
        "selftest",
        parents=[common],
        help="light each seat, ask for its button; the host buttons and the buzzer too",
    )
    selftest.add_argument(
        "--pins", help="pin map: hardware/NAME.toml or a path (default: the config's)"
    )
    selftest.add_argument(
        "--timeout", type=float, default=10.0, help="seconds to wait for each button (10)"
    )
    selftest.add_argument(
        "--captions", action="store_true", help="print the prompts, speak nothing"
    )
    selftest.add_argument("--device", help="sound output device (default: the config's)")


def selftest_command(args: argparse.Namespace) -> int:
    """The command line's self-test; exit status 0 when every button
    answered, 1 when one did not (or answered for another, or was held),
    2 when it cannot run (a bad config or pin map, no GPIO: said in one
    line on standard error, with how to use simulated pins).

    On gpiozero's mock pins (``GPIOZERO_PIN_FACTORY=mock``) nobody can press
    a button, so no button is waited for: the run shows the lights in turn
    and a report in which every button is silent, says so first, and keeps
    no record for the console.
    """
    from ..config.load import load_config
    from ..config.values import ConfigError
    from .gpio import SIMULATED_PINS, GpioSeats, GpioUnavailable, describe_factory, pin_factory
    from .pinmap import PinMapError, load_pinmap

    timeout: float = args.timeout
    if not 0 <= timeout <= MAX_TIMEOUT_S:  # also NaN; inf would overflow queue.get
        _fail(f"--timeout {timeout:g}: give 0..{MAX_TIMEOUT_S:g} seconds per button")
        return 2
    try:
        config = load_config()
        pinmap = load_pinmap(args.pins or config.seats.pin_map)
    except (ConfigError, PinMapError) as error:
        _fail(str(error))
        return 2
    devices: list[Any] = []
    try:
        factory = pin_factory()
        seats = GpioSeats(pinmap, pin_factory=factory)
        devices.append(seats)
        simulated = _simulated(factory)
        buzzer = _buzzer(pinmap, factory, simulated, devices)
    except GpioUnavailable as error:
        _fail(f"{error}; to try it on simulated pins: {SIMULATED_PINS} companion selftest")
        return 2
    except Exception as error:  # gpiozero or its GPIO library refusing a pin
        _close(devices)
        reason = (str(error).splitlines() or [""])[0] or type(error).__name__
        _fail(f"{pinmap.source}: the pins cannot be opened: {reason}")
        return 2
    try:
        if simulated:
            timeout = 0.0
            print(
                f"selftest: simulated pins ({describe_factory(factory)}), no GPIO:"
                " nobody can press their buttons, so no button is waited for"
                " and a button not pressed at once is reported silent"
            )
        if seats.no_pwm:
            print(
                f"selftest: seats {', '.join(map(str, seats.no_pwm))}: these pins cannot dim:"
                " the LEDs are lit on/off instead"
            )
        voice = open_prompter(config, args.lang, args.captions, args.device, pinmap)
        devices.append(voice)
        print(f"selftest: {pinmap.source}, {seats.count} seats, {timeout:g} s per button")
        report = run_selftest(
            seats,
            _speaking(voice),
            timeout=timeout,
            held_now=seats.held_now,
            hosts=tuple(pinmap.host),
            host_held=seats.host_held_now,
            buzzer=buzzer,
        )
        voice.wait(FINISH_S)
    except KeyboardInterrupt:  # Ctrl-C at the table: stop, no traceback
        print("selftest: stopped", file=sys.stderr)
        return 130
    finally:
        _close(devices)
    for line in report.lines(args.lang):
        print(line)
    _keep(report, config, pinmap, simulated)
    return 0 if report.ok else 1


def open_prompter(
    config: Config, lang: str, captions: bool, device: str | None, pinmap: PinMap
) -> Prompter:
    """The voice of the test: the club's (its device, espeak-ng voice, rate,
    pack) with every prompt rendered ahead; the lines alone with
    ``--captions`` (or the config's ``captions_only``), and when there is
    no sound device or no voice to render with (said in one line)."""
    from ..voice.catalogue_load import load_catalogue
    from ..voice.prompts import Prompter

    catalogue = load_catalogue(lang)
    if captions or config.voice.captions_only:
        return Prompter(catalogue)
    from ..voice.pack import VoicePack
    from ..voice.speaker import SoundDeviceSpeaker
    from ..voice.tts import TtsVoice, WavCache

    try:
        chosen = device or config.voice.device
        speaker = SoundDeviceSpeaker(int(chosen) if chosen and chosen.isdigit() else chosen)
    except Exception as error:  # no libportaudio2, no device, a busy one ...
        print(
            f"selftest: no sound device ({_first_line(error)}): the prompts are shown, not spoken"
        )
        return Prompter(catalogue)
    voice = config.voice
    try:
        pack = VoicePack(voice.pack) if voice.pack else None
        prompter = Prompter(
            catalogue,
            speaker,
            cache=WavCache(),
            voice=TtsVoice(voice.voice or lang, voice.rate),
            pack=pack,
        )
        prompter.prepare(_cues(pinmap))
    except Exception as error:  # no espeak-ng, a voice it lacks, a broken pack
        speaker.close()
        print(f"selftest: no voice ({_first_line(error)}): the prompts are shown, not spoken")
        return Prompter(catalogue)
    return prompter


def _cues(pinmap: PinMap) -> list[tuple[str, dict[str, int | str]]]:
    """Every prompt the test can say on ``pinmap``, but the list of silent seats."""
    cues: list[tuple[str, dict[str, int | str]]] = [("selftest_begins", {})]
    cues += [("selftest_seat", {"seat": seat.seat}) for seat in pinmap.seats]
    cues += [("selftest_host", {"button": name}) for name in pinmap.host]
    cues += [("selftest_buzzer", {})] if pinmap.buzzer is not None else []
    return [*cues, ("selftest_ok", {}), ("selftest_failed", {})]


def _speaking(voice: Prompter) -> Callable[[Prompt], None]:
    def say(prompt: Prompt) -> None:
        voice.say(prompt.cue, dict(prompt.args), urgent=prompt.urgent)
        if prompt.heard_first:
            voice.wait(FINISH_S)

    return say


def _buzzer(
    pinmap: PinMap, factory: Any, simulated: bool, devices: list[Any]
) -> tuple[int, Callable[[], None]] | None:
    if pinmap.buzzer is None:
        return None
    from .buzzer import GpioBuzzer

    # Nobody hears a simulated buzzer: its pin is driven without the pauses.
    quiet: dict[str, Any] = {"sleep": lambda seconds: None} if simulated else {}
    buzzer = GpioBuzzer(pinmap.buzzer, pin_factory=factory, **quiet)
    devices.append(buzzer)
    return pinmap.buzzer, buzzer.beep


def _keep(report: SelfTestReport, config: Config, pinmap: PinMap, simulated: bool) -> None:
    """The result, for the console's next table (seats/silent.py)."""
    from .silent import SelfTestRecord, pin_map_digest, record_path, save_record

    if simulated:
        print("selftest: simulated pins: the result is not kept for the console")
        return
    path = record_path(config)
    try:
        record = SelfTestRecord(
            pinmap.source,
            pin_map_digest(pinmap.source),
            datetime.now().isoformat(timespec="seconds"),
            tuple(report.silent),
            tuple(report.hosts_silent),
        )
        save_record(path, record)
    except OSError as error:
        _fail(f"{path}: the result cannot be kept for the console: {error.strerror or error}")
        return
    if report.silent:
        seats = ", ".join(map(str, report.silent))
        print(
            f"selftest: the host's keys stand in for the buttons of seats {seats} in the console ({path})"
        )
    else:
        print(f"selftest: every seat's button is listened to in the console ({path})")


def _close(devices: list[Any]) -> None:
    for device in reversed(devices):
        try:
            device.close()
        except Exception as error:  # closing must not stop the others closing
            print(f"selftest: closing {type(device).__name__}: {error}", file=sys.stderr)


def _simulated(factory: object) -> bool:
    from gpiozero.pins.mock import MockFactory

    return isinstance(factory, MockFactory)


def _first_line(error: BaseException) -> str:
    return (str(error).splitlines() or [""])[0] or type(error).__name__


def _fail(message: str) -> None:
    print(f"companion: selftest: {message}", file=sys.stderr)
