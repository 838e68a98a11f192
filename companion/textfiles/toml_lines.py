"""Where each key of a TOML document is defined: key path -> 1-based line.

``tomllib`` reports a line only for syntax errors. A ruleset error found
later (an unknown key, a bad value, a dangling reference) should still name
the line, so :func:`key_lines` walks the text once more, only as deep as is
needed to see keys, headers and the extent of values.

The text must already be valid TOML (``tomllib.loads`` succeeded); the
scanner then never has to report errors of its own. Paths are tuples of keys
and array indices, e.g. ``("ladder", "steps", 1, "at")`` for the ``at`` key of
the second ``[[ladder.steps]]`` table or of the second inline table in
``steps = [{...}, {...}]``.

It also holds what every TOML file's errors share: :func:`error_line`, the
one line an error prints, with keys and messages cut to a readable length
(a 50 MB value is never echoed whole) and nothing in them that could start a
new line; and :func:`nesting_line`, where brackets first nest too deeply.
"""

from __future__ import annotations

import re
import tomllib
from bisect import bisect_right
from contextlib import suppress

KeyPath = tuple[str | int, ...]

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_SCALAR_END = frozenset(",]}#\n")
#: Error messages show at most this many characters of one key, of the
#: whole key path, and of the message.
SHOWN_KEY = 40
SHOWN_PATH = 160
SHOWN_MESSAGE = 300
#: Keys of more parts than this are not mapped (no file of ours has them).
_MOST_PARTS = 64
#: What ends a token for :func:`nesting_line`: strings (whose brackets do not
#: count), comments, brackets and newlines.
_NEST_TOKEN = re.compile(
    r'"""(?:\\.|[^\\])*?"""|\'\'\'.*?\'\'\'|"(?:\\.|[^"\\\n])*"|\'[^\'\n]*\'|#[^\n]*|[\[\]{}\n]',
    re.S,
)


def key_lines(text: str) -> dict[KeyPath, int]:
    """Map every key path, table header and array element to its line.

    Should the scanner ever lose its way (it trusts the text to be valid
    TOML), it returns what it has mapped so far: a line is a help in an error
    message, never worth a second error.
    """
    scanner = _Scanner(text)
    # RecursionError: arrays nested hundreds deep (the error being reported)
    with suppress(_Lost, ValueError, RecursionError):
        scanner.document()
    return scanner.lines


class _Lost(Exception):
    """The text is not what the scanner expected."""


def line_of(lines: dict[KeyPath, int], path: KeyPath) -> int | None:
    """The line of `path`, else of its nearest enclosing key or table, else None."""
    for end in range(len(path), 0, -1):
        line = lines.get(path[:end])
        if line is not None:
            return line
    return None


def format_path(path: KeyPath) -> str:
    """``("offences", "x", "cost")`` -> ``offences.x.cost``; indices as ``[n]``.

    A key that is not a bare key is quoted, with quotes, backslashes and
    unprintable characters escaped, and cut to :data:`SHOWN_KEY` characters.
    """
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            part = clip(part, SHOWN_KEY)
            name = part if _BARE_KEY.fullmatch(part) else _quote(part)
            out += f".{name}" if out else name
    return out


def clip(text: str, limit: int) -> str:
    """`text` cut to at most `limit` characters, marked with "..." when cut."""
    return text if len(text) <= limit else text[: max(limit - 3, 0)] + "..."


def clip_message(message: str) -> str:
    """A message with its whitespace made single spaces and unprintable
    characters escaped, cut to :data:`SHOWN_MESSAGE` characters."""
    return clip(_printable(" ".join(message[: 2 * SHOWN_MESSAGE].split())), SHOWN_MESSAGE)


def error_line(source: str, key: str | None, line: int | None, message: str) -> str:
    """``source:line: key: message``, always one line of at most about 650
    characters, whatever the parts hold."""
    source = _printable(source)
    if len(source) > SHOWN_PATH:  # keep the end of a path: the file's name
        source = "..." + source[3 - SHOWN_PATH :]
    where = source if line is None else f"{source}:{line}"
    head = f"{where}: {clip(_printable(key), SHOWN_PATH)}: " if key else f"{where}: "
    return head + clip_message(message)


def nesting_line(text: str, limit: int) -> int | None:
    """The line where ``[`` and ``{`` outside strings and comments first nest
    deeper than `limit`, if they do. Only a help for an error already found:
    it does not check the text."""
    depth, line = 0, 1
    for match in _NEST_TOKEN.finditer(text):
        token = match.group()
        if token in ("[", "{"):
            depth += 1
            if depth > limit:
                return line
        elif token in ("]", "}"):
            depth = max(depth - 1, 0)
        else:
            line += token.count("\n")
    return None


def _quote(key: str) -> str:
    escaped = key.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + _printable(escaped) + '"'


