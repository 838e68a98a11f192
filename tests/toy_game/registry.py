"""The toy game's registry lines, one per registry a built-in procedure
has a line in: the core's (``core/procedures.py``: its ``Procedure``), the
replay JSON's (``protocol/procedures.py``: nobody stands for a vote in the
toy, it adds no keys of its own), the console's (``console/procedures.py``:
its screen and set-up part, ``console.py``), the console's refusals'
(``console/refusals/procedures.py``: its refusals' words, ``console.py``), the live table's
(``live/procedures.py``: no wall-clock watch, its one timer is the loop's
own) and the voice's (``voice/procedures.py``: its cues take only the
shared arguments). A built-in procedure writes them in those modules; the
toy, defined in the tests alone, adds them at run time and takes them out
again."""

from __future__ import annotations

from companion.console import procedures as console_procedures
from companion.console.refusals import procedures as refusal_procedures
from companion.core import procedures
from companion.live import procedures as live_procedures
from companion.protocol.procedures import SUMMARIES, SummaryPart, no_nominees
from companion.voice import procedures as voice_procedures

from . import console
from .procedure import PROCEDURE

NAME = PROCEDURE.name


def register() -> None:
    procedures.register(PROCEDURE)
    SUMMARIES[NAME] = SummaryPart(no_nominees)
    console_procedures.PROCEDURES[NAME] = console.CONSOLE
    refusal_procedures.PROCEDURES[NAME] = console.REFUSAL_WORDS
    live_procedures.WATCHES[NAME] = live_procedures.no_watch
    voice_procedures.ARGUMENT_VALUES[NAME] = voice_procedures.none_of_its_own


def unregister() -> None:
    """Take the toy out of the registries again, so that a test of the
    registries themselves in the same process sees only the built-in ones."""
    procedures.PROCEDURES.pop(NAME, None)
    SUMMARIES.pop(NAME, None)
    console_procedures.PROCEDURES.pop(NAME, None)
    refusal_procedures.PROCEDURES.pop(NAME, None)
    live_procedures.WATCHES.pop(NAME, None)
    voice_procedures.ARGUMENT_VALUES.pop(NAME, None)
