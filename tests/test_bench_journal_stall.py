"""bench/journal_stall.py keeps working: both paths run a game on the slow
disk, every journal reads back whole, and the figures are printed. It
runs as a process of its own (the loop asks for a real-time priority for
the whole process). Nothing here measures time."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow  # a bench's whole run
def test_the_bench_runs_both_paths_and_checks_its_journals() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "journal_stall.py"),
         "--seconds", "2", "--fsync-ms", "20", "--neighbours", "0"],
        capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    runs = re.findall(r"^(writer|inline) with 0 neighbour\(s\): (\d+) game\(s\), (\d+) lines, (\d+)/(\d+) journals whole", done.stdout, re.M)  # fmt: skip
    assert [path for path, *_ in runs] == ["writer", "inline"]
    for _, games, lines, whole, total in runs:
        assert int(lines) > 1 and whole == total == games
    assert done.stdout.count("timer firing error (") == 2
    assert done.stdout.count("input -> on disk and shown (") == 2