def _printable(text: str) -> str:
    """Unprintable characters (newlines, U+2028, controls) as escapes."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode() for ch in text)


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.lines: dict[KeyPath, int] = {}
        self.newlines = [i for i, ch in enumerate(text) if ch == "\n"]
        #: array-of-tables path -> number of elements declared so far
        self.aot: dict[KeyPath, int] = {}

    # -- low level ---------------------------------------------------------
    def line(self) -> int:
        return bisect_right(self.newlines, self.pos - 1) + 1

    def peek(self, n: int = 1) -> str:
        return self.text[self.pos : self.pos + n]

    def advance(self, n: int) -> None:
        self.pos += n
        if self.pos > len(self.text):
            raise _Lost("past the end")

    def progressed(self, since: int) -> None:
        if self.pos == since:
            raise _Lost(f"stuck at offset {since}")

    def skip_blank(self) -> None:
        """Spaces and tabs."""
        while self.pos < len(self.text) and self.text[self.pos] in " \t":
            self.pos += 1

    def skip_comment(self) -> None:
        if self.peek() == "#":
            end = self.text.find("\n", self.pos)
            self.pos = len(self.text) if end < 0 else end

    def skip_space(self) -> None:
        """Whitespace, newlines and comments (inside arrays)."""
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            if ch in " \t\r\n":
                self.pos += 1
            elif ch == "#":
                self.skip_comment()
            else:
                return

    def record(self, path: KeyPath, line: int) -> None:
        self.lines.setdefault(path, line)

    # -- document ----------------------------------------------------------
    def document(self) -> None:
        table: KeyPath = ()
        while self.pos < len(self.text):
            since = self.pos
            self.skip_blank()
            ch = self.peek()
            if ch in ("\r", "\n"):
                self.pos += 1
            elif ch == "#":
                self.skip_comment()
            elif ch == "[":
                table = self.header()
            elif ch:
                self.key_value(table)
            self.progressed(since)

    def header(self) -> KeyPath:
        line = self.line()
        is_array = self.peek(2) == "[["
        self.pos += 2 if is_array else 1
        keys = self.keys()
        self.pos += 2 if is_array else 1
        head = self.resolve(keys[:-1] if is_array else keys, line)
        if not is_array:
            self.record(head, line)
            return head
        array = (*head, keys[-1])
        index = self.aot.get(array, 0)
        self.aot[array] = index + 1
        self.record(array, line)
        self.record((*array, index), line)
        return (*array, index)

    def resolve(self, keys: list[str], line: int) -> KeyPath:
        """A header's keys as a path, entering the last element of each
        array of tables on the way (``[a.b]`` after ``[[a]]`` means a[-1].b)."""
        path: KeyPath = ()
        for key in keys:
            path = (*path, key)
            self.record(path, line)
            if path in self.aot:
                path = (*path, self.aot[path] - 1)
        return path

    def keys(self) -> list[str]:
        """A dotted key; leaves the position after it and any blanks."""
        keys: list[str] = []
        while True:
            if len(keys) > _MOST_PARTS:  # recording every prefix is quadratic
                raise _Lost(f"a key of more than {_MOST_PARTS} parts")
            self.skip_blank()
            keys.append(self.key())
            self.skip_blank()
            if self.peek() != ".":
                return keys
            self.pos += 1

    def key(self) -> str:
        ch = self.peek()
        if ch in ('"', "'"):
            start = self.pos
            self.string()
            quoted = self.text[start : self.pos]
            return str(tomllib.loads(f"k = {quoted}")["k"])
        match = _BARE_KEY.match(self.text, self.pos)
        if match is None:
            raise _Lost(f"no key at offset {self.pos}")
        self.pos = match.end()
        return match.group()

    def key_value(self, table: KeyPath) -> None:
        line = self.line()
        keys = self.keys()
        for end in range(1, len(keys) + 1):
            self.record((*table, *keys[:end]), line)
        self.pos += 1  # "="
        self.skip_blank()
        self.value((*table, *keys))

    # -- values ------------------------------------------------------------
    def value(self, path: KeyPath) -> None:
        ch = self.peek()
        if ch in ('"', "'"):
            self.string()
        elif ch == "[":
            self.array(path)
        elif ch == "{":
            self.inline_table(path)
        else:
            while self.pos < len(self.text) and self.text[self.pos] not in _SCALAR_END:
                self.pos += 1

    def string(self) -> None:
        quote = self.peek()
        if self.peek(3) == quote * 3:
            self.pos += 3
            close = quote * 3
            while not self.text.startswith(close, self.pos):
                self.advance(2 if quote == '"' and self.peek() == "\\" else 1)
            self.pos += 3
            # up to two quotes may end the content right before the delimiter
            for _ in range(2):
                if self.peek() == quote:
                    self.pos += 1
            return
        self.pos += 1
        while self.peek() != quote:
            self.advance(2 if quote == '"' and self.peek() == "\\" else 1)
        self.pos += 1

    def array(self, path: KeyPath) -> None:
        self.pos += 1
        index = 0
        while True:
            self.skip_space()
            if self.peek() == "]":
                self.pos += 1
                return
            since = self.pos
            self.record((*path, index), self.line())
            self.value((*path, index))
            self.skip_space()
            if self.peek() == ",":
                self.pos += 1
            self.progressed(since)
            index += 1

    def inline_table(self, path: KeyPath) -> None:
        self.pos += 1
        while True:
            self.skip_blank()
            if self.peek() == "}":
                self.pos += 1
                return
            if self.peek() == ",":
                self.pos += 1
                continue
            since = self.pos
            self.key_value(path)
            self.progressed(since)
