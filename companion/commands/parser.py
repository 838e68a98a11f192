"""The command line's parsers: ``companion [console|demo|replay|resume|
rulesets|say|voices|selftest|config|protocol|verify-deal|listen|calibrate|
models|doctor|backup|restore|update|players] ...`` (cli.py runs them).

Each command's help is written in English where its parser is built (the
other modules' commands in their modules); ``words`` gives the whole
parser the user's language (``--lang``, else the config's, else Russian).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ..ops.doctor.command import doctor_parser
from .offline import calibrate_parser, listen_parser, protocol_parsers

LANG_HELP = (
    "language of the words, the protocol and the voice (default: the config's lang, else ru)"
)
RULESET_HELP = "the ruleset whose phrases are spoken (tournament)"


def arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line, parsed. The console's (no command, or ``console``)
    first by a parser that knows only the console: the other commands'
    parsers are built in their modules, and importing those (the club's
    backups, the models' downloads, the service's unit ...) would hold back
    the console's first screen. Anything else, help and errors included,
    goes to the whole parser, which says what a user gets wrong."""
    given = list(sys.argv[1:] if argv is None else argv)
    try:
        args, rest = parser(console_only=True).parse_known_args(given)
    except argparse.ArgumentError:  # not the console's: another command, or a mistake
        rest = given
    if not rest:
        return args
    # The whole parser speaks the user's language (commands/words.py): its help,
    # argparse's own words and its errors.
    from .words import argparse_words, config_lang, in_words, lang_given

    lang = lang_given(given) or config_lang()
    with argparse_words(lang):
        whole = parser()
        in_words(whole, lang)
        return whole.parse_args(given)


def parser(console_only: bool = False) -> argparse.ArgumentParser:
    """The whole command line, or (``console_only``) the console's alone,
    with no help of its own, raising ``ArgumentError`` and leaving what it
    does not know (``--help`` too) to the whole one (``arguments``). Its
    words are English: ``words.in_words`` puts the user's in place."""
    top = argparse.ArgumentParser(
        prog="companion", add_help=not console_only, exit_on_error=not console_only
    )
    top.add_argument("--lang", choices=("ru", "en"), help=LANG_HELP)
    # Global options work after the subcommand too (``companion replay X --lang en``):
    # the subcommands repeat them with no default, so they only override.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--lang", choices=("ru", "en"), default=argparse.SUPPRESS, help=LANG_HELP)
    sub = top.add_subparsers(dest="command")
    _console_parser(sub, common, console_only)
    if console_only:
        return top
    from ..club.commands import club_parsers
    from ..ears.models import models_parser
    from ..ops.service_command import service_parser
    from ..seats.selftest_command import selftest_parser

    voice = argparse.ArgumentParser(add_help=False)
    voice.add_argument("--voice", help="espeak-ng voice, e.g. ru, ru+f3, en (default: --lang)")
    voice.add_argument("--rate", type=int, help="words per minute (165)")
    voice.add_argument("--pack", help="a voice pack folder of recorded WAV files")
    voice.add_argument("--device", help="sound output device (default: the system's)")
    voice.add_argument("--captions", action="store_true", help="print cues, play no sound")
    voice.add_argument(
        "--captions-to", metavar="FILE", help="where captions go (default: standard output)"
    )
    voice.add_argument(
        "--host-log",
        metavar="FILE",
        help="where the host's lines and the result go (default: standard error)",
    )
    play = argparse.ArgumentParser(add_help=False, parents=[common, voice])
    play.add_argument(
        "--realtime", action="store_true", help="at the script's own pace, with the voice"
    )
    play.add_argument("--speed", type=float, help="with --realtime: play N times as fast (1)")
    play.add_argument("--json", action="store_true", help="print the final state as JSON")
    sub.add_parser("demo", parents=[common], help="replay the demo game and print its protocol")
    replay = sub.add_parser("replay", parents=[play], help="run a table script")
    replay.add_argument("script")
    replay.add_argument("--journal", help="journal every accepted input to this file")
    resume = sub.add_parser("resume", parents=[play], help="rebuild a game from its journal, go on")
    resume.add_argument("journal")
    resume.add_argument("--script", help="continue with this script after the journaled lines")
    sub.add_parser("rulesets", parents=[common], help="list the rulesets")
    selftest_parser(sub, common)
    say = sub.add_parser("say", parents=[common, voice], help="speak one cue, to try a voice")
    say.add_argument("cue", help="a cue of the phrase catalogue, e.g. vote_question")
    say.add_argument("args", nargs="*", help="NAME=VALUE, e.g. seat=3")
    say.add_argument("--ruleset", default="tournament", help=RULESET_HELP)
    voices = sub.add_parser("voices", parents=[common, voice], help="list or pre-render the voice")
    voices.add_argument("action", choices=("list", "build"))
    voices.add_argument("--ruleset", default="tournament", help=RULESET_HELP)
    voices.add_argument(
        "--seats", type=int, default=10, help="how many seats' numbers are rendered (10)"
    )
    _config_parser(sub, common)
    listen_parser(sub, common)
    calibrate_parser(sub, common)
    models_parser(sub, common)
    service_parser(sub, common)
    club_parsers(sub, common)
    doctor_parser(sub, common)
    protocol_parsers(sub, common)
    from ..hall.commands import hall_parser  # the tournament hall (docs/hall.md)

    hall_parser(sub, common)
    return top


def _console_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    common: argparse.ArgumentParser,
    console_only: bool = False,
) -> None:
    console = sub.add_parser(
        "console",
        parents=[common],
        help="the host's console (also: no command)",
        add_help=not console_only,
        exit_on_error=not console_only,
    )
    console.add_argument(
        "--microphone",
        metavar="DEVICE",
        help="listen for speech out of turn on this input (an index, part of a name, "
        "'' for the default, or file:REC.wav) whatever the config says",
    )
    console.add_argument(
        "--service",
        action="store_true",
        help="the service's start-up (systemd): an unfinished game is resumed without asking",
    )
    console.add_argument(
        "--inputs",
        metavar="SCRIPT",
        help="rehearsals and benches: play this table script at the live table (implies "
        "--service; after a restart it goes on after the inputs the journal holds)",
    )
    console.add_argument(
        "--speed",
        type=float,
        help="practice: the table's clock N times as fast, journaled as such (the simulated "
        "table's key t switches it off and on); with --inputs: the script's pace (1)",
    )


def _config_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    config = sub.add_parser(
        "config", parents=[common], help="where the club's config file is, what it sets"
    )
    config.add_argument(
        "action",
        choices=("path", "show"),
        help="path: the file ($COMPANION_CONFIG or the config folder); show: every value",
    )
