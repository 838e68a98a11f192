"""A club's machine in a folder for the club's data tests (issue 12): its
config (named by COMPANION_CONFIG), roster, games and journals, and the
commands run on it as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_here import companion_here
from helpers import ROOT

from companion.runner.journal import Journal
from testkit.terminal import console_env


@pytest.fixture(scope="module")
def demo_records(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, object]]:
    """The demo game's journal lines as records (without their checksums)."""
    journal = tmp_path_factory.mktemp("demo") / "demo.jsonl"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "companion.cli",
            "replay",
            str(ROOT / "examples" / "demo.jsonl"),
            "--journal",
            str(journal),
        ],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    records = [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]
    for record in records:
        del record["sum"]
    return records


class Club:
    """A club's machine in a folder: its config, roster, games and journals."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.env = console_env(folder)
        self.env["XDG_DATA_HOME"] = str(folder / "data")
        self.env["XDG_CONFIG_HOME"] = str(folder / "xdg-config")
        self.config = folder / "config.toml"
        self.journals, self.games = folder / "journals", folder / "games"
        self.roster = folder / "roster.toml"

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        """``companion ARGS`` on this machine, run in this process
        (cli_here.py); ``run_process`` starts one, as a user would."""
        return companion_here(*args, env=self.env, cwd=self.folder)

    def run_process(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "companion.cli", *args],
            env=self.env,
            cwd=self.folder,
            capture_output=True,
            text=True,
            timeout=600,
        )

    def play(self, records: list[dict[str, object]], name: str = "2026-12-01_20-15-03") -> Journal:
        journal = Journal.create(self.journals / f"{name}.jsonl")
        for record in records:
            journal.append(record)
        return journal

    def files(self) -> dict[str, bytes]:
        """Every file of the club's data, by its path in the folder; of a
        journal's lock file, its head (the holder is whoever took it last)."""
        found = {}
        for place in (self.journals, self.games, self.roster, self.config):
            paths = sorted(place.rglob("*")) if place.is_dir() else [place]
            for path in paths:
                if path.is_file():
                    data = path.read_bytes()
                    if path.name.endswith(".jsonl.lock"):
                        data = data.split(b"\n")[1]
                    found[str(path.relative_to(self.folder))] = data
        return found


@pytest.fixture
def club(tmp_path: Path, demo_records: list[dict[str, object]]) -> Club:
    club = Club(tmp_path / "club")
    club.play(demo_records).close()
    club.games.mkdir()
    (club.games / "2026-12-01_20-15_tournament.html").write_text("<h1>Протокол</h1>\n")
    (club.games / "2026-12-01_20-15_tournament.json").write_text('{"format": "x"}\n')
    (club.games / "season-2026").mkdir()
    (club.games / "season-2026" / "table.csv").write_text("seat,name\n1,Анна\n")
    club.roster.write_text('players = [\n  { name = "Анна", games = 12, last = 2026-11-30 },\n]\n')
    return club


def only_backup(dest: Path) -> Path:
    found = sorted(dest.iterdir())
    assert len(found) == 1 and found[0].name.endswith(".tar.gz"), found
    return found[0]


def one_line_error(run: subprocess.CompletedProcess[str]) -> str:
    assert run.returncode == 2, run.stdout + run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("companion: "), run.stderr
    return lines[0]
