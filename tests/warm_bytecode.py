"""Compiles what the test run will import, once, before its workers start.

Run by ``run-tests`` beside lint and types. On a clone's first run every
pytest-xdist worker would otherwise compile every module at the same moment,
and rewrite and compile every test module for pytest's assertions (about 5 s
of CPU a worker on two cores, and the hundreds of commands the tests start
compile the package again until one of them has written it). Later runs find
everything cached and this returns in a fraction of a second.
"""

from __future__ import annotations

import compileall
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def stale_test_modules(tests: Path) -> list[Path]:
    """Test modules whose assertion-rewritten bytecode (pytest's own cache,
    beside the usual one) is missing or older than the source."""
    tag = f"{sys.implementation.cache_tag}-pytest-{pytest.__version__}"
    stale = []
    for source in sorted(tests.rglob("*.py")):
        if not (source.name.startswith("test_") or source.name == "conftest.py"):
            continue
        cached = source.parent / "__pycache__" / f"{source.stem}.{tag}.pyc"
        if not cached.exists() or cached.stat().st_mtime < source.stat().st_mtime:
            stale.append(source)
    return stale


def main() -> int:
    for package in ("companion", "bench", "testkit", "tests"):
        compileall.compile_dir(ROOT / package, quiet=1, workers=0)
    if stale_test_modules(ROOT / "tests"):
        # collecting imports every test module through pytest's rewriting
        # import hook, which writes the rewritten bytecode as it goes
        subprocess.run(
            [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
