"""The command line in the host's language (issue 23, must-hold 5): every
command's help, argparse's own words and its errors, and a broken script
line, Russian by default (no config), English with ``--lang en`` or the
config's ``lang = "en"``.

A Russian page may hold Latin only in names a user types: command and
option names, choices, metavars are Russian; file names and paths, and the
names listed in NAMES (formats, programs, ids a help gives as examples).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_here import companion_here
from helpers import ROOT

from companion import cli
from companion.commands import parser as cli_parser
from companion.commands.words import argparse_words, in_words
from companion.config.rulesets import available_rulesets

COMPANION = ROOT / ".venv" / "bin" / "companion"
LATIN = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
CYRILLIC = re.compile(r"[А-Яа-яЁё]")
#: names a Russian page may hold besides the parser's own (commands,
#: options, choices): formats, programs and devices, examples of ids
NAMES = {
    "companion", "JSON", "CSV", "HTML", "WAV", "UTF", "GPIO", "systemd", "espeak", "ng",
    "Raspberry", "Pi", "respeaker", "mic", "alphacephei", "vote_question", "seat", "f3",
    "lang", "t",
}  # fmt: skip
#: paths and file names, $ENVIRONMENT variables, [config] keys, option names
NOT_WORDS = re.compile(
    r"\S*/\S*|\S+\.(?:toml|wav|jsonl|md|gz)\b|\$\w+|\[\w+\] \w+|--?[A-Za-z][\w-]*"
)


@pytest.fixture(autouse=True)
def no_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No club's config: Russian; the test may write one."""
    path = tmp_path / "config.toml"
    monkeypatch.setenv("COMPANION_CONFIG", str(path))
    return path


def _parser(lang: str) -> tuple[argparse.ArgumentParser, list[str]]:
    with argparse_words(lang):
        parser = cli_parser.parser()
        return parser, in_words(parser, lang)


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:  # fmt: skip
    yield path
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _commands(sub, (*path, name))


def _names(parser: argparse.ArgumentParser) -> set[str]:
    """Every command name, option word and choice of the command line."""
    names = set(NAMES)
    for action in parser._actions:
        for option in action.option_strings:
            names |= set(LATIN.findall(option))
        if action.choices is not None:
            for choice in map(str, action.choices):
                names |= {choice, *LATIN.findall(choice)}
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                names |= _names(sub)
    return names


COMMANDS = list(_commands(_parser("en")[0]))
ALLOWED = _names(_parser("en")[0]) | set(available_rulesets())


def latin_words(text: str) -> list[str]:
    """The Latin words of a Russian text that are no names."""
    return [w for w in LATIN.findall(NOT_WORDS.sub(" ", text)) if w not in ALLOWED]


def test_every_help_and_metavar_has_russian_words() -> None:
    assert len(COMMANDS) > 20  # companion, its commands and theirs
    assert _parser("ru")[1] == []  # no help or metavar left English (commands/help.py)
    assert _parser("en")[1] == []


def _help(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    with pytest.raises(SystemExit) as done:
        cli.main([*args, "--help"])
    assert done.value.code == 0
    out, err = capsys.readouterr()
    assert err == ""
    return out


@pytest.mark.parametrize("command", COMMANDS, ids=[" ".join(c) or "companion" for c in COMMANDS])
def test_every_help_page_in_both_languages(
    capsys: pytest.CaptureFixture[str], command: tuple[str, ...]
) -> None:
    ru = _help(capsys, *command)
    assert ru.startswith("использование: companion") and "\nпараметры:\n" in ru
    assert "показать эту справку и выйти" in ru
    assert latin_words(ru) == [], ru
    en = _help(capsys, *command, "--lang", "en")
    assert en.startswith("usage: companion") and "\noptions:\n" in en
    assert "show this help message and exit" in en
    assert not CYRILLIC.search(en), en


def test_the_configs_language_and_the_command_lines(
    capsys: pytest.CaptureFixture[str], no_config: Path
) -> None:
    no_config.write_text('lang = "en"\n', encoding="utf-8")
    assert _help(capsys, "replay").startswith("usage: companion replay")
    assert _help(capsys, "replay", "--lang", "ru").startswith("использование: companion replay")
    assert _help(capsys, "--lang=ru").startswith("использование: companion")
    no_config.write_text('lang = "de"\n', encoding="utf-8")  # a config that does not read
    assert _help(capsys, "replay").startswith("использование: companion replay")


def test_the_console_keeps_its_fast_path() -> None:
    """The console's own options parse without the words (the first
    screen waits for nothing more); its help and mistakes get them."""
    code = (
        "import sys; from companion.commands.parser import arguments\n"
        "arguments([]); arguments(['console', '--speed', '3', '--lang', 'en'])\n"
        "print('companion.commands.words' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.stdout.strip() == "False", done.stderr


# --- the real command, as a user runs it --------------------------------------------


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "COMPANION_"))}
    return env | {"HOME": str(home), "XDG_CONFIG_HOME": str(home / "cfg")}


