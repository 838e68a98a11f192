"""Shared fixtures."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest


@pytest.fixture(scope="session")
def pulse_server() -> str:
    """The private PulseAudio server with the null sink ``vsink`` that
    ``run-tests`` starts (``scripts/pulse-null-sink.sh``).

    Without it the test is skipped, so a plain ``pytest`` passes; under
    ``run-tests`` (``COMPANION_PULSE=required``) a server that does not
    answer is a failure, not a skip.
    """
    server = os.environ.get("PULSE_SERVER", "")
    required = os.environ.get("COMPANION_PULSE") == "required"
    problem = ""
    if not server:
        problem = "PULSE_SERVER is not set"
    elif shutil.which("pactl") is None or shutil.which("parec") is None:
        problem = "pactl/parec missing (Debian pulseaudio-utils)"
    else:
        try:
            answer = subprocess.run(["pactl", "info"], capture_output=True, timeout=10)
        except subprocess.TimeoutExpired:
            problem = f"{server} does not answer"
        else:
            if answer.returncode != 0:
                problem = f"{server} does not answer: {answer.stderr.decode().strip()}"
    if problem:
        message = (
            f"no PulseAudio null sink ({problem}); run-tests starts one: scripts/pulse-null-sink.sh"
        )
        if required:
            pytest.fail(message)
        pytest.skip(message)
    return server
