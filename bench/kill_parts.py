"""What the two kill-and-resume benches share: ``bench/crash.py`` (SIGKILL
``companion replay``, then ``companion resume``) and ``bench/faults.py``
(SIGKILL the console service, then start it again). Both compare what comes
out with one uninterrupted ``companion replay SCRIPT --json``; here are that
reference (``Setup``), the commands as a user runs them, the checks of a
final journal (lost, duplicated and late inputs), a failing case's folder,
the moments run side by side, and the parts of the summary both print.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import Field, asdict, dataclass
from pathlib import Path
from typing import Any, ClassVar, Protocol, TypeVar

from companion.runner import journal
from testkit.bots import parsed
from testkit.command import companion
from testkit.crash_game import MARGIN

ROOT = Path(__file__).resolve().parent.parent


def say(text: str) -> None:
    print(text, flush=True)


# --- the reference and the commands -------------------------------------------------


@dataclass(frozen=True, slots=True)
class Setup:
    """What every moment shares: the script and its uninterrupted replay."""

    work: Path
    script: Path
    reference: dict[str, Any]  # what `companion replay SCRIPT --json` prints
    journal: bytes  # ... and the journal it writes
    times: dict[int, float]  # script line -> its time
    speed: float  # of the realtime path (crash.py), of the service's script (faults.py)

    @property
    def failures(self) -> Path:
        return self.work / "failures"

    @property
    def journal_lines(self) -> int:
        return self.journal.count(b"\n")


def make_setup(work: Path, script: list[str], speed: float) -> Setup:
    """Write the script into ``work`` and run it uninterrupted, as a user would."""
    work.mkdir(parents=True, exist_ok=True)
    path = work / "script.jsonl"
    path.write_text("\n".join(script) + "\n", encoding="utf-8")
    reference = work / "reference.jsonl"
    argv, env = companion("replay", path, "--journal", reference, "--json")
    done = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
    times = {line.number: line.at for line in parsed(script)}
    return Setup(work, path, json.loads(done.stdout), reference.read_bytes(), times, speed)


def run_logged(folder: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    """``companion ARGS``, its output kept as ``folder/resume.out`` and ``.err``."""
    argv, env = companion(*args)
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    (folder / "resume.out").write_text(done.stdout)
    (folder / "resume.err").write_text(done.stderr)
    return done


# --- what a journal holds ------------------------------------------------------------


def script_lines(records: Iterable[dict[str, Any]]) -> Counter[int]:
    """How many times each script line is in a journal (timer lines have none)."""
    return Counter(n for record in records if isinstance(n := record.get("line"), int))


def lost_and_duplicated(expected: Counter[int], got: Counter[int]) -> tuple[int, int]:
    lost = sum(1 for line in expected if line not in got)
    duplicated = sum(count - 1 for count in got.values() if count > 1)
    return lost, duplicated


def late_inputs(records: Iterable[dict[str, Any]], times: dict[int, float]) -> list[int]:
    """Script lines journaled later than their time: the real clock fired a
    timer due after them first (the session never lets time run back)."""
    return [
        n
        for record in records
        if isinstance(n := record.get("line"), int)
        and n in times
        and record.get("at") != round(times[n], 6)
    ]


def late_note(data: bytes, setup: Setup) -> str:
    """What an uninterrupted run's journal says of an input taken late, if any."""
    if late := late_inputs(records_of(data), setup.times):
        return f" (script line {late[0]} was taken after a timer due later)"
    return ""


def records_of(data: bytes) -> list[dict[str, Any]]:
    """The JSON lines of a journal, whatever state it is in."""
    out = []
    for raw in data.splitlines():
        try:
            value = json.loads(raw)
        except ValueError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


# --- one moment ----------------------------------------------------------------------


class Checked(Protocol):
    """What both benches' outcomes of a moment hold (a dataclass each)."""

    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]
    moment: Any
    identical: bool
    same_journal: bool
    journal_ok: bool
    lost: int
    duplicated: int
    late: int
    lines_at_kill: int
    torn: bool
    problems: list[str]

    @property
    def good(self) -> bool: ...


