"""Installing another release of the companion: ``companion update [SRC]``
(docs/club-data.md).

SRC is a companion source folder already on this machine: a git checkout,
or a release archive unpacked (default: the folder the companion runs from,
after a ``git pull`` there). The update installs it the way
``scripts/setup.sh`` does — ``pip install -e`` — into the virtual
environment the companion runs in now, so ``./run`` and the service start
the new code the same way as before. Nothing is fetched from git, and the
Python packages are fetched only if the release needs ones this environment
lacks. The club's config and data live outside the code folder (the
platform's config and data folders, or where the config says) and are not
touched; the old code folder is left as it was, so ``companion update OLD``
goes back.

After installing, the new code must start: ``python -m companion.cli
rulesets`` from the environment, and the version and folder it reports.
If it does not, the release installed before is installed again.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..paths import PROJECT
from .data import ClubDataError, companion_version
from .journal_copy import games_in_progress

#: The service's unit (service_unit.UNIT_NAME).
SERVICE = "companion.service"
#: Where a stick or a card is mounted: a release there must be copied first.
REMOVABLE = (Path("/media"), Path("/mnt"), Path("/run/media"))
_CHECK = (
    "import importlib.metadata as m, pathlib, companion.cli as c; "
    "print(m.version('companion')); print(pathlib.Path(c.__file__).resolve().parent.parent)"
)
_TIMEOUT_S = 1800  # pip on a Pi with a slow card; only a hang is cut
_MAX_TEXT_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class Release:
    folder: Path
    version: str
    commit: str | None  # the git checkout's commit, if it is one


@dataclass(frozen=True, slots=True)
class Installed:
    folder: Path  # the code folder the environment runs now
    version: str
    python: Path  # the environment's interpreter


@dataclass(frozen=True, slots=True)
class UpdatePlan:
    release: Release
    installed: Installed
    install: list[str]  # the pip command
    missing_packages: list[str]  # Debian packages the release lists that are not installed
    busy: list[Path]  # journals of games in progress (only with force)


def read_release(folder: Path) -> Release:
    """The release in ``folder``; ClubDataError if it is not a companion source folder."""
    if not folder.is_dir():
        raise ClubDataError(f"{folder}: no such folder")
    project = folder / "pyproject.toml"
    try:
        data = tomllib.loads(_small_text(project))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        data = {}
    table = data.get("project", {})
    name = table.get("name") if isinstance(table, dict) else None
    version = table.get("version") if isinstance(table, dict) else None
    if name != "companion" or not (folder / "companion" / "cli.py").is_file():
        raise ClubDataError(
            f"{folder}: not a companion source folder (its pyproject.toml must name the "
            "project companion, beside the companion/ package)"
        )
    return Release(folder.resolve(), str(version or "unknown"), _commit(folder))


def _small_text(path: Path) -> str:
    """A release's small text file; OSError for a FIFO, a device or a file
    past 1 MiB (never read whole: a release folder is anyone's)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)  # a FIFO does not wait
    with os.fdopen(fd, "rb") as stream:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_TEXT_BYTES:
            raise OSError(errno.EINVAL, "not a small regular file", str(path))
        return stream.read(_MAX_TEXT_BYTES).decode("utf-8")


def _commit(folder: Path) -> str | None:
    if not (folder / ".git").exists() or shutil.which("git") is None:
        return None
    try:
        run = subprocess.run(
            ["git", "-C", str(folder), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if run.returncode != 0:
        return None
    return run.stdout.strip() or None


def installed_now() -> Installed:
    """The companion this process runs, and its environment."""
    if sys.prefix == sys.base_prefix:
        raise ClubDataError(
            f"{sys.executable}: not a virtual environment: companion update installs into "
            "the companion's own (.venv, as scripts/setup.sh makes it)"
        )
    folder = PROJECT
    return Installed(folder, companion_version(), Path(sys.executable))


def plan_update(src: Path, installed: Installed, journals: Path, *, force: bool) -> UpdatePlan:
    """Check ``src`` and the machine; ClubDataError (one line) if the
    update must not go on."""
    release = read_release(src)
    if any(release.folder.is_relative_to(mount) for mount in REMOVABLE):
        raise ClubDataError(
            f"{src}: on a removable disk; the code runs from the folder it is installed "
            f"from: copy it to this machine first (cp -r {src} ~/companion-{release.version})"
        )
    busy = games_in_progress(journals)
    if busy and not force:
        raise ClubDataError(
            f"{busy[0]}: a game is in progress (its journal is held); update after it "
            "ends, or give --force"
        )
    if service_running() and not force:
        # The console there would go on with the old code and start its
        # table's processes with the new one.
        raise ClubDataError(
            f"{SERVICE}: running: stop it first (sudo systemctl stop companion; an unfinished "
            "game is resumed when it starts again), or give --force"
        )
    install = pip_install(installed.python, release.folder)
    return UpdatePlan(release, installed, install, missing_debs(release), busy)


def service_running() -> bool:
    """Whether systemd runs the companion's service (docs/service.md) now."""
    if shutil.which("systemctl") is None:
        return False
    try:
        run = subprocess.run(
            ["systemctl", "is-active", "--quiet", SERVICE], capture_output=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return run.returncode == 0


def pip_install(python: Path, folder: Path) -> list[str]:
    command = [str(python), "-m", "pip", "install", "--quiet", "--editable", str(folder)]
    if _builds_offline():
        # the environment's own setuptools: no build tools fetched from the index
        command.insert(4, "--no-build-isolation")
    return command


def _builds_offline() -> bool:
    """Whether this environment can build an editable install by itself:
    setuptools 70.1 or later has bdist_wheel built in; before, it needs wheel."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        numbers = [int(part) for part in version("setuptools").split(".")[:2]]
    except (PackageNotFoundError, ValueError):
        return False
    if numbers >= [70, 1]:
        return True
    try:
        version("wheel")
    except PackageNotFoundError:
        return False
    return numbers >= [64]  # editable installs (PEP 660)


def missing_debs(release: Release) -> list[str]:
    """The Debian packages the release's scripts/debian-packages.txt lists
    that are not installed (none known where there is no dpkg)."""
    listed = release.folder / "scripts" / "debian-packages.txt"
    if shutil.which("dpkg-query") is None or not listed.is_file():
        return []
    try:
        lines = _small_text(listed).splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    missing = []
    for line in lines:
        package = line.split("#", 1)[0].strip().split(" ")[0]
        if not package:
            continue
        query = subprocess.run(
            ["dpkg-query", "-W", "-f=${Status}", package], capture_output=True, text=True
        )
        if "install ok installed" not in query.stdout:
            missing.append(package)
    return missing


# --- carrying it out ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Started:
    version: str
    folder: Path


def run_update(plan: UpdatePlan) -> Started:
    """Install the release, check that it starts; put the old one back if
    it does not. ClubDataError (one line) on failure."""
    log = Path(sys.prefix) / "update.log"
    old = plan.installed
    failed = _pip(plan.install, log)
    if failed:
        now = _started(old.python)
        state = (
            "the installed companion is unchanged"
            if isinstance(now, Started) and now.folder == old.folder
            else _put_back(old, log)
        )
        raise ClubDataError(f"{plan.release.folder}: pip could not install it ({failed}); {state}")
    started = _started(old.python)
    if isinstance(started, Started) and started.folder == plan.release.folder:
        return started
    why = started if isinstance(started, str) else f"the code still runs from {started.folder}"
    raise ClubDataError(
        f"{plan.release.folder}: installed, but it does not start ({why}); {_put_back(old, log)}"
    )


def _put_back(old: Installed, log: Path) -> str:
    if _pip(pip_install(old.python, old.folder), log):
        return f"putting back {old.folder} failed too: run ./run there (see {log})"
    return f"the previous release ({old.folder}, {old.version}) was put back"


def _pip(command: list[str], log: Path) -> str:
    """ "" when pip succeeded; else its last line (the whole output is in ``log``)."""
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    with log.open("a", encoding="utf-8") as out:
        out.write(f"$ {' '.join(command)}\n")
        out.flush()
        try:
            run = subprocess.run(
                command, stdout=out, stderr=subprocess.STDOUT, env=env, timeout=_TIMEOUT_S
            )
        except subprocess.TimeoutExpired:
            return f"no answer in {_TIMEOUT_S} s; see {log}"
    if run.returncode == 0:
        return ""
    lines = [line for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]
    last = " ".join(lines[-1].split())[:160] if lines else ""
    return f"{last}; see {log}"


def _started(python: Path) -> Started | str:
    """The version and code folder the environment starts, once ``companion
    rulesets`` has run there; a one-line reason if it does not."""
    out, problem = _output([str(python), "-c", _CHECK], "importing companion")
    if not problem:
        _, problem = _output([str(python), "-m", "companion.cli", "rulesets"], "companion rulesets")
    if problem:
        return problem
    version, folder = [*out.splitlines(), "", ""][:2]
    return Started(version.strip(), Path(folder.strip()))


def _output(command: list[str], shown: str) -> tuple[str, str]:
    """(standard output, "") or ("", why it failed)."""
    try:
        # not from a folder with a companion/ package in it: the installed one is meant
        run = subprocess.run(command, cwd=sys.prefix, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as error:
        return "", f"{shown}: {error}"
    if run.returncode != 0 or not run.stdout.strip():
        last = (run.stderr.strip().splitlines() or ["no output"])[-1]
        return "", f"{shown}: {' '.join(last.split())[:160]}"
    return run.stdout, ""
