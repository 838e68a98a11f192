"""Fuzzing table scripts (issue 8, "Must show"): random bytes, random JSON
values in every field of every input, huge numbers, NaN and infinities,
deep nesting, undecodable bytes, huge lines. Every case ends in a clear
one-line error naming the file and line, or a valid run — never a
traceback, a hang or a signal — and a journal a run wrote always resumes
to the state that run reached. The error is in the host's words (Russian,
no config here): none is left with no words (console/refusals/lines.py
logs one that is).

The rulesets, pin maps and voice catalogues are fuzzed in
tests/test_fuzz_files.py."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT, TOURNAMENT_ROLES, examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion import cli
from companion.runner import codec
from companion.runner.journal import lock_path

START = [
    {"at": 0, "input": "setup", "ruleset": "tournament", "roles": TOURNAMENT_ROLES},
    {"at": 85, "input": "nominate", "by": 1, "target": 3},
]

SETTINGS = settings(
    max_examples=examples(150),
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

#: values a field may be given: the right kind, the wrong kind, and the edges
numbers = st.one_of(
    st.integers(-5, 30),
    st.integers(),
    st.sampled_from([0, -1, 10**18, 2**64, 10**400, -(10**400)]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([1e308, -1e308, 5e-324, 0.5]),
)
texts = st.one_of(
    st.text(max_size=20),
    st.sampled_from(
        ["civilian", "mafia", "4.6.1", "red", "turn", "tournament", "a\u2028b", "x" * 5000]
    ),
)
leaves = st.one_of(st.none(), st.booleans(), numbers, texts)
values = st.recursive(
    leaves,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(texts, inner, max_size=3)),
    max_leaves=12,
)


@st.composite
def script_lines(draw: st.DrawFn) -> dict[str, Any]:
    """One input with its own keys (and sometimes a stray one), each given
    a random value, sometimes a well-formed one."""
    name = draw(st.sampled_from(sorted(codec.shapes())))
    required, optional = codec.shapes()[name]
    line: dict[str, Any] = {"input": name}
    for key in (
        *required,
        *draw(st.lists(st.sampled_from([*optional, "at", "after", "line", "sum"]), max_size=2)),
    ):
        line[key] = draw(st.one_of(values, st.integers(1, 10)))
    if draw(st.integers(0, 9)) == 0:
        line[draw(texts)] = draw(values)
    return line


class Unworded(logging.Handler):
    """The errors the command line could not put in words."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.said: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if "no words" in record.getMessage():
            self.said.append(record.getMessage())


def run(tmp_path: Path, data: bytes, capsys: pytest.CaptureFixture[str]) -> None:
    """Replay ``data`` with a journal: a valid run or one line naming the
    file, in words; then the journal (if any) resumes to the same state."""
    unworded = Unworded()
    logging.getLogger("companion.console").addHandler(unworded)
    try:
        _run(tmp_path, data, capsys)
    finally:
        logging.getLogger("companion.console").removeHandler(unworded)
    assert unworded.said == []


def _run(tmp_path: Path, data: bytes, capsys: pytest.CaptureFixture[str]) -> None:
    script, journal = tmp_path / "fuzz.jsonl", tmp_path / "fuzz-journal.jsonl"
    for leftover in (journal, lock_path(journal)):
        leftover.unlink(missing_ok=True)
    script.write_bytes(data)
    capsys.readouterr()
    status = cli.main(["replay", str(script), "--json", "--journal", str(journal)])
    out, err = capsys.readouterr()
    if status == 0:
        assert err == "" and json.loads(out)
    else:
        assert status == 2 and out == ""
        assert err.count("\n") == 1 and len(err) < 600, err
        assert err.startswith(f"companion: {script}:") or err.startswith(
            f"companion: {journal}:"
        ), err
    if not journal.exists():
        return
    resumed = cli.main(["resume", str(journal), "--json"])
    again, err = capsys.readouterr()
    if status == 0:
        assert resumed == 0 and err == "" and json.loads(again) == json.loads(out)
    else:  # a refused line: the journal holds what came before it
        assert resumed in (0, 2), err
        if resumed == 2:
            assert "нет строки setup" in err, err


