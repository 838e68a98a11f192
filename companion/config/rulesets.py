"""Finding and reading ruleset files; the parsing itself is pure
(:mod:`companion.core.ruleset_load`).

A ruleset is named by its file stem: ``load_ruleset("club")`` reads
``rulesets/club.toml`` from :data:`RULESET_DIR` (the repository's
``rulesets/`` folder, or the folder named by the environment variable
``COMPANION_RULESETS``). A path to a ``.toml`` file loads that file.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ..core.rules import Ruleset
from ..core.ruleset_load import DataFileError, parse_ruleset
from ..paths import PROJECT
from ..textfiles.toml_table import MAX_FILE_BYTES, decode_toml

__all__ = [
    "RULESET_DIR",
    "DataFileError",
    "available_rulesets",
    "load_ruleset",
    "ruleset_digest",
    "ruleset_dir",
    "ruleset_path",
]

ENV_VAR = "COMPANION_RULESETS"
#: The shipped rulesets: ``rulesets/`` at the top of the repository.
DEFAULT_DIR = PROJECT / "rulesets"
#: Where rulesets are looked up by name (as set when the program started).
RULESET_DIR = Path(os.environ.get(ENV_VAR) or DEFAULT_DIR)


def ruleset_dir() -> Path:
    """The folder rulesets are found in, honouring a later change of the
    environment variable (tests set it)."""
    override = os.environ.get(ENV_VAR)
    return Path(override) if override else RULESET_DIR


def available_rulesets() -> list[str]:
    """Names of the rulesets in :func:`ruleset_dir`, sorted."""
    folder = ruleset_dir()
    if not folder.is_dir():
        return []
    return sorted(path.stem for path in folder.glob("*.toml") if path.is_file())


def ruleset_path(name_or_path: str | os.PathLike[str]) -> Path:
    """The file a name or path stands for. A name must exist in the folder."""
    text = os.fspath(name_or_path)
    if text.endswith(".toml") or os.sep in text or "/" in text:
        path = Path(text)
        if not path.is_file():
            raise DataFileError(_display(path), None, None, "no such ruleset file")
        return path
    path = ruleset_dir() / f"{text}.toml"
    if not path.is_file():
        names = ", ".join(available_rulesets()) or "none"
        raise DataFileError(
            text, None, None, f"no ruleset named {text!r} in {ruleset_dir()}; available: {names}"
        )
    return path


def load_ruleset(name_or_path: str | os.PathLike[str]) -> Ruleset:
    """Read and parse a ruleset by name (``"club"``) or by path."""
    path = ruleset_path(name_or_path)
    source = _display(path)
    try:
        with path.open("rb") as file:  # no more than the limit, whatever the file's size
            data = file.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise DataFileError(source, None, None, f"cannot read: {exc.strerror}") from None
    return parse_ruleset(decode_toml(data, source), source)


def ruleset_digest(name_or_path: str | os.PathLike[str]) -> str:
    """sha256 (hex) of the ruleset file's bytes: the journal records it to
    notice a ruleset that changed under a game being resumed."""
    return hashlib.sha256(ruleset_path(name_or_path).read_bytes()).hexdigest()


def _display(path: Path) -> str:
    """The path as messages show it: relative to the working directory when
    it lies below it (``rulesets/club.toml``), else absolute."""
    absolute = path.resolve()
    try:
        return absolute.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return str(absolute)
