"""The last game's set-up, offered again by the next set-up screen: the
ruleset, the seat count, the names as the host typed them (a blank seat
stays blank), whether the roles came from the cards, and its options (a
procedure's, such as the forum game's).

It is a small TOML file beside the roster (``last-setup.toml`` in the
roster's folder, the club's data folder by default), written when the host
confirms a start::

    ruleset = "club"
    seats = 10
    cards = false
    names = ["Анна", "", "Борис"]
    options = []

Like the roster it is a convenience: a file that cannot be read or is not
a set-up is one warning line and the config's ruleset and seats, never an
error that stops a game. Writes are atomic and private (0600), as the
roster's are.
"""

from __future__ import annotations

import logging
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from ..config.show import toml_string
from ..core.procedures import every_option
from ..textfiles.toml_table import (
    MAX_FILE_BYTES,
    Context,
    DataFileError,
    TomlTable,
    decode_toml,
    parse_toml,
    show,
)
from .roster import clean_name, write_private

log = logging.getLogger(__name__)

FILE_NAME = "last-setup.toml"
#: The seat count's field takes two digits.
MAX_SEATS = 99

Warn = Callable[[str], None]


class LastSetupError(DataFileError):
    """A last set-up file that cannot be used; ``str()`` is one line."""


@dataclass(frozen=True, slots=True)
class LastSetup:
    ruleset: str  # a name the set-up screen lists
    seats: int
    names: tuple[str, ...] = ()  # per seat from 1, "" for a blank one
    cards: bool = False  # the roles from the cards the players drew
    options: tuple[str, ...] = ()  # the forum game's (FORUM_OPTIONS)

    def name(self, seat: int) -> str:
        """Seat `seat`'s name as typed last time ("" if none)."""
        return self.names[seat - 1] if 1 <= seat <= len(self.names) else ""

    def toml(self) -> str:
        names = ", ".join(toml_string(name) for name in self.names)
        options = ", ".join(toml_string(option) for option in self.options)
        return (
            "# Последняя расстановка: консоль предлагает её при новой игре (docs/console.md).\n"
            f"ruleset = {toml_string(self.ruleset)}\n"
            f"seats = {self.seats}\n"
            f"cards = {'true' if self.cards else 'false'}\n"
            f"names = [{names}]\n"
            f"options = [{options}]\n"
        )


def last_setup_path(roster: Path) -> Path:
    """Where the last set-up is kept: beside the roster (``[paths] roster``)."""
    return roster.with_name(FILE_NAME)


def read_last_setup(path: Path) -> LastSetup | None:
    """The set-up in `path`, None if there is no file; LastSetupError (one
    line naming the file) if it cannot be read or is not a set-up."""
    source = str(path)
    try:
        if not stat.S_ISREG(path.stat().st_mode):  # a pipe would block the console
            raise LastSetupError(source, None, None, "not a regular file")
        with path.open("rb") as stream:
            data = stream.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise LastSetupError(source, None, None, f"cannot be read ({error.strerror})") from None
    return parse_last_setup(decode_toml(data, source, LastSetupError), source)


def parse_last_setup(text: str, source: str) -> LastSetup:
    ctx = Context(source, text, LastSetupError)
    keys = ("ruleset", "seats", "cards", "names", "options")
    root = TomlTable(ctx, parse_toml(text, source, LastSetupError), (), keys)
    ruleset = root.str_("ruleset", required=True)
    if not ruleset or not ruleset.isprintable() or len(ruleset) > 200:
        root.fail("ruleset", f"expected a ruleset's name, got {show(ruleset)}")
    seats = root.int_("seats", minimum=2, maximum=MAX_SEATS)
    given = root.raw("names", required=False) or []
    if not isinstance(given, list):
        root.fail("names", f"expected an array of names, got {show(given)}")
    if len(given) > seats:
        root.fail("names", f"at most {seats} names (the seats), got {len(given)}")
    names: list[str] = []
    for index, item in enumerate(cast(list[object], given)):
        if not isinstance(item, str):
            ctx.fail(("names", index), f"expected a string, got {show(item)}")
        try:
            names.append(clean_name(item) if item.strip() else "")
        except ValueError as error:
            ctx.fail(("names", index), str(error))
    return LastSetup(
        ruleset,
        seats,
        tuple(names),
        root.bool_("cards", False),
        root.strs("options", every_option(), "option"),
    )


def load_last_setup(path: Path, warn: Warn | None = None) -> LastSetup | None:
    """The set-up in `path`, or None: none kept, or (one warning line) a
    file that cannot be used."""
    try:
        return read_last_setup(path)
    except LastSetupError as error:
        (warn or log.warning)(f"last set-up not offered: {error}")
        return None


def save_last_setup(path: Path, setup: LastSetup, warn: Warn | None = None) -> None:
    """Keep `setup` for the next set-up screen; a failed write is a warning
    line (the game starts all the same)."""
    try:
        write_private(path, setup.toml())
    except OSError as error:
        (warn or log.warning)(f"last set-up not saved: {path}: {error.strerror or error}")
