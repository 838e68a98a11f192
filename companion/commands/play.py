"""``companion replay`` and ``companion resume`` (and the demo's game): a
table script or a journal played on the fake clock, or at its pace at a
live table (``--realtime``), and the game's state printed.

A journal is resumed only after every line of it (and of the script it
goes on with) has been read and checked: a broken script leaves no
journal, a journal made from another script is refused.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ..config.rulesets import load_ruleset, ruleset_digest
from ..runner.journal import Journal
from ..runner.replay import ScriptReplay
from ..runner.script import ScriptError, ScriptLine, parse_lines, read_script
from ..textfiles.printable import printable, printable_json, printable_lines
from .words import CliError

if TYPE_CHECKING:  # the voice stack (numpy, sounddevice) is loaded only by --realtime
    from ..live.assembly import Outputs
    from ..voice.settings import VoiceSettings

#: options that only mean something with --realtime (a plain replay is silent)
_LIVE_ONLY = ("voice", "rate", "pack", "device", "captions", "captions_to", "host_log", "speed")


def voice_settings(args: argparse.Namespace) -> VoiceSettings:
    from ..voice.settings import VoiceSettings

    return VoiceSettings(
        lang=args.lang,
        voice=args.voice,
        rate=args.rate if args.rate is not None else 165,
        pack=Path(args.pack) if args.pack else None,
        device=args.device,
        captions_only=args.captions,
    )


def play(args: argparse.Namespace) -> None:
    if not args.realtime:
        given = [f"--{name.replace('_', '-')}" for name in _LIVE_ONLY if getattr(args, name)]
        if given:
            raise CliError("live_only", option=given[0])
        if args.command == "replay":
            table = replay(Path(args.script), Path(args.journal) if args.journal else None)
        else:
            script = Path(args.script) if args.script else None
            table = resume(Path(args.journal), script, None, args.lang)
        print_game(table, args.json, args.lang)
        return
    speed = args.speed if args.speed is not None else 1.0
    if not 0.01 <= speed <= 10_000:
        raise CliError("speed", speed=f"{speed:g}")
    with _outputs(args) as outputs:
        if args.command == "replay":
            table = _realtime(Path(args.script), args, outputs, speed)
        else:
            script = Path(args.script) if args.script else None
            table = resume(Path(args.journal), script, (args, outputs, speed), args.lang)
        print_game(table, args.json, args.lang, stream=outputs.result)


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
        from ..live.assembly import Outputs

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


def replay(script: Path, journal_path: Path | None) -> ScriptReplay:
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


#: a live run's command line, its outputs and its speed
Live = tuple[argparse.Namespace, "Outputs", float]


def _realtime(
    script: Path, args: argparse.Namespace, outputs: Outputs, speed: float
) -> ScriptReplay:
    lines = read_script(script, load_ruleset)
    journal = Journal.create(Path(args.journal)) if args.journal else None
    table = ScriptReplay(journal, source=str(script))
    try:
        _live(lines, table, script, (args, outputs, speed))
    finally:
        if journal is not None:
            journal.close()
    return _finished(table, script)


def _live(lines: list[ScriptLine], table: ScriptReplay, script: Path, live: Live) -> None:
    """``lines`` played at their pace at a live table, on ``table``'s session."""
    from ..live.replay import replay_realtime

    args, outputs, speed = live
    settings = voice_settings(args)
    replay_realtime(
        lines, settings, outputs, session=table.session, speed=speed, source=str(script)
    )


def resume(
    journal_path: Path, script: Path | None, realtime: Live | None, lang: str = "ru"
) -> ScriptReplay:
    journal, text = Journal.resume(journal_path)
    try:
        if text.warnings:
            from ..console.refusals.lines import journal_warning

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
                _live(rest, table, script, realtime)
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
            from .words import line as words

            said = words("ruleset_changed", lang, where=f"{path}:{line.number}", name=name)
            print(f"companion: {said}", file=sys.stderr)


def _finished(table: ScriptReplay, source: Path) -> ScriptReplay:
    if table.game is None:
        raise CliError("no_setup", source=source)
    return table


def print_game(
    table: ScriptReplay, as_json: bool, lang: str = "ru", stream: TextIO | None = None
) -> None:
    from ..protocol import report

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
