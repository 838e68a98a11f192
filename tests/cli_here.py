"""``python -m companion.cli ARGS`` run in the test's own process: what the
command prints, its exit status, its traceback if it raised, as
``subprocess.run(..., capture_output=True, text=True)`` gives them, without
starting a Python (a new process imports the engine afresh: ~0.15 s of CPU
a run, most of the suite's subprocess time).

For the commands' arguments, files and words. How a command behaves as a
process (its real streams, signals, a terminal, the environment it starts
in) stays with the tests that start one: every command keeps at least one
such test (``companion_process`` beside each user of this module).

The command sees what a process would: ``sys.argv``, the environment
(``env`` replaces it whole, as ``subprocess.run(env=...)`` does), the
working folder, an empty standard input and streams of its own; the
logging set-up, the environment and the folder are put back after."""

from __future__ import annotations

import contextlib
import io
import logging
import os
import subprocess
import sys
import traceback
from collections.abc import Iterator, Mapping
from pathlib import Path


def companion_here(
    *args: str | Path,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """The command's run, as a process would have given it."""
    from companion import cli

    argv = [str(arg) for arg in args]
    stdout, stderr = _stream("strict"), _stream("backslashreplace")
    with _as_a_process(env, cwd, [cli.__file__, *argv], stdout, stderr):
        try:
            code = cli.main(argv)
        except SystemExit as leaving:  # argparse's refusals and --help
            code = _exit_status(leaving.code, stderr)
        except Exception:
            # An uncaught error: the interpreter prints the traceback, status 1.
            traceback.print_exc(file=stderr)
            code = 1
    return subprocess.CompletedProcess(
        ["companion", *argv], code or 0, _text(stdout), _text(stderr)
    )


def _stream(errors: str) -> io.TextIOWrapper:
    """UTF-8, as the tests' processes have it; stderr escapes what it
    cannot write, as Python's does."""
    return io.TextIOWrapper(
        io.BytesIO(), encoding="utf-8", errors=errors, newline="\n", write_through=True
    )


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue().decode("utf-8")


def _exit_status(code: object, stderr: io.TextIOWrapper) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=stderr)  # sys.exit("message"): printed, status 1
    return 1


@contextlib.contextmanager
def _as_a_process(
    env: Mapping[str, str] | None,
    cwd: Path | None,
    argv: list[str],
    stdout: io.TextIOWrapper,
    stderr: io.TextIOWrapper,
) -> Iterator[None]:
    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    saved_argv = sys.argv
    root = logging.getLogger()
    saved_logging = root.handlers[:], root.level
    try:
        if env is not None:
            os.environ.clear()
            os.environ.update(env)
        if cwd is not None:
            os.chdir(cwd)
        sys.argv = argv
        sys.stdin = io.TextIOWrapper(io.BytesIO(b""), encoding="utf-8")
        sys.stdout, sys.stderr = stdout, stderr
        yield
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        sys.argv = saved_argv
        os.chdir(saved_cwd)
        if env is not None:
            os.environ.clear()
            os.environ.update(saved_env)
        for handler in root.handlers[:]:
            if handler not in saved_logging[0]:
                root.removeHandler(handler)
                handler.close()
        root.handlers[:] = saved_logging[0]
        root.setLevel(saved_logging[1])
