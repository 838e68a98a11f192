"""``companion update`` and ``companion players`` (issue 12), run as a user
runs them; the real install goes into a scratch virtual environment."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from club_machine import Club, club, demo_records, one_line_error
from helpers import ROOT

from companion.club.data import companion_version

__all__ = ["club", "demo_records"]  # fixtures


# --- update ---------------------------------------------------------------------------


def versioned(pyproject: str, version: str) -> str:
    """pyproject.toml's text with the project's version set to ``version``."""
    text, count = re.subn(r'(?m)^version = "[^"]*"$', f'version = "{version}"', pyproject, count=1)
    assert count == 1, "no version line in pyproject.toml"
    return text


def release(tmp_path: Path, version: str) -> Path:
    """This project's committed tree, as a release folder of ``version``."""
    folder = tmp_path / f"companion-{version}"
    folder.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "HEAD"], capture_output=True)
    if archive.returncode != 0:
        pytest.skip(f"no git tree to make a release from: {archive.stderr.decode().strip()}")
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    project = folder / "pyproject.toml"
    project.write_text(versioned(project.read_text(), version))
    return folder


def test_update_dry_run_names_both_versions_and_changes_nothing(club: Club, tmp_path: Path) -> None:
    new = release(tmp_path, "0.2.0")
    installed = sys.modules["companion"].__file__
    run = club.run_process("update", str(new), "--dry-run", "--lang", "en")
    assert run.returncode == 0, run.stderr
    assert f"Installed now: companion {companion_version()} from {ROOT}" in run.stdout
    assert f"New release: companion 0.2.0 from {new}" in run.stdout
    assert f"pip install --quiet --editable {new}" in run.stdout.replace(
        "--no-build-isolation ", ""
    )
    assert f"  journals: {club.journals}" in run.stdout
    where = subprocess.run(
        [sys.executable, "-c", "import companion; print(companion.__file__)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert where.stdout.strip() == installed


def test_update_refuses_what_is_not_a_release_and_waits_for_the_game(
    club: Club, tmp_path: Path, demo_records: list[dict[str, object]]
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "pyproject.toml").write_text('[project]\nname = "other"\nversion = "1.0"\n')
    assert "not a companion source folder" in one_line_error(club.run_process("update", str(other)))

    new = release(tmp_path, "0.2.0")
    game = club.play(demo_records[:10], "2026-12-01_22-00-00")
    try:
        refused = one_line_error(club.run_process("update", str(new)))
        assert "a game is in progress" in refused and "2026-12-01_22-00-00.jsonl" in refused
        told = club.run_process("update", str(new), "--force", "--dry-run")
        assert told.returncode == 0 and "идёт игра" in told.stderr
    finally:
        game.close()


#: Where this machine keeps wheels of the build tools, for an install without
#: the network (pip's --find-links); the real install test is skipped without.
BUILD_WHEELS = os.environ.get(
    "COMPANION_TEST_BUILD_WHEELS", "/opt/pypi/simple/setuptools /opt/pypi/simple/wheel"
)


def scratch_environment(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A virtual environment of its own with the test environment's packages
    (but not the companion) visible, and pip offline: the update's pip and
    its check run there, never in the environment the tests run in."""
    folders = BUILD_WHEELS.split()
    if not folders or not all(Path(folder).is_dir() for folder in folders):
        pytest.skip(f"no build tools' wheels for an offline install ({BUILD_WHEELS})")
    scratch = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(scratch)], check=True)
    shared = tmp_path / "shared-packages"
    shared.mkdir()
    own = ("companion", "__editable__", "setuptools", "pkg_resources", "_distutils", "distutils")
    for item in Path(pytest.__file__).parent.parent.iterdir():  # the site-packages folder
        if not item.name.startswith(own):
            (shared / item.name).symlink_to(item)
    (site,) = scratch.glob("lib/python3*/site-packages")
    (site / "shared.pth").write_text(f"{shared}\n")
    env = {**os.environ, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": BUILD_WHEELS}
    python = scratch / "bin" / "python"
    # A setuptools that builds editable installs by itself: pip needs no build
    # environment of its own for each install (seconds each, on a busy machine).
    tools = [str(python), "-m", "pip", "install", "--quiet", "setuptools>=70.1"]
    subprocess.run(tools, env=env, check=True, capture_output=True)
    return python, env


def working_tree(tmp_path: Path, version: str) -> Path:
    """The code as it is now (this change included), as a release folder."""
    folder = tmp_path / f"companion-{version}"
    for name in ("companion", "rulesets", "hardware", "voices", "scripts"):
        shutil.copytree(ROOT / name, folder / name, ignore=shutil.ignore_patterns("__pycache__"))
    text = (ROOT / "pyproject.toml").read_text()
    (folder / "pyproject.toml").write_text(versioned(text, version))
    return folder


@pytest.mark.slow  # two releases installed in a scratch environment and started for real
def test_update_installs_the_release_and_puts_the_old_one_back_if_it_does_not_start(
    club: Club, tmp_path: Path
) -> None:
    python, env = scratch_environment(tmp_path)
    env.update({k: v for k, v in club.env.items() if k.startswith(("COMPANION", "HOME", "XDG"))})
    old, new = working_tree(tmp_path, "0.1.0"), working_tree(tmp_path, "0.2.0")
    broken = working_tree(tmp_path, "0.3.0")
    with (broken / "companion" / "config/rulesets.py").open("a") as code:
        code.write("raise SystemExit('a broken release')\n")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(python), *args], env=env, cwd=tmp_path, capture_output=True, text=True
        )

    def running() -> str:
        return run("-c", "import companion; print(companion.__file__)").stdout.strip()

    assert run("-m", "pip", "install", "--quiet", "--editable", str(old)).returncode == 0
    updated = run("-m", "companion.cli", "update", str(new), "--lang", "en")
    assert updated.returncode == 0, updated.stderr
    assert "Done: companion 0.1.0 -> 0.2.0" in updated.stdout
    assert running() == str(new / "companion" / "__init__.py")

    refused = run("-m", "companion.cli", "update", str(broken))
    assert refused.returncode == 2
    assert (
        "a broken release" in refused.stderr
        and "(" + str(new) + ", 0.2.0) was put back" in refused.stderr
    )
    assert running() == str(new / "companion" / "__init__.py")
    assert club.run_process("config", "show").stdout.startswith(
        f"# companion config: {club.config} (read)"
    )


# --- players --------------------------------------------------------------------------


def test_players_lists_the_roster(club: Club) -> None:
    run = club.run_process("players", "--lang", "en")
    assert run.returncode == 0, run.stderr
    assert f"The club's players ({club.roster}): 1" in run.stdout
    assert "Анна" in run.stdout and "12" in run.stdout and "2026-11-30" in run.stdout
    club.roster.write_text("players = 3\n")
    assert "roster.toml" in one_line_error(club.run_process("players"))