def lines_of(*objects: object) -> bytes:
    return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objects).encode()


@SETTINGS
@given(data=st.binary(max_size=300))
def test_random_bytes(tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes) -> None:
    run(tmp_path, data, capsys)


@SETTINGS
@given(extra=st.lists(script_lines(), min_size=1, max_size=6))
def test_random_inputs_after_a_good_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[dict[str, Any]]
) -> None:
    data = lines_of(*START) + b"".join(
        # json.dumps writes NaN and Infinity as a script could hold them
        (json.dumps(line, ensure_ascii=False) + "\n").encode()
        for line in extra
    )
    run(tmp_path, data, capsys)


@SETTINGS
@given(line=script_lines())
def test_random_first_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: dict[str, Any]
) -> None:
    run(tmp_path, lines_of(line), capsys)


@SETTINGS
@given(
    depth=st.integers(1, 200_000),
    opener=st.sampled_from(["[", '{"a":', '{"input": "press", "seat": [']),
)
def test_deep_nesting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], depth: int, opener: str
) -> None:
    run(tmp_path, lines_of(*START) + (opener * depth).encode()[:60_000] + b"\n", capsys)


EDGES = {
    "a 400-digit at": '{"at": 1' + "0" * 400 + ', "input": "wait"}',
    "an integer too long to read": '{"input": "press", "seat": 1' + "0" * 5000 + "}",
    "NaN": '{"at": NaN, "input": "wait"}',
    "after 1e308 twice": '{"after": 1e308, "input": "wait"}\n{"after": 1e308, "input": "wait"}',
    "Infinity seconds": '{"input": "adjust", "seconds": Infinity}',
    "a huge seed": '{"input": "setup", "ruleset": "club", "seed": 1' + "0" * 300 + "}",
    "a huge seats": '{"input": "setup", "ruleset": "club", "seats": 1' + "0" * 30 + "}",
    "a huge index": '{"input": "dismiss", "index": 1' + "0" * 30 + "}",
    "a huge generation": '{"input": "timer", "name": "turn", "generation": 1' + "0" * 30 + "}",
    "remaining NaN": '{"input": "pause", "remaining": [["turn", NaN]]}',
    "a long offence": '{"input": "offence", "seat": 1, "offence": "' + "x" * 60_000 + '"}',
    "U+2028 in a string": '{"input": "offence", "seat": 1, "offence": "a\u2028b"}',
    "not UTF-8": "\udcff",
}


@pytest.mark.parametrize("line", list(EDGES.values()), ids=list(EDGES))
def test_edges(tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str) -> None:
    data = lines_of(*START) + line.encode("utf-8", errors="surrogateescape") + b"\n"
    run(tmp_path, data, capsys)


def test_u2028_stays_inside_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "s.jsonl"
    script.write_bytes(lines_of(*START) + EDGES["U+2028 in a string"].encode() + b"\n")
    assert cli.main(["replay", str(script)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"companion: {script}:3: ") and "нет нарушения «a\\u2028b»" in err


def test_a_50_mb_line_is_refused_without_echoing_it(tmp_path: Path) -> None:
    """As a user runs it, in its own process: quick, one short line."""
    script = tmp_path / "big.jsonl"
    with script.open("wb") as file:
        file.write(lines_of(*START))
        file.write(b'{"input": "offence", "seat": 1, "offence": "' + b"x" * 50_000_000 + b'"}\n')
    environ = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-m", "companion.cli", "replay", str(script)],
        capture_output=True, text=True, env=environ, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert (
        done.stderr == f"companion: {script}:3: в строке байт: 50000046, а можно не больше 65536\n"
    )
