"""The club's data (issue 12): ``companion backup`` and ``restore``, run as
a user runs them (a config in tmp_path named by COMPANION_CONFIG), and the
backup's writer on a full disk and beside a game being written."""

from __future__ import annotations

import errno
import gzip
import json
import os
import shutil
import tarfile
import threading
import zlib
from datetime import datetime
from pathlib import Path

import pytest
from club_machine import Club, club, demo_records, one_line_error, only_backup

from companion.club.backup import NoRoom, make_backup, size_text
from companion.club.data import Backup, Place, check_backup
from companion.runner.journal import Journal
from companion.runner.journal_check import lock_path, moved_line, read_head, verify

__all__ = ["club", "demo_records"]  # fixtures

NOW = datetime(2026, 12, 1, 23, 30)


# --- backup and restore ---------------------------------------------------------------


def test_a_backup_restores_every_file_with_its_time_and_mode(club: Club, tmp_path: Path) -> None:
    usb = tmp_path / "usb"
    usb.mkdir()
    before = club.files()
    times = {name: (club.folder / name).stat().st_mtime for name in before if ".lock" not in name}
    made = club.run_process("backup", str(usb))
    assert made.returncode == 0, made.stderr
    archive = only_backup(usb)
    assert str(archive) in made.stdout and "контрольные суммы сходятся" in made.stdout
    assert archive.stat().st_mode & 0o777 == 0o600  # it holds every role of every game

    # The card's data lost; this machine's config stays: it says where the data
    # goes (its [paths]), a backup never does (issue 24).
    for name in before.keys() - {"config.toml"}:
        (club.folder / name).unlink()
    back = club.run_process("restore", str(usb))
    assert back.returncode == 0, back.stderr
    assert club.files() == before
    for name, mtime in times.items():  # a protocol's date is read off its journal's time
        assert (club.folder / name).stat().st_mtime == pytest.approx(mtime, abs=1e-3)
    journal = club.journals / "2026-12-01_20-15-03.jsonl"
    assert journal.stat().st_mode & 0o777 == 0o600
    resumed = club.run_process("resume", str(journal))
    assert resumed.returncode == 0 and "no lock file" not in resumed.stderr  # its end is checked

    again = club.run_process("restore", str(usb), "--lang", "en")
    assert again.returncode == 0 and "new files: 0" in again.stdout


def test_restore_refuses_to_replace_a_differing_file_and_keeps_it_aside_with_force(
    club: Club, tmp_path: Path
) -> None:
    usb = tmp_path / "usb"
    usb.mkdir()
    assert club.run("backup", str(usb)).returncode == 0
    typed = b'players = [\n  { name = "\xd0\x91\xd0\xbe\xd1\x80\xd0\xb8\xd1\x81" },\n]\n'
    club.roster.write_bytes(typed)
    protocol = club.games / "2026-12-01_20-15_tournament.html"
    protocol.unlink()

    refused = club.run("restore", str(usb))
    assert (
        "differ from the backup" in one_line_error(refused) and str(club.roster) in refused.stderr
    )
    assert club.roster.read_bytes() == typed and not protocol.exists()  # nothing restored

    forced = club.run("restore", str(usb), "--force")
    assert forced.returncode == 0, forced.stderr
    assert b"\xd0\x90\xd0\xbd\xd0\xbd\xd0\xb0" in club.roster.read_bytes()  # «Анна», the backup's
    kept = list(club.folder.glob("roster.toml.before-restore-*"))
    assert len(kept) == 1 and kept[0].read_bytes() == typed and kept[0].name in forced.stdout
    assert protocol.exists()


def test_a_journal_that_went_on_after_the_backup_is_kept(
    club: Club, tmp_path: Path, demo_records: list[dict[str, object]]
) -> None:
    usb = tmp_path / "usb"
    usb.mkdir()
    journal = club.journals / "2026-12-01_21-40-00.jsonl"
    with Journal.create(journal) as game:
        for record in demo_records[:40]:
            game.append(record)
    assert club.run("backup", str(usb)).returncode == 0
    with Journal.resume(journal)[0] as game:
        for record in demo_records[40:]:
            game.append(record)
    longer = journal.read_bytes()

    back = club.run("restore", str(usb), "--force")
    assert back.returncode == 0, back.stderr
    assert journal.read_bytes() == longer and not list(club.journals.glob("*before-restore*"))
    assert "новее копии, оставлены: 1" in back.stdout


@pytest.mark.parametrize("at", [0.1, 0.5, 0.9])
def test_a_damaged_archive_is_refused_and_nothing_is_written(
    club: Club, tmp_path: Path, at: float
) -> None:
    usb = tmp_path / "usb"
    usb.mkdir()
    assert club.run("backup", str(usb)).returncode == 0
    archive = only_backup(usb)
    archive.write_bytes(damaged(archive.read_bytes(), int(archive.stat().st_size * at)))
    elsewhere = Club(tmp_path / "new-machine")
    elsewhere.config.write_text(
        club.config.read_text().replace(str(club.folder), str(elsewhere.folder))
    )
    refused = elsewhere.run("restore", str(archive), "--keep-config")
    assert "nothing restored" in one_line_error(refused)
    assert not elsewhere.files().keys() - {"config.toml"}


