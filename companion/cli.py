"""The command line: ``companion [replay|resume|rulesets] ...``.

Until the host console exists, ``companion`` alone replays the demo game and
prints its protocol.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from . import journal, live, report
from .core.state import Game
from .replay import Table
from .rulesets import RulesetError, available_rulesets, load_ruleset, ruleset_digest
from .script import ScriptError, ScriptLine, parse_lines
from .seats.selftest import selftest_command

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "examples" / "demo.jsonl"


class CliError(Exception):
    """A one-line message for the user; exit status 2."""


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command is None:
            game = _replay(DEMO, None)
            _print(game, as_json=False, lang=args.lang)
        elif args.command == "replay" and args.realtime:
            game = _realtime(Path(args.script), args)
            _print(game, args.json, args.lang)
        elif args.command == "replay":
            game = _replay(Path(args.script), Path(args.journal) if args.journal else None)
            _print(game, args.json, args.lang)
        elif args.command in ("say", "voices"):
            _voice_command(args)
        elif args.command == "resume":
            game = _resume(Path(args.journal), Path(args.script) if args.script else None)
            _print(game, args.json, args.lang)
        elif args.command == "selftest":
            return selftest_command(args.pins, args.timeout, args.lang)
        elif args.command == "rulesets":
            for name in available_rulesets():
                print(name)
    except BrokenPipeError:
        # The reader went away (``companion replay x | head``): not an error of ours.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (CliError, ScriptError, RulesetError, OSError, KeyError, ValueError) as error:
        print(f"companion: {error}", file=sys.stderr)
        return 2
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="companion", description=__doc__)
    parser.add_argument(
        "--lang", choices=("ru", "en"), default="ru", help="language of the protocol (ru)"
    )
    voice = argparse.ArgumentParser(add_help=False)
    voice.add_argument("--voice", help="espeak-ng voice, e.g. ru, ru+f3, en (default: --lang)")
    voice.add_argument("--rate", type=int, default=165, help="words per minute (165)")
    voice.add_argument("--pack", help="a voice pack folder of recorded WAV files")
    voice.add_argument("--device", help="sound output device (default: the system's)")
    voice.add_argument("--captions", action="store_true", help="print cues, play no sound")
    sub = parser.add_subparsers(dest="command")
    replay = sub.add_parser("replay", parents=[voice], help="run a table script")
    replay.add_argument("script")
    replay.add_argument(
        "--realtime", action="store_true", help="at the script's own pace, with the voice"
    )
    replay.add_argument("--json", action="store_true", help="print the final state as JSON")
    replay.add_argument("--journal", help="journal every accepted input to this file")
    resume = sub.add_parser("resume", help="rebuild a game from its journal and go on")
    resume.add_argument("journal")
    resume.add_argument("--script", help="continue with this script after the journaled lines")
    resume.add_argument("--json", action="store_true", help="print the final state as JSON")
    sub.add_parser("rulesets", help="list the rulesets")
    selftest = sub.add_parser("selftest", help="light each seat, ask for its button")
    selftest.add_argument("--pins", default="default", help="pin map: hardware/NAME.toml or a path")
    selftest.add_argument("--timeout", type=float, default=10.0, help="seconds per seat (10)")
    say = sub.add_parser("say", parents=[voice], help="speak one cue, to try a voice")
    say.add_argument("cue", help="a cue of the phrase catalogue, e.g. vote_question")
    say.add_argument("args", nargs="*", help="NAME=VALUE, e.g. seat=3")
    say.add_argument("--ruleset", default="tournament")
    voices = sub.add_parser("voices", parents=[voice], help="list or pre-render the voice")
    voices.add_argument("action", choices=("list", "build"))
    voices.add_argument("--ruleset", default="tournament")
    voices.add_argument("--seats", type=int, default=10)
    return parser


def _settings(args: argparse.Namespace) -> live.VoiceSettings:
    return live.VoiceSettings(
        lang=args.lang,
        voice=args.voice,
        rate=args.rate,
        pack=Path(args.pack) if args.pack else None,
        device=args.device,
        captions_only=args.captions,
    )


def _realtime(script: Path, args: argparse.Namespace) -> Game:
    # With --json the final state owns standard output; captions go to stderr.
    captions = sys.stderr if args.json else None
    game = live.replay_realtime(_lines(script), _settings(args), captions)
    if game is None:
        raise CliError(f"{script}: no setup line: nothing to play")
    return game


def _voice_command(args: argparse.Namespace) -> None:
    settings = _settings(args)
    if args.command == "say":
        values: dict[str, int | str] = {}
        for item in args.args:
            name, sep, value = item.partition("=")
            if not sep:
                raise CliError(f"say: {item!r}: give arguments as NAME=VALUE")
            values[name] = int(value) if value.lstrip("-").isdigit() else value
        print(live.say(args.cue, values, args.ruleset, settings))
    elif args.action == "list":
        print("\n".join(live.voices_list(settings, args.ruleset, args.seats)))
    else:
        count = live.voices_build(settings, args.ruleset, args.seats)
        print(f"{count} phrases rendered and cached ({settings.tts.voice})")


def _lines(path: Path) -> list[ScriptLine]:
    text = path.read_text(encoding="utf-8")
    return parse_lines(text.splitlines(), str(path), load_ruleset)


def _replay(script: Path, journal_path: Path | None) -> Game:
    lines = _lines(script)
    if journal_path is not None and journal_path.exists() and journal_path.stat().st_size:
        raise CliError(f"{journal_path}: journal exists; use 'companion resume {journal_path}'")
    is_journal = bool(lines) and lines[0].fields.get("journal") is True
    _stamp_setup(lines)
    # Opened only now that every line has parsed: a broken script leaves no journal.
    sink = journal.Journal(journal_path) if journal_path is not None else None
    table = Table(journal=sink, auto_timers=not is_journal, source=str(script))
    try:
        table.run(lines)
    finally:
        if sink is not None:
            sink.close()
    return _finished(table, script)


def _resume(journal_path: Path, script: Path | None) -> Game:
    text = journal.read(journal_path)
    if text.torn is not None:
        print(
            f"companion: {journal_path}:{len(text.lines) + 1}: torn last line skipped "
            f"({len(text.torn)} characters): {text.torn[:60]!r}",
            file=sys.stderr,
        )
    lines = parse_lines(text.lines, str(journal_path), load_ruleset)
    # The script is parsed before anything runs or the journal is touched.
    script_lines = _lines(script) if script is not None else []
    _check_digest(journal_path, lines)
    table = Table(auto_timers=False, source=str(journal_path))
    table.run(lines)
    # Journal from here on; cut a torn tail first so the next line starts clean.
    sink = journal.Journal(journal_path, truncate_to=text.good_bytes)
    table.journal = sink
    try:
        if script is not None:
            rest = [line for line in script_lines if line.number > table.last_line]
            if table.game is None:  # not even the setup was journaled
                _stamp_setup(rest)
            table.auto_timers = True
            table.source = str(script)
            table.run(rest)
    finally:
        sink.close()
    return _finished(table, journal_path)


def _stamp_setup(lines: list[ScriptLine]) -> None:
    """Journals remember which ruleset file they were played with."""
    for line in lines[:1]:
        name = line.fields.get("ruleset")
        if isinstance(name, str) and "ruleset_sha256" not in line.fields:
            line.fields["ruleset_sha256"] = ruleset_digest(name)


def _check_digest(path: Path, lines: list[ScriptLine]) -> None:
    for line in lines[:1]:
        want, name = line.fields.get("ruleset_sha256"), line.fields.get("ruleset")
        if isinstance(want, str) and isinstance(name, str) and ruleset_digest(name) != want:
            print(
                f"companion: {path}:{line.number}: ruleset {name!r} has changed since this game began",
                file=sys.stderr,
            )


def _finished(table: Table, source: Path) -> Game:
    if table.game is None:
        raise CliError(f"{source}: no setup line: nothing to play")
    return table.game


def _print(game: Game, as_json: bool, lang: str = "ru") -> None:
    if as_json:
        print(json.dumps(report.summary(game), ensure_ascii=False, indent=2))
    else:
        print("\n".join(report.protocol(game, lang)))


if __name__ == "__main__":
    sys.exit(main())
