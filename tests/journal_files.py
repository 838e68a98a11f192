"""Helpers for the journal tests: a whole game's journal, and crash states
written the way a crash leaves them (the lock file's head never counts more
lines than the journal holds)."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import TOURNAMENT_ROLES

from companion.runner import journal_check

ROLES_JSON = json.dumps(TOURNAMENT_ROLES)

#: A short tournament start: night 0 on its timers, two speeches, a nomination.
SHORT = f"""\
{{"at": 0, "input": "setup", "ruleset": "tournament", "roles": {ROLES_JSON}}}
{{"at": 85, "input": "nominate", "by": 1, "target": 3}}
{{"at": 90, "input": "pass", "seat": 1}}
{{"at": 100, "input": "press", "seat": 2}}
{{"at": 104, "input": "offence", "seat": 4, "offence": "4.6.1"}}
{{"at": 110, "input": "next"}}
"""


def write_crash_state(path: Path, data: bytes) -> None:
    """Put ``data`` in the journal at ``path``, with a lock file whose head
    counts its whole lines: what a crash after them leaves."""
    path.write_bytes(data)
    text = journal_check.verify(data, str(path), None)
    write_head(path, len(text.lines), text.last_sum)


def write_head(path: Path, count: int, last_sum: str) -> None:
    journal_check.lock_path(path).write_text(
        f"holder: pid 1 on test since then (test)\nhead: {count:010d} {last_sum or '-':16}\n",
        encoding="utf-8",
    )