def damaged(data: bytes, at: int) -> bytes:
    """``data`` with one bit flipped at ``at`` or the first byte after it
    where the flip changes what the archive holds (deflate has bits whose
    flip changes nothing, and gzip's header a time nobody checks)."""
    whole = gzip.decompress(data)
    for where in range(at, len(data)):
        changed = bytearray(data)
        changed[where] ^= 0x10
        try:
            if gzip.decompress(bytes(changed)) == whole:
                continue
        except (OSError, EOFError, zlib.error):
            pass
        return bytes(changed)
    raise AssertionError("no byte to damage")


def test_an_unpacked_backup_with_a_changed_file_is_refused(club: Club, tmp_path: Path) -> None:
    usb = tmp_path / "usb"
    usb.mkdir()
    assert club.run("backup", str(usb)).returncode == 0
    with tarfile.open(only_backup(usb)) as archive:
        archive.extractall(tmp_path / "unpacked", filter="data")
    (folder,) = (tmp_path / "unpacked").iterdir()
    assert club.run("restore", str(folder), "--dry-run").returncode == 0
    changed = folder / "games" / "season-2026" / "table.csv"
    changed.write_text("seat,name\n1,Ева\n")
    error = one_line_error(club.run("restore", str(folder)))
    assert "games/season-2026/table.csv: checksum does not match" in error


def test_restore_takes_the_newest_backup_in_a_folder(club: Club, tmp_path: Path) -> None:
    usb = tmp_path / "usb"
    usb.mkdir()
    places = [Place("roster", club.roster)]
    make_backup(usb, places, now=datetime(2026, 11, 30, 23, 0), version="0.1.0")
    club.roster.write_text('players = [\n  { name = "Зоя" },\n]\n')
    newest = make_backup(usb, places, now=datetime(2026, 12, 1, 9, 5), version="0.1.0").path
    make_backup(usb, places, now=datetime(2026, 12, 1, 0, 0), version="0.1.0")
    club.roster.unlink()
    back = club.run("restore", str(usb))
    assert back.returncode == 0, back.stderr
    assert f"{newest} — самая новая из 3" in back.stdout
    assert "Зоя" in club.roster.read_text()


@pytest.mark.skipif(os.geteuid() != 0, reason="only root restores into another user's folder")
def test_restored_as_root_the_files_are_the_folders_owners(club: Club, tmp_path: Path) -> None:
    usb = tmp_path / "usb"
    usb.mkdir()
    assert club.run("backup", str(usb)).returncode == 0
    service_user = 4242  # the service's user owns its data folder; sudo runs the restore
    shutil.rmtree(club.journals)
    club.roster.unlink()
    os.chown(club.folder, service_user, service_user)
    back = club.run("restore", str(usb))
    assert back.returncode == 0, back.stderr
    for path in (club.journals, *club.journals.iterdir(), club.roster):
        assert (path.stat().st_uid, path.stat().st_gid) == (service_user, service_user), path
    assert club.journals.stat().st_mode & 0o777 == 0o700


# --- the destination ----------------------------------------------------------------


def test_a_destination_that_cannot_take_a_backup_is_named(club: Club, tmp_path: Path) -> None:
    assert "no such folder" in one_line_error(club.run("backup", str(tmp_path / "no-stick")))
    assert "not a folder" in one_line_error(club.run("backup", str(club.roster)))
    inside = one_line_error(club.run("backup", str(club.games / "season-2026")))
    assert "inside the club's games folder" in inside


class FullDisk:
    """A disk with ``room`` bytes: a write past them fails with ENOSPC."""

    def __init__(self, room: int) -> None:
        self.room, self.used = room, 0

    def write(self, fd: int, data: bytes) -> int:
        if self.used >= self.room:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        count = os.write(fd, data[: self.room - self.used])
        self.used += count
        return count

    fsync = staticmethod(os.fsync)
    ftruncate = staticmethod(os.ftruncate)


@pytest.mark.parametrize("room", [0, 1500])
def test_a_full_stick_says_how_much_the_backup_needs(club: Club, tmp_path: Path, room: int) -> None:
    usb = tmp_path / "usb"
    usb.mkdir()
    places = [Place("journals", club.journals), Place("games", club.games)]
    with pytest.raises(NoRoom) as full:
        make_backup(usb, places, now=NOW, version="0.1.0", files=FullDisk(room))
    assert list(usb.iterdir()) == []  # no part of it left behind
    made = make_backup(usb, places, now=NOW, version="0.1.0")
    assert f"it needs {size_text(made.size)}," in str(full.value)
    assert str(full.value).startswith(f"{usb}: no room for the backup")


# --- a game in progress ---------------------------------------------------------------


