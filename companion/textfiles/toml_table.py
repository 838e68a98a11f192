"""Reading TOML files safely, and a parsed TOML table with typed getters.

:func:`decode_toml` and :func:`parse_toml` turn a file's bytes into tables
with every failure a one-line error: a file too large, bytes that are not
UTF-8, TOML syntax, numbers with too many digits, arrays and tables nested
too deeply. Rulesets, pin maps and phrase catalogues all read through them.

A :class:`TomlTable` wraps one table of ``tomllib``'s result together with its key
path. Unknown keys are refused as soon as the table is opened; each getter
checks presence, type and range and raises :class:`DataFileError` with the
source, the dotted key and the line of the offending key. Lines come from
:mod:`toml_lines`, computed only when an error is raised.
"""

from __future__ import annotations

import re
import sys
import tomllib
from collections.abc import Callable, Collection, Iterator
from difflib import get_close_matches
from typing import Any, NoReturn, cast

from .toml_lines import (
    KeyPath,
    clip_message,
    error_line,
    format_path,
    key_lines,
    line_of,
    nesting_line,
)

#: An id: snake_case, short enough to be part of a file name (voice cues).
ID = re.compile(r"[a-z][a-z0-9_]{0,63}\Z")
SNAKE = "must be snake_case (a-z, 0-9, _), at most 64 characters"
#: Limits of every TOML file read (docs/rulesets.md, "Limits").
MAX_FILE_BYTES = 1 << 20  # 1 MiB; the shipped files are 1-20 KB
MAX_DEPTH = 16  # tables and arrays within each other; the files use 5
MAX_ENTRIES = 100  # entries of a table of tables or an array of tables
MAX_ITEMS = 100  # strings in an array of strings

#: A dotted key or table header of more than MAX_DEPTH + 1 parts. tomllib
#: takes time quadratic in a key's parts (20 000 parts: 15 s), so such a key
#: is refused before tomllib sees it (it would be refused as too deep after).
#: Only where a key can start: a line's start, a header's bracket, an inline
#: table's brace or comma. Possessive and atomic groups: no backtracking.
_SEGMENT = r"""(?>[A-Za-z0-9_-]++|"(?:[^"\\\n]|\\.)*+"|'[^'\n]*+')"""
_LONG_KEY = re.compile(
    rf"(?:^|[{{,])[ \t\[]*+(?:{_SEGMENT}[ \t]*+\.[ \t]*+){{{MAX_DEPTH + 1}}}", re.M
)
_SYNTAX_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")
_SYNTAX_END = re.compile(r"\s*\(at end of document\)\s*$")


