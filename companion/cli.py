"""The command line: ``companion [console|demo|replay|resume|rulesets|say|voices|
selftest|config|protocol|verify-deal|listen|calibrate|models|doctor|backup|restore|update|
players] ...``.

``companion`` alone opens the host's console. The parsers are in
``cli_parser``; the commands over a past game (its protocol, its deal, a
recording of it) in ``cli_offline``. Every error is one line on standard
error (``companion: ...``), in the user's language (``cli_words``), and
exit status 2.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import stat
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from .commands.offline import calibrate_command, listen_command, protocol_command
from .commands.parser import arguments
from .config.rulesets import DataFileError, available_rulesets, load_ruleset, ruleset_digest
from .ops.doctor.command import doctor_command
from .paths import PROJECT
from .runner.journal import Journal, JournalError
from .runner.replay import ScriptReplay
from .runner.script import ScriptError, ScriptLine, parse_lines, read_script
from .textfiles.printable import printable, printable_json, printable_lines

# The club's, the models', the self-test's and the service's commands (and
# the protocol's report) are imported where they are used: the console's
# first screen does not wait for them (tests/test_import_budget.py).
if TYPE_CHECKING:  # the voice stack (numpy, sounddevice) is loaded only by the commands that speak
    from .live.assembly import Outputs
    from .voice.settings import VoiceSettings

ROOT = PROJECT
DEMO = ROOT / "examples" / "demo.jsonl"

#: options that only mean something with --realtime (a plain replay is silent)
_LIVE_ONLY = ("voice", "rate", "pack", "device", "captions", "captions_to", "host_log", "speed")


class CliError(Exception):
    """A one-line message for the user, ``cli_words.LINES[key]`` in the
    user's language (``str()``: English); exit status 2."""

    def __init__(self, key: str, **fields: Any) -> None:
        from .commands.words import line

        super().__init__(line(key, "en", **fields))
        self.key, self.fields = key, fields

    def said(self, lang: str) -> str:
        from .commands.words import line

        return line(self.key, lang, **self.fields)


def main(argv: Sequence[str] | None = None) -> int:
    args = arguments(argv)
    console_lang = args.lang  # None: the club's config decides (the console reads it)
    if args.command not in (None, "console"):
        args.lang = args.lang or _config_lang()
    try:
        if args.command in (None, "console"):
            return _console(console_lang, getattr(args, "microphone", None), args)
        if args.command == "demo":
            table = _replay(DEMO, None)
            _print(table, as_json=False, lang=args.lang)
        elif args.command in ("replay", "resume"):
            _play(args)
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


def _settings(args: argparse.Namespace) -> VoiceSettings:
    from .voice.settings import VoiceSettings

    return VoiceSettings(
        lang=args.lang,
        voice=args.voice,
        rate=args.rate if args.rate is not None else 165,
        pack=Path(args.pack) if args.pack else None,
        device=args.device,
        captions_only=args.captions,
    )


# --- replay and resume ------------------------------------------------------------


def _play(args: argparse.Namespace) -> None:
    if not args.realtime:
        given = [f"--{name.replace('_', '-')}" for name in _LIVE_ONLY if getattr(args, name)]
        if given:
            raise CliError("live_only", option=given[0])
        if args.command == "replay":
            table = _replay(Path(args.script), Path(args.journal) if args.journal else None)
        else:
            script = Path(args.script) if args.script else None
            table = _resume(Path(args.journal), script, None, args.lang)
        _print(table, args.json, args.lang)
        return
    speed = args.speed if args.speed is not None else 1.0
    if not 0.01 <= speed <= 10_000:
        raise CliError("speed", speed=f"{speed:g}")
    with _outputs(args) as outputs:
        if args.command == "replay":
            table = _realtime(Path(args.script), args, outputs, speed)
        else:
            script = Path(args.script) if args.script else None
            table = _resume(Path(args.journal), script, (args, outputs, speed), args.lang)
        _print(table, args.json, args.lang, stream=outputs.result)


@contextlib.contextmanager
def _outputs(args: argparse.Namespace) -> Iterator[Outputs]:
    """The table's stream (captions) and the host's (host log, then the
    result), never one file: what the table may hear and what only the host
    may read are kept apart. With --json the host's stream holds the JSON
    alone."""
    with contextlib.ExitStack() as stack:
        captions = _open_output(args.captions_to, sys.stdout, stack, private=False)
        host = _open_output(args.host_log, sys.stderr, stack, private=True)
        if _same_file(captions, host):
            raise CliError("same_file")
        from .live.assembly import Outputs

        yield Outputs(captions, None if args.json else host, host)


def _open_output(
    path: str | None, default: TextIO, stack: contextlib.ExitStack, *, private: bool
) -> TextIO:
    if path is None or path == "-":
        return default
    if Path(path).is_dir():
        raise CliError("folder", path=path)
    # What the host reads holds every role: private to the user, like a journal.
    fd = os.open(
        path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600 if private else 0o644
    )
    return stack.enter_context(open(fd, "w", encoding="utf-8", buffering=1))


