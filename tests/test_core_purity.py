"""The core is pure (issue 2, item 3; style.md «A pure core»).

``companion/core`` imports only the standard library and itself; it reads no
clock, starts no threads, does no I/O and uses no global random: a deal is
shuffled by a ``random.Random(seed)`` of its own. Proved two ways: by reading
every module's syntax tree, and by importing the core in a fresh interpreter
and looking at what got loaded.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "companion" / "core"
MODULES = sorted(CORE.rglob("*.py"))

#: Standard modules the core must not touch: clocks, threads, processes,
#: files, sockets, randomness that is not seeded.
FORBIDDEN_MODULES = frozenset(
    {
        "time",
        "datetime",
        "threading",
        "_thread",
        "multiprocessing",
        "concurrent",
        "asyncio",
        "sched",
        "os",
        "io",
        "pathlib",
        "shutil",
        "tempfile",
        "glob",
        "subprocess",
        "socket",
        "select",
        "selectors",
        "signal",
        "secrets",
        "uuid",
        "logging",
    }
)
#: Builtins that read or write the world.
FORBIDDEN_CALLS = frozenset({"open", "input", "print", "exec", "eval", "__import__", "breakpoint"})
#: The one name of ``random`` the core may use: a seeded instance of its own.
RANDOM_ALLOWED = frozenset({"Random"})


@dataclass(frozen=True)
class Import:
    module: str  # "" for ``from . import x``
    level: int  # 0 absolute, 1 ``from .``, 2 ``from ..``
    line: int


def imports(tree: ast.AST) -> list[Import]:
    found: list[Import] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend(Import(alias.name, 0, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            found.append(Import(node.module or "", node.level, node.lineno))
    return found


#: what the core may import of the package: itself, and the text files it reads
INSIDE = ("companion.core", "companion.textfiles")


def package_of(path: Path) -> str:
    """The dotted package a core module sits in (``companion.core.sports``)."""
    return ".".join(path.parent.relative_to(ROOT).parts)


def import_problems(tree: ast.AST, package: str = "companion.core") -> list[str]:
    """Imports that leave the standard library, companion.core and the text
    files (a relative import resolved from ``package``)."""
    problems = []
    parts = package.split(".")
    for imp in imports(tree):
        top = imp.module.partition(".")[0]
        where = f"line {imp.line}"
        if imp.level:
            reached = ".".join([*parts[: len(parts) - imp.level + 1], imp.module]).strip(".")
            if not reached.startswith(INSIDE) or imp.level > len(parts):
                problems.append(f"{where}: relative import leaves companion.core: {imp}")
            continue
        if imp.module.startswith(INSIDE):
            continue
        elif top == "companion":
            problems.append(f"{where}: {imp.module} is outside companion.core")
        elif top not in sys.stdlib_module_names:
            problems.append(f"{where}: {imp.module} is not in the standard library")
    return problems


def impurities(tree: ast.AST) -> list[str]:
    """Clock, thread, I/O and global-random uses in one module."""
    problems = []
    random_names: set[str] = set()  # what ``random`` is called in this module
    for node in ast.walk(tree):
        where = f"line {getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.partition(".")[0]
                if top in FORBIDDEN_MODULES:
                    problems.append(f"{where}: import {alias.name}")
                if alias.name == "random":
                    random_names.add(alias.asname or "random")
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            top = node.module.partition(".")[0]
            if top in FORBIDDEN_MODULES:
                problems.append(f"{where}: from {node.module} import ...")
            if node.module == "random":
                for alias in node.names:
                    if alias.name not in RANDOM_ALLOWED:
                        problems.append(f"{where}: from random import {alias.name}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in FORBIDDEN_CALLS
        ):
            problems.append(f"{where}: {node.func.id}(...)")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            name, attr = node.value.id, node.attr
            where = f"line {node.lineno}"
            if name in random_names and attr not in RANDOM_ALLOWED:
                problems.append(f"{where}: {name}.{attr} (the global random)")
            if name in FORBIDDEN_MODULES:
                problems.append(f"{where}: {name}.{attr}")
    return problems


def parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def test_the_core_has_modules() -> None:
    names = {path.stem for path in MODULES}
    assert {"engine", "events", "effects", "state", "rules", "ruleset_load"} <= names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_core_imports_only_the_standard_library(path: Path) -> None:
    assert import_problems(parse(path), package_of(path)) == []


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_core_has_no_clock_threads_io_or_global_random(path: Path) -> None:
    assert impurities(parse(path)) == []


def test_the_deal_uses_a_seeded_random_of_its_own() -> None:
    engine = parse(CORE / "engine.py")
    calls = [
        node
        for node in ast.walk(engine)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "random"
    ]
    assert calls, "the deal is expected to shuffle with random.Random(seed)"
    assert all(isinstance(c.func, ast.Attribute) and c.func.attr == "Random" for c in calls)
    assert all(len(c.args) == 1 for c in calls), "random.Random() needs the setup's seed"


BAD_CORE = """
import time
import os.path
import random as rnd
import numpy
from datetime import datetime
from random import shuffle, Random
from ..journal import Journal
from companion.runner.replay import ScriptReplay
from companion.core.state import Game
from . import state

