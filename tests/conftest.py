"""Shared fixtures."""

from __future__ import annotations

import gc
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import textual._wait
from _pytest.unraisableexception import gc_collect_iterations_key
from helpers import FAST, examples
from hypothesis import settings

from companion.config.rulesets import load_ruleset
from companion.core.state import Game
from companion.ears.review import game_timeline

ROOT = Path(__file__).resolve().parent.parent

# Textual's pilot, after every key, waits until the process looks idle: it
# sleeps 20 ms slices until one used under 5 % of it in CPU (textual/_wait.py).
# With hundreds of keys a game, those slices were most of a console test's
# time (a host's evening: 105 s, 70 of them asleep). Slices of 2 ms, idle
# under 20 % of them: the same question asked sooner (a 2 ms slice holds the
# event loop's own turn, so 5 % of it is rarely met and the wait ran to its
# 1 s cap). What a test waits for is still the pilot's: every message the
# screen had queued handled (Pilot._wait_for_screen), then an idle process.
textual._wait.SLEEP_GRANULARITY = 1 / 500
textual._wait.SLEEP_IDLE = textual._wait.SLEEP_GRANULARITY / 5


# The fuzzing tests that keep Hypothesis's default number of examples try
# fewer in ``./run-tests --fast`` too (tests/helpers.py ``examples``).
settings.register_profile("fast", max_examples=examples(settings.default.max_examples))
if FAST:
    settings.load_profile("fast")

