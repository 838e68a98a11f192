"""The service's system-call filter (``SystemCallFilter=@system-service``,
``~@privileged``, ``SystemCallErrorNumber=EPERM``: ops/service_unit.py) lets
the table's parts do all they do.

The filter is read off the unit's own text and loaded as systemd loads it
(tests/seccomp_filter.py): the probe of each kind of call the GPIO, sound,
terminal, journal and process paths make must answer exactly as it does
without the filter, and the companion's real parts (the listening process,
the console with its table process on a terminal, a sound stream to a
sound server) pass their own tests under it. A call no ordinary service
makes (``mincore``) is refused, so the filter is known to be in force.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import seccomp_filter

from companion.ops.service_unit import UnitSettings, unit_text

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
UNIT = unit_text(UnitSettings(python=Path(sys.executable), project=ROOT, groups=("gpio", "audio")))

pytestmark = pytest.mark.skipif(
    seccomp_filter.available() is not None, reason=str(seccomp_filter.available())
)


@pytest.fixture
def unit_file(tmp_path: Path) -> Path:
    path = tmp_path / "companion.service"
    path.write_text(UNIT, encoding="utf-8")
    return path


def filtered(unit_file: Path, *command: str) -> list[str]:
    return [sys.executable, str(TESTS / "seccomp_filter.py"), str(unit_file), "--", *command]


def probe(command: list[str]) -> dict[str, str]:
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=120, cwd=ROOT, env=os.environ.copy()
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def test_the_filter_is_the_units_and_keeps_what_the_priorities_need() -> None:
    allowed, error = seccomp_filter.allowed_calls(UNIT)
    assert error == 1  # EPERM: a refused call fails, the game goes on
    # runner/priority.py: SCHED_FIFO for the timer loop and the audio, nice -10
    assert {"sched_setscheduler", "setpriority", "getpriority"} <= allowed
    assert {"ioctl", "mmap", "mknodat", "socketpair", "clone", "execve"} <= allowed
    assert not {"mincore", "reboot", "swapon", "setgroups", "mount"} & allowed


def test_every_call_of_the_table_s_parts_answers_as_without_the_filter(unit_file: Path) -> None:
    script = str(TESTS / "syscall_probe.py")
    free = probe([sys.executable, script])
    held = probe(filtered(unit_file, sys.executable, script))
    assert free["mincore"] == "ok" and held["mincore"] == "EPERM"  # the filter is on
    del free["mincore"], held["mincore"]
    assert held == free
    print("under the filter:", held)


@pytest.mark.slow  # a pytest of the console, the ears and the voice under the filter
def test_the_companion_s_real_parts_pass_their_tests_under_the_filter(
    unit_file: Path, pulse_server: str
) -> None:
    """The listening process (numpy, the detectors, its own spawned child),
    the console on a real terminal with its table in a process of its own,
    and the voice through a real sound stream (PortAudio, ALSA's pulse
    device): the tests that drive each, in a pytest under the filter."""
    tests = [
        "tests/test_ears_live.py::test_the_listening_process_flags_speech_at_night",
        "tests/test_console_pty.py::test_a_day_by_keys_then_quit_and_resume",
        "tests/test_speaker.py::test_cues_through_a_real_stream_in_order_and_urgent_cuts_in",
    ]
    command = filtered(
        unit_file, sys.executable, "-m", "pytest", "-o", "addopts=", "-q", "-p", "no:cacheprovider"
    )
    done = subprocess.run([*command, *tests], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "3 passed" in done.stdout
