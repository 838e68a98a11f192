"""``companion hall init`` and ``add-table`` through the command line: the
folder a director gets, the lines a table pastes, and a broker that runs on
them (tests/hall_broker.py)."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from hall_broker import Listener, free_port, make_hall, needs_mosquitto
from helpers import ROOT

from companion.config.load import parse_config
from companion.hall.broker import BOARD, read_hall, start_broker, stop_broker
from companion.hall.settings import hall_settings
from companion.hall.topics import STATE, table_topic

pytestmark = needs_mosquitto


def _companion(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", *args],
        capture_output=True, text=True, cwd=ROOT, timeout=120, check=False,
    )  # fmt: skip


def test_init_then_a_table_publishes_with_the_lines_add_table_printed(tmp_path: Path) -> None:
    folder = tmp_path / "hall"
    port, spectators = free_port(), free_port()
    done = _companion(
        "hall", "init", "--dir", str(folder), "--event", "cup", "--tables", "2",
        "--host", "127.0.0.1", "--bind", "127.0.0.1", "--port", str(port),
        "--spectator-port", str(spectators), "--lang", "en",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "2 tables" in done.stdout
    assert (folder / "passwd").stat().st_mode & 0o077 == 0
    assert (folder / "credentials.toml").stat().st_mode & 0o077 == 0
    again = _companion("hall", "init", "--dir", str(folder), "--event", "cup")
    assert again.returncode == 2 and "--force" in again.stderr  # no silent new passwords

    added = _companion("hall", "add-table", "5", "--dir", str(folder))
    assert added.returncode == 0, added.stderr
    section = added.stdout.split("\n", 1)[1]
    assert tomllib.loads(section)["hall"]["table"] == 5
    assert read_hall(folder).tables == (1, 2, 5)
    config = parse_config(section, "config.toml", tmp_path)
    settings = hall_settings(config)
    assert settings is not None and settings.broker.port == port

    hall = read_hall(folder)
    broker = start_broker(hall)
    board = Listener(hall.address(BOARD, "127.0.0.1"), "#")
    try:
        from hall_broker import publish_as

        publish_as(settings.broker, table_topic("cup", 5, STATE), b"{}")
        publish_as(settings.broker, table_topic("cup", 1, STATE), b'{"forged":1}')
        got = board.take()
    finally:
        board.close()
        stop_broker(broker)
    assert [t for t, _, _ in got] == ["mafia/cup/table/5/state"]


def test_a_bad_event_and_no_hall_are_one_line(tmp_path: Path) -> None:
    bad = _companion("hall", "init", "--dir", str(tmp_path / "h"), "--event", "cup/1")
    assert bad.returncode == 2 and len(bad.stderr.splitlines()) == 1
    none = _companion("hall", "add-table", "1", "--dir", str(tmp_path / "none"), "--lang", "en")
    assert none.returncode == 2 and "no hall there" in none.stderr
    assert len(none.stderr.splitlines()) == 1


def test_tls_hall(tmp_path: Path) -> None:
    """With --tls the tables' listener speaks TLS checked against the CA."""

    hall = make_hall(tmp_path / "hall", tls=True)
    assert hall.ca is not None and hall.ca.exists()
    broker = start_broker(hall)
    try:
        board = Listener(hall.address(BOARD, "127.0.0.1"), "mafia/cup/table/+/state")
        board.close()
    finally:
        stop_broker(broker)


def test_companion_hall_starts_its_broker_or_uses_the_one_listening(
    tmp_path: Path, capsys: object
) -> None:
    from companion.hall.commands import _broker

    hall = make_hall(tmp_path / "hall")
    started = _broker(hall, "en")
    assert started is not None
    try:
        assert _broker(hall, "en") is None  # one listens already: used, and said
    finally:
        stop_broker(started)  # type: ignore[arg-type]
    said = capsys.readouterr().out  # type: ignore[attr-defined]
    assert "Broker started: mosquitto -c" in said and "already listening" in said


def test_standings_from_a_folder_of_protocols(tmp_path: Path) -> None:
    """``companion hall standings FOLDER``: the board's exports on the
    command line (the protocol as ``companion protocol --format json``)."""
    journal = tmp_path / "game.jsonl"
    played = _companion(
        "replay", str(ROOT / "examples" / "tournament-red-win.jsonl"), "--journal", str(journal)
    )
    assert played.returncode == 0, played.stderr
    folder = tmp_path / "protocols"
    folder.mkdir()
    made = _companion("protocol", str(journal), "--format", "json")
    (folder / "game.json").write_text(made.stdout, encoding="utf-8")
    done = _companion(
        "hall", "standings", str(folder), "--csv", str(tmp_path / "s.csv"), "--lang", "en"
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "s.csv").read_text(encoding="utf-8-sig").count("\n") >= 2
    nothing = _companion("hall", "standings", str(folder), "--lang", "en")
    assert nothing.returncode == 2 and len(nothing.stderr.splitlines()) == 1
    # a folder without protocols (the hall's own folder given by mistake):
    # one line, nothing written, not an empty table "saved"
    empty = tmp_path / "hall"
    empty.mkdir()
    (empty / "hall.toml").write_text('event = "cup"\n', encoding="utf-8")
    wrong = _companion(
        "hall", "standings", str(empty), "--csv", str(tmp_path / "e.csv"), "--lang", "en"
    )
    assert wrong.returncode == 2 and wrong.stdout == "", wrong.stdout
    assert (
        wrong.stderr
        == f"{empty}: no protocols (*.json, table-N/*.json); a table's: companion protocol JOURNAL --format json\n"
    )
    assert not (tmp_path / "e.csv").exists()
