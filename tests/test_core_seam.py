"""The procedure seam (issue 11): the core's modules import no cycle, a
ruleset names its procedure and its order of night resolution, and both
are checked when it loads."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from companion.config.rulesets import load_ruleset
from companion.core import procedures
from companion.core.engine import new_game, step
from companion.core.events import GameSetUp, HostAdvanced, NightChoiceMade
from companion.core.forum.state import ForumState
from companion.core.rules import Ruleset
from companion.core.ruleset_load import DataFileError, parse_ruleset
from companion.core.sports.state import TableState, table
from companion.core.state import Game

CORE = Path(__file__).resolve().parent.parent / "companion" / "core"


def _imports() -> dict[str, set[str]]:
    """Module -> the core modules it imports at run time (not under TYPE_CHECKING)."""
    graph: dict[str, set[str]] = {}
    for path in CORE.rglob("*.py"):
        package = path.parent.relative_to(CORE).parts
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found: set[str] = set()
        for node in tree.body:  # module level only: TYPE_CHECKING blocks are ast.If
            if isinstance(node, ast.ImportFrom) and 1 <= node.level <= len(package) + 1:
                base = package[: len(package) - node.level + 1]
                if node.module:
                    found.add(".".join((*base, node.module.split(".")[0])))
                else:
                    found.update(".".join((*base, alias.name)) for alias in node.names)
        graph[".".join((*package, path.stem))] = found
    return graph


def test_the_core_imports_no_cycle() -> None:
    graph = _imports()
    assert {"sports.night", "sports.voting"}.isdisjoint(graph["sports.day"])
    assert {"sports.day", "sports.night"}.isdisjoint(graph["sports.voting"])
    assert {"sports.day", "sports.voting"}.isdisjoint(graph["sports.night"])
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, " -> ".join((*path, module))
        if module in done:
            return
        for imported in graph.get(module, ()):
            visit(imported, (*path, module))
        done.add(module)

    for module in graph:
        visit(module, ())


def _text(name: str) -> str:
    return (CORE.parent.parent / "rulesets" / f"{name}.toml").read_text(encoding="utf-8")


def test_a_ruleset_names_a_known_procedure() -> None:
    assert load_ruleset("club").procedure == "sports_table" in procedures.PROCEDURES
    text = _text("club").replace("title = ", 'procedure = "chess"\ntitle = ', 1)
    with pytest.raises(DataFileError, match=r"club\.toml:\d+: procedure: 'chess' is not one of"):
        parse_ruleset(text, "rulesets/club.toml")


def test_night_resolution_names_known_actions() -> None:
    text = _text("club").replace("title = ", 'night_resolution = ["heal", "bless"]\ntitle = ', 1)
    with pytest.raises(DataFileError, match=r"night_resolution\[1\]: unknown night action 'bless'"):
        parse_ruleset(text, "rulesets/club.toml")


def _night_one(rules: Ruleset, choices: list[tuple[int, int]]) -> tuple[int, ...]:
    """The club's night 1 with the given (seat, target) choices, one per
    step in order; the seats killed at morning."""
    roles = ("putana", "mafia", "don", "maniac", "doctor", "sheriff", *("civilian",) * 4)
    game, _ = new_game(GameSetUp(rules, 10, roles=roles))
    while game.phase == "night":  # night 0
        game, _ = step(game, HostAdvanced())
    while game.phase != "night":  # day 1 goes by with nobody nominated
        game, _ = step(game, HostAdvanced())
    for seat, target in choices:
        while game.seat(seat).role not in _current_step_roles(game):
            game, _ = step(game, HostAdvanced())
        game, _ = step(game, NightChoiceMade(seat, target))
    while game.phase == "night":
        game, _ = step(game, HostAdvanced())
    return tuple(s.number for s in game.seats if s.out is not None and s.out.how == "killed")


def _current_step_roles(game: Game) -> tuple[str, ...]:
    state = table(game)
    return state.tonight[state.night_step].roles


def test_the_ruleset_orders_the_nights_resolution() -> None:
    """The putana blocks the maniac: by default her block comes first and
    voids his kill; a ruleset that resolves kills before blocks lets it
    stand."""
    club = load_ruleset("club")
    choices = [(1, 4), (2, 7), (3, 7), (4, 8)]  # putana blocks 4; mafia shoot 7; maniac kills 8
    assert _night_one(club, choices) == (7,)
    late_block = dataclasses.replace(club, night_resolution=("shoot", "kill", "heal", "block"))
    assert _night_one(late_block, choices) == (7, 8)


def _keywords(call_name: str) -> dict[str, set[str]]:
    """Module -> the keyword names given to ``<something>.<call_name>(...)``."""
    found: dict[str, set[str]] = {}
    for path in CORE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == call_name
            ):
                names = {kw.arg for kw in node.keywords if kw.arg}
                found.setdefault(path.stem, set()).update(names)
    return found


def test_state_changes_name_fields_that_exist() -> None:
    """``Step.set`` and ``set_state`` write a copy's dict without checks
    (replay speed): a name that is no field would be written silently (a
    ballot closed on ``Game`` instead of the table's state stayed open)."""
    game_fields = {f.name for f in dataclasses.fields(Game)}
    table_fields = {f.name for f in dataclasses.fields(TableState)}
    forum_fields = {f.name for f in dataclasses.fields(ForumState)}
    for module, names in _keywords("set").items():
        assert names <= game_fields, f"core/{module}.py sets {sorted(names - game_fields)} on Game"
    for module, names in _keywords("set_state").items():
        fields, state = (
            (forum_fields, "ForumState")
            if module.startswith("forum")
            else (table_fields, "TableState")
        )
        assert names <= fields, f"core/{module}.py sets {sorted(names - fields)} on {state}"
