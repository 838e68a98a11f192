"""What the console and the live table's process say to each other: the
order to build a table, the table built, a table that could not be, and
the bounds on waiting for either side (``table_process``: the console's
side; ``table_serve``: the process's)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.rules import Ruleset

#: how long the console waits for a table to be built (a resume included)
BUILD_TIMEOUT_S = 60.0
#: how often the table process's threads hand the interpreter over (as the loop sets it)
SWITCH_INTERVAL_S = 0.0002
#: how long a closing table may take before its process is killed
CLOSE_TIMEOUT_S = 5.0
#: how often the table's process tells the console when its loop last went
#: round (the service's watchdog: runner/sd_notify.py)
BEAT_EVERY_S = 1.0


class TableFailed(RuntimeError):
    """The table could not be built or its process could not be reached;
    the message is one line naming what (a pin map, a journal, a device).
    ``reason``: the error the table's process met, when it crossed the pipe
    whole: the console words it as it words that error anywhere
    (console/refusals/lines.py); None: the line is all there is."""

    def __init__(self, line: str, reason: BaseException | None = None) -> None:
        super().__init__(line)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class TableOrder:
    """What the table's process builds: a new game (``rules``, ``seat_count``)
    or the unfinished one in the journal ``resume``."""

    spec: Any  # assembly.TableSpec (imported in the process, not here)
    rules: Ruleset | None
    seat_count: int
    lang: str = "ru"
    resume: Path | None = None
    #: seconds (of the wall clock) the table's clock starts behind the game:
    #: a scripted source (console/script_inputs.py) hands each line over that
    #: long before the table's clock reaches it, so no timer can fire first
    lag: float = 0.0


@dataclass(frozen=True, slots=True)
class TableReady:
    """The table is built: its first state and what it is made of."""

    spec: Any  # assembly.TableSpec, as built
    update: Any  # assembly.Update
    clock_origin: float  # GameClock: the monotonic time at which game time was start_at
    start_at: float
    speed: float
    sound: bool
    simulated_seats: bool  # the console's keys press them (False: real buttons, or none)
    warnings: tuple[str, ...]
