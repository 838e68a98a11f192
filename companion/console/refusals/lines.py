"""One line for an error the command line prints or the console shows, in
the host's words (Russian by default; English keeps the reader's and the
core's own words, which name inputs and keys as a script writes them).

A script's line the game refused is worded as the console words a refusal
(``refusals``); a line that does not parse, a journal that cannot be
taken and what a resume warns of are worded from ``refusals/script.py``; an
OS error by its reason. A message with no words here stays as it is (and
is logged): the reader's words are better than none.

Imports no Textual: the command line uses it. A table its process could
not build is worded here by the error that process met (``TableFailed.reason``).
"""

from __future__ import annotations

import logging
from functools import cache

from ...live.table_messages import TableFailed
from ...runner.journal_check import JournalDamaged, JournalError
from ...runner.script import ScriptError
from ...textfiles.regular_file import FileRefused
from ...textfiles.toml_table import DataFileError
from .inputs import MALFORMED
from .script import DAMAGE_END, JOURNAL_DAMAGE, JOURNAL_LINES, SCRIPT_LINES
from .wording import Patterns, compiled, match, os_words, refusal_words, split_reason, worded

log = logging.getLogger(__name__)


def error_line(error: BaseException, lang: str) -> str:
    """``error`` as one line for the user (the command line adds
    ``companion: `` before it; the console shows it in a notice)."""
    if isinstance(error, TableFailed) and error.reason is not None:
        error = error.reason  # what the table's process met, worded here
    if isinstance(error, FileRefused):  # not a regular file, or too large
        return error.said(lang)
    if isinstance(error, OSError) and error.filename is not None and error.strerror:
        return f"{error.filename}: {os_words(error.strerror, lang)}"
    if isinstance(error, ScriptError):
        return script_error_line(error, lang)
    if isinstance(error, JournalError):
        return journal_error_line(error, lang)
    text = str(error)
    if lang != "ru":
        return text
    table = _script() if isinstance(error, DataFileError) else _journal()
    return _said(text, table, lang) or text


def script_error_line(error: ScriptError, lang: str) -> str:
    """``source:line: the line: why``, the why in words: an input the game
    refused as the console words it, a line that did not parse from
    ``SCRIPT_LINES`` (and the core's ``MALFORMED``)."""
    text = str(error)
    if lang != "ru" or not text.endswith(error.message):
        return text
    name, message = split_reason(error.message)
    said = None
    if error.refused_in is not None or name is not None:  # refused: "input: why"
        said = refusal_words(name, message, error.refused_in, lang)
    if said is None:
        said = _said(error.message, _script(), lang)
    if said is None:
        log.warning("a script error with no words in %s: %s", lang, error.message)
        return text
    return text[: len(text) - len(error.message)] + said


def journal_error_line(error: JournalError, lang: str) -> str:
    """A journal that cannot be taken or read, in words: a damaged line's
    ``source:line: why; resume refused``, or the others' ``path: why``."""
    text = str(error)
    if lang != "ru":
        return text
    if isinstance(error, JournalDamaged):
        head, end = f"{error.source}:{error.line}: ", DAMAGE_END[0]
        if text.startswith(head) and text.endswith(end):
            why = _said(text[len(head) : -len(end)], _damage(), lang)
            if why is not None:
                return f"{head}{why}{DAMAGE_END[1]}"
    said = _said(text, _journal(), lang) or refusal_words(None, text, None, lang)
    if said is None:
        log.warning("a journal error with no words in %s: %s", lang, text)
    return said or text


def journal_warning(text: str, lang: str) -> str:
    """What a resume warns of (a torn last line dropped, no lock file, the
    game went on elsewhere), in words."""
    if lang != "ru":
        return text
    return _said(text, _journal(), lang) or text


def _said(message: str, patterns: Patterns, lang: str) -> str | None:
    found = match(message, patterns)
    return worded(*found, None, lang) if found is not None else None


@cache
def _script() -> Patterns:
    # The reader's templates first: the core's "{} must be a seat number ..."
    # reads the same, and a script's line is the reader's before the core's.
    return compiled({**SCRIPT_LINES, **MALFORMED})


@cache
def _journal() -> Patterns:
    return compiled(JOURNAL_LINES)


@cache
def _damage() -> Patterns:
    return compiled(JOURNAL_DAMAGE)