class DataFileError(ValueError):
    """A data file (a ruleset, the config, the roster, a pin map, the last
    set-up) that cannot be used; ``str()`` is one line naming where."""

    def __init__(self, source: str, key: str | None, line: int | None, message: str) -> None:
        self.source = source
        self.key = key
        self.line = line
        self.message = clip_message(message)
        super().__init__(str(self))

    def __str__(self) -> str:
        return error_line(self.source, self.key, self.line, self.message)

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt from its fields (the live table's process sends it to the
        # console, which words it): pickle's default passes str() alone.
        return type(self), (self.source, self.key, self.line, self.message)


#: What a reader raises: an error class taking (source, key, line, message).
ErrorType = Callable[[str, str | None, int | None, str], Exception]


def decode_toml(data: bytes, source: str, error: ErrorType = DataFileError) -> str:
    """A file's bytes as text: at most :data:`MAX_FILE_BYTES`, UTF-8 (a byte
    order mark is dropped: Windows editors write one)."""
    if len(data) > MAX_FILE_BYTES:
        raise error(source, None, None, f"the file is larger than {MAX_FILE_BYTES} bytes (1 MiB)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - data.rfind(b"\n", 0, exc.start)
        byte = f"0x{data[exc.start]:02x}"
        raise error(
            source, None, line, f"not UTF-8 text: byte {byte} at byte {column} of the line"
        ) from None
    return text.removeprefix("\ufeff")


def parse_toml(text: str, source: str, error: ErrorType = DataFileError) -> dict[str, object]:
    """``tomllib.loads`` whose every failure is `error`, one line naming the
    file and, where it can be known, the line."""
    if len(text) > MAX_FILE_BYTES:
        raise error(
            source, None, None, f"the text is too large: at most {MAX_FILE_BYTES} characters"
        )
    if match := _LONG_KEY.search(text):
        raise error(source, None, text.count("\n", 0, match.start()) + 1, _too_deep())
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise toml_syntax_error(source, text, exc, error) from None
    except RecursionError:
        # tomllib recurses once per level of arrays and inline tables
        raise error(source, None, nesting_line(text, MAX_DEPTH), _too_deep()) from None
    except ValueError as exc:  # an integer over Python's int max str digits
        raise _value_error(source, text, exc, error) from None
    ctx = Context(source, text, error)
    deep = _deeper_than(data, MAX_DEPTH)
    if deep is not None:
        ctx.fail(deep, _too_deep())
    return data


def toml_syntax_error(
    source: str, text: str, exc: tomllib.TOMLDecodeError, error: ErrorType = DataFileError
) -> Exception:
    """tomllib's message as one line naming the file and line."""
    message = str(exc)
    line: int | None = None
    if match := _SYNTAX_AT.search(message):
        line = int(match.group(1))
        message = f"{message[: match.start()]} (column {match.group(2)})"
    elif match := _SYNTAX_END.search(message):
        line = text.count("\n") + (0 if text.endswith("\n") else 1)
        message = f"{message[: match.start()]} (at the end of the file)"
    return error(source, None, line, f"invalid TOML: {message}")


def _too_deep() -> str:
    return f"tables and arrays nested more than {MAX_DEPTH} deep"


def _value_error(source: str, text: str, exc: ValueError, error: ErrorType) -> Exception:
    limit = sys.get_int_max_str_digits()
    if limit and (match := re.search(rf"[0-9][0-9_]{{{limit},}}", text)):
        line = text.count("\n", 0, match.start()) + 1
        return error(source, None, line, f"invalid TOML: an integer of more than {limit} digits")
    return error(source, None, None, f"invalid TOML: {exc}")


def _deeper_than(data: object, limit: int) -> KeyPath | None:
    """The path of a value nested deeper than `limit` keys, if any (a loop,
    not recursion: it must not fail on the depth it looks for)."""
    stack: list[tuple[KeyPath, object]] = [((), data)]
    while stack:
        path, value = stack.pop()
        if len(path) > limit:
            return path
        if isinstance(value, dict):
            stack.extend(((*path, key), item) for key, item in value.items())
        elif isinstance(value, list):
            stack.extend(((*path, index), item) for index, item in enumerate(value))
    return None


class Context:
    """One TOML file being read; ``error`` is the exception it raises (a
    subclass of :class:`DataFileError` for other kinds of file)."""

    def __init__(self, source: str, text: str, error: ErrorType = DataFileError) -> None:
        self.source = source
        self.text = text
        self.error = error
        self._lines: dict[KeyPath, int] | None = None

    def fail(self, path: KeyPath, message: str) -> NoReturn:
        if self._lines is None:
            self._lines = key_lines(self.text)
        line = line_of(self._lines, path)
        raise self.error(self.source, format_path(path) or None, line, message)


def show(value: object) -> str:
    """A value as a message shows it: strings quoted and cut, huge numbers
    by their size (``str()`` of a 5000-digit integer raises)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else repr(value[:37] + "...")
    if isinstance(value, int) and value.bit_length() > 64:
        if value.bit_length() > 14_000:  # past str()'s 4300 digits
            return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
        return f"an integer of {len(str(abs(value)))} digits"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    return str(value)


def one_of(value: str, allowed: Collection[str]) -> str:
    return f"{show(value)} is not one of {', '.join(allowed)}"


class TomlTable:
    """A TOML table being read: typed getters, unknown keys refused at once."""

    def __init__(
        self, ctx: Context, data: object, path: KeyPath, allowed: Collection[str] | None
    ) -> None:
        if not isinstance(data, dict):
            ctx.fail(path, f"expected a table, got {show(data)}")
        self.ctx, self.data, self.path = ctx, cast(dict[str, object], data), path
        if allowed is None:
            return
        for key in self.data:
            if key not in allowed:
                hint = get_close_matches(key, list(allowed), n=1) if len(key) <= 64 else []
                more = f"; did you mean '{hint[0]}'?" if hint else ""
                ctx.fail((*path, key), f"unknown key{more}")

    def fail(self, key: str | int | None, message: str) -> NoReturn:
        self.ctx.fail(self.path if key is None else (*self.path, key), message)

    def raw(self, key: str, required: bool) -> object:
        if key not in self.data and required:
            self.fail(key, "required key is missing")
        return self.data.get(key)

    def _typed(self, key: str, ok: type | tuple[type, ...], what: str, required: bool) -> object:
        value = self.raw(key, required)
        # bool is a subclass of int in Python, but not a number in TOML
        wrong = (ok is bool) != isinstance(value, bool) or not isinstance(value, ok)
        if value is not None and wrong:
            self.fail(key, f"expected {what}, got {show(value)}")
        return value

    def str_(self, key: str, default: str | None = None, *, required: bool = False) -> str:
        value = self._typed(key, str, "a string", required)
        return cast(str, default if value is None else value)

    def ident(self, key: str) -> str:
        """A required snake_case id (a night step's id, a voice cue)."""
        value = self.str_(key, required=True)
        if not ID.match(value):
            self.fail(key, SNAKE)
        return value

    def ref(self, key: str | int, what: str, value: str, known: Collection[str]) -> None:
        """Refuse `value` unless it names one of `known` (a dangling reference)."""
        if value not in known:
            listed = ", ".join(known) or "none defined"
            self.fail(key, f"unknown {what} {show(value)} (known: {listed})")

    def opt_str(self, key: str) -> str | None:
        return cast(str | None, self._typed(key, str, "a string", False))

    def int_(self, key: str, default: int | None = None, *, minimum: int = 0, maximum: int) -> int:
        value = self._typed(key, int, "an integer", default is None)
        number = cast(int, default if value is None else value)
        if number < minimum:
            self.fail(key, f"must be at least {minimum}, got {show(number)}")
        if number > maximum:
            self.fail(key, f"must be at most {maximum}, got {show(number)}")
        return number

    def opt_int(self, key: str, *, minimum: int = 1, maximum: int) -> int | None:
        if key not in self.data:
            return None
        return self.int_(key, minimum=minimum, maximum=maximum)

    def float_(
        self,
        key: str,
        default: float,
        *,
        minimum: float,
        maximum: float,
        off: bool = False,
        unit: str = "",
    ) -> float:
        """A number from `minimum` to `maximum`; with `off`, 0 too (0 = off).
        NaN and infinities are refused by the range; an integer is compared
        before it becomes a float (a 400-digit one would overflow)."""
        value = self._typed(key, (int, float), "a number", False)
        number = cast(float, default if value is None else value)
        if off and number == 0:
            return 0.0
        if not minimum <= number <= maximum:
            zero = " or 0 (off)" if off else ""
            bounds = f"from {minimum:g} to {maximum:g}{unit}{zero}"
            self.fail(key, f"must be {bounds}, got {show(number)}")
        return float(number)

    def bool_(self, key: str, default: bool) -> bool:
        value = self._typed(key, bool, "true or false", False)
        return default if value is None else cast(bool, value)

    def choice(self, key: str, allowed: tuple[str, ...], default: str | None = None) -> str:
        value = self.str_(key, default, required=default is None)
        if value not in allowed:
            self.fail(key, one_of(value, allowed))
        return value

    def strs(
        self, key: str, allowed: Collection[str] | None = None, what: str = ""
    ) -> tuple[str, ...]:
        """An array of distinct strings, each in `allowed` when given."""
        value = self._typed(key, list, "an array of strings", False)
        items = cast(list[object], value or [])
        if len(items) > MAX_ITEMS:
            self.fail(key, f"at most {MAX_ITEMS} items, got {len(items)}")
        seen: set[str] = set()
        for index, item in enumerate(items):
            path = (*self.path, key, index)
            if not isinstance(item, str):
                self.ctx.fail(path, f"expected a string, got {show(item)}")
            if allowed is not None and item not in allowed:
                listed = ", ".join(allowed) or "none defined"
                self.ctx.fail(path, f"unknown {what} {show(item)} (known: {listed})")
            if item in seen:
                self.ctx.fail(path, f"{show(item)} is listed twice")
            seen.add(item)
        return tuple(cast(list[str], items))

    def table(self, key: str, allowed: Collection[str] | None, required: bool) -> TomlTable | None:
        value = self.raw(key, required)
        return None if value is None else TomlTable(self.ctx, value, (*self.path, key), allowed)

    def entries(
        self, key: str, allowed: Collection[str], most: int = MAX_ENTRIES
    ) -> Iterator[tuple[str, TomlTable]]:
        """A table of tables keyed by id (``[offences.<id>]``), in file order."""
        outer = self.table(key, None, required=True)
        assert outer is not None
        if not outer.data:
            outer.fail(None, "must define at least one entry")
        if len(outer.data) > most:
            outer.fail(None, f"at most {most} entries, got {len(outer.data)}")
        for ident, body in outer.data.items():
            if not ID.match(ident):
                outer.fail(ident, f"an id {SNAKE}")
            yield ident, TomlTable(self.ctx, body, (*outer.path, ident), allowed)

    def array(self, key: str, allowed: Collection[str], required: bool) -> Iterator[TomlTable]:
        """An array of tables (``[[night]]``)."""
        value = self._typed(key, list, "an array of tables", required)
        items = cast(list[object], value or [])
        if len(items) > MAX_ENTRIES:
            self.fail(key, f"at most {MAX_ENTRIES} entries, got {len(items)}")
        for index, item in enumerate(items):
            yield TomlTable(self.ctx, item, (*self.path, key, index), allowed)
