"""Reading a parsed TOML table with typed getters, for the ruleset loader.

A :class:`Table` wraps one table of ``tomllib``'s result together with its key
path. Unknown keys are refused as soon as the table is opened; each getter
checks presence, type and range and raises :class:`RulesetError` with the
source, the dotted key and the line of the offending key. Lines come from
:mod:`toml_lines`, computed only when an error is raised.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from difflib import get_close_matches
from typing import NoReturn, cast

from .toml_lines import KeyPath, format_path, key_lines, line_of

ID = re.compile(r"[a-z][a-z0-9_]*\Z")
SNAKE = "must be snake_case (a-z, 0-9, _)"


class RulesetError(ValueError):
    """A ruleset that cannot be used; ``str()`` is one line naming where."""

    def __init__(self, source: str, key: str | None, line: int | None, message: str) -> None:
        self.source = source
        self.key = key
        self.line = line
        self.message = " ".join(message.split())
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.source if self.line is None else f"{self.source}:{self.line}"
        return f"{where}: {self.key}: {self.message}" if self.key else f"{where}: {self.message}"


class Context:
    """One TOML file being read; ``error`` is the exception it raises (a
    subclass of :class:`RulesetError` for other kinds of file)."""

    def __init__(self, source: str, text: str, error: type[RulesetError] = RulesetError) -> None:
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
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else repr(value[:37] + "...")
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    return str(value)


def one_of(value: str, allowed: Collection[str]) -> str:
    return f"{show(value)} is not one of {', '.join(allowed)}"


class Table:
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
                hint = get_close_matches(key, list(allowed), n=1)
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

    def int_(self, key: str, default: int | None = None, *, minimum: int = 0) -> int:
        value = self._typed(key, int, "an integer", default is None)
        number = cast(int, default if value is None else value)
        if number < minimum:
            self.fail(key, f"must be at least {minimum}, got {number}")
        return number

    def opt_int(self, key: str, *, minimum: int = 1) -> int | None:
        return None if key not in self.data else self.int_(key, minimum=minimum)

    def float_(self, key: str, default: float) -> float:
        value = self._typed(key, (int, float), "a number", False)
        number = float(cast(float, default if value is None else value))
        if not 0 <= number < float("inf"):  # also refuses nan
            self.fail(key, f"must be a finite number, not negative, got {value}")
        return number

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
        for index, item in enumerate(items):
            path = (*self.path, key, index)
            if not isinstance(item, str):
                self.ctx.fail(path, f"expected a string, got {show(item)}")
            if allowed is not None and item not in allowed:
                listed = ", ".join(allowed) or "none defined"
                self.ctx.fail(path, f"unknown {what} {show(item)} (known: {listed})")
            if items.index(item) < index:
                self.ctx.fail(path, f"{show(item)} is listed twice")
        return tuple(cast(list[str], items))

    def table(self, key: str, allowed: Collection[str] | None, required: bool) -> Table | None:
        value = self.raw(key, required)
        return None if value is None else Table(self.ctx, value, (*self.path, key), allowed)

    def entries(self, key: str, allowed: Collection[str]) -> Iterator[tuple[str, Table]]:
        """A table of tables keyed by id (``[offences.<id>]``), in file order."""
        outer = self.table(key, None, required=True)
        assert outer is not None
        if not outer.data:
            outer.fail(None, "must define at least one entry")
        for ident, body in outer.data.items():
            if not ID.match(ident):
                outer.fail(ident, f"an id {SNAKE}")
            yield ident, Table(self.ctx, body, (*outer.path, ident), allowed)

    def array(self, key: str, allowed: Collection[str], required: bool) -> Iterator[Table]:
        """An array of tables (``[[night]]``)."""
        value = self._typed(key, list, "an array of tables", required)
        for index, item in enumerate(cast(list[object], value or [])):
            yield Table(self.ctx, item, (*self.path, key, index), allowed)
