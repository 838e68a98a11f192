"""The layout holds (issue 25, parts 1, 2 and 5): no import closes a loop,
not even one inside a function or under ``TYPE_CHECKING``.

The graph is read from the syntax trees of ``companion/``: every ``import``
and ``from ... import`` anywhere in a module (module level, inside
functions, under ``if TYPE_CHECKING:``), resolved to the modules of the
package (``from . import codec`` names the module ``codec``; ``from .state
import Game`` the module ``state``).
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "companion"


def modules() -> dict[str, Path]:
    """Dotted name -> file, for every module of the package (a package by
    its ``__init__.py``)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _named(node: ast.Import | ast.ImportFrom, module: str, path: Path) -> list[str]:
    """The dotted names an import statement reaches (modules or attributes)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
        base = ".".join([*package[: len(package) - node.level + 1], node.module or ""]).strip(".")
    else:
        base = node.module or ""
    return [base] + [f"{base}.{alias.name}" for alias in node.names]


def graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports, wherever the import is
    (a copy of the graph read once a run: each test may change its own)."""
    return {module: set(imported) for module, imported in _read_graph().items()}


@functools.cache
def _read_graph() -> dict[str, frozenset[str]]:
    known = modules()
    edges: dict[str, frozenset[str]] = {}
    for module, path in known.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            for name in _named(node, module, path):
                while name and name not in known:  # an attribute: its module
                    name = name.rpartition(".")[0]
                if name and name != module and name != "companion":
                    found.add(name)
        edges[module] = frozenset(found)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one module (Tarjan's, by
    an explicit stack: the graph is a few hundred modules deep at most)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part.append(member)
                    if member == node:
                        break
                if len(part) > 1:
                    found.append(sorted(part))
    return found


def test_no_import_closes_a_loop() -> None:
    assert cycles(graph()) == []


def test_the_cycle_finder_finds_a_hidden_loop() -> None:
    """A loop through a deferred import is a loop: the finder must see it."""
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(edges) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


#: The packages from the bottom up: a module imports its own package and the
#: layers below it, never a layer above nor another package of its own layer.
#: A package is named by its dotted prefix; the longest prefix counts.
LAYERS: list[tuple[str, ...]] = [
    ("companion.paths", "companion.textfiles"),
    ("companion.core",),
    ("companion.config",),
    ("companion.runner",),
    ("companion.protocol", "companion.voice"),
    ("companion.seats", "companion.ears"),
    # the hall's topics and a table's publisher sit below the live table that
    # starts it; the board and the spectators' pages at the console's level
    ("companion.hall",),
    ("companion.live",),
    ("companion.club",),
    ("companion.ops",),
    ("companion.console", "companion.hall.board", "companion.hall.web"),
    ("companion.hall.commands",),  # the hall's command line: below the parser that names it
    ("companion.commands",),
    ("companion.cli",),
]
#: Imports that go up, each with why it is still there and where it goes.
UPWARD: dict[tuple[str, str], str] = {}


def layer_of(module: str) -> tuple[int, str]:
    """The layer a module sits in and the package that puts it there."""
    best = (-1, "")
    for level, packages in enumerate(LAYERS):
        for package in packages:
            if (module == package or module.startswith(package + ".")) and len(package) > len(
                best[1]
            ):
                best = (level, package)
    return best


def test_every_module_sits_in_a_layer() -> None:
    unplaced = [m for m in modules() if m != "companion" and layer_of(m)[0] < 0]
    assert unplaced == [], "add the package to LAYERS in tests/test_layout.py"


def test_packages_import_downward_only() -> None:
    wrong = []
    for module, imported in graph().items():
        if module == "companion":
            continue
        level, package = layer_of(module)
        for other in sorted(imported):
            other_level, other_package = layer_of(other)
            if other_package == package or (module, other) in UPWARD:
                continue
            if other_level > level:
                wrong.append(f"{module} -> {other}: up from {package} to {other_package}")
            elif other_level == level:
                wrong.append(f"{module} -> {other}: sideways, {package} and {other_package}")
    assert wrong == []


