"""Speech models for the forbidden words: the names the companion knows,
where they are installed, and fetching one.

``companion models fetch ru-small`` downloads the official small Russian
vosk model on a connected machine, checks it and unpacks it into the
models folder; ``companion models list`` shows what is installed and what
can be fetched (docs/listening.md, "Forbidden words"). A machine without a
network gets the model by copying its folder into the models folder.

The checksum is alphacephei's: its ``model-list.json`` (beside the
archives) gives each archive's md5 and size, and the companion pins both
for the models it knows. A fetch from the official address reads the list
too and refuses to go on when the two disagree; a fetch from another
address (``--url`` or ``$COMPANION_MODELS_URL``: a club's mirror, a test
server) takes the checksum from that address's own ``model-list.json``.
The archive goes to a temporary folder inside the models folder, is
checked, unpacked there, and only then renamed into place: a model is
installed whole or not at all, whatever fails or is interrupted.
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import json
import os
import shutil
import sys
import tempfile
import urllib.error
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TextIO

import platformdirs

from ..config.values import APP

OFFICIAL_URL = "https://alphacephei.com/vosk/models/"
URL_ENV = "COMPANION_MODELS_URL"
DIR_ENV = "COMPANION_MODELS_DIR"
LIST_FILE = "model-list.json"
#: seconds without a byte before a download is given up
TIMEOUT_S = 30.0
_MB = 1024 * 1024


class ModelError(ValueError):
    """A model that cannot be fetched or used; ``str()`` is one line."""


@dataclass(frozen=True, slots=True)
class KnownModel:
    name: str  # what the command line and the config call it
    archive: str  # the official archive without ".zip"; also the installed folder's name
    md5: str
    size: int  # bytes of the archive


#: The md5 and size are alphacephei's model-list.json entry for the archive,
#: as four unrelated public projects copy it (all agree); a fetch from the
#: official address also compares them with the list it reads.
KNOWN = (
    KnownModel(
        "ru-small", "vosk-model-small-ru-0.22", "d1759dc83eb8fd87850129afbd9f4b7b", 46_236_750
    ),
)


def known(name: str) -> KnownModel | None:
    return next((m for m in KNOWN if m.name == name), None)


def models_dir() -> Path:
    """``$COMPANION_MODELS_DIR``, or ``models`` in the user's data folder
    (beside the journals: ``~/.local/share/companion/models`` on Linux)."""
    override = os.environ.get(DIR_ENV)
    if override:
        return Path(override).expanduser()
    return platformdirs.user_data_path(APP, appauthor=False) / "models"


def model_folder(model: str, folder: Path | None = None) -> Path:
    """The folder of ``model``: a known name installed in ``folder`` (the
    models folder), or a model's own folder."""
    entry = known(model)
    if entry is None:
        path = Path(model).expanduser()
        if not path.is_dir():
            names = ", ".join(m.name for m in KNOWN)
            raise ModelError(f"{path}: no speech model folder there (known names: {names})")
        return path
    path = (folder or models_dir()) / entry.archive
    if not path.is_dir():
        raise ModelError(
            f"speech model {model!r} is not installed in {path.parent}: run "
            f"'companion models fetch {model}' on a connected machine, or copy its "
            f"folder {entry.archive} there"
        )
    return path


# --- fetching ---------------------------------------------------------------------


def fetch(name: str, folder: Path, base_url: str, progress: TextIO) -> tuple[Path, bool]:
    """Install model ``name`` into ``folder``: (its path, whether it was
    fetched now rather than there already)."""
    entry = known(name)
    if entry is None:
        raise ModelError(f"unknown model {name!r} (known: {', '.join(m.name for m in KNOWN)})")
    target = folder / entry.archive
    if target.is_dir():
        return target, False
    base = base_url if base_url.endswith("/") else base_url + "/"
    md5, size = _expected(entry, base)
    folder.mkdir(parents=True, exist_ok=True)
    # Inside the models folder: the final rename stays on one file system.
    work = Path(tempfile.mkdtemp(prefix=f".fetch-{entry.archive}-", dir=folder))
    try:
        archive = work / f"{entry.archive}.zip"
        _download(base + archive.name, archive, md5, size, progress)
        model = _unpack(archive, work / "unpacked")
        try:
            model.rename(target)  # atomic: the model appears whole
        except OSError as error:
            raise ModelError(f"{target}: cannot install there: {error.strerror}") from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target, True


