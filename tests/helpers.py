"""Shared helpers for tests: run inline table scripts on the fake clock."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

from companion.config.rulesets import load_ruleset
from companion.core.state import Game
from companion.runner.replay import ScriptReplay
from companion.runner.script import parse_lines

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
#: ``./run-tests --fast``, the inner loop: the fuzzing tests try a quarter
#: of their examples (the same tests and assertions; the whole suite tries
#: them all). Hypothesis's own default (100) is lowered by the profile
#: tests/conftest.py loads.
FAST = os.environ.get("COMPANION_TESTS") == "fast"
Case = TypeVar("Case")


def examples(full: int) -> int:
    """How many examples (or random cases) a fuzzing test tries this run."""
    return max(10, full // 4) if FAST else full


def spread(cases: Sequence[Case]) -> list[Case]:
    """The cases an exhaustive test goes through this run: all of them, or
    under ``--fast`` every fourth, spread over the whole and with the last."""
    if not FAST or len(cases) <= 10:
        return list(cases)
    return [case for index, case in enumerate(cases) if index % 4 == 0 or index == len(cases) - 1]


def play(*lines: dict[str, Any], table: ScriptReplay | None = None) -> Game:
    """Run script lines (dicts as they would be written in a .jsonl file)."""
    table = table or ScriptReplay()
    parsed = parse_lines(
        [json.dumps(line) for line in lines], "test", load_ruleset, start_at=table.now
    )
    game = table.run(parsed)
    assert game is not None
    return game


def setup(ruleset: str, roles: list[str], **extra: Any) -> dict[str, Any]:
    return {"input": "setup", "ruleset": ruleset, "roles": roles, **extra}


TOURNAMENT_ROLES = [
    "civilian", "civilian", "mafia", "civilian", "sheriff",
    "don", "civilian", "mafia", "civilian", "civilian",
]  # fmt: skip
