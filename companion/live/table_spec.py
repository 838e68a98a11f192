"""What a live table is made of and what it hands out (``live/assembly.py``
builds the table): the spec (``TableSpec``), where it writes
(``Outputs``), the snapshot after each input (``Update``), how it kept
time (``TimingFigures``), its callbacks' types, and the seats the spec
names: the seats and the ears."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TextIO

from ..core.effects import Effect
from ..core.events import Event
from ..core.rules import Ruleset
from ..core.state import Game
from ..ears.hearing import EarsSettings
from ..paths import PROJECT
from ..runner.clock import Clock, Deadlines
from ..seats.fake import FakeSeats
from ..seats.port import Seats
from ..voice.floor import Started
from ..voice.settings import VoiceSettings

SeatsMode = Literal["gpio", "simulated", "none"]


@dataclass(frozen=True, slots=True)
class TableSpec:
    """What a live table is made of."""

    voice: VoiceSettings = field(default_factory=VoiceSettings)
    seats: SeatsMode = "simulated"
    pin_map: Path | None = None  # for "gpio": the club's pin map (None: the shipped one)
    #: for "gpio": seats whose button did not answer the self-test
    #: (seats/silent.py): not listened to; the host's key stands in
    silent_seats: frozenset[int] = frozenset()
    journal: Path | None = None  # a new game's journal (a resumed game brings its own)
    speed: float = 1.0  # game seconds per real second (demos and benches run faster)
    #: the speed is a practice game's (the console's ``--speed`` and its key):
    #: journaled (the setup's ``speed``, a ``speed`` line for each change), and
    #: a resumed game goes on at its journal's speed. False: a driver's pace
    #: (a script, a bench), not the game's: not journaled
    practice: bool = False
    #: the loop in a thread of its own with a real-time priority; False: the
    #: caller drives it (``pump``/``advance`` on a fake clock, in tests)
    threaded: bool = True
    #: the microphone (None: no ears): its flags are proposed to the host
    ears: EarsSettings | None = None
    #: the tournament hall's broker (hall/settings.py HallSettings; None: no hall)
    hall: Any = None


@dataclass(frozen=True, slots=True)
class Outputs:
    """Where a live table writes, one stream each: what the table may hear
    and what only the host may read never share one."""

    captions: TextIO | None  # the table's: cues as text when they are not spoken
    host_log: TextIO | None  # the host's: roles, check answers, proposals (None: not kept)
    result: TextIO | None = None  # the host's too: the protocol or JSON at the end


@dataclass(frozen=True, slots=True)
class Update:
    """After an accepted input: the state, the running timers' deadlines (game
    seconds) and what the input caused, as of that moment."""

    at: float
    game: Game | None
    deadlines: Deadlines
    effects: tuple[Effect, ...]


@dataclass(frozen=True, slots=True)
class TimingFigures:
    """How the table kept time, for the benches: each cue's start at the
    sound device (none without one), each timer's firing error (seconds),
    the device's underruns and the priorities the threads got."""

    started: tuple[Started, ...]
    lateness: tuple[float, ...]
    underruns: int
    audio_priority: str
    loop_priority: str


OnUpdate = Callable[[Update], None]
#: (the input refused, why, the script line it came from if any)
OnRefused = Callable[[Event, str, int | None], None]
#: (what, one line): news from the table's parts for the host: the
#: microphone's ("lost", "back", "failed", "words_off", "no_seats"), the
#: voice's ("voice_lost", "voice_back") and the journal's ("disk_low",
#: "journal_moved", "journal_in_memory", "journal_failed", "journal_ok";
#: runner/journal_watch.py); docs/faults.md
OnNotice = Callable[[str, str], None]


def open_seats(spec: TableSpec, count: int, clock: Clock) -> Seats | None:
    """The seats the spec names: none, the console's keys or real GPIO."""
    if spec.seats == "none":
        return None
    if spec.seats == "simulated":
        return FakeSeats(count, clock=clock.now)
    from ..seats.gpio import GpioSeats, pin_factory
    from ..seats.pinmap import load_pinmap

    pinmap = load_pinmap(spec.pin_map or default_pin_map())
    return GpioSeats(pinmap, clock=clock.now, pin_factory=pin_factory(), muted=spec.silent_seats)


def default_pin_map() -> Path:
    """The pin map shipped with the companion (docs/wiring.md)."""
    return PROJECT / "hardware" / "default.toml"


def open_ears(
    spec: TableSpec,
    rules: Ruleset,
    speaker: Any,
    submit: Callable[[Event], None],
    game: Callable[[], Game | None],
    now: Callable[[], float],
    *,
    speed: float,
    on_notice: OnNotice | None,
) -> Any:
    """The ears the spec names (None: no microphone), hearing ``rules``'
    forbidden words, told whether the table's own voice is sounding."""
    if spec.ears is None:
        return None
    from ..ears.link import EarsLink  # numpy's and the detectors' imports: only when listening

    # The speaker's playback of the moment: a sound device opened again
    # (voice/recovery.py) has a new one.
    voice_until = (
        (lambda: speaker.playback.sounding_until)
        if getattr(speaker, "playback", None) is not None
        else None
    )
    return EarsLink(
        dataclasses.replace(spec.ears, phrases=rules.forbidden_words),
        submit,
        game,
        now,
        speed=speed,
        on_notice=on_notice,
        voice_until=voice_until,
    )
