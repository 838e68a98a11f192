"""The shells look a procedure up by its name (``Ruleset.procedure``), never
branch on it (issue 25, part 3): every shell registry has an entry for
every procedure the core knows, and the generic shell modules name no
procedure: no ``"forum"`` literal, no ``rules.forum``, no import from a
procedure's folder, no name made of a procedure's."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import companion
from companion.console import procedures as console
from companion.console.procedure_parts import ConsoleProcedure, SetupPart
from companion.console.refusals import procedures as refusals
from companion.core.procedures import PROCEDURES, every_option, named
from companion.live import procedures as live
from companion.protocol import procedures as protocol
from companion.protocol.names import bundled_rulesets
from companion.voice import procedures as voice

PACKAGE = Path(companion.__file__).parent

#: the shell modules that serve every procedure alike
GENERIC = (
    "console/app.py",
    "console/setup_screen.py",
    "console/setup_ask.py",
    "console/history.py",
    "console/players_count.py",
    "console/table_news.py",
    "console/script_at_table.py",
    "console/refusals/wording.py",
    "console/refusals/core_words.py",
    "console/refusals/inputs.py",
    "console/refusals/terms.py",
    "console/refusals/lines.py",
    "console/refusals/script.py",
    "live/assembly.py",
    "live/table_spec.py",
    "protocol/report.py",
    "protocol/formats.py",
    "protocol/played.py",
    "club/last_setup.py",
    "protocol/lines.py",
    "protocol/model.py",
    "voice/phrases.py",
    "voice/game_cues.py",
)

#: the procedures' names and their folders' (``core/sports`` plays "sports_table")
WORDS = frozenset(PROCEDURES) | {name.split("_")[0] for name in PROCEDURES}

REGISTRIES = {
    "console": console.PROCEDURES,
    "refusals": refusals.PROCEDURES,
    "live": live.WATCHES,
    "protocol": protocol.SUMMARIES,
    "voice": voice.ARGUMENT_VALUES,
}


@pytest.mark.parametrize("shell", sorted(REGISTRIES))
def test_every_procedure_has_an_entry_in_every_registry(shell: str) -> None:
    assert sorted(REGISTRIES[shell]) == sorted(PROCEDURES)


def test_console_entries_are_whole() -> None:
    for name, entry in console.PROCEDURES.items():
        assert isinstance(entry, ConsoleProcedure), name
        assert isinstance(entry.setup, SetupPart), name
        # each builds a screen of its own (not the base's NotImplementedError)
        assert type(entry).screen is not ConsoleProcedure.screen, name
        assert type(entry).where is not ConsoleProcedure.where, name


def named_procedures(source: str) -> list[str]:
    """Where ``source`` names a procedure: line and what."""
    found = []

    def names(text: str) -> bool:
        lowered = text.lower()
        return any(word in lowered for word in WORDS)

    for node in ast.walk(ast.parse(source)):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in WORDS:
            found.append(f"{line}: the literal {node.value!r}")
        elif isinstance(node, ast.Attribute) and names(node.attr):
            found.append(f"{line}: .{node.attr}")
        elif isinstance(node, ast.Name) and names(node.id):
            found.append(f"{line}: {node.id}")
        elif isinstance(node, ast.FunctionDef | ast.ClassDef) and names(node.name):
            found.append(f"{line}: def {node.name}")
        elif isinstance(node, ast.arg) and names(node.arg):
            found.append(f"{line}: argument {node.arg}")
        elif isinstance(node, ast.ImportFrom):
            parts = (node.module or "").split(".")
            if any(part in WORDS for part in parts):
                found.append(f"{line}: from {node.module} import")
            found += [f"{line}: import {a.name}" for a in node.names if names(a.name)]
        elif isinstance(node, ast.alias) and node.asname and names(node.asname):
            found.append(f"{line}: as {node.asname}")
    return found


@pytest.mark.parametrize("module", GENERIC)
def test_generic_shells_name_no_procedure(module: str) -> None:
    assert named_procedures((PACKAGE / module).read_text()) == []


def test_the_check_finds_a_branch() -> None:
    branch = 'if rules.procedure == "forum":\n    from .forum.setup import ForumFields\n'
    assert len(named_procedures(branch)) == 3
    assert named_procedures("if game.rules.forum is not None: pass") == ["1: .forum"]
    assert named_procedures("sports = 1") == ["1: sports"]


def test_a_procedures_options_are_its_rules_options() -> None:
    """``Procedure.options`` (what a kept set-up may name before its ruleset
    is read, club/last_setup.py) are those its rulesets offer."""
    for rules in bundled_rulesets():
        own = rules.procedure_rules
        assert named(rules.procedure).options == (own.options if own else ()), rules.name
    assert set(every_option()) >= {"two_sided", "multi_child"}