def _same_file(a: TextIO, b: TextIO) -> bool:
    """Two streams on one file or pipe (a terminal is a screen: both may
    show there)."""
    try:
        one, two = os.fstat(a.fileno()), os.fstat(b.fileno())
    except (OSError, ValueError, AttributeError):
        return a is b
    shared = (one.st_dev, one.st_ino) == (two.st_dev, two.st_ino)
    return shared and (stat.S_ISREG(one.st_mode) or stat.S_ISFIFO(one.st_mode))


def _replay(script: Path, journal_path: Path | None) -> ScriptReplay:
    lines = read_script(script, load_ruleset)
    is_journal = bool(lines) and lines[0].fields.get("journal") is True
    # Opened only now that every line has parsed: a broken script leaves no journal.
    journal = Journal.create(journal_path) if journal_path is not None else None
    table = ScriptReplay(journal, auto_timers=not is_journal, source=str(script))
    try:
        table.run(lines)
    finally:
        if journal is not None:
            journal.close()
    return _finished(table, script)


def _realtime(
    script: Path, args: argparse.Namespace, outputs: Outputs, speed: float
) -> ScriptReplay:
    from .live.replay import replay_realtime

    lines = read_script(script, load_ruleset)
    journal = Journal.create(Path(args.journal)) if args.journal else None
    table = ScriptReplay(journal, source=str(script))
    try:
        replay_realtime(
            lines, _settings(args), outputs, session=table.session, speed=speed, source=str(script)
        )
    finally:
        if journal is not None:
            journal.close()
    return _finished(table, script)


Live = tuple[argparse.Namespace, "Outputs", float]


def _resume(
    journal_path: Path, script: Path | None, realtime: Live | None, lang: str = "ru"
) -> ScriptReplay:
    journal, text = Journal.resume(journal_path)
    try:
        if text.warnings:
            from .console.refusals.lines import journal_warning

            for warning in text.warnings:
                print(f"companion: {printable(journal_warning(warning, lang))}", file=sys.stderr)
        lines = parse_lines(text.lines, str(journal_path), load_ruleset)
        # The script is read before anything runs or the journal is touched.
        script_lines = read_script(script, load_ruleset) if script is not None else []
        if script is not None:
            _check_against_script(journal_path, lines, script, script_lines)
        _check_digest(journal_path, lines, lang)
        table = ScriptReplay(auto_timers=False, source=str(journal_path))
        table.run(lines)
        # Journal from here on; cut a torn tail first so the next line starts clean.
        journal.repair()
        table.journal = journal
        table.session.fill_undo = True  # the script's undo lines from here on
        if script is not None:
            rest = [line for line in script_lines if line.number > table.last_line]
            table.source = str(script)
            if realtime is None:
                table.auto_timers = True
                table.run(rest)
            else:
                from .live.replay import replay_realtime

                args, outputs, speed = realtime
                replay_realtime(
                    rest,
                    _settings(args),
                    outputs,
                    session=table.session,
                    speed=speed,
                    source=str(script),
                )
    finally:
        journal.close()
    return _finished(table, journal_path)


def _check_against_script(
    path: Path, lines: list[ScriptLine], script: Path, script_lines: list[ScriptLine]
) -> None:
    """A journal's ``line`` must point at the same input in the script it
    is resumed with; one that points past it is refused, not obeyed."""
    by_number = {line.number: line for line in script_lines}
    for line in lines:
        number = line.fields.get("line")
        if not isinstance(number, int):
            continue
        source = by_number.get(number)
        if source is None:
            raise ScriptError(
                str(path),
                line.number,
                line.text,
                f"'line' {number} is not an input of {script} "
                f"(its inputs are on lines {_span(script_lines)})",
            )
        if source.fields.get("input") != line.fields.get("input"):
            raise ScriptError(
                str(path),
                line.number,
                line.text,
                f"line {number} of {script} is {source.fields.get('input')!r}, not this input: "
                "was the journal made from another script?",
            )


def _span(lines: list[ScriptLine]) -> str:
    return f"{lines[0].number}–{lines[-1].number}" if lines else "—"


def _check_digest(path: Path, lines: list[ScriptLine], lang: str) -> None:
    for line in lines[:1]:
        want, name = line.fields.get("ruleset_sha256"), line.fields.get("ruleset")
        if isinstance(want, str) and isinstance(name, str) and ruleset_digest(name) != want:
            from .commands.words import line as words

            said = words("ruleset_changed", lang, where=f"{path}:{line.number}", name=name)
            print(f"companion: {said}", file=sys.stderr)


def _finished(table: ScriptReplay, source: Path) -> ScriptReplay:
    if table.game is None:
        raise CliError("no_setup", source=source)
    return table


def _print(
    table: ScriptReplay, as_json: bool, lang: str = "ru", stream: TextIO | None = None
) -> None:
    from .protocol import report

    game = table.game
    assert game is not None
    out = stream or sys.stdout
    if as_json:
        summary = report.summary(game, ignored=table.ignored)
        text = printable_json(json.dumps(summary, ensure_ascii=False, indent=2))
    else:
        # Names and reasons are the game's data: shown, never obeyed by a terminal.
        text = printable_lines("\n".join(report.protocol(game, lang, ignored=table.ignored)))
    print(text, file=out, flush=True)


# --- the voice ------------------------------------------------------------------


def _voice_command(args: argparse.Namespace) -> None:
    from .voice import commands

    settings = _settings(args)
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
