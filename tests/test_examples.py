"""Every example script against its expected JSON, through the command line.

Each ``examples/<name>.jsonl`` is replayed by ``companion replay <script> --json``
(``companion.cli.main``, in process) and must print exactly the state checked in
as ``examples/expected/<name>.json``, to the character (``60``, not ``60.0``).
A script without an expected file fails.

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
from companion.config.rulesets import load_ruleset
from companion.core.engine import new_game
from companion.core.events import GameSetUp
from companion.protocol.report import protocol, summary
from tests.helpers import EXAMPLES, TOURNAMENT_ROLES

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
    assert out == expected.read_text(encoding="utf-8")


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.stem)
def test_whole_seconds_print_as_integers(script: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """docs/replay-json.md: «whole seconds print as integers (60, 0)» in every field."""
    floats: list[str] = []

    def number(text: str) -> float:
        floats.append(text)
        return float(text)

    json.loads(replay_json(script, capsys), parse_float=number)
    assert [f for f in floats if float(f).is_integer()] == []


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


def test_companion_demo_replays_the_demo_to_its_result(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``companion demo`` prints the demo game's protocol, ending in a result."""
    assert main(["demo"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    lines = out.splitlines()
    assert lines[0].startswith("[день 0] Стол: «Турнирный регламент»")
    assert lines[-1] == (
        "[день 3] Итог: победа — Красные; поражение — Чёрные (за столом не осталось соперников)"
    )


def test_the_vote_timeline_of_the_docs(capsys: pytest.CaptureFixture[str]) -> None:
    """docs/table-script.md, "Vote windows": the worked timeline's counts, as the
    protocol records them (the expected JSON checks who left and what was ignored)."""
    assert main(["replay", str(EXAMPLES / "tournament-vote-timeline.jsonl")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line for line in lines if "За игрока" in line] == [
        "[день 1] За игрока 3: 3 (голосовали: 1, 2, 4)",
        "[день 1] За игрока 6: 2 (голосовали: 7, 9)",
        "[день 1] За игрока 8: 5 — остальные голоса (голосовали: 3, 5, 6, 8, 10)",
    ]
    assert lines[-1] == "Вводы без последствий: 4 (строки сценария: 20, 28, 29, 44)"


def test_ignored_lines_in_the_json_and_the_protocol() -> None:
    """report.summary / report.protocol take the ignored script lines from the
    replay driver; without them there are none and the protocol has no such line."""
    game, _ = new_game(GameSetUp(load_ruleset("tournament"), 10, tuple(TOURNAMENT_ROLES)))
    assert summary(game)["ignored"] == {"count": 0, "lines": []}
    assert summary(game, ignored=[4, 7])["ignored"] == {"count": 2, "lines": [4, 7]}
    plain = protocol(game)
    assert protocol(game, "ru", ignored=(4, 7)) == [
        *plain,
        "Вводы без последствий: 2 (строки сценария: 4, 7)",
    ]
    assert protocol(game, "en", ignored=[4, 7])[-1] == (
        "Inputs that changed nothing: 2 (script lines: 4, 7)"
    )