def crashed(path: Path | None, folder: Path, out: Checked) -> None:
    """Note what the kill left of the journal at ``path`` and keep a copy of it."""
    if path is not None and path.exists():
        data = path.read_bytes()
        out.lines_at_kill = data.count(b"\n")
        out.torn = bool(data) and not data.endswith(b"\n")  # empty is not torn
        shutil.copyfile(path, folder / "crashed.jsonl")


def check_journal(setup: Setup, path: Path, out: Checked, late_says: str) -> None:
    """The final journal against the uninterrupted one: byte for byte, clean
    by ``journal.read``, no script line lost or taken twice, none taken late
    (``late_says``, with ``{line}``, is the bench's words for that)."""
    final = path.read_bytes()
    out.same_journal = final == setup.journal
    try:
        text = journal.read(path)
        out.journal_ok = text.torn is None and not text.warnings
        if not out.journal_ok:
            out.problems.append(f"the final journal: {[*text.warnings, text.torn]}")
    except journal.JournalError as error:
        out.problems.append(f"the final journal: {error}")
    records = records_of(final)
    expected = script_lines(records_of(setup.journal))
    out.lost, out.duplicated = lost_and_duplicated(expected, script_lines(records))
    late = late_inputs(records, setup.times)
    out.late = len(late)
    if late:
        out.problems.append(late_says.format(line=late[0]))
    if out.lost or out.duplicated:
        out.problems.append(f"inputs lost: {out.lost}, duplicated: {out.duplicated}")
    elif not out.same_journal:
        out.problems.append("the final journal differs from the uninterrupted one")


def settle(folder: Path, setup: Setup, out: Checked) -> None:
    """A moment's folder goes, or is kept among the failures if it went wrong."""
    if out.good:
        shutil.rmtree(folder)
    else:
        summary = {"moment": asdict(out.moment), "outcome": {**asdict(out), "moment": None}}
        keep(folder, setup, summary)


def keep(folder: Path, setup: Setup, summary: dict[str, Any]) -> Path:
    """Move a failing case's folder among the failures, with its script."""
    setup.failures.mkdir(parents=True, exist_ok=True)
    kept, n = setup.failures / folder.name, 1
    while kept.exists():  # the bench run again in the same --work folder
        kept, n = setup.failures / f"{folder.name}.{n}", n + 1
    shutil.move(folder, kept)
    shutil.copyfile(setup.script, kept / "script.jsonl")
    (kept / "moment.json").write_text(json.dumps(summary, indent=2) + "\n")
    return kept


# --- many moments --------------------------------------------------------------------


class Indexed(Protocol):
    @property
    def index(self) -> int: ...

    def label(self) -> str: ...


MomentT = TypeVar("MomentT", bound=Indexed)
OutcomeT = TypeVar("OutcomeT", bound=Checked)


def whole_run(
    folder: Path, setup: Setup, seconds: float, problem: str, name: object
) -> tuple[float, str]:
    """One uninterrupted run's result: its folder goes, or is kept if it went wrong."""
    if problem:
        kept = keep(folder, setup, {"uninterrupted": name, "problem": problem})
        return seconds, f"{kept}: {problem}"
    shutil.rmtree(folder)
    return seconds, ""


def side_by_side(one: Callable[[int], tuple[float, str]], runs: int) -> tuple[float, list[str]]:
    """``runs`` uninterrupted runs at once: (mean seconds, what went wrong in any)."""
    with ThreadPoolExecutor(runs) as pool:
        results = list(pool.map(one, range(runs)))
    return sum(s for s, _ in results) / runs, [p for _, p in results if p]


