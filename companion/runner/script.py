"""Table scripts: timed inputs as JSON Lines (docs/table-script.md).

One JSON object a line, ``#`` comments and blank lines allowed. A journal is
a table script too (its setup line carries ``"journal": true``, its timer
expiries are written out and each line ends with its checksum), so one
reader serves both. What each input's fields mean is the codec's
(``companion.runner.codec``); this module reads lines and their time.

Whatever the bytes, reading ends in a list of lines or one ``ScriptError``
naming the file and line: lines are split on ``\\n`` only (a U+2028 inside a
JSON string is valid), a line is at most ``MAX_LINE`` bytes, numbers are
finite and bounded, nesting is bounded.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.events import BadEvent, Event
from ..core.rules import Ruleset
from ..core.ruleset_load import DataFileError
from ..textfiles import regular_file
from . import codec, fields
from .bulk import without_gc_pauses
from .codec import RulesetLoader
from .fields import shown

#: the longest line read, in bytes (a setup for a hundred seats is ~2 KiB)
MAX_LINE = 65_536
#: the largest script or journal read (a three-hour game journals ~1 MB)
MAX_FILE = regular_file.MAX_FILE


class ScriptError(ValueError):
    """A script line that cannot be run; ``str()`` is one line naming it."""

    #: the ruleset of the game that refused the line's input (None: the
    #: line did not parse): the command line words a refusal with its names
    refused_in: Ruleset | None = None

    def __init__(self, source: str, line: int, text: str, message: str) -> None:
        shown_text = text if len(text) <= 80 else text[:77] + "..."
        shown_text = shown_text.replace("\r", "\\r").replace("\n", "\\n")
        where = f"{source}:{line}" if line else source  # 0: the file as a whole
        where = f"{where}: {shown_text}" if shown_text else where
        super().__init__(f"{where}: {message}")
        self.source, self.line, self.message = source, line, message
        self._given = (source, line, text, message)

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt from what it was given (the live table's process sends it
        # to the console, which words it): pickle's default passes str() alone.
        return type(self), self._given, self.__dict__


@dataclass(frozen=True, slots=True)
class ScriptLine:
    number: int  # 1-based line in the file
    at: float  # seconds since the start of the game
    fields: dict[str, Any]  # the object as written (minus time keys)
    text: str
    event: Event | None  # None for "wait"


def read_script(path: Path, load_ruleset: RulesetLoader) -> list[ScriptLine]:
    """Read and parse a whole script file (every line before anything runs)."""
    return parse_lines(split_lines(read_bytes(path), str(path)), str(path), load_ruleset)


def read_bytes(path: Path) -> bytes:
    """A script's bytes; a folder, a missing file, a huge file or what is no
    regular file (a FIFO, ``/dev/zero``) is a one-line error naming it."""
    if path.is_dir():
        raise ScriptError(str(path), 0, "", "is a folder, not a table script")
    # Not a file, or too large a one: regular_file.FileRefused, an OSError
    # whose line is in the user's words.
    return regular_file.read_regular(path, MAX_FILE)


def split_lines(data: bytes, source: str) -> list[str]:
    """The lines of a file, split on ``\\n`` only and decoded as UTF-8; a
    line too long or not UTF-8 is an error naming it."""
    lines = []
    for number, raw in enumerate(data.split(b"\n"), 1):
        lines.append(decode_line(raw, number, source))
    if lines and lines[-1] == "":
        lines.pop()  # the file's last newline ends a line; it opens none
    return lines


def decode_line(raw: bytes, number: int, source: str) -> str:
    if len(raw) > MAX_LINE:
        raise ScriptError(source, number, "", f"line is {len(raw)} bytes long (at most {MAX_LINE})")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ScriptError(
            source, number, "", f"not UTF-8 text (byte {error.start + 1} of the line)"
        ) from None


def parse_lines(
    lines: Iterable[str], source: str, load_ruleset: RulesetLoader, start_at: float = 0.0
) -> list[ScriptLine]:
    """Parse every line first, so that a broken line is found before anything runs."""
    parsed: list[ScriptLine] = []
    now = start_at
    with without_gc_pauses():
        for number, raw in enumerate(lines, 1):
            text = raw.strip(" \t\r")
            if not text or text.startswith("#"):
                continue
            line = parse_line(text, number, source, now, load_ruleset)
            now = line.at
            parsed.append(line)
    return parsed


def parse_line(
    text: str, number: int, source: str, now: float, load_ruleset: RulesetLoader
) -> ScriptLine:
    def fail(message: str) -> ScriptError:
        return ScriptError(source, number, text, message)

    if len(text) > MAX_LINE:
        raise fail(f"line is {len(text)} characters long (at most {MAX_LINE})")
    try:
        # NaN and Infinity parse (as JSON's Python reader allows them) and are
        # then refused by the codec, naming their key.
        obj = json.loads(text)
    except json.JSONDecodeError as error:
        raise fail(f"not JSON ({error.msg} at column {error.colno})") from None
    except RecursionError:
        raise fail("nested too deeply") from None
    except ValueError as error:  # an integer of more than 4300 digits
        raise fail(f"not a number a script may hold ({str(error).split(':')[0]})") from None
    if not isinstance(obj, dict):
        raise fail("a line must be a JSON object")
    name = obj.get("input")
    shapes = codec.shapes()
    if not isinstance(name, str) or name not in shapes:
        raise fail(f"'input' must be one of {', '.join(sorted(shapes))}, got {shown(name)}")
    allowed = codec.allowed(name)
    if not obj.keys() <= allowed:
        unknown = next(key for key in obj if key not in allowed)
        raise fail(f"unknown key {shown(unknown)} for input {name!r}")
    for key in shapes[name][0]:
        if key not in obj:
            raise fail(f"input {name!r} needs {key!r}")
    try:
        # To the microsecond, as the session keeps every input's time: a line
        # at a timer's deadline must meet it exactly, however it was summed.
        at = round(_time(obj, now), 6)
        event = codec.decode(name, obj, load_ruleset)
    except (BadEvent, DataFileError) as error:
        raise fail(str(error)) from None
    fields = {k: v for k, v in obj.items() if k not in ("at", "after", "sum")}
    return ScriptLine(number, at, fields, text, event)


def _time(obj: dict[str, Any], now: float) -> float:
    if "at" in obj and "after" in obj:
        raise BadEvent("give either 'at' or 'after', not both")
    if "at" in obj:
        at = obj["at"]
        if isinstance(at, int | float) and not isinstance(at, bool) and at < now:
            raise BadEvent(f"'at' must be a number of seconds not before {now:g}")
        return fields.seconds(at, "at", low=now)
    if "after" in obj:
        at = now + fields.seconds(obj["after"], "after", low=0.0)
        if at > fields.MAX_SECONDS:
            raise BadEvent(f"this line's time is past {fields.MAX_SECONDS:g} seconds")
        return at
    return now
