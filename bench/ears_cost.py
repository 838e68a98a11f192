"""What the whole listening process costs (issue 26): CPU seconds per
second of audio, with and without the whisper channel.

Run ``python bench/ears_cost.py`` (``--seconds 120``). A listening process
is started as the table starts it (``python -m companion.ears.link FD``,
its settings sent on the socket), its microphone a WAV file played at its
own pace (``file:``: a block every 192 ms, ``hearing.LISTEN_BLOCK``, as
a card is asked for them): a stretch of the test part's pink clip
(``testkit/hard_corpus.py``: lines, whispers, words and transients).
Its CPU is the process's own (user + system, from the kernel:
``/proc/PID/stat`` when it says it listens, ``wait4``'s rusage when it
has ended), so the start-up (imports, Silero's model) is left out and
everything after it counted: the capture thread, the
detector, the whisper channel, the messages. The load average is printed
beside it: the figure is CPU time, not wall time, but a busy machine's
caches and frequency move it a little.

It says first what it runs on (a Pi's board, or the CPU) and the clock's
governor, and while the process listens it reads the first core's clock
every half second where the kernel scales it: on a Pi, the figure comes
with the clock it ran at.

Before the process, the work itself: ``hearing.Hearing`` in this process,
a card's block a call, back to back (the best of three on a minute). On
this machine the process costs three times that: its kernel's time and
the cold caches of a shared host after each 192 ms asleep. n-body's
factor is CPython's; it fits the work, and it would multiply that cost
of being woken as if it were CPython's too.

``--wakes`` measures instead, in this process, what the same work costs
woken as a card wakes it: 20 s of the clip through ``hearing.Hearing``
back to back, then paced at one, two, four and ``LISTEN_BLOCK``'s chunks a wake.

A Raspberry Pi 4 is estimated at a factor times this machine's CPU time:
how much longer a Pi 4 took on the Benchmarks Game's n-body in Python
(5,000,000 steps in 158.263 s, published: ``bench/ears_arm.py``) than this
machine takes on the same program, timed here first (``NBODY_STEPS`` of
them, scaled); ``--pi-factor`` gives one instead (1 on a Pi). The factor
is CPython's; docs/listening.md ("The cost") says what it leaves out.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from multiprocessing.connection import Connection
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from companion.ears.capture import Block
from companion.ears.detect import CHUNK
from companion.ears.hearing import LISTEN_BLOCK, EarsSettings, Hearing
from testkit.hard_corpus import PARTS, cached
from testkit.room import save_wav

RATE = 16_000
NBODY = Path(__file__).resolve().parent / "arm" / "nbody.py"
#: n-body's steps timed here; a Pi 4 took 158.263 s for 5,000,000 (ears_arm.py)
NBODY_STEPS = 500_000
#: the first core's clock, where the kernel scales it (a Pi's: 600-1500 MHz)
CPUFREQ = Path("/sys/devices/system/cpu/cpu0/cpufreq")


def machine(
    board: Path = Path("/proc/device-tree/model"),
    cpuinfo: Path = Path("/proc/cpuinfo"),
    cpufreq: Path = CPUFREQ,
) -> str:
    """What a figure was measured on: a Pi's board (its device tree) or the
    CPU's name, and the clock's governor (ondemand keeps a lightly loaded
    Pi at 600 MHz: docs/listening.md, "The cost")."""
    if board.exists():
        name = board.read_text().strip("\x00\n")
    else:
        named = (line for line in cpuinfo.read_text().splitlines() if line.startswith("model name"))
        name = next((line.split(":", 1)[1].strip() for line in named), "an unknown CPU")
    governor = cpufreq / "scaling_governor"
    how = governor.read_text().strip() if governor.exists() else "none (no cpufreq here)"
    return f"{name}; clock governor: {how}"


class ClockWatch:
    """The first core's clock, read every half second while a figure is
    measured: what a Pi actually ran at (nothing where there is no cpufreq)."""

    def __init__(self) -> None:
        self.mhz: list[float] = []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self) -> ClockWatch:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._done.set()
        self._thread.join()

    def _watch(self) -> None:
        now = CPUFREQ / "scaling_cur_freq"
        while now.exists() and not self._done.wait(0.5):
            self.mhz.append(int(now.read_text()) / 1000)

    def said(self) -> str:
        if not self.mhz:
            return ""
        seen = sorted(self.mhz)
        return f"; clock {seen[0]:.0f}-{seen[-1]:.0f} MHz, median {seen[len(seen) // 2]:.0f}"


def process_cpu(pid: int) -> float:
    """A live process's user + system CPU seconds, from the kernel."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def listening_cpu(wav: Path, detector: str) -> tuple[float, float, int]:
    """(CPU seconds after start-up, start-up CPU seconds, utterances closed)."""
    mine, theirs = socket.socketpair()
    command = [sys.executable, "-m", "companion.ears.link", str(theirs.fileno())]
    process = subprocess.Popen(command, pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL)
    theirs.close()
    conn = Connection(mine.detach())
    conn.send(EarsSettings(device=f"file:{wav}", detector=detector))  # type: ignore[arg-type]
    start_cpu, closed = 0.0, 0
    while True:
        try:
            message = conn.recv()
        except EOFError:
            break
        if message[0] == "listening":
            start_cpu = process_cpu(process.pid)
        elif message[0] == "close":
            closed += 1
        elif message[0] in ("ended", "status"):
            if message[0] == "status" and message[1] != "failed":
                continue
            break
    conn.close()  # the process's order to stop
    _, _, usage = os.wait4(process.pid, 0)
    process.returncode = 0
    total = usage.ru_utime + usage.ru_stime
    return total - start_cpu, start_cpu, closed


