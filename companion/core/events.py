"""Inputs to the rules engine: frozen, self-validating, named in the past tense.

Every input the table can produce (host keys, seat buttons, timers, the
microphone's confirmed flags) becomes one of these before it reaches
``companion.core.engine.step``. They carry no clock: the time of an input is
the shell's business (the journal records it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from ..textfiles.toml_table import ID
from .rules import Ruleset

_DATE = re.compile(r"[0-9]{4}-[01][0-9]-[0-3][0-9]\Z")


class BadEvent(ValueError):
    """An event that is malformed whatever the state of the game."""


#: a player's name or nickname, as the console and the protocol show it
MAX_NAME = 40


def seat_number(value: int, what: str) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise BadEvent(f"{what} must be a seat number (1, 2, ...), got {value!r}")


@dataclass(frozen=True, slots=True)
class GameSetUp:
    """The host set up a table: ruleset, seat count, roles (or a seed to deal)."""

    ruleset: Ruleset
    seats: int
    roles: tuple[str, ...] | None = None  # per seat, 1..seats; None = deal
    seed: int = 0
    first_speaker: int = 1
    names: tuple[str, ...] = ()  # per seat, 1..seats ("" for none); () = no names
    #: the forum game: the date of game day 1 ("YYYY-MM-DD"; "" = times of
    #: day only) and the options announced with the balance (those of the
    #: ruleset's procedure: ``ProcedureRules.options``)
    start: str = ""
    options: tuple[str, ...] = ()
    #: the sports table's vote windows stay open until the host closes them
    #: («Спасибо» by the host's "next") instead of the ruleset's
    #: ``vote_window_s``: a simulated table, where one person keys every hand
    host_closes_votes: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.host_closes_votes, bool):
            raise BadEvent(
                f"host_closes_votes must be true or false, got {self.host_closes_votes!r}"
            )
        if not isinstance(self.seats, int) or isinstance(self.seats, bool) or self.seats < 2:
            raise BadEvent(f"seats must be a whole number of at least 2, got {self.seats!r}")
        if self.roles is not None and len(self.roles) != self.seats:
            raise BadEvent(f"roles lists {len(self.roles)} seats, the table has {self.seats}")
        seat_number(self.first_speaker, "first_speaker")
        if self.names and len(self.names) != self.seats:
            raise BadEvent(f"names lists {len(self.names)} seats, the table has {self.seats}")
        for name in self.names:
            if not isinstance(name, str) or len(name) > MAX_NAME or not name.isprintable():
                raise BadEvent(f"a seat's name is printable text of at most {MAX_NAME} characters")
        if self.start and not _DATE.match(self.start):
            raise BadEvent(f'start must be a date "YYYY-MM-DD", got {self.start!r}')
        own = self.ruleset.procedure_rules
        known = own.options if own is not None else ()
        # A ruleset whose procedure takes no options refuses any (the engine).
        for option in self.options if known else ():
            if option not in known:
                raise BadEvent(f"no option {option!r} (known: {', '.join(known)})")


@dataclass(frozen=True, slots=True)
class HostAdvanced:
    """The host pressed «next»: end the current speech, step or window now."""


@dataclass(frozen=True, slots=True)
class TimerExpired:
    """A timer the engine asked for reached its deadline.

    ``generation`` ties it to one StartTimer; an expiry from a timer the
    engine has since replaced is stale and rejected.
    """

    name: str
    generation: int


@dataclass(frozen=True, slots=True)
class SeatPressed:
    seat: int

    def __post_init__(self) -> None:
        seat_number(self.seat, "seat")


@dataclass(frozen=True, slots=True)
class SeatReleased:
    seat: int

    def __post_init__(self) -> None:
        seat_number(self.seat, "seat")


@dataclass(frozen=True, slots=True)
class SpeechPassed:
    """The speaker ended their minute early («Пас»)."""

    seat: int

    def __post_init__(self) -> None:
        seat_number(self.seat, "seat")


@dataclass(frozen=True, slots=True)
class Nominated:
    """The host accepted a nomination («Принят номер N»)."""

    by: int
    target: int

    def __post_init__(self) -> None:
        seat_number(self.by, "by")
        seat_number(self.target, "target")


@dataclass(frozen=True, slots=True)
class OffenceGiven:
    """The host gave an offence; ``offence`` is an id or a clause of the ruleset."""

    seat: int
    offence: str

    def __post_init__(self) -> None:
        seat_number(self.seat, "seat")
        if not self.offence:
            raise BadEvent("offence must name an offence id or clause")


@dataclass(frozen=True, slots=True)
class ProposalDismissed:
    """The host dismissed a proposed offence (by its position in the list)."""

    index: int


@dataclass(frozen=True, slots=True)
class NightChoiceMade:
    """A seat's night choice as the host saw it: a shot, a check, a heal ...

    ``seat`` 0: every living seat that acts in the step chose ``target``
    (the mafia agreed on it). It is one input, so that one undo takes back
    what the host keyed as one."""

    seat: int
    target: int
    #: the action the host meant ("shoot", "check", ...); checked against the step
    action: str | None = None

    def __post_init__(self) -> None:
        if self.seat != 0:
            seat_number(self.seat, "seat")
        seat_number(self.target, "target")


@dataclass(frozen=True, slots=True)
class BestMoveMade:
    """The first night's victim named their suspects."""

    seat: int
    suspects: tuple[int, ...]

    def __post_init__(self) -> None:
        seat_number(self.seat, "seat")
        if not 1 <= len(self.suspects) <= 3 or len(set(self.suspects)) != len(self.suspects):
            raise BadEvent("a best move names one to three different seats")
        for suspect in self.suspects:
            seat_number(suspect, "suspect")