def run_all(
    moments: list[MomentT],
    once: Callable[[MomentT], OutcomeT],
    workers: int,
    say: Callable[[str], None],
    tag: Callable[[MomentT], str] = lambda _: "",
) -> list[OutcomeT]:
    """Every moment, ``workers`` at a time; progress every tenth (``tag``
    begins its line)."""
    done: list[tuple[MomentT, OutcomeT]] = []
    lock = threading.Lock()
    every = max(1, len(moments) // 10)
    start = time.monotonic()

    def one(moment: MomentT) -> None:
        outcome = once(moment)
        with lock:
            done.append((moment, outcome))
            if not outcome.good:
                say(f"  FAILED {moment.label()}: {'; '.join(outcome.problems)}")
            if len(done) % every == 0:
                failed = sum(not o.good for _, o in done)
                say(f"  {tag(moment)}{len(done)}/{len(moments)} done, {failed} failed "
                    f"({time.monotonic() - start:.0f} s)")  # fmt: skip

    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(one, moments))
    return [o for _, o in sorted(done, key=lambda pair: pair[0].index)]


def counts_figure(outcomes: Sequence[Checked]) -> str:
    """How the summary's first line goes on after the bench's name."""
    identical = sum(1 for o in outcomes if o.identical)
    lost, duplicated = sum(o.lost for o in outcomes), sum(o.duplicated for o in outcomes)
    return f"{identical}/{len(outcomes)} identical, {lost} lost, {duplicated} duplicated, "


def journals_figure(outcomes: Sequence[Checked]) -> str:
    """The summary's line on the final journals."""
    total = len(outcomes)
    same = sum(1 for o in outcomes if o.same_journal)
    clean = sum(1 for o in outcomes if o.journal_ok)
    late = sum(1 for o in outcomes if o.late)
    return (
        f"  final journals: {same}/{total} byte for byte the uninterrupted one, "
        f"{clean}/{total} clean by journal.read; {late} runs with an input the real clock took late"
    )


# --- the command line ----------------------------------------------------------------


def moments_option(parser: argparse.ArgumentParser, count: int, what: str) -> None:
    parser.add_argument("--moments", type=int, default=count, help=f"{what} ({count})")


def options(parser: argparse.ArgumentParser, game_seed: int, speed: str, workers: int) -> None:
    """The other options both benches take (after ``--moments`` and any of the bench's own)."""
    parser.add_argument("--seed", type=int, default=1, help="the moments' random seed (1)")
    parser.add_argument("--game-seed", type=int, default=game_seed, help=f"the bot's seed ({game_seed})")  # fmt: skip
    parser.add_argument("--speed", type=float, default=50.0, help=f"{speed} (50)")
    parser.add_argument("--workers", type=int, default=workers, help=f"moments at a time ({workers})")  # fmt: skip
    parser.add_argument("--work", type=Path, help="working folder (default: a new temporary one)")


def check_options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.moments < 1 or args.workers < 1 or not 0.01 <= args.speed <= 10_000:
        parser.error("--moments and --workers from 1, --speed from 0.01 to 10000")


def prepare(
    script: list[str], gap: float, phase: str, args: argparse.Namespace, prefix: str
) -> Setup | None:
    """The reference run in the working folder (``--work`` or a new one named
    ``prefix``...); None for a game that will not do."""
    if phase != "ended" or gap < MARGIN - 1e-6:
        say("this game does not end, or comes too close to a deadline: try another --game-seed")
        return None
    work = args.work or Path(tempfile.mkdtemp(prefix=prefix))
    setup = make_setup(work, script, args.speed)
    say(f"reference: `companion replay` wrote {setup.journal_lines} journal lines; "
        f"working in {work}")  # fmt: skip
    return setup


def finish(setup: Setup, args: argparse.Namespace, started: float, failed: bool) -> int:
    """The summary's last lines; a temporary working folder goes if all went well."""
    say(f"took {time.monotonic() - started:.0f} s")
    if failed:
        say(f"failing cases are kept in {setup.failures}")
    elif args.work is None:
        shutil.rmtree(setup.work)
    return 1 if failed else 0