def test_a_journal_being_written_is_copied_up_to_its_last_whole_line(
    club: Club, tmp_path: Path, demo_records: list[dict[str, object]]
) -> None:
    usb = tmp_path / "usb"
    usb.mkdir()
    path = club.journals / "2026-12-01_22-00-00.jsonl"
    game = club.play(demo_records[:30], path.stem)  # held: a game in progress
    try:
        whole = path.read_bytes()
        with path.open("ab") as stream:  # a line the game is writing right now
            stream.write(json.dumps(demo_records[30]).encode()[:25])
        made = club.run_process("backup", str(usb))
        assert made.returncode == 0, made.stderr
        assert f"{path.name}: журнал идущей игры, скопирован до строки 30" in made.stdout

        # Restored on another machine, it is the game up to line 30, its end checked.
        other = Club(tmp_path / "spare")
        other.config.write_text(
            club.config.read_text().replace(str(club.folder), str(other.folder))
        )
        restored = other.run_process("restore", str(usb), "--keep-config")
        assert restored.returncode == 0, restored.stderr
        copy = other.journals / path.name
        assert copy.read_bytes() == whole
        assert read_head(copy) == (30, verify(whole, "j", None).last_sum)

        # Restored here meanwhile, the game's journal is not touched.
        os.truncate(path, len(whole))
        for record in demo_records[30:35]:
            game.append(record)
        playing = path.read_bytes()
        here = club.run_process("restore", str(usb), "--force")
        assert here.returncode == 0, here.stderr
        assert f"журнал идущей игры не тронут: {path}" in here.stdout
        assert path.read_bytes() == playing
    finally:
        game.close()


def test_every_backup_taken_while_lines_are_appended_checks_out(
    tmp_path: Path, demo_records: list[dict[str, object]]
) -> None:
    journals = tmp_path / "journals"
    path = journals / "game.jsonl"
    game = Journal.create(path)
    stop = threading.Event()

    def play() -> None:  # until the backups are done: each is taken while lines go in
        while not stop.is_set():
            for record in demo_records:
                game.append(record)

    writer = threading.Thread(target=play)
    writer.start()
    copies = []
    try:
        for n in range(8):
            usb = tmp_path / f"usb{n}"
            usb.mkdir()
            copies.append(make_backup(usb, [Place("journals", journals)], now=NOW, version="x"))
    finally:
        stop.set()
        writer.join()
        game.close()
    final = path.read_bytes()
    for made in copies:
        with tarfile.open(made.path) as archive:
            root = made.path.name.removesuffix(".tar.gz")
            data = archive.extractfile(f"{root}/journals/game.jsonl").read()  # type: ignore[union-attr]
            lock = archive.extractfile(f"{root}/journals/game.jsonl.lock").read()  # type: ignore[union-attr]
        count, last = lock.split(b"\n")[1].split()[1:]
        text = verify(data, "copy", (int(count), last.decode()))  # whole lines, the head agrees
        assert text.torn is None and len(text.lines) == int(count)
        assert final.startswith(data)
        check_backup(Backup(made.path))


def test_a_journal_that_does_not_check_out_is_copied_as_it_is(club: Club, tmp_path: Path) -> None:
    usb = tmp_path / "usb"
    usb.mkdir()
    journal = club.journals / "2026-12-01_20-15-03.jsonl"
    data = bytearray(journal.read_bytes())
    data[len(data) // 2] ^= 0x01  # a changed byte: resume refuses it, naming the line
    journal.write_bytes(bytes(data))
    lock = lock_path(journal).read_bytes()
    made = club.run("backup", str(usb))
    assert made.returncode == 0, made.stderr
    assert "журнал не проходит проверку" in made.stdout and "checksum does not match" in made.stdout
    shutil.rmtree(club.journals)
    assert club.run("restore", str(usb)).returncode == 0
    assert journal.read_bytes() == data and lock_path(journal).read_bytes() == lock


def test_a_game_that_went_on_elsewhere_is_backed_up_whole(
    club: Club, tmp_path: Path, demo_records: list[dict[str, object]]
) -> None:
    usb, elsewhere = tmp_path / "usb", tmp_path / "stick" / "companion-journals"
    usb.mkdir()
    elsewhere.mkdir(parents=True)
    stub = club.journals / "2026-12-01_22-00-00.jsonl"
    with Journal.create(elsewhere / stub.name) as game:  # the whole game, moved on a full card
        for record in demo_records:
            game.append(record)
    whole = (elsewhere / stub.name).read_bytes()
    left = whole[: whole.index(b"\n", len(whole) // 2) + 1]
    stub.write_bytes(left)
    text = verify(left, "stub", None)
    lock_path(stub).write_bytes(
        f"holder: pid 1 on table\nhead: {len(text.lines):010d} {text.last_sum}\n".encode()
        + moved_line(elsewhere / stub.name)
    )
    made = club.run("backup", str(usb))
    assert made.returncode == 0, made.stderr
    assert f"игра продолжилась в {elsewhere / stub.name}" in made.stdout
    shutil.rmtree(club.journals)
    assert club.run("restore", str(usb)).returncode == 0
    assert stub.read_bytes() == whole and read_head(stub) == (
        len(demo_records),
        verify(whole, "w", None).last_sum,
    )