@dataclass(frozen=True, slots=True)
class OffenceCancelled:
    """The host took back an offence given to a seat earlier (the latest of
    that kind): a count and the rights it cost come back. An offence that
    removed a seat or ended the game is taken back only by an undo."""

    seat: int
    offence: str

    def __post_init__(self) -> None:
        seat_number(self.seat, "seat")


@dataclass(frozen=True, slots=True)
class GameStopped:
    """The host ended the game early (a fight, a fire alarm, no time left):
    nobody wins; the reason goes to the protocol."""

    reason: str

    def __post_init__(self) -> None:
        if not isinstance(self.reason, str) or not self.reason.strip() or len(self.reason) > 200:
            raise BadEvent("the reason must be text of 1 to 200 characters")


@dataclass(frozen=True, slots=True)
class TeamSurrendered:
    """A whole team gave up (club: no −10 rating for it)."""

    team: str


#: (timer name, seconds left) for each running timer, as the shell's clock
#: measured them when the host acted; the engine reads no clock itself.
Remaining = tuple[tuple[str, float], ...]


def _remaining(value: Remaining) -> None:
    for item in value:
        if (
            not isinstance(item, tuple)
            or len(item) != 2
            or not isinstance(item[0], str)
            or not isinstance(item[1], int | float)
            or isinstance(item[1], bool)
        ):
            raise BadEvent(f"remaining must be (timer, seconds) pairs, got {item!r}")


@dataclass(frozen=True, slots=True)
class TimersPaused:
    """The host paused the running timers (a speech, a vote window, a night step)."""

    remaining: Remaining = ()

    def __post_init__(self) -> None:
        _remaining(self.remaining)


@dataclass(frozen=True, slots=True)
class TimersResumed:
    """The host let the paused timers run again."""


@dataclass(frozen=True, slots=True)
class TimeAdjusted:
    """The host added (or, negative, took) time from the current turn, window
    or night step; ``remaining`` as in ``TimersPaused``."""

    seconds: float
    remaining: Remaining = ()

    def __post_init__(self) -> None:
        if not isinstance(self.seconds, int | float) or isinstance(self.seconds, bool):
            raise BadEvent(f"seconds must be a number, got {self.seconds!r}")
        if not self.seconds or self.seconds != self.seconds or abs(self.seconds) > 3600:
            raise BadEvent(f"seconds must be a non-zero number of seconds, got {self.seconds!r}")
        _remaining(self.remaining)


@dataclass(frozen=True, slots=True)
class Undone:
    """The host took back the last accepted input.

    ``remaining``: for each timer that ran before that input, the seconds it
    had left when the input came (its whole length when it had run out), as
    the shell that keeps the deadlines measured them; a timer the input
    stopped comes back paused with that much (the host looks, corrects and
    lets it run again). None: a journal written before undo carried it (the
    timers come back as they ran).

    ``past_flags``: the host's own undo (the console's ``u``). The
    microphone's flags that came after the last input of anyone else (the
    host, a seat, a timer) are passed over: that input is taken back, and
    the flags are proposed again on the game it restores. False: the last
    input, a flag too (a journal written before this, a script's
    ``undo``)."""

    remaining: Remaining | None = None
    past_flags: bool = False

    def __post_init__(self) -> None:
        if self.remaining is not None:
            _remaining(self.remaining)
        if not isinstance(self.past_flags, bool):
            raise BadEvent(f"past_flags must be true or false, got {self.past_flags!r}")


