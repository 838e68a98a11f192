"""The command line: ``companion [console|demo|replay|resume|rulesets|say|voices|
selftest|config|protocol|verify-deal|listen|calibrate|models|doctor|backup|restore|update|
players] ...``.

``companion`` alone opens the host's console. The parsers are in
``commands/parser.py``; replay and resume in ``commands/play.py``; the
commands over a past game (its protocol, its deal, a recording of it) in
``commands/offline.py``. Every error is one line on standard error
(``companion: ...``), in the user's language (``commands/words.py``), and
exit status 2.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .commands.offline import calibrate_command, listen_command, protocol_command
from .commands.parser import arguments
from .commands.play import play, print_game, replay, voice_settings
from .commands.words import CliError
from .config.rulesets import DataFileError, available_rulesets
from .ops.doctor.command import doctor_command
from .paths import PROJECT
from .runner.journal import JournalError
from .runner.script import ScriptError
from .textfiles.printable import printable

# The club's, the models', the self-test's and the service's commands (and
# the protocol's report) are imported where they are used: the console's
# first screen does not wait for them (tests/test_import_budget.py).

ROOT = PROJECT
DEMO = ROOT / "examples" / "demo.jsonl"


def main(argv: Sequence[str] | None = None) -> int:
    args = arguments(argv)
    console_lang = args.lang  # None: the club's config decides (the console reads it)
    if args.command not in (None, "console"):
        args.lang = args.lang or _config_lang()
    try:
        if args.command in (None, "console"):
            return _console(console_lang, getattr(args, "microphone", None), args)
        if args.command == "demo":
            print_game(replay(DEMO, None), as_json=False, lang=args.lang)
        elif args.command in ("replay", "resume"):
            play(args)
        elif args.command in ("say", "voices"):
            _voice_command(args)
        elif args.command == "selftest":
            from .seats.selftest_command import selftest_command

            return selftest_command(args)
        elif args.command == "rulesets":
            for name in available_rulesets():
                print(name)
        elif args.command in ("protocol", "verify-deal"):
            return protocol_command(args)
        elif args.command == "config":
            from .config.show import config_command

            config_command(args.action)
        elif args.command == "listen":
            listen_command(args)
        elif args.command == "calibrate":
            return calibrate_command(args)
        elif args.command == "models":
            from .ears.models import models_command

            return models_command(args)
        elif args.command == "service":
            from .ops.service_command import service_command

            return service_command(args)
        elif args.command == "hall":  # the tournament hall (docs/hall.md)
            from .hall.commands import hall_command

            return hall_command(args)
        elif args.command == "doctor":
            return doctor_command(console_lang, args.json, args.no_sound)
        else:
            from .club.commands import COMMANDS as CLUB_COMMANDS
            from .club.commands import club_command

            if args.command in CLUB_COMMANDS:
                return club_command(args)
    except BrokenPipeError:
        # The reader went away (``companion replay x | head``): not an error of ours.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (CliError, ScriptError, DataFileError, JournalError, OSError, ValueError) as error:
        print(f"companion: {_one_line(error, args.lang or _config_lang())}", file=sys.stderr)
        return 2
    return 0


def _config_lang() -> str:
    from .commands.words import config_lang

    return config_lang()


def _console(
    lang: str | None, microphone: str | None = None, args: argparse.Namespace | None = None
) -> int:
    """The host's console on the club's config (``companion config path``);
    ``microphone``: listen to this device (or ``file:REC.wav``) whatever
    the config says; ``args``: ``--service``, ``--inputs``, ``--speed``
    (docs/console.md)."""
    import dataclasses

    from .config.load import load_config
    from .console.app import ConsoleApp
    from .console.console_lock import ConsoleLock

    service = _service_options(args)  # a broken script stops here, before the screen is taken
    config = load_config()
    if lang is not None:
        config = dataclasses.replace(config, lang=lang)  # type: ignore[arg-type]
    if microphone is not None:
        mic = dataclasses.replace(config.microphone, listen=True, device=microphone or None)
        config = dataclasses.replace(config, microphone=mic)
    # The app draws on the terminal: warnings (no sound card, a torn journal
    # line) go to a log file beside the journals, and the host sees them as
    # notices on screen where the console knows them.
    folder = config.paths.journals.parent
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    logging.basicConfig(
        filename=folder / "companion.log",
        level=logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        force=True,
    )
    # One console per table: a second one says so on its screen and opens
    # nothing of the table (console/console_lock.py).
    lock = ConsoleLock.for_journals(config.paths.journals)
    lock.take()
    try:
        app = ConsoleApp(config, console_lock=lock, **service)
        app.run()
    finally:
        lock.release()
    return app.return_code or 0  # 1 after a crash: the service's status says so


def _service_options(args: argparse.Namespace | None) -> dict[str, Any]:
    """``ConsoleApp``'s ``service``, ``inputs`` (the script read whole),
    ``speed`` and ``practice``: without ``--inputs``, ``--speed N`` is a
    practice game's speed (journaled; the simulated table's key switches
    between it and 1); with it, the script's pace."""
    service = bool(getattr(args, "service", False))
    inputs, speed = getattr(args, "inputs", None), getattr(args, "speed", None)
    if speed is not None and not 0.01 <= speed <= 10_000:
        raise CliError("speed", speed=f"{speed:g}")
    if inputs is None:
        if speed is None:
            return {"service": service}
        from .console.table_host import PRACTICE_SPEED

        practice = speed if speed != 1 else PRACTICE_SPEED
        return {"service": service, "speed": speed, "practice": practice}
    from .console.script_inputs import ScriptInputs

    script = ScriptInputs.read(Path(inputs))
    return {"service": True, "inputs": script, "speed": speed if speed is not None else 1.0}


def _one_line(error: BaseException, lang: str = "ru") -> str:
    """The error in the user's words: ours (CliError), a script's or a
    journal's, an OS error's (console/refusals/lines.py)."""
    if isinstance(error, CliError):
        text = error.said(lang)
    else:
        from .console.refusals.lines import error_line

        text = error_line(error, lang)
    # A file name or a value from a file may hold escapes: shown, never obeyed.
    text = printable(" ".join(text.split()))
    return text if len(text) <= 300 else text[:297] + "..."


# --- the voice ------------------------------------------------------------------


def _voice_command(args: argparse.Namespace) -> None:
    from .voice import commands

    settings = voice_settings(args)
    if args.command == "say":
        values: dict[str, int | str] = {}
        for item in args.args:
            name, sep, value = item.partition("=")
            if not sep:
                raise CliError("say_args", item=item)
            values[name] = int(value) if value.lstrip("-").isdigit() and len(value) < 20 else value
        text = commands.say(args.cue, values, args.ruleset, settings)
        if not settings.captions_only:  # with --captions the caption was the output
            print(text)
    elif args.action == "list":
        print("\n".join(commands.voices_list(settings, args.ruleset, args.seats)))
    else:
        count = commands.voices_build(settings, args.ruleset, args.seats)
        from .commands.words import line

        print(line("rendered", args.lang, count=count, voice=settings.tts.voice))


if __name__ == "__main__":
    sys.exit(main())
