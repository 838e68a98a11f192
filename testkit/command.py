"""``companion`` run as a user runs it: the command line and its
environment, the command a host starts the console with, and an unfinished
game left in a journals folder for the next start to find."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "examples" / "demo.jsonl"


def companion(*args: str | Path, crash_at: str | None = None) -> tuple[list[str], dict[str, str]]:
    """``python -m companion.cli ARGS`` and its environment, as a user runs it."""
    env = {k: v for k, v in os.environ.items() if k != "COMPANION_CRASH_AT"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    if crash_at:
        env["COMPANION_CRASH_AT"] = crash_at
    return [sys.executable, "-m", "companion.cli", *map(str, args)], env


#: how the console is started (``--via``): what ``./run`` execs, or ``./run``
#: itself (which first checks the installation: scripts/setup.sh runtime)
VIA = ("companion", "run")


def host_command(via: str = "companion") -> list[str]:
    """The command a host starts the console with (``VIA``): the
    virtualenv's ``companion`` script (``-m companion.cli`` where there is
    none), or ``./run``."""
    if via == "run":
        return [str(ROOT / "run")]
    script = Path(sys.executable).parent / "companion"
    return [str(script)] if script.exists() else [sys.executable, "-m", "companion.cli"]


def unfinished_game(env: dict[str, str], journals: Path) -> None:
    """A game left on day 1 in the journals folder (the demo's first
    inputs, journaled by ``companion replay``, named as the console names
    a journal): the next start asks whether to resume it."""
    lines = [line for line in DEMO.read_text(encoding="utf-8").splitlines() if line[:1] == "{"]
    script = journals.parent / "day-one.jsonl"
    script.write_text("\n".join(lines[:8]) + "\n", encoding="utf-8")
    journals.mkdir(parents=True, exist_ok=True)
    journal = journals / "2026-01-01_20-00-00.jsonl"
    subprocess.run(
        [*host_command(), "replay", str(script), "--journal", str(journal)],
        env=env,
        check=True,
        capture_output=True,
    )
