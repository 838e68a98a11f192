"""Every example script against its expected JSON, through the command line.

Each ``examples/<name>.jsonl`` is replayed by ``companion replay <script> --json``
(``companion.cli.main``, in process) and must print exactly the state checked in
as ``examples/expected/<name>.json``. A script without an expected file fails.

After a deliberate change to the engine or to a script, read the protocol first
(``companion replay examples/<name>.jsonl`` prints it) and check that the game
went as the rules say; then regenerate the expected files with::

    UPDATE_EXPECTED=1 .venv/bin/python -m pytest tests/test_examples.py

(each file is then the CLI's output verbatim, as ``companion replay <script>
--json > examples/expected/<name>.json`` would write it).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from companion.cli import main
from tests.helpers import EXAMPLES

EXPECTED = EXAMPLES / "expected"
SCRIPTS = sorted(EXAMPLES.glob("*.jsonl"))
UPDATE = bool(os.environ.get("UPDATE_EXPECTED"))


def replay_json(script: Path, capsys: pytest.CaptureFixture[str]) -> str:
    code = main(["replay", str(script), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, f"{script.name}: companion replay failed: {err.strip()}"
    return out


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.stem)
def test_example_prints_its_expected_json(script: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = replay_json(script, capsys)
    expected = EXPECTED / f"{script.stem}.json"
    if UPDATE:
        EXPECTED.mkdir(exist_ok=True)
        expected.write_text(out, encoding="utf-8")
    assert expected.is_file(), (
        f"no {expected.relative_to(EXAMPLES.parent)}: read the protocol "
        f"(companion replay {script.relative_to(EXAMPLES.parent)}), then run "
        "UPDATE_EXPECTED=1 python -m pytest tests/test_examples.py"
    )
    assert json.loads(out) == json.loads(expected.read_text(encoding="utf-8"))


def test_every_expected_file_has_its_script() -> None:
    orphans = [
        p.name for p in EXPECTED.glob("*.json") if not (EXAMPLES / f"{p.stem}.jsonl").is_file()
    ]
    assert orphans == []


def test_the_tournament_examples_cover_whole_games() -> None:
    """At least eight tournament scripts; red wins, black wins by parity, a draw."""
    tournament = [p for p in SCRIPTS if p.stem.startswith("tournament-")]
    assert len(tournament) >= 8
    reasons = set()
    for script in [*tournament, EXAMPLES / "demo.jsonl"]:
        expected = EXPECTED / f"{script.stem}.json"
        if expected.is_file():
            result = json.loads(expected.read_text(encoding="utf-8"))["result"]
            if result is not None:
                reasons.add((tuple(result["winners"]), result["reason"]))
    assert {(("red",), "eliminated"), (("black",), "parity"), ((), "nobody_left")} <= reasons


def test_companion_alone_replays_the_demo_to_its_result(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``companion`` with no arguments prints the demo game's protocol, ending in a result."""
    assert main([]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    lines = out.splitlines()
    assert lines[0].startswith("[день 0] Стол: правила «tournament»")
    assert lines[-1] == "[день 3] Итог: победа — Красные; поражение — Чёрные (eliminated)"
