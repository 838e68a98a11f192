"""Real protocols for the hall's tests: example games replayed into a
journal and read back as ``companion protocol --format json`` does, in
process (the same functions the command calls)."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import EXAMPLES

from companion.config.rulesets import load_ruleset
from companion.protocol import archive, formats
from companion.runner.journal import Journal
from companion.runner.replay import ScriptReplay
from companion.runner.script import parse_lines


def protocol_bytes(example: str, folder: Path, names: list[str] | None = None) -> bytes:
    """The JSON protocol of ``examples/<example>.jsonl`` played to its end,
    with `names` given to the seats at set-up when asked."""
    lines = (EXAMPLES / f"{example}.jsonl").read_text(encoding="utf-8").splitlines()
    if names is not None:
        for index, line in enumerate(lines):
            if '"input": "setup"' in line:
                setup = json.loads(line)
                seats = setup.get("seats") or len(setup["roles"])
                given = {**setup, "names": names[:seats]}
                lines[index] = json.dumps(given, ensure_ascii=False)
    journal_path = folder / f"{example}.game.jsonl"
    parsed = parse_lines(lines, example, load_ruleset)
    with Journal.create(journal_path) as journal:
        ScriptReplay(journal=journal).run(parsed)
    protocol, _ = archive.from_journal(journal_path, load_ruleset, "ru")
    return formats.json_text(protocol).encode("utf-8")
