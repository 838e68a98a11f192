"""The live table's eye on its journal's disk (docs/faults.md).

After accepted inputs, on the loop's thread, cheaply: the free space under
the journal's folder is looked at every ``EVERY_INPUTS`` inputs or
``EVERY_S`` seconds of game time, whichever comes first (one ``statvfs``,
never on every write). Below ``LOW_BYTES`` the host is told once, and the
voice says so; told again only after the space came back above it by a
half. A journal that had to go on elsewhere (``Journal.moves``: the disk
took no more) is told once per move, the first also spoken; one that went
into memory moves back onto a disk at the next check that finds room.
A journal that could go nowhere refuses inputs: told once, and once more
when a line goes in again.

What the host is told goes to ``tell(what, line)``, the same channel as the
microphone's news: ``disk_low`` (line: free space and folder),
``journal_moved`` and ``journal_in_memory`` (line: the journal's new path),
``journal_failed`` (line: the path and the reason), ``journal_ok`` (line:
the path). What the voice says goes to ``say(cue)``: ``disk_low``,
``disk_full``, ``journal_stopped`` (voices/*.toml).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from .fallback import FallbackPlaces, FreeSpace, free_space
from .journal import Journal, JournalError

log = logging.getLogger(__name__)

#: Below this the host is warned. A busy table journals ~200 KB an hour
#: (docs/faults.md: 94 lines, 7.5 KB for the 27-minute demo game; seat
#: presses and the microphone's flags add lines), and the companion's log
#: and saved protocols about as much again: 64 MiB is weeks of play, so
#: what the warning buys is time against whatever else fills the card.
LOW_BYTES = 64 * 2**20
#: the warning is given again only once the space came back above LOW * this
REARM = 1.5
EVERY_INPUTS = 20
EVERY_S = 60.0

#: what the host is told (console/words.py has words for each)
NOTICES = ("disk_low", "journal_moved", "journal_in_memory", "journal_failed", "journal_ok")

Tell = Callable[[str, str], None]
Say = Callable[[str], None]


class JournalWatch:
    def __init__(
        self,
        journal: Journal,
        places: FallbackPlaces,
        tell: Tell,
        say: Say,
        *,
        free: FreeSpace = free_space,
        low: int = LOW_BYTES,
        every_inputs: int = EVERY_INPUTS,
        every_s: float = EVERY_S,
    ) -> None:
        self.journal = journal
        self.places = places
        self._tell, self._say = tell, say
        self._free = free
        self.low = low
        self.every_inputs, self.every_s = every_inputs, every_s
        self._checked = (-every_inputs, float("-inf"))  # (inputs, game time) at the last check
        self._low_told = False
        self._failing_told = False
        self._moves_told = len(journal.moves)
        self.checks = 0  # free-space looks taken (the tests count them)

    def after_input(self, inputs: int, now: float) -> None:
        """An input was taken (its line is in the journal)."""
        self._tell_moves()
        if self._failing_told and not self.journal.failing:
            self._failing_told = False
            self._tell("journal_ok", str(self.journal.path))
        inputs_then, at_then = self._checked
        if inputs - inputs_then >= self.every_inputs or now - at_then >= self.every_s:
            self._checked = (inputs, now)
            self.check()

    def refused(self) -> None:
        """An input was refused (by the engine, or its line could not go in)."""
        self._tell_moves()
        reason = self.journal.failing
        if reason and not self._failing_told:
            self._failing_told = True
            self._tell("journal_failed", f"{self.journal.path}: {reason}")
            self._say("journal_stopped")

    def check(self) -> None:
        """Look at the free space now (and leave memory for a disk)."""
        self.checks += 1
        path = self.journal.path
        free = self._free(path.parent)
        if free < self.low and not self._low_told:
            self._low_told = True
            self._tell("disk_low", f"{free // 2**20} MB, {path.parent}")
            self._say("disk_low")
        elif free >= self.low * REARM:
            self._low_told = False
        if self.places.volatile(path):
            self._onto_a_disk()

    def _onto_a_disk(self) -> None:
        for folder in self.places.folders(self.journal.path, durable=True):
            try:
                self.journal.move(folder, "in memory, lost at a power cut")
            except (OSError, JournalError) as error:
                log.info("%s: the journal cannot go there yet: %s", folder, error)
                continue
            self._tell_moves()
            return

    def _tell_moves(self) -> None:
        moves = self.journal.moves
        for moved in moves[self._moves_told :]:
            volatile = self.places.volatile(moved.target)
            self._tell("journal_in_memory" if volatile else "journal_moved", str(moved.target))
            if self._moves_told == 0:  # the first: the disk gave out
                self._say("disk_full")
            self._moves_told += 1
            self._low_told = False  # the new place's own space is told
