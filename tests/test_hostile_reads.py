"""Reads without limits (issue 24, item 7): what ``verify-deal``,
``protocol``, ``resume`` (and ``replay``, whose check they now share) do when
handed something that is not a file to read whole.

Before: a FIFO hung the command for ever; ``/dev/zero`` or an 8-GiB sparse
file was read whole (a ``MemoryError`` traceback, or gigabytes of memory on
the way to it). Must hold: regular files only, the size checked before a
byte is read, one clear line naming the file, exit status 2. Each command
runs the way a user runs it, ``python -m companion.cli``, under a timeout
that turns a hang into a failure.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import EXAMPLES, ROOT

from companion.textfiles.regular_file import MAX_FILE, FileRefused, read_regular, read_start

#: a hang is a failure within this, not a stuck suite
GUARD_S = 60
COMMANDS = ("verify-deal", "protocol", "resume", "replay")


def companion(
    *args: str | Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=GUARD_S,
        env=env,
    )


def fifo(folder: Path) -> Path:
    path = folder / "game.jsonl"
    os.mkfifo(path)
    return path


def sparse(folder: Path) -> Path:
    """An 8-GiB file that takes no room on the disk (``truncate -s 8G``)."""
    path = folder / "game.jsonl"
    path.touch()
    os.truncate(path, 8 * 2**30)
    return path


def zero_link(folder: Path) -> Path:
    path = folder / "game.jsonl"
    path.symlink_to("/dev/zero")
    return path


#: the hostile file, and what the line says of it (English, Russian)
HOSTILE: dict[str, tuple[Callable[[Path], Path], str, str]] = {
    "fifo": (fifo, "a named pipe (FIFO), not a file", "именованный канал (FIFO), а не файл"),
    "dev-zero": (lambda _: Path("/dev/zero"), "a device, not a file", "устройство, а не файл"),
    "sparse-8GiB": (sparse, "8589934592 bytes", "8589934592 байт"),
    "link-to-dev-zero": (zero_link, "a device, not a file", "устройство, а не файл"),
}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("hostile", sorted(HOSTILE))
def test_a_hostile_file_is_one_line_not_a_hang(tmp_path: Path, command: str, hostile: str) -> None:
    make, english, _ = HOSTILE[hostile]
    path = make(tmp_path)
    done = companion(command, path, "--lang", "en")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"companion: {path}: ")
    assert english in done.stderr
    if hostile == "sparse-8GiB":  # the limit is said too
        limit = "16 MiB" if command == "verify-deal" else "64 MiB"
        assert limit in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) in ([], ["game.jsonl"])  # nothing made


@pytest.mark.parametrize("hostile", ["fifo", "sparse-8GiB"])
def test_the_line_is_russian_by_default(tmp_path: Path, hostile: str) -> None:
    make, _, russian = HOSTILE[hostile]
    path = make(tmp_path)
    for command in ("protocol", "resume", "verify-deal"):
        done = companion(command, path, "--lang", "ru")
        assert done.returncode == 2 and done.stderr.startswith(f"companion: {path}: ")
        assert russian in done.stderr, done.stderr


def _journal(folder: Path) -> Path:
    journal = folder / "game.jsonl"
    done = companion("replay", EXAMPLES / "demo.jsonl", "--journal", journal)
    assert done.returncode == 0, done.stderr
    return journal


@pytest.mark.parametrize("lock", ["fifo", "link-to-dev-zero"])
def test_a_hostile_lock_file_is_not_read(tmp_path: Path, lock: str) -> None:
    """The lock file beside a journal is read too (its head, its moved
    line): a FIFO or a link to /dev/zero there is as if it were not there."""
    journal = _journal(tmp_path)
    beside = Path(f"{journal}.lock")
    beside.unlink()
    if lock == "fifo":
        os.mkfifo(beside)
    else:
        beside.symlink_to("/dev/zero")
    done = companion("protocol", journal, "--format", "json", "--lang", "en")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["format"] == "companion-protocol/1"
    resumed = companion("resume", journal, "--lang", "en")
    assert resumed.returncode == 0, resumed.stderr
    assert "no lock file" in resumed.stderr


def test_the_console_skips_a_fifo_among_the_games(tmp_path: Path) -> None:
    """At start-up the console looks for an unfinished game in the games
    folder: a FIFO named like a journal there is skipped, not waited on."""
    os.mkfifo(tmp_path / "z-newest.jsonl")
    code = (
        "import sys; from pathlib import Path\n"
        "from companion.config.rulesets import load_ruleset\n"
        "from companion.runner.resume import unfinished_game\n"
        "print(unfinished_game(Path(sys.argv[1]), load_ruleset, elsewhere=[]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=GUARD_S,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "None\n"
    assert "a named pipe (FIFO), not a file" in done.stderr  # logged


# --- the shared reader itself ------------------------------------------------------


def test_a_regular_file_within_the_limit_is_read(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"x" * 100)
    assert read_regular(path, limit=100) == b"x" * 100
    assert read_start(path, 10) == b"x" * 10
    with pytest.raises(FileRefused) as refused:
        read_regular(path, limit=99)
    assert str(refused.value) == f"{path}: 100 bytes: larger than 0 MiB"
    assert refused.value.said("ru") == f"{path}: 100 байт: больше 0 МиБ"
    assert MAX_FILE == 64 * 2**20  # as replay read before: one limit for every command


def test_a_folder_and_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileRefused, match="a folder, not a file"):
        read_regular(tmp_path)
    with pytest.raises(FileNotFoundError):
        read_regular(tmp_path / "none")
