"""The club's remembered players: names the console offers when a table is
set up, the most recent and most frequent first.

The roster is a small TOML file (``[paths] roster`` in the config), one
player a line, which a club may also write by hand (``games`` and ``last``
may be left out)::

    players = [
      { name = "Анна", games = 12, last = 2026-11-30 },
    ]

A roster is a convenience: a file that cannot be read or is not a roster
gives one warning line and an empty roster, never an error that stops a
game. :func:`remember` keeps such a file as ``<name>.bad`` before writing
a new one, so nothing typed by hand is lost; :func:`forget` takes a game
back. Writes are atomic (a temporary file renamed over the old one) and
private to the user (0600).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import os
import stat
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from ..config.show import toml_string
from ..textfiles.toml_table import (
    MAX_FILE_BYTES,
    Context,
    DataFileError,
    TomlTable,
    decode_toml,
    parse_toml,
    show,
)

log = logging.getLogger(__name__)

#: A name as a seat's card shows it.
MAX_NAME_CHARS = 40
#: Far more than a club meets; keeps the file well under the 1 MiB TOML limit.
MAX_PLAYERS = 5000
#: More games than a player can play; a bound for hand-written numbers.
MAX_GAMES = 1_000_000

Warn = Callable[[str], None]


class RosterError(DataFileError):
    """A roster file that cannot be used; ``str()`` is one line."""


def clean_name(text: str) -> str:
    """A player's name as kept: spaces collapsed and stripped, at most
    :data:`MAX_NAME_CHARS` printable characters; ValueError (one line) if not."""
    name = " ".join(text.split())
    if not name:
        raise ValueError("a player's name cannot be empty")
    if len(name) > MAX_NAME_CHARS:
        raise ValueError(f"{show(name)}: at most {MAX_NAME_CHARS} characters, got {len(name)}")
    if not name.isprintable():
        raise ValueError(f"{show(name)}: holds a character that cannot be shown")
    return name


@dataclass(frozen=True, slots=True)
class Player:
    name: str
    games: int = 0
    last: dt.date | None = None  # the day of their last game here


def _order(player: Player) -> tuple[int, int, str]:
    # The most recent day first (tonight's table at the top), then the regulars.
    day = player.last.toordinal() if player.last else 0
    return (-day, -player.games, player.name.casefold())


@dataclass(frozen=True, slots=True)
class Roster:
    """Players, most recent first, then most games, then by name."""

    players: tuple[Player, ...] = ()

    def names(self) -> list[str]:
        return [player.name for player in self.players]

    def with_game(self, names: Iterable[str], day: dt.date) -> Roster:
        """The roster after a game on `day` by `names` (already clean; the
        same name in any case is one player, spelled as given now)."""
        by_key = {player.name.casefold(): player for player in self.players}
        for name in dict.fromkeys(names, None):  # a name twice in one game: one game
            old = by_key.get(name.casefold(), Player(name))
            by_key[name.casefold()] = Player(name, min(old.games + 1, MAX_GAMES), day)
        return Roster(tuple(sorted(by_key.values(), key=_order)[:MAX_PLAYERS]))

    def without_game(self, names: Iterable[str]) -> Roster:
        """The roster with one game of `names` taken back (a game counted,
        then undone to before its first night's end); a player left with no
        game goes, as the game brought them. The day of the last game stays:
        the one before is not kept."""
        keys = {name.casefold() for name in names}
        kept: list[Player] = []
        for player in self.players:
            if player.name.casefold() in keys:
                if player.games <= 1:
                    continue
                player = Player(player.name, player.games - 1, player.last)
            kept.append(player)
        return Roster(tuple(sorted(kept, key=_order)))

    def toml(self) -> str:
        lines = [
            "# Игроки клуба: companion дописывает их после каждой игры (docs/config.md).",
            "# games: сколько игр сыграно; last: день последней игры.",
            "players = [",
        ]
        for player in self.players:
            fields = [f"name = {toml_string(player.name)}", f"games = {player.games}"]
            if player.last is not None:
                fields.append(f"last = {player.last.isoformat()}")
            lines.append("  { " + ", ".join(fields) + " },")
        return "\n".join([*lines, "]"]) + "\n"


def read_roster(path: Path) -> Roster:
    """The roster in `path`, empty if there is no file; RosterError (one
    line naming the file) if it cannot be read or is not a roster."""
    source = str(path)
    try:
        if not stat.S_ISREG(path.stat().st_mode):  # a pipe would block the console
            raise RosterError(source, None, None, "not a regular file")
        with path.open("rb") as stream:
            data = stream.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        return Roster()
    except OSError as error:
        raise RosterError(source, None, None, f"cannot be read ({error.strerror})") from None
    text = decode_toml(data, source, RosterError)
    return parse_roster(text, source)


def parse_roster(text: str, source: str) -> Roster:
    ctx = Context(source, text, RosterError)
    root = TomlTable(ctx, parse_toml(text, source, RosterError), (), ("players",))
    items = root.raw("players", required=False) or []
    if not isinstance(items, list):
        root.fail("players", f"expected an array of players, got {show(items)}")
    if len(items) > MAX_PLAYERS:
        root.fail("players", f"at most {MAX_PLAYERS} players, got {len(items)}")
    by_key: dict[str, Player] = {}
    for index, item in enumerate(cast(list[object], items)):
        entry = TomlTable(ctx, item, ("players", index), ("name", "games", "last"))
        given = entry.str_("name", required=True)
        try:
            name = clean_name(given)
        except ValueError as error:
            entry.fail("name", str(error))
        games = entry.int_("games", 0, minimum=0, maximum=MAX_GAMES)
        last = entry.raw("last", required=False)
        if last is not None and (not isinstance(last, dt.date) or isinstance(last, dt.datetime)):
            entry.fail("last", f"expected a day like 2026-11-30, got {show(last)}")
        old = by_key.get(name.casefold())
        if old is not None:  # the same player twice (by hand): one, with both counts
            days = [day for day in (old.last, last) if day is not None]
            by_key[name.casefold()] = Player(
                old.name, min(old.games + games, MAX_GAMES), max(days, default=None)
            )
        else:
            by_key[name.casefold()] = Player(name, games, last)
    return Roster(tuple(sorted(by_key.values(), key=_order)))


def load_roster(path: Path, warn: Warn | None = None) -> Roster:
    """The roster in `path`; a bad or unreadable file is one warning line
    and an empty roster (a game never waits on its roster)."""
    try:
        return read_roster(path)
    except RosterError as error:
        (warn or log.warning)(f"roster not used: {error}")
        return Roster()


def save_roster(path: Path, roster: Roster) -> None:
    """Write atomically (:func:`write_private`)."""
    write_private(path, roster.toml())


def write_private(path: Path, text: str) -> None:
    """Write atomically: a temporary file beside it (0600, its folder made
    0700), synced, renamed over the old one, so a crash leaves the old file
    or the new, never half. The last set-up (``last_setup``) is written so too."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    with contextlib.suppress(OSError):  # the rename itself survives a power cut
        folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


def remember(
    path: Path, names: Iterable[str], day: dt.date | None = None, warn: Warn | None = None
) -> Roster:
    """Add a game's players to the roster in `path` and save it (the
    console counts a game once its first night is over: players_count.py).
    Names that are not clean are left out; every trouble (a bad file, kept
    as ``<name>.bad``; a failed write) is a warning line, never an error."""
    say = warn or log.warning
    try:
        roster = read_roster(path)
    except RosterError as error:
        roster = Roster()
        aside = path.with_name(path.name + ".bad")
        try:
            os.replace(path, aside)
            say(f"roster not used: {error}; kept as {aside}")
        except OSError as moving:
            say(f"roster not used: {error}; not replaced ({moving.strerror})")
            return roster
    clean: list[str] = []
    for name in names:
        try:
            clean.append(clean_name(name))
        except ValueError as error:
            say(f"roster: name not remembered: {error}")
    roster = roster.with_game(clean, day or dt.date.today())
    try:
        save_roster(path, roster)
    except OSError as error:
        say(f"roster not saved: {path}: {error.strerror or error}")
    return roster


def forget(path: Path, names: Iterable[str], warn: Warn | None = None) -> Roster:
    """Take one game of `names` back from the roster in `path`
    (:meth:`Roster.without_game`). A file that cannot be read is left as
    it is; every trouble is a warning line, never an error."""
    say = warn or log.warning
    try:
        roster = read_roster(path).without_game(names)
    except RosterError as error:
        say(f"roster not changed: {error}")
        return Roster()
    try:
        save_roster(path, roster)
    except OSError as error:
        say(f"roster not saved: {path}: {error.strerror or error}")
    return roster
