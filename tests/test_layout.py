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
    """Module -> the package's modules it imports, wherever the import is."""
    known = modules()
    edges: dict[str, set[str]] = {}
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
        edges[module] = found
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
