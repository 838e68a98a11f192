"""The papers keep up with the code (issue 25, part 5).

docs/config.md names every key the config reader takes and every ruleset
that ships; docs/dependencies.md names every package pyproject.toml
installs. Each list is read from the code, so a key or a package added
without its line in the docs fails here, naming it.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path

from companion.config.load import SECTIONS
from companion.config.values import Config

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

#: a row of docs/config.md's table of keys: | `lang` | or | `[table]` `seats` |
KEY_ROW = re.compile(r"^\| (?:`\[(\w+)\]` )?`(\w+)` \|", re.MULTILINE)
#: Config's fields that are not keys of the file (where it was read, what it set)
NOT_KEYS = {"source", "from_file"}


def _reader_keys() -> set[str]:
    """The dotted keys load.py accepts (``lang``, ``table.seats`` ...)."""
    keys: set[str] = set()
    for section, names in SECTIONS.items():
        keys |= {section} if names is None else {f"{section}.{name}" for name in names}
    return keys


def _dataclass_keys() -> set[str]:
    """The dotted keys of the Config dataclass and its sections' dataclasses."""
    keys: set[str] = set()
    defaults = Config()
    for field in dataclasses.fields(Config):
        if field.name in NOT_KEYS:
            continue
        value = getattr(defaults, field.name)
        if dataclasses.is_dataclass(value):
            keys |= {f"{field.name}.{sub.name}" for sub in dataclasses.fields(value)}
        else:
            keys.add(field.name)
    return keys


def _documented_keys() -> set[str]:
    text = (DOCS / "config.md").read_text(encoding="utf-8")
    keys = text[text.index("\n## Keys\n") :]
    keys = keys[: keys.index("\n## ", 1)]  # the section's table only, not "Where it is"
    return {f"{section}.{key}" if section else key for section, key in KEY_ROW.findall(keys)}


def test_the_reader_and_the_dataclasses_name_the_same_keys() -> None:
    assert _reader_keys() == _dataclass_keys()


def test_config_md_names_every_key_and_no_other() -> None:
    documented = _documented_keys()
    code = _reader_keys() | _dataclass_keys()
    assert sorted(code - documented) == [], "keys docs/config.md does not name"
    assert sorted(documented - code) == [], "keys in docs/config.md the reader does not take"


def test_config_md_names_every_shipped_ruleset() -> None:
    text = (DOCS / "config.md").read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| `[table]` `ruleset` |"))
    shipped = sorted(path.stem for path in (ROOT / "rulesets").glob("*.toml"))
    assert shipped, "no rulesets found"
    assert [name for name in shipped if f"`{name}`" not in row] == []


def _requirement_names() -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    specs = [*project["dependencies"], *project["optional-dependencies"]["dev"]]
    names = []
    for spec in specs:
        match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", spec)
        assert match, spec
        names.append(match.group(0).lower())
    return names


def test_dependencies_md_names_every_package_pyproject_installs() -> None:
    text = (DOCS / "dependencies.md").read_text(encoding="utf-8")
    # the first cell of each table row: what the row is about
    named = " ".join(
        line.split("|")[1].lower() for line in text.splitlines() if line.startswith("| ")
    )
    missing = [
        name
        for name in _requirement_names()
        if not re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", named)
    ]
    assert missing == [], "packages docs/dependencies.md does not name"
