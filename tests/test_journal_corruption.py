"""Corruption of a whole game's journal (issue 8, "Must show"): 2 000
single-bit flips spread over all of it (a fixed seed), and every line
deleted, duplicated and swapped with the next. ``companion resume`` either
refuses with the file and the line, or — for a torn last line only —
recovers with a warning; it never silently yields a different state.

The counts are printed (``pytest -s``) for the closing note."""

from __future__ import annotations

import contextlib
import io
import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from helpers import EXAMPLES, examples

from companion import cli
from companion.runner import journal_check

FLIPS = examples(2000)


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The demo game (night 0 to red's win) journaled, its lock file, and
    the states of the journal and of the journal without its last line."""
    folder = tmp_path_factory.mktemp("whole")
    path = folder / "game.jsonl"
    with contextlib.redirect_stdout(io.StringIO()):
        assert cli.main(["replay", str(EXAMPLES / "demo.jsonl"), "--journal", str(path)]) == 0
    data = path.read_bytes()
    lock = journal_check.lock_path(path).read_bytes()
    lines = data.splitlines(keepends=True)
    cut = folder / "cut.jsonl"
    cut.write_bytes(b"".join(lines[:-1]))
    return {
        "data": data,
        "lock": lock,
        "lines": lines,
        "state": _state(path),
        "state_without_last": _state(cut),
    }


def _state(path: Path) -> Any:
    from companion.config.rulesets import load_ruleset
    from companion.protocol.report import summary
    from companion.runner.journal import read
    from companion.runner.replay import ScriptReplay
    from companion.runner.script import parse_lines

    table = ScriptReplay(auto_timers=False)
    table.run(parse_lines(read(path).lines, str(path), load_ruleset))
    assert table.game is not None
    return summary(table.game, table.ignored)


def resume(
    tmp_path: Path, whole: dict[str, Any], data: bytes, capsys: pytest.CaptureFixture[str]
) -> tuple[str, int | None]:
    """Resume a damaged copy: ("refused", line), ("torn", None) after the
    warning, or ("same", None); anything else fails the test."""
    path = tmp_path / "game.jsonl"
    path.write_bytes(data)
    journal_check.lock_path(path).write_bytes(whole["lock"])
    capsys.readouterr()
    status = cli.main(["resume", str(path), "--json"])
    out, err = capsys.readouterr()
    if status == 2:
        assert out == ""
        assert err.count("\n") == 1 and err.startswith(f"companion: {path}:"), err
        line = int(err[len(f"companion: {path}:") :].split(":", 1)[0])
        assert 1 <= line <= len(whole["lines"]) + 1, err
        return "refused", line
    assert status == 0, err
    state = json.loads(out)
    if err:
        # Only a torn last line may be dropped, with its warning.
        assert err.count("\n") == 1 and "оборванная последняя строка пропущена" in err, err
        assert state == whole["state_without_last"]
        return "torn", None
    assert state == whole["state"]
    return "same", None


def test_bit_flips(
    tmp_path: Path, whole: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    data: bytes = whole["data"]
    rng = random.Random(8)
    bits = rng.sample(range(len(data) * 8), FLIPS)
    # byte offset -> its line number (1-based)
    line_of = []
    for number, line in enumerate(whole["lines"], 1):
        line_of += [number] * len(line)
    outcomes: Counter[str] = Counter()
    for bit in bits:
        offset, mask = divmod(bit, 8)
        flipped = bytearray(data)
        flipped[offset] ^= 1 << mask
        outcome, line = resume(tmp_path, whole, bytes(flipped), capsys)
        outcomes[outcome] += 1
        if outcome == "refused" and b"\n" not in (
            data[offset : offset + 1],
            flipped[offset : offset + 1],
        ):
            assert line == line_of[offset], (offset, line)  # the flipped line is the one named
            outcomes["refused naming the flipped line"] += 1
    with capsys.disabled():
        print(
            f"\n{FLIPS} bit flips over {len(data)} bytes, {len(whole['lines'])} lines: {dict(outcomes)}"
        )
    assert sum(outcomes[k] for k in ("refused", "torn", "same")) == FLIPS
    assert outcomes["same"] == 0  # every flip was found


@pytest.mark.parametrize("change", ["deleted", "duplicated", "swapped"])
def test_every_line(
    tmp_path: Path, whole: dict[str, Any], capsys: pytest.CaptureFixture[str], change: str
) -> None:
    lines: list[bytes] = whole["lines"]
    outcomes: Counter[str] = Counter()
    for i in range(len(lines) - (change == "swapped")):
        changed = list(lines)
        if change == "deleted":
            del changed[i]
        elif change == "duplicated":
            changed.insert(i, lines[i])
        else:
            changed[i], changed[i + 1] = changed[i + 1], changed[i]
        outcome, line = resume(tmp_path, whole, b"".join(changed), capsys)
        outcomes[outcome] += 1
        assert outcome == "refused", (change, i)
        # The first line that is not where it belongs is named.
        assert line == (i + 2 if change == "duplicated" else i + 1), (change, i, line)
    with capsys.disabled():
        print(f"\nevery line {change} ({sum(outcomes.values())} cases): {dict(outcomes)}")


def test_torn_last_lines_recover_with_a_warning(
    tmp_path: Path, whole: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """What a crash leaves (the head not yet counting the line being
    written): every cut of the last line is dropped with a warning."""
    lines: list[bytes] = whole["lines"]
    body = b"".join(lines[:-1])
    text = journal_check.verify(body, "j", None)
    head = f"holder: test\nhead: {len(text.lines):010d} {text.last_sum}\n".encode()
    for cut in range(1, len(lines[-1])):
        path = tmp_path / "game.jsonl"
        path.write_bytes(body + lines[-1][:cut])
        journal_check.lock_path(path).write_bytes(head)
        capsys.readouterr()
        assert cli.main(["resume", str(path), "--json"]) == 0
        out, err = capsys.readouterr()
        assert json.loads(out) == whole["state_without_last"]
        assert err.startswith(
            f"companion: {path}:{len(lines)}: оборванная последняя строка пропущена"
        )