def test_every_upward_import_listed_is_still_there() -> None:
    """An exception that no longer holds is taken out of UPWARD."""
    edges = graph()
    assert [edge for edge in UPWARD if edge[1] not in edges.get(edge[0], set())] == []


def test_the_layers_hold_what_they_say() -> None:
    """The check above can fail: an import up, and one sideways, are found."""
    assert layer_of("companion.core.sports.day") == (1, "companion.core")
    assert layer_of("companion.console.app")[0] > layer_of("companion.live.assembly")[0]
    assert layer_of("companion.ears.link")[0] == layer_of("companion.seats.gpio")[0]


TREE_LINE = re.compile(r"^(?P<indent> *)(?P<name>[\w.]+/|\w+\.(?:py|tcss))(?:\s|$)")


def architecture_tree() -> set[str]:
    """The paths the tree in docs/architecture.md's "The parts" names
    (relative to the repository), folders by their indentation."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = text.split("## The parts", 1)[1].split("```", 2)[1]
    named: set[str] = set()
    folders: list[tuple[int, str]] = []  # (indent, folder name) down to here
    for line in block.splitlines():
        found = TREE_LINE.match(line)
        if not found:
            continue
        indent = len(found["indent"])
        while folders and folders[-1][0] >= indent:
            folders.pop()
        path = "".join(folder for _, folder in folders) + found["name"]
        if path.endswith("/"):
            folders.append((indent, found["name"]))
        else:
            named.add(path)
    return named


def test_every_module_is_named_in_the_architecture() -> None:
    """docs/architecture.md's tree names every module, and nothing that is
    not there (a module moved or gone is not left behind in the papers)."""
    named = architecture_tree()
    present = {
        path.relative_to(ROOT).as_posix()
        for path in PACKAGE.rglob("*")
        if path.suffix in (".py", ".tcss") and path.name != "__init__.py"
    }
    assert sorted(present - named) == [], "modules docs/architecture.md does not name"
    assert sorted(named - present) == [], "names in docs/architecture.md with no module"


#: the shared engine: core/*.py, every procedure's; ``procedures`` is the
#: registry, the one that names them
SHARED_CORE = "companion.core."
REGISTRY = "companion.core.procedures"
PROCEDURE_PACKAGES = ("companion.core.sports", "companion.core.forum")


def procedure_leaks(edges: dict[str, set[str]], known: dict[str, Path]) -> list[str]:
    """Imports from a shared core module into a procedure's package."""
    leaks = []
    for module, imported in edges.items():
        shared = module.startswith(SHARED_CORE) and module.count(".") == 2
        if not shared or module == REGISTRY or known[module].name == "__init__.py":
            continue
        for other in sorted(imported):
            if other == PROCEDURE_PACKAGES or other.startswith(PROCEDURE_PACKAGES):
                leaks.append(f"{module} -> {other}")
    return leaks


def test_the_shared_core_names_no_procedure() -> None:
    """Issue 25 part 3: the sports table's and the forum's rules live in
    their folders; discipline, timing, events, rules, the ruleset reader,
    the engine and the views ask the procedure (``Procedure``'s hooks,
    through the registry) and import neither."""
    assert procedure_leaks(graph(), modules()) == []


def test_a_leak_into_a_procedure_is_found() -> None:
    known = {name: Path(f"{name}.py") for name in ("companion.core.timing", REGISTRY)}
    edges = {
        "companion.core.timing": {"companion.core.sports.state", "companion.core.step"},
        REGISTRY: {"companion.core.forum.procedure"},
    }
    assert procedure_leaks(edges, known) == ["companion.core.timing -> companion.core.sports.state"]


#: the journal's and the scripts' line <-> event codec: a procedure's own
#: inputs reach it through the registry (``Procedure.events``), never by name
CODEC = ("companion.runner.codec", "companion.runner.fields")


def test_the_codec_names_no_procedures_inputs() -> None:
    """Issue 25 part 3: a procedure with inputs of its own brings them
    without a change to the codec."""
    edges = graph()
    named = [
        f"{module} -> {other}"
        for module in CODEC
        for other in sorted(edges[module])
        if other.startswith(PROCEDURE_PACKAGES)
    ]
    assert named == []
