"""``scripts/setup.sh``: what it asks apt for, run the way ``./run`` and
``./run-tests`` run it, in a copy of the project whose Python packages are
already in place, with ``apt-get``, ``dpkg-query`` and ``sudo`` on the PATH
standing in for Debian's (they record what they were asked; nothing is
installed). A fresh Debian's ``apt-get install`` with recommends pulled GTK,
a notification daemon and printer set-up for the tests' browser and sound
server, and a C compiler for python3-pip: the Pi gets neither.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RUNTIME = ROOT / "scripts" / "debian-packages.txt"
DEV = ROOT / "scripts" / "debian-packages-dev.txt"
#: what only the tests use: never on the Pi
TEST_ONLY = {
    "chromium-headless-shell",
    "systemd",
    "pulseaudio",
    "pulseaudio-utils",
    "alsa-utils",
    "fonts-dejavu-core",
    "procps",
}


def packages(path: Path) -> list[str]:
    """The list as setup.sh reads it: the first word of each line, no comments."""
    names = []
    for line in path.read_text(encoding="utf-8").splitlines():
        words = line.split()
        if words and not words[0].startswith("#"):
            names.append(words[0])
    return names


def test_the_pi_s_list_holds_nothing_only_the_tests_need() -> None:
    runtime, dev = packages(RUNTIME), packages(DEV)
    assert not TEST_ONLY & set(runtime)
    assert not [name for name in runtime if name.startswith(("chromium", "systemd"))]
    assert set(dev) >= TEST_ONLY
    assert not set(runtime) & set(dev)  # each package in one list only


def test_every_apt_get_install_in_the_scripts_leaves_out_the_recommends() -> None:
    lines = []
    for script in (ROOT / "scripts").glob("*.sh"):
        text = script.read_text(encoding="utf-8").replace("\\\n", " ")
        lines += [line for line in text.splitlines() if "apt-get install" in line]
    assert lines
    assert all("--no-install-recommends" in line for line in lines), lines


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the project's scripts and pyproject.toml whose .venv is
    made and stamped as setup.sh stamps it: only the Debian part runs."""
    folder = tmp_path / "companion"
    shutil.copytree(ROOT / "scripts", folder / "scripts")
    shutil.copy(ROOT / "pyproject.toml", folder / "pyproject.toml")
    venv = folder / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)
    for profile, lists in (("runtime", [RUNTIME]), ("dev", [RUNTIME, DEV])):
        text = b"".join(p.read_bytes() for p in [ROOT / "pyproject.toml", *lists])
        stamp = hashlib.sha256(text).hexdigest()[:16]
        (venv / f".installed-{profile}").write_text(stamp + "\n")
    return folder


def fake_debian(tmp_path: Path, installed: set[str]) -> tuple[Path, Path]:
    """A bin folder whose dpkg-query knows ``installed``, whose apt-get
    writes its arguments to a log, and whose sudo runs its command."""
    bin_dir, log = tmp_path / "bin", tmp_path / "apt.log"
    bin_dir.mkdir()
    scripts = {
        "apt-get": f'#!/bin/sh\necho "$*" >> {log}\n',
        "dpkg-query": "#!/bin/sh\n"
        + "".join(
            f'[ "$3" = {name} ] && {{ printf "install ok installed"; exit 0; }}\n'
            for name in sorted(installed)
        )
        + "exit 1\n",
        "sudo": '#!/bin/sh\nexec "$@"\n',
    }
    for name, text in scripts.items():
        path = bin_dir / name
        path.write_text(text)
        path.chmod(0o755)
    return bin_dir, log


def run_setup(project: Path, bin_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ.get('PATH', '')}"}
    return subprocess.run(
        ["bash", str(project / "scripts" / "setup.sh"), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("args", "lists"),
    [((), [RUNTIME]), (("runtime",), [RUNTIME]), (("dev",), [RUNTIME, DEV])],
    ids=["./run", "runtime", "./run-tests"],
)
def test_setup_installs_its_lists_without_recommends(
    tmp_path: Path, project: Path, args: tuple[str, ...], lists: list[Path]
) -> None:
    bin_dir, log = fake_debian(tmp_path, installed=set())
    done = run_setup(project, bin_dir, *args)
    assert done.returncode == 0, done.stderr
    calls = log.read_text().splitlines()
    assert calls[0] == "update -qq"
    wanted = [name for path in lists for name in packages(path)]
    assert calls[1:] == ["install -y -qq --no-install-recommends " + " ".join(wanted)]


def test_setup_asks_apt_for_nothing_when_all_is_installed(tmp_path: Path, project: Path) -> None:
    everything = set(packages(RUNTIME)) | set(packages(DEV))
    bin_dir, log = fake_debian(tmp_path, installed=everything)
    done = run_setup(project, bin_dir, "dev")
    assert done.returncode == 0, done.stderr
    assert not log.exists() and done.stderr == ""


def test_setup_asks_only_for_what_is_missing(tmp_path: Path, project: Path) -> None:
    bin_dir, log = fake_debian(tmp_path, installed=set(packages(RUNTIME)) - {"espeak-ng"})
    done = run_setup(project, bin_dir)
    assert done.returncode == 0, done.stderr
    assert log.read_text().splitlines()[1:] == ["install -y -qq --no-install-recommends espeak-ng"]