def _expected(entry: KnownModel, base: str) -> tuple[str, int]:
    """The archive's md5 and size: see the module's docstring."""
    try:
        listed: tuple[str, int] | None = _listed(base + LIST_FILE, entry.archive)
        problem = ""
    except ModelError as error:
        listed, problem = None, str(error)
    if base != OFFICIAL_URL:
        if listed is None:
            raise ModelError(f"no checksum for {entry.archive}: {problem}")
        return listed
    if listed is not None and listed != (entry.md5, entry.size):
        raise ModelError(
            f"{base}{LIST_FILE} gives {entry.archive} md5 {listed[0]} and {listed[1]} bytes, "
            f"the companion knows md5 {entry.md5} and {entry.size} bytes: not fetched"
        )
    return entry.md5, entry.size  # the list unreachable: the pinned values


def _listed(url: str, archive: str) -> tuple[str, int]:
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_S) as response:
            data = json.loads(response.read(4 * _MB))
    except (urllib.error.URLError, http.client.HTTPException, OSError) as error:
        raise ModelError(f"cannot read {url}: {_reason(error)}") from None
    except ValueError:
        raise ModelError(f"{url}: not a JSON model list") from None
    items = data if isinstance(data, list) else []
    for item in items:
        if isinstance(item, dict) and item.get("name") == archive:
            md5, size = item.get("md5"), item.get("size")
            valid_md5 = isinstance(md5, str) and len(md5) == 32 and _is_hex(md5)
            if not valid_md5 or not isinstance(size, int) or isinstance(size, bool) or size <= 0:
                raise ModelError(f"{url}: {archive} has no valid md5 and size")
            assert isinstance(md5, str)
            return md5.lower(), size
    raise ModelError(f"{url} does not list {archive}")


def _is_hex(text: str) -> bool:
    return all(c in "0123456789abcdefABCDEF" for c in text)


def _download(url: str, dest: Path, md5: str, size: int, progress: TextIO) -> None:
    digest = hashlib.md5(usedforsecurity=False)  # what alphacephei publishes
    got = 0
    bar = _Progress(progress, dest.name, size)
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_S) as response, dest.open("wb") as out:
            while chunk := response.read(1 << 16):
                got += len(chunk)
                if got > size:
                    raise ModelError(f"{url}: more than the {size} bytes listed: nothing installed")
                digest.update(chunk)
                out.write(chunk)
                bar.show(got)
    except (urllib.error.URLError, http.client.HTTPException, OSError) as error:
        raise ModelError(f"cannot download {url}: {_reason(error)}: nothing installed") from None
    finally:
        bar.end()
    if got != size:
        raise ModelError(f"{url}: {got} of {size} bytes arrived: nothing installed")
    if digest.hexdigest() != md5:
        raise ModelError(
            f"{url}: checksum mismatch (md5 {digest.hexdigest()}, expected {md5}): nothing installed"
        )


def _reason(error: BaseException) -> str:
    if isinstance(error, urllib.error.HTTPError):
        return f"HTTP {error.code} {error.reason}"
    if isinstance(error, urllib.error.URLError):
        return str(error.reason)
    return str(error) or type(error).__name__


def _unpack(archive: Path, into: Path) -> Path:
    """The model folder the (checked) archive holds, unpacked under ``into``."""
    try:
        with zipfile.ZipFile(archive) as zipped:
            for member in zipped.infolist():
                path = PurePosixPath(member.filename)
                if path.is_absolute() or ".." in path.parts:
                    raise ModelError(f"{archive.name}: unsafe path {member.filename!r}")
            zipped.extractall(into)
    except zipfile.BadZipFile as error:
        raise ModelError(
            f"{archive.name}: not a zip archive ({error}): nothing installed"
        ) from None
    entries = list(into.iterdir())
    root = entries[0] if len(entries) == 1 and entries[0].is_dir() else into
    if not (root / "am").is_dir() and not (root / "final.mdl").is_file():
        raise ModelError(f"{archive.name} holds no vosk model (no am/ folder): nothing installed")
    return root


