"""Replay throughput before and after a change, in one run.

Run ``python bench/engine_compare.py --against REV`` (a commit, a tag, a
branch). It checks REV out into a temporary git worktree, then runs
``bench/engine.py`` of REV and of this tree in turns, ``--rounds`` times
each (turns, so that a busy spell of the machine falls on both alike), and
prints each figure's median for both and the change. It asserts nothing.

Each tree's bot writes its own input streams with its own engine; the same
seeds give the same streams when the engines agree, which the shipped
examples' expected JSON checks (``tests/test_examples.py``).
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: (label, pattern) for each figure read from bench/engine.py's output, in order
FIGURES = (
    ("whole games: replay, pre-parsed", r"replay, pre-parsed lines:\s+([\d,]+) inputs/s"),
    ("whole games: engine.step alone", r"engine\.step alone:\s+([\d,]+) inputs/s"),
    ("whole games: incl. JSON parsing", r"replay incl\. JSON parsing:\s+([\d,]+) inputs/s"),
)


def figures(output: str) -> dict[str, float]:
    """The figures of one bench/engine.py run: its two blocks (whole games,
    one long game) and the resume time."""
    out: dict[str, float] = {}
    blocks = output.split("one long game:")
    for prefix, block in zip(("whole games", "one long game"), blocks, strict=False):
        for label, pattern in FIGURES:
            match = re.search(pattern, block)
            if match:
                out[label.replace("whole games", prefix)] = float(match.group(1).replace(",", ""))
    resume = re.search(r"resume \(cli\._resume, best of \d+\): (\d+) ms", output)
    if resume:
        out["resume (ms)"] = float(resume.group(1))
    return out


def run(tree: Path, args: list[str]) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, str(tree / "bench" / "engine.py"), *args],
        cwd=tree,
        capture_output=True,
        text=True,
        check=True,
    )
    return figures(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", required=True, help="the revision to compare with")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--long", type=int, default=20_000)
    parser.add_argument("--journal", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    passed = ["--games", str(args.games), "--long", str(args.long)]
    passed += ["--journal", str(args.journal), "--repeat", str(args.repeat)]
    with tempfile.TemporaryDirectory(prefix="companion-before-") as folder:
        before = Path(folder) / "tree"
        subprocess.run(
            ["git", "worktree", "add", "--detach", str(before), args.against],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        try:
            runs: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
            for round_no in range(1, args.rounds + 1):
                for name, tree in (("before", before), ("after", ROOT)):
                    runs[name].append(run(tree, passed))
                print(f"round {round_no} of {args.rounds} done", file=sys.stderr)
        finally:
            subprocess.run(
                ["git", "worktree", "remove", "--force", str(before)], cwd=ROOT, check=False
            )
    rev = subprocess.run(
        ["git", "rev-parse", "--short", args.against], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    print(f"bench/engine.py, {args.rounds} runs each in turns, medians: before = {rev}, after = this tree")  # fmt: skip
    for label in runs["before"][0]:
        old = statistics.median(r[label] for r in runs["before"])
        new = statistics.median(r[label] for r in runs["after"] if label in r)
        print(f"  {label:36s} {old:12,.0f} -> {new:12,.0f}  ({(new - old) / old * 100:+.1f} %)")


if __name__ == "__main__":
    main()