def pi_factor() -> float:
    """A Pi 4's time on n-body over this machine's (CPU time, the best of three)."""
    from bench.ears_arm import PI_NBODY_SECONDS, PI_NBODY_STEPS

    times = []
    for _ in range(3):
        done = subprocess.run(
            [sys.executable, "-c", "import resource, runpy, sys; sys.argv = sys.argv[1:];"
             " runpy.run_path(sys.argv[0], run_name='__main__');"
             " u = resource.getrusage(resource.RUSAGE_SELF); print(u.ru_utime + u.ru_stime)",
             str(NBODY), str(NBODY_STEPS)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        times.append(float(done.stdout.split()[-1]))
    here = min(times) * PI_NBODY_STEPS / NBODY_STEPS
    return PI_NBODY_SECONDS / here


def hearing_cpu(clip: np.ndarray, size: int, paced: bool) -> float:
    """``Hearing``'s CPU seconds per second of ``clip``, fed ``size``
    frames a call, back to back or each block when a card would give it."""
    waiting = threading.Event()
    hearing = Hearing(EarsSettings(), lambda message: None)
    started, origin = time.process_time(), time.monotonic()
    for first in range(0, len(clip), size):
        delay = origin + first / RATE - time.monotonic()
        if paced and delay > 0:
            waiting.wait(delay)
        hearing.block(Block(clip[first : first + size, None], first / RATE))
    return (time.process_time() - started) / (len(clip) / RATE)


def wakes(samples: np.ndarray, seconds: float = 20.0) -> None:
    """``Hearing``'s CPU per second of audio, back to back and paced."""
    clip = samples[: int(seconds * RATE)]
    block = LISTEN_BLOCK // CHUNK
    ways = [
        ("back to back", CHUNK, False),
        (f"back to back, {block} chunks a call", LISTEN_BLOCK, False),
    ]
    ways += [(f"paced, {n} chunk(s) a wake", n * CHUNK, True) for n in sorted({1, 2, 4, block})]
    for how, size, paced in ways:
        cpu = hearing_cpu(clip, size, paced)
        load = os.getloadavg()
        print(f"Hearing in-process, {how}: {cpu:.4f} s per second of audio;"
              f" load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--pi-factor", type=float, help="instead of n-body's (1 on a Pi)")
    parser.add_argument("--wakes", action="store_true", help="in-process, paced (see above)")
    args = parser.parse_args()
    clip = cached("speech", PARTS["test"], "pink", 0, 4.0)
    if args.wakes:
        wakes(clip.samples)
        return
    print(f"measured on: {machine()}")
    factor = args.pi_factor
    if factor is None:
        factor = pi_factor()
        print(f"a Pi 4 at x{factor:.1f} this machine: n-body's time there over its time here")
    samples = clip.samples[: int(args.seconds * RATE)]
    # The work itself, as a Pi's core would run it while nothing else
    # wakes it: the factor is CPython's, and this machine's cost of being
    # woken (its kernel's, a shared host's cold caches) is not.
    work = min(hearing_cpu(samples[: 60 * RATE], LISTEN_BLOCK, paced=False) for _ in range(3))
    print(
        f"the work (hearing.Hearing in-process, {LISTEN_BLOCK // CHUNK} chunks a call, back to"
        f" back, the best of three): {work:.4f} s per second (a Pi 4 at x{factor:.1f}:"
        f" {work * factor:.3f})"
    )
    with tempfile.TemporaryDirectory(prefix="ears-cost-") as folder:
        wav = save_wav(Path(folder) / "table.wav", samples[:, None])
        seconds = len(samples) / RATE
        for detector in ("silero", "silero-whisper"):
            load = os.getloadavg()
            with ClockWatch() as clock:
                cpu, start, closed = listening_cpu(wav, detector)
            print(
                f"{detector}: {cpu:.2f} s CPU for {seconds:.0f} s of audio = {cpu / seconds:.4f} s"
                f" per second (a Pi 4 at x{factor:.1f}: {cpu / seconds * factor:.3f});"
                f" start-up {start:.2f} s, not counted; {closed} utterances;"
                f" load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}{clock.said()}"
            )


if __name__ == "__main__":
    main()
