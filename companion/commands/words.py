"""The command line's own words, Russian and English.

The language is ``--lang`` where the command line gives it, else the
club's config's ``lang``, else Russian. argparse's words ("usage:",
"options", "the following arguments are required") are looked up
through gettext (``argparse._``, ``argparse.ngettext``): ``argparse_words``
answers them in Russian while a parser is built and used. The help of the
commands and options is written in English where each parser is built;
``in_words`` puts the Russian of ``help.py`` in its place. The command
line's own errors and lines are ``line(key, lang, ...)``. Command names,
option names, choices and file names are names and stay as they are.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

from .help import HELP_RU, METAVARS_RU

LANGS = ("ru", "en")

#: argparse's own words (its gettext message ids) in Russian; the rest
#: (a parser built wrongly: "conflicting option string") are the
#: programmer's and stay English
ARGPARSE_RU: dict[str, str] = {
    "usage: ": "использование: ",
    "positional arguments": "аргументы",
    "options": "параметры",
    "subcommands": "команды",
    "show this help message and exit": "показать эту справку и выйти",
    "argument %(argument_name)s: %(message)s": "%(argument_name)s: %(message)s",
    "%(prog)s: error: %(message)s\n": "%(prog)s: ошибка: %(message)s\n",
    "unrecognized arguments: %s": "непонятные аргументы: %s",
    "the following arguments are required: %s": "не хватает аргументов: %s",
    "one of the arguments %s is required": "нужен один из аргументов: %s",
    "not allowed with argument %s": "нельзя вместе с %s",
    "ignored explicit argument %r": "лишнее значение %r",
    "expected one argument": "нужно одно значение",
    "expected at most one argument": "можно не больше одного значения",
    "expected at least one argument": "нужно хотя бы одно значение",
    "ambiguous option: %(option)s could match %(matches)s": (
        "неоднозначно: %(option)s — это может быть %(matches)s"
    ),
    "unexpected option string: %s": "неожиданный параметр: %s",
    # the type's name (int, float) is Python's: not shown
    "invalid %(type)s value: %(value)r": "неверное значение %(value)r",
    "invalid choice: %(value)r (choose from %(choices)s)": (
        "нет такого варианта: %(value)r (можно: %(choices)s)"
    ),
    "unknown parser %(parser_name)r (choices: %(choices)s)": (
        "нет команды %(parser_name)r (есть: %(choices)s)"
    ),
    "can't open '%(filename)s': %(error)s": "не открывается «%(filename)s»: %(error)s",
}
#: argparse's plural message ("expected 2 arguments"): one Russian form
_EXPECTED = ("expected %s argument", "expected %s arguments")
_EXPECTED_RU = "нужно значений: %s"

#: what ``companion --help`` says first
DESCRIPTION = {
    "ru": "Помощник ведущего живой игры в мафию. Без команды открывается консоль "
    "ведущего; у каждой команды своя справка: companion КОМАНДА --help. Ошибка — одна "
    "строка в стандартном потоке ошибок (companion: …) и код выхода 2.",
    "en": "The host's companion for live games of Mafia. With no command it opens the "
    "host's console; each command has its own help: companion COMMAND --help. An error "
    "is one line on standard error (companion: ...) and exit status 2.",
}
#: a command's command (``companion models list``) as its help names it
COMMAND_RU = "КОМАНДА"

#: the command line's own lines: key -> (Russian, English)
LINES: dict[str, tuple[str, str]] = {
    "speed": (
        "--speed {speed}: нужно число от 0,01 до 10000",
        "--speed {speed}: give a number from 0.01 to 10000",
    ),
    "live_only": (
        "{option}: только вместе с --realtime (обычный повтор игры не звучит и выводит "
        "только протокол или --json)",
        "{option}: only with --realtime (a plain replay plays no sound and prints only the "
        "protocol or --json)",
    ),
    "same_file": (
        "--captions-to и --host-log указывают на один файл: реплики — для стола, а строки "
        "ведущего — только для ведущего",
        "--captions-to and --host-log name the same file: captions are the table's, the "
        "host log is the host's alone",
    ),
    "folder": ("{path}: это папка; укажите имя файла", "{path}: is a folder; give a file name"),
    "no_setup": (
        "{source}: нет строки setup (начала игры): играть нечего",
        "{source}: no setup line: nothing to play",
    ),
    "say_args": (
        "say: «{item}»: аргументы пишутся как ИМЯ=ЗНАЧЕНИЕ",
        "say: {item!r}: give arguments as NAME=VALUE",
    ),
    "rendered": (
        "реплик записано и сохранено: {count} (голос {voice})",
        "{count} phrases rendered and cached ({voice})",
    ),
    "ruleset_changed": (
        "{where}: правила «{name}» изменились с начала этой игры",
        "{where}: ruleset {name!r} has changed since this game began",
    ),
}


def line(key: str, lang: str, **fields: Any) -> str:
    """A line of ``LINES`` in ``lang`` (English for any other)."""
    ru, en = LINES[key]
    return (ru if lang == "ru" else en).format(**fields)


class CliError(Exception):
    """A one-line message for the user, ``LINES[key]`` in the user's
    language (``str()``: English); the command line exits with status 2."""

    def __init__(self, key: str, **fields: Any) -> None:
        super().__init__(line(key, "en", **fields))
        self.key, self.fields = key, fields

    def said(self, lang: str) -> str:
        return line(self.key, lang, **self.fields)


def lang_given(argv: Sequence[str]) -> str | None:
    """The ``--lang`` of a command line (``--lang en``, ``--lang=en``),
    before it is parsed: argparse's words are chosen before they are
    needed; None when it gives none (or one that is no language)."""
    for index, arg in enumerate(argv):
        if arg == "--":
            break
        if arg == "--lang" and index + 1 < len(argv):
            value = argv[index + 1]
        elif arg.startswith("--lang="):
            value = arg.partition("=")[2]
        else:
            continue
        return value if value in LANGS else None
    return None


def config_lang() -> str:
    """The club's config's ``lang``; Russian when there is no config or it
    cannot be read (the command that uses the config says what is wrong)."""
    from ..config.load import load_config
    from ..config.values import ConfigError

    try:
        lang = load_config().lang
    except (ConfigError, OSError, ValueError):
        return "ru"
    return lang if lang in LANGS else "ru"


def _ru(message: str) -> str:
    return ARGPARSE_RU.get(message, message) if message is not None else message


def _ru_plural(singular: str, plural: str, count: int) -> str:
    if (singular, plural) == _EXPECTED:
        return _EXPECTED_RU
    return singular if count == 1 else plural


@contextlib.contextmanager
def argparse_words(lang: str) -> Iterator[None]:
    """argparse speaks ``lang`` inside: build and use the parser here."""
    if lang != "ru":
        yield
        return
    saved = argparse._, argparse.ngettext  # type: ignore[attr-defined]
    argparse._, argparse.ngettext = _ru, _ru_plural  # type: ignore[attr-defined]
    try:
        yield
    finally:
        argparse._, argparse.ngettext = saved  # type: ignore[attr-defined]


def in_words(parser: argparse.ArgumentParser, lang: str) -> list[str]:
    """The help of ``parser`` and of every command under it in ``lang``
    (build it inside ``argparse_words``); the English help strings and
    metavars with no Russian, which stay as they are (a test fails on them)."""
    parser.description = DESCRIPTION["ru" if lang == "ru" else "en"]
    missing: list[str] = []
    if lang == "ru":
        _translate(parser, missing, set())
    return missing


def _translate(parser: argparse.ArgumentParser, missing: list[str], done: set[int]) -> None:
    for action in parser._actions:
        # A parent's options are the same objects in every command that has them.
        if id(action) in done or isinstance(action, argparse._HelpAction):
            continue
        done.add(id(action))
        action.help = _help(action.help, missing)
        if isinstance(action, argparse._SubParsersAction):
            action.metavar = action.metavar or COMMAND_RU
            for choice in action._choices_actions:
                choice.help = _help(choice.help, missing)
            for sub in dict.fromkeys(action.choices.values()):
                _translate(sub, missing, done)
        elif action.nargs != 0 and action.choices is None:
            shown = action.metavar or (
                action.dest.upper() if action.option_strings else action.dest
            )
            if isinstance(shown, str):
                action.metavar = METAVARS_RU.get(shown, shown)
                if shown not in METAVARS_RU:
                    missing.append(f"metavar {shown}")


def _help(text: str | None, missing: list[str]) -> str | None:
    if text is None or text == argparse.SUPPRESS:
        return text
    said = HELP_RU.get(text)
    if said is None:
        missing.append(text)
        return text
    return said