#: (the arguments, the exit status, what the Russian says, what the English says)
RUNS: list[tuple[list[str], int, str, str]] = [
    ([], 0, "Помощник ведущего", "The host's companion"),  # with --help
    (["console"], 0, "--inputs СЦЕНАРИЙ", "--inputs SCRIPT"),  # with --help
    (["replay"], 2, "companion replay: ошибка: не хватает аргументов: СЦЕНАРИЙ",
     "companion replay: error: the following arguments are required: script"),
    (["protocol", "j.jsonl", "--format", "pdf"], 2,
     "--format: нет такого варианта: 'pdf' (можно: 'text', 'json', 'csv', 'html')",
     "argument --format: invalid choice: 'pdf' (choose from 'text', 'json', 'csv', 'html')"),
    (["replay", "x.jsonl", "--speed", "fast"], 2, "--speed: неверное значение 'fast'",
     "argument --speed: invalid float value: 'fast'"),
    (["replay", "x.jsonl", "--loud"], 2, "companion: ошибка: непонятные аргументы: --loud",
     "companion: error: unrecognized arguments: --loud"),
    (["console", "--speed"], 2, "--speed: нужно одно значение", "expected one argument"),
    (["models"], 2, "не хватает аргументов: КОМАНДА",
     "the following arguments are required: models_action"),
    (["dance"], 2, "КОМАНДА: нет такого варианта: 'dance'", "invalid choice: 'dance'"),
    (["replay", "bad.jsonl"], 2, '{"input": "press", "seat": 0}: «seat» — номер места',
     "'seat' must be a seat number (1, 2, ...), got 0"),
    (["replay", "x.jsonl", "--captions"], 2, "--captions: только вместе с --realtime",
     "--captions: only with --realtime"),
]  # fmt: skip


#: how many of RUNS start the real command in a process of its own (in
#: both languages); the others run in the test's process (tests/cli_here.py)
IN_PROCESSES = 2


def test_the_real_command_in_both_languages(tmp_path: Path) -> None:
    (tmp_path / "bad.jsonl").write_text(
        '{"input": "setup", "ruleset": "club"}\n{"input": "press", "seat": 0}\n', encoding="utf-8"
    )
    (tmp_path / "x.jsonl").write_text('{"input": "setup", "ruleset": "club"}\n', encoding="utf-8")
    env = _env(tmp_path / "home")
    started = []
    for index, (args, status, ru, en) in enumerate(RUNS):
        helped = ["--help"] if status == 0 else []
        for lang, said in ((None, ru), ("en", en)):
            argv = [*args, *helped, *(["--lang", lang] if lang else [])]
            if index < IN_PROCESSES:
                process = subprocess.Popen(
                    [str(COMPANION), *argv], cwd=tmp_path, env=env, text=True,
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                )  # fmt: skip
                started.append((argv, process, status, said, lang))
            else:
                done = companion_here(*argv, env=env, cwd=tmp_path)
                _check_words(argv, done.returncode, done.stdout, done.stderr, status, said, lang)
    for argv, process, status, said, lang in started:
        out, err = process.communicate(timeout=120)
        _check_words(argv, process.returncode, out, err, status, said, lang)


def _check_words(
    argv: list[str], code: int, out: str, err: str, status: int, said: str, lang: str | None
) -> None:
    shown = out if status == 0 else err
    assert code == status, (argv, err)
    assert said in shown, (argv, shown)
    if lang is None:
        # the file's own line, and what the user typed (in quotes), are theirs
        echoed = re.sub(r"'[^']*'", "", shown.replace('{"input": "press", "seat": 0}', ""))
        assert latin_words(echoed) == [], (argv, shown)
    else:
        assert not CYRILLIC.search(shown), (argv, shown)