PULSE_SCRIPT = ROOT / "scripts" / "pulse-null-sink.sh"
_OWN_PULSE = pytest.StashKey[str]()


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist (``./run-tests``) each worker has a PulseAudio
    null sink of its own, started here before any test opens a sound
    stream: a test recording ``vsink.monitor`` hears only its own worker's
    sound, never a table another worker is playing at the same moment. Only
    when the run has one of ours (``COMPANION_PULSE_DIR``, from
    ``scripts/pulse-null-sink.sh``): a plain ``pytest`` has none and skips."""
    # A worker's config has its ``workerinput``; a pytest that a test runs
    # inherits the worker's environment but is none.
    if not hasattr(config, "workerinput"):
        return
    # pytest collects all garbage five times over at a worker's very end to
    # flush exceptions raised in finalizers: seconds on a worker's heap, and
    # what it would find then is reported nowhere (the worker has sent its
    # reports). Once is kept.
    config.stash[gc_collect_iterations_key] = 1
    if not os.environ.get("COMPANION_PULSE_DIR"):
        return
    started = subprocess.run([str(PULSE_SCRIPT), "start"], capture_output=True, text=True)
    exports = dict(
        item.split("=", 1) for item in started.stdout.removeprefix("export ").split() if "=" in item
    )
    if started.returncode or "PULSE_SERVER" not in exports:
        raise pytest.UsageError(
            f"{PULSE_SCRIPT.name} start for worker {os.environ['PYTEST_XDIST_WORKER']}: "
            f"{(started.stdout + started.stderr).strip()}"
        )
    os.environ.update(exports)
    config.stash[_OWN_PULSE] = exports["COMPANION_PULSE_DIR"]


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = config.stash.get(_OWN_PULSE, "")
    if folder:
        subprocess.run([str(PULSE_SCRIPT), "stop", folder], check=False)


# Before xdist's own hook, which reads the groups into the tests' ids.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """For pytest-xdist's ``--dist loadgroup`` (``./run-tests``): the tests
    that share a module's fixture (a bench's run, a rendered recording) run
    on one worker, so the fixture is made once; and the long ones are
    handed out first, so that none is left to run alone at the end: the
    slow tests, then the groups (a module's tests in a row) and the tests
    that play real sound (they take its time)."""
    for item in items:
        defs = getattr(item, "_fixtureinfo", None)
        shared = defs is not None and any(
            d[-1].scope == "module" for d in defs.name2fixturedefs.values() if d
        )
        if shared and not item.get_closest_marker("xdist_group"):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))
    items.sort(key=_later)  # stable: in their order otherwise


def _later(item: pytest.Item) -> tuple[bool, bool]:
    long = item.get_closest_marker("xdist_group") is not None or "pulse_server" in getattr(
        item, "fixturenames", ()
    )
    return item.get_closest_marker("slow") is None, not long


class _NoSnapshotLines:
    lines: tuple[str, ...] = ()


@pytest.hookimpl(tryfirst=True)
def pytest_terminal_summary(config: pytest.Config) -> None:
    """A worker's syrupy summary is dropped before it is worked out: it
    matches every collected test against those run to count the snapshots
    nobody used, 1.5-5 s of CPU in each worker at the very end of a run
    (the run waited for it), for lines no one sees: a worker's terminal is
    not shown, and syrupy leaves unused snapshots alone under workers."""
    if hasattr(config, "workerinput") and hasattr(config, "_syrupy"):
        config._syrupy.report = _NoSnapshotLines()


# The collector's full passes walk every object not frozen. A worker runs a
# thousand tests or so, and a console test leaves some 100 000 blocks of
# cyclic garbage (a gone app's widgets and caches): the full passes that the
# tests' own allocations started walked it and whatever the run keeps alive
# (the collected tests, session fixtures, module caches) again and again,
# 10-12 s of CPU in some workers of a --fast run. So, as the table's own
# loop does (companion/runner/priority.py), the collector makes no full pass
# by itself; between two tests, once garbage may have piled up past this many
# blocks, one full pass frees it and what survives is frozen, never walked
# again. The young generations still collect as usual. A frozen object still
# dies when its last reference goes; only a cycle among frozen ones would
# stay, which a test worker can afford.
GARBAGE_BLOCKS = 1_000_000
_collected_at = [0]


def pytest_collection_finish(session: pytest.Session) -> None:
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, 1_000_000)
    _collect_and_freeze()


@pytest.hookimpl(trylast=True)  # after the test's fixtures are torn down
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    if sys.getallocatedblocks() - _collected_at[0] > GARBAGE_BLOCKS:
        _collect_and_freeze()


def _collect_and_freeze() -> None:
    gc.collect()
    gc.freeze()
    _collected_at[0] = sys.getallocatedblocks()


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
    _portaudio_lists_pulse(server)
    return server


def _portaudio_lists_pulse(server: str, tries: int = 5) -> None:
    """PortAudio lists its devices once, when sounddevice is imported; the
    ALSA "pulse" device is listed only if the server answered that probe in
    time, and under load (three workers importing at once) it sometimes did
    not, leaving this worker without "pulse" for its whole life. Listed
    again, as the speaker's own recovery does (``refresh_portaudio``)."""
    import sounddevice

    from companion.voice.recovery import refresh_portaudio

    for _ in range(tries):
        if any(d["name"] == "pulse" for d in sounddevice.query_devices()):
            return
        time.sleep(0.2)
        refresh_portaudio()
    pytest.fail(f"PortAudio lists no 'pulse' device for the server at {server}")


# The demo game's journal and its states in time (the ears' flags are checked on it).
@pytest.fixture(scope="session")
def demo_journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    journal = tmp_path_factory.mktemp("demo") / "demo.jsonl"
    run = subprocess.run(
        [sys.executable, "-m", "companion.cli", "replay", str(ROOT / "examples" / "demo.jsonl"),
         "--journal", str(journal)],
        capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    return journal


@pytest.fixture(scope="session")
def timeline(demo_journal: Path) -> list[tuple[float, Game]]:
    return game_timeline(demo_journal, load_ruleset)


@pytest.fixture
def notify() -> Iterator[tuple[socket.socket, str]]:
    """A datagram socket standing in for systemd's (a short path: ≤ 107 bytes)."""
    folder = tempfile.mkdtemp(prefix="cs-")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(f"{folder}/notify")
    sock.settimeout(60)
    try:
        yield sock, f"{folder}/notify"
    finally:
        sock.close()
        Path(f"{folder}/notify").unlink()
        Path(folder).rmdir()
