"""The in-process runner (cli_here.py) gives what a real process gives:
the same status, the same words on the same stream, for a refusal, an
argparse error, --help and a plain command."""

from __future__ import annotations

import subprocess
import sys

import pytest
from cli_here import companion_here
from helpers import ROOT

RUNS = [
    ("verify-deal", "no-such-protocol.json", "--lang", "en"),
    ("--no-such-option",),
    ("protocol", "--help"),
    ("rulesets",),
]


@pytest.mark.parametrize("args", RUNS)
def test_the_command_here_says_what_its_process_says(args: tuple[str, ...]) -> None:
    here = companion_here(*args, cwd=ROOT)
    real = subprocess.run(
        [sys.executable, "-m", "companion.cli", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert (here.returncode, here.stdout, here.stderr) == (
        real.returncode,
        real.stdout,
        real.stderr,
    )
    assert here.stdout or here.stderr  # something said: the comparison means something