def f():
    rnd.shuffle([])
    rnd.Random(3)
    open("x")
    os.getcwd()
    time.monotonic()
"""


def test_the_checks_find_what_they_look_for() -> None:
    """The checkers above are only as good as this: each kind of impurity is caught."""
    tree = ast.parse(BAD_CORE)
    found_imports = "\n".join(import_problems(tree))
    assert "numpy is not in the standard library" in found_imports
    assert "relative import leaves companion.core" in found_imports
    assert "companion.runner.replay is outside companion.core" in found_imports
    assert "companion.core.state" not in found_imports
    assert "time" not in found_imports  # the standard library is allowed here...
    found = "\n".join(impurities(tree))
    for expected in (
        "import time",  # ... but not its clock
        "import os.path",
        "from datetime import",
        "from random import shuffle",
        "rnd.shuffle (the global random)",
        "open(...)",
        "os.getcwd",
        "time.monotonic",
    ):
        assert expected in found, expected
    assert "rnd.Random" not in found
    assert "from random import Random" not in found


IMPORT_CORE = "import companion.core.engine, companion.core.ruleset_load"


def _foreign(names: list[str]) -> list[str]:
    """Modules that are neither the standard library nor companion.core."""
    return [
        name
        for name in names
        if name not in ("__main__", "companion")
        and not name.startswith(("companion.core", "companion.textfiles"))
        and name.partition(".")[0] not in sys.stdlib_module_names
        and name not in sys.builtin_module_names
    ]


def _run(*args: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return done.stdout.split()


def test_importing_the_core_loads_nothing_else() -> None:
    """A fresh interpreter without ``site`` (so no .pth hooks of the
    environment) imports the engine and the ruleset parser: every module it
    then holds is the standard library or companion.core."""
    loaded = _run("-S", "-c", f"{IMPORT_CORE}; import sys; print(*sorted(sys.modules))")
    assert "companion.core.engine" in loaded
    assert "companion.core.ruleset_load" in loaded
    assert _foreign(loaded) == []
    # The package's own __init__ imports nothing that could pull the shells in.
    assert imports(parse(ROOT / "companion" / "__init__.py")) == []


def test_importing_the_core_in_the_venv_adds_nothing_else() -> None:
    """The same in the ordinary interpreter: what the import adds to what
    the environment loads at start-up is the standard library or the core."""
    code = f"import sys; before = set(sys.modules); {IMPORT_CORE}; print(*sorted(set(sys.modules) - before))"
    added = _run("-c", code)
    assert "companion.core.engine" in added
    assert _foreign(added) == []


def test_the_core_uses_no_forbidden_module_at_run_time() -> None:
    """Imported by a stdlib module or not, none of the clock, thread or I/O
    modules come in through the core itself: checked by what the core's own
    modules hold as globals."""
    import importlib

    for path in MODULES:
        module = importlib.import_module(f"{package_of(path)}.{path.stem}")
        held = {
            getattr(value, "__name__", "").partition(".")[0]
            for value in vars(module).values()
            if type(value).__name__ == "module"
        }
        assert held.isdisjoint(FORBIDDEN_MODULES), (path.name, held & FORBIDDEN_MODULES)
