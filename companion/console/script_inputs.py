"""A table script fed into the live console, as the host and the seats would
give its inputs (``companion console --service --inputs SCRIPT``: rehearsals,
and the fault bench, bench/faults.py).

The console starts the game from the script's setup line, or resumes the
unfinished game the script began; ``ScriptInputs.rest`` says which lines the
journal does not hold yet (every journal line keeps ``line``, the script line
it came from: docs/journal.md), and a ``ScriptFeeder`` thread submits those,
each at its time. After a kill and a restart the same command goes on from
the journal: no input lost, none taken twice.

**Time.** The table runs on the real clock, and its timers fire by it. For a
run to end exactly as the fake-clock replay of the script does, no timer may
fire before an input the script puts ahead of it. The feeder stamps each
input with its script time, and the live loop fires every timer due by that
time before taking it (as ``replay --realtime`` does, bench/crash.py); what
is left is a line that reaches the table late, after the clock has passed a
later deadline. So the table's clock runs ``LAG_S`` seconds (of the wall
clock) behind the script's: the feeder hands each line over ``LAG_S`` before
the table's clock reaches its time, and the first line after a start or a
restart has ``LAG_S`` to arrive before any timer can fire. (What the big
timer on screen shows is that much longer than the script's time.)
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..config.rulesets import load_ruleset
from ..core.events import Event, GameSetUp
from ..runner.journal import read
from ..runner.script import ScriptError, ScriptLine, read_script

#: seconds of the wall clock the table's clock runs behind the script's: what
#: a line may be late (a start-up, a busy machine) without a timer firing first
LAG_S = 2.0


class Submits(Protocol):
    """A live table's ``submit`` (``LiveTable``, ``TableProcess``)."""

    def submit(
        self,
        event: Event,
        *,
        at: float | None = None,
        line: int | None = None,
        ruleset: str | None = None,
    ) -> None: ...


def line_number(line: ScriptLine) -> int:
    """The number a journal keeps for a script line (``line``, as a replay
    writes it)."""
    number = line.fields.get("line", line.number)
    return number if isinstance(number, int) else line.number


@dataclass(frozen=True, slots=True)
class ScriptInputs:
    """A table script read whole (a broken line stops the console before it
    starts: ``ScriptError``)."""

    path: Path
    lines: tuple[ScriptLine, ...]
    setup: ScriptLine

    @classmethod
    def read(cls, path: Path) -> ScriptInputs:
        lines = tuple(read_script(path, load_ruleset))
        setup = next((ln for ln in lines if isinstance(ln.event, GameSetUp)), None)
        if setup is None:
            raise ScriptError(str(path), 0, "", "no setup line: nothing to play")
        if setup.fields.get("journal") is True:
            # Its timer lines would be taken twice: once as lines, once by the clock.
            raise ScriptError(
                str(path), setup.number, setup.text, f"a journal; use 'companion resume {path}'"
            )
        return cls(path, lines, setup)

    @property
    def game_setup(self) -> GameSetUp:
        assert isinstance(self.setup.event, GameSetUp)
        return self.setup.event

    @property
    def ruleset(self) -> str | None:
        """The setup's ruleset as the script names it (the journal keeps it so)."""
        name = self.setup.fields.get("ruleset")
        return name if isinstance(name, str) else None

    def after_setup(self) -> list[ScriptLine]:
        return [ln for ln in self.lines if ln.number > self.setup.number]

    def began(self, records: Sequence[dict[str, Any]]) -> bool:
        """Whether the journal (its records) holds the game this script's
        setup line began: its first line came from that line, with the same
        ruleset, seats, seed and roles as far as the script gives them."""
        if not records or records[0].get("input") != "setup":
            return False
        first = records[0]
        if first.get("line") != line_number(self.setup):
            return False
        if self.ruleset is not None and first.get("ruleset") != _reference(self.ruleset):
            return False
        fields = self.setup.fields
        return all(
            first.get(key) == fields[key] for key in ("seats", "seed", "roles") if key in fields
        )

    def rest(self, records: Sequence[dict[str, Any]]) -> list[ScriptLine]:
        """The lines after the last one the journal holds. Every journaled
        ``line`` must be an input of the same kind here (as ``companion
        resume --script`` checks): a ``ScriptError`` naming it otherwise."""
        by_number = {line_number(ln): ln for ln in self.lines}
        last = 0
        for index, record in enumerate(records, 1):
            number = record.get("line")
            if not isinstance(number, int):
                continue  # a timer's expiry, or an input from the console
            source = by_number.get(number)
            if source is None or source.fields.get("input") != record.get("input"):
                raise ScriptError(
                    str(self.path),
                    0,
                    "",
                    f"the journal's line {index} ({record.get('input')!r}) is not its line "
                    f"{number}: was the game begun from another script?",
                )
            last = max(last, number)
        return [ln for ln in self.lines if line_number(ln) > last]


def journal_records(path: Path) -> list[dict[str, Any]]:
    """A journal's whole lines as JSON objects, read without taking it (a
    torn last line is left out, as a resume drops it)."""
    return [json.loads(text) for text in read(path).lines]


def played_in(folder: Path, inputs: ScriptInputs) -> Path | None:
    """The newest journal holding a game (empty ones skipped: a start cut
    short) if that game is the script's; None otherwise."""
    try:
        journals = sorted(folder.glob("*.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return None
    for path in journals:
        try:
            records = journal_records(path)
        except (OSError, ValueError):  # damaged: not this script's to judge
            return None
        if records:
            return path if inputs.began(records) else None
    return None


class ScriptFeeder:
    """A thread that submits script lines to a live table, each ``lag``
    seconds before the table's clock reads its time (``when(at)``: the
    monotonic time at which it does), stamped with that time and its line.
    It only submits: the table's loop takes, journals and carries out."""

    def __init__(
        self,
        lines: Sequence[ScriptLine],
        table: Submits,
        when: Callable[[float], float],
        *,
        lag: float = LAG_S,
        on_done: Callable[[], None] | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.lines = list(lines)
        self._table = table
        self._when = when
        self._lag = lag
        self._on_done = on_done
        self._monotonic = monotonic
        self._stopping = threading.Event()
        self.submitted = 0
        self._thread = threading.Thread(target=self._run, name="script inputs", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """No more lines (the table was closed or lost, a line was refused)."""
        self._stopping.set()

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    def _run(self) -> None:
        for line in self.lines:
            due = self._when(line.at) - self._lag
            if self._stopping.wait(max(0.0, due - self._monotonic())):
                return
            if line.event is None:  # "wait": the table's clock runs on by itself
                continue
            ruleset = line.fields.get("ruleset")
            self._table.submit(
                line.event,
                at=line.at,
                line=line_number(line),
                ruleset=ruleset if isinstance(ruleset, str) else None,
            )
            self.submitted += 1
        if self._on_done is not None and not self._stopping.is_set():
            self._on_done()


def _reference(name: str) -> str:
    """A ruleset as a journal's setup line names it (a path made absolute:
    runner/session.py)."""
    if name.endswith(".toml") or "/" in name:
        return str(Path(name).resolve())
    return name