#: What the microphone can flag (companion/ears/flags.py): speech at night,
#: in a vote, between speeches, a speaker past their time (the last word
#: apart: the club text makes it a team loss), another seat's speech in a
#: speaker's minute; each ruleset maps them to offences in ``[listening]``.
SPEECH_KINDS = ("night", "vote", "between", "overrun", "last_word_overrun", "out_of_turn")
#: A forbidden phrase recognised (companion/ears/words.py); its offence is
#: the ruleset's ``[listening.words.<phrase>]`` entry's.
WORD_KIND = "word"
#: a proposal's reason for a forbidden phrase: this, then the words heard
#: (the console shows them: «Слышно: "клянусь"»)
WORD_REASON = "heard_word:"
FLAG_KINDS = (*SPEECH_KINDS, WORD_KIND)
#: the words heard, as the recogniser wrote them: a phrase of a few words
MAX_WORDS_HEARD = 200


@dataclass(frozen=True, slots=True)
class SpeechFlagged:
    """The microphone heard speech that the state forbids, or a forbidden
    phrase. ``seat``: whose, when the microphones could tell (0: not known:
    the host says whom, if anyone, when confirming); ``confidence``: the
    detector's or the recogniser's, 0..1. A ``word`` flag names the
    ruleset's ``[listening.words]`` entry (``phrase``) and the words heard;
    other kinds carry neither."""

    kind: str
    seat: int = 0
    confidence: float = 0.0
    phrase: str = ""
    words: str = ""

    def __post_init__(self) -> None:
        if self.kind not in FLAG_KINDS:
            raise BadEvent(f"kind must be one of {', '.join(FLAG_KINDS)}, got {self.kind!r}")
        if self.seat != 0:
            seat_number(self.seat, "seat")
        if not isinstance(self.confidence, int | float) or not 0 <= self.confidence <= 1:
            raise BadEvent(f"confidence must be 0 to 1, got {self.confidence!r}")
        if self.kind != WORD_KIND:
            if self.phrase or self.words:
                raise BadEvent(f"only a {WORD_KIND!r} flag names a phrase and the words heard")
            return
        if not isinstance(self.phrase, str) or not ID.match(self.phrase):
            raise BadEvent(f"phrase must be a [listening.words] id, got {self.phrase!r}")
        words = self.words
        if not isinstance(words, str) or not words.strip() or len(words) > MAX_WORDS_HEARD:
            raise BadEvent(f"words must be the words heard, 1 to {MAX_WORDS_HEARD} characters")
        if not words.isprintable():
            raise BadEvent("words must be printable text")


@dataclass(frozen=True, slots=True)
class LineField:
    """One key of a procedure input's script line: the event's ``attribute``
    written under ``key`` (the attribute's name when empty), checked as
    ``kind``: "seat" (1, 2 ...), "seat_or_none" (0 too), "text" (an id) or
    "flag" (true/false). An ``optional`` key is written only when set."""

    attribute: str
    kind: str
    key: str = ""
    optional: bool = False


class ProcedureEvent:
    """An input only one procedure takes, defined with it (the forum game's
    posts and deadlines: ``core.forum.events``): a frozen dataclass that
    subclasses this and checks its own fields. The engine hands it to its
    procedure's handlers; the procedure lists it (``Procedure.events``) and
    the codec reads and writes its line from ``INPUT`` and ``LINE``, so a
    new procedure's inputs need no change to the codec."""

    __slots__ = ()
    #: the script's name for it (``post``): unique among all inputs
    INPUT: ClassVar[str]
    #: its line's keys, in the order a journal writes them
    LINE: ClassVar[tuple[LineField, ...]]


@dataclass(frozen=True, slots=True)
class WinDeclared:
    """The host declares the win the engine left to him: the Mafia at
    parity when the civilians show no line to a win (end.two.3, amb.42),
    both MM teams by their agreement (end.three.4, amb.41)."""

    teams: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.teams or not all(isinstance(t, str) and ID.match(t) for t in self.teams):
            raise BadEvent("teams must name one or more team ids")


Event = (
    GameSetUp
    | HostAdvanced
    | TimerExpired
    | SeatPressed
    | SeatReleased
    | SpeechPassed
    | Nominated
    | OffenceGiven
    | ProposalDismissed
    | NightChoiceMade
    | BestMoveMade
    | TeamSurrendered
    | OffenceCancelled
    | GameStopped
    | TimersPaused
    | TimersResumed
    | TimeAdjusted
    | Undone
    | SpeechFlagged
    | WinDeclared
    | ProcedureEvent
)
