"""The club's remembered players: order, bounds, atomic private writes, and a
bad file that warns and never stops a game."""

from __future__ import annotations

import datetime as dt
import os
import stat
from pathlib import Path

import pytest

from companion.club import roster as roster_module
from companion.club.roster import (
    MAX_NAME_CHARS,
    MAX_PLAYERS,
    Player,
    Roster,
    RosterError,
    clean_name,
    load_roster,
    read_roster,
    remember,
    save_roster,
)

DAY1, DAY2, DAY3 = dt.date(2026, 11, 28), dt.date(2026, 11, 29), dt.date(2026, 11, 30)


def warnings() -> tuple[list[str], roster_module.Warn]:
    said: list[str] = []
    return said, said.append


@pytest.mark.parametrize(
    ("given", "kept"),
    [("Анна", "Анна"), ("  Анна   Каренина ", "Анна Каренина"), ("x" * 40, "x" * 40)],
)
def test_clean_names(given: str, kept: str) -> None:
    assert clean_name(given) == kept


@pytest.mark.parametrize(
    ("given", "bit"),
    [("", "empty"), ("   ", "empty"), ("x" * 41, "at most 40"), ("a\u200bb", "cannot be shown")],
)
def test_names_refused(given: str, bit: str) -> None:
    with pytest.raises(ValueError, match=bit) as caught:
        clean_name(given)
    assert len(str(caught.value).splitlines()) == 1


def test_most_recent_then_most_frequent(tmp_path: Path) -> None:
    path = tmp_path / "roster.toml"
    said, warn = warnings()
    remember(path, ["Борис", "Анна", "Вера"], DAY1, warn)
    remember(path, ["Борис", "Анна"], DAY2, warn)
    remember(path, ["Борис"], DAY2, warn)
    remember(path, ["Глеб", "вера"], DAY3, warn)  # вера is Вера, spelled anew
    assert load_roster(path, warn).names() == [
        "вера",
        "Глеб",
        "Борис",
        "Анна",
    ]  # same day: more games first
    players = {p.name: p for p in read_roster(path).players}
    assert players["Борис"] == Player("Борис", 3, DAY2)
    assert players["вера"] == Player("вера", 2, DAY3)
    assert said == []


def test_a_name_twice_in_a_game_is_one_game() -> None:
    assert Roster().with_game(["Анна", "Анна"], DAY1).players == (Player("Анна", 1, DAY1),)


def test_bad_names_are_left_out_with_a_warning(tmp_path: Path) -> None:
    said, warn = warnings()
    roster = remember(tmp_path / "r.toml", ["Анна", "", "y" * 50], DAY1, warn)
    assert roster.names() == ["Анна"]
    assert len(said) == 2 and all("not remembered" in line for line in said)


def test_written_privately_and_atomically(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "roster.toml"
    remember(path, ['Кавычка " и \\ слэш', "Ёж"], DAY1)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(os.listdir(path.parent)) == ["roster.toml"]  # no temporary left
    assert set(read_roster(path).names()) == {'Кавычка " и \\ слэш', "Ёж"}


def test_a_failed_write_leaves_the_old_roster(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "roster.toml"
    remember(path, ["Анна"], DAY1)
    before = path.read_bytes()

    def broken(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(roster_module.os, "fsync", broken)
    said, warn = warnings()
    roster = remember(path, ["Борис"], DAY2, warn)
    assert roster.names() == ["Борис", "Анна"]  # the game's roster, in memory
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["roster.toml"]
    assert said == [f"roster not saved: {path}: No space left on device"]


def test_the_limit_keeps_the_recent_ones() -> None:
    crowd = Roster().with_game([f"p{n}" for n in range(MAX_PLAYERS)], DAY1)
    after = crowd.with_game(["новый"], DAY2)
    assert len(after.players) == MAX_PLAYERS
    assert after.names()[0] == "новый"


def test_a_hand_written_roster(tmp_path: Path) -> None:
    path = tmp_path / "roster.toml"
    path.write_text(
        'players = [\n  { name = "Анна" },\n  { name = " Борис ", games = 4 },\n'
        '  { name = "анна", games = 2, last = 2026-11-30 },\n]\n',
        encoding="utf-8",
    )
    roster = read_roster(path)
    assert roster.players == (Player("Анна", 2, DAY3), Player("Борис", 4, None))


BAD = [
    ("not toml", b"players = [\n", "invalid TOML"),
    ("not utf-8", b'players = [{ name = "\xff" }]\n', "not UTF-8"),
    ("unknown key", b'people = ["x"]\n', "unknown key"),
    ("not a list", b'players = "Anna"\n', "expected an array"),
    ("no name", b"players = [{ games = 3 }]\n", "required key is missing"),
    ("long name", b'players = [{ name = "' + b"x" * 41 + b'" }]\n', "at most 40"),
    ("bad games", b'players = [{ name = "a", games = -1 }]\n', "at least 0"),
    ("bad day", b'players = [{ name = "a", last = "yesterday" }]\n', "a day like"),
    ("a time", b'players = [{ name = "a", last = 2026-11-30T20:00:00 }]\n', "a day like"),
    ("deep", b"players = " + b"[" * 3000 + b"]" * 3000 + b"\n", "nested"),
]


@pytest.mark.parametrize(("data", "bit"), [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_a_bad_file_warns_and_is_empty(tmp_path: Path, data: bytes, bit: str) -> None:
    path = tmp_path / "roster.toml"
    path.write_bytes(data)
    with pytest.raises(RosterError, match=bit):
        read_roster(path)
    said, warn = warnings()
    assert load_roster(path, warn) == Roster()
    assert len(said) == 1 and len(said[0].splitlines()) == 1
    assert said[0].startswith(f"roster not used: {path}")


def test_remember_keeps_a_bad_file_aside(tmp_path: Path) -> None:
    path = tmp_path / "roster.toml"
    path.write_bytes(b"players = [ hand-typed mess\n")
    said, warn = warnings()
    assert remember(path, ["Анна"], DAY1, warn).names() == ["Анна"]
    assert (tmp_path / "roster.toml.bad").read_bytes() == b"players = [ hand-typed mess\n"
    assert read_roster(path).names() == ["Анна"]
    assert len(said) == 1 and said[0].endswith(f"kept as {path}.bad")


def test_not_a_regular_file(tmp_path: Path) -> None:
    fifo = tmp_path / "roster.toml"
    os.mkfifo(fifo)
    said, warn = warnings()
    assert load_roster(fifo, warn) == Roster()  # and did not block
    assert "not a regular file" in said[0]
    assert load_roster(tmp_path, warn) == Roster()


def test_missing_is_empty_without_a_warning(tmp_path: Path) -> None:
    said, warn = warnings()
    assert load_roster(tmp_path / "none.toml", warn) == Roster()
    assert said == []


def test_save_then_read_round_trips(tmp_path: Path) -> None:
    roster = Roster((Player("Анна", 3, DAY3), Player("Борис", 1, None)))
    save_roster(tmp_path / "r.toml", roster)
    assert read_roster(tmp_path / "r.toml") == roster
    assert MAX_NAME_CHARS == 40