class _Progress:
    """A one-line progress bar on ``stream``, redrawn at each whole percent."""

    def __init__(self, stream: TextIO, label: str, total: int) -> None:
        self.stream, self.label, self.total = stream, label, total
        self.shown = -1

    def show(self, done: int) -> None:
        percent = done * 100 // self.total
        if percent != self.shown:
            self.shown = percent
            bar = "#" * (percent // 4)
            line = f"\r{self.label} [{bar:<25}] {done / _MB:5.1f}/{self.total / _MB:.1f} MB"
            self.stream.write(line)
            self.stream.flush()

    def end(self) -> None:
        if self.shown >= 0:
            self.stream.write("\n")
            self.stream.flush()


# --- what is installed ------------------------------------------------------------


def installed(folder: Path) -> list[tuple[str, Path, int]]:
    """(name, folder, bytes) of each model in ``folder``; a known model by
    its short name. Unfinished fetches (dot folders) are not models."""
    if not folder.is_dir():
        return []
    names = {m.archive: m.name for m in KNOWN}
    out = []
    for path in sorted(folder.iterdir()):
        if path.is_dir() and not path.name.startswith("."):
            size = sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
            out.append((names.get(path.name, path.name), path, size))
    return out


# --- the command line -------------------------------------------------------------

_WORDS = {
    "ru": {
        "installed": "Установленные модели ({folder}):",
        "none": "  нет",
        "known": "Можно скачать (companion models fetch ИМЯ):",
        "yes": "установлена",
        "no": "не установлена",
        "fetched": "Модель {name} установлена: {folder}",
        "already": "Модель {name} уже установлена: {folder}",
        "interrupted": "companion: прервано, ничего не установлено",
    },
    "en": {
        "installed": "Installed models ({folder}):",
        "none": "  none",
        "known": "Can be fetched (companion models fetch NAME):",
        "yes": "installed",
        "no": "not installed",
        "fetched": "Model {name} installed: {folder}",
        "already": "Model {name} is installed already: {folder}",
        "interrupted": "companion: interrupted, nothing installed",
    },
}


def models_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    models = sub.add_parser(
        "models", parents=[common], help="speech models for the forbidden words: list, fetch"
    )
    actions = models.add_subparsers(dest="models_action", required=True)
    where = argparse.ArgumentParser(add_help=False)
    where.add_argument(
        "--dir", help=f"the models folder (default: ${DIR_ENV} or the user's data folder)"
    )
    actions.add_parser("list", parents=[common, where], help="installed and known models")
    fetch_ = actions.add_parser("fetch", parents=[common, where], help="download and install one")
    fetch_.add_argument("name", help=", ".join(m.name for m in KNOWN))
    fetch_.add_argument(
        "--url", help=f"where the archives are (default: ${URL_ENV} or alphacephei)"
    )


def models_command(args: argparse.Namespace) -> int:
    words = _WORDS.get(args.lang, _WORDS["ru"])
    folder = Path(args.dir).expanduser() if args.dir else models_dir()
    if args.models_action == "list":
        print(words["installed"].format(folder=folder))
        found = installed(folder)
        for name, path, size in found:
            print(f"  {name:<12} {path}  {size / _MB:.1f} MB")
        if not found:
            print(words["none"])
        print(words["known"])
        for model in KNOWN:
            state = words["yes" if (folder / model.archive).is_dir() else "no"]
            print(f"  {model.name:<12} {model.archive}  {model.size / _MB:.1f} MB  ({state})")
        return 0
    base = args.url or os.environ.get(URL_ENV) or OFFICIAL_URL
    try:
        path, fetched = fetch(args.name, folder, base, sys.stderr)
    except KeyboardInterrupt:
        print(words["interrupted"], file=sys.stderr)
        return 130
    print(words["fetched" if fetched else "already"].format(name=args.name, folder=path))
    return 0
