"""Flags as they happen: the live counterpart of ``flags.flags_for``.

The listening process says when an utterance opens and when it closes; the
table side holds the game's state of the moment. ``FlagWatcher`` puts the
two together: at an utterance's onset, speech that nobody may utter now
(the game's procedure says who may speak: at the sports table not at
night, in a vote, between speeches, in another seat's minute) is flagged
at once (at night one word can remove a player: the host decides there
and then); while it goes on, the speaker's time running out makes it an
overrun once ``OVERRUN_GRACE_S`` has passed. One utterance gives at most
one flag.

With a layout that tells whose speech is whose (a microphone per seat, the
array: ``needs_seat``), an utterance that no seat claims (its seat None) is
sound from beyond the table (the next table's talk, a chair on the floor,
the ventilation) and raises no flag; a seat that claims it later
(``attributed``) raises it then, at the utterance's own time.

Pure: the caller hands in the game time and the state; ``tick`` is called
often (every few tens of ms) so that the moment a turn's time runs out is
seen when it happens.
"""

from __future__ import annotations

import statistics
from collections import deque
from dataclasses import dataclass

from ..core.state import Game
from ..core.views import phase_name
from .flags import OVERRUN_GRACE_S, Flag, rule_broken, running_over

__all__ = ["FlagWatcher", "LevelGate", "Utterance"]


@dataclass(slots=True)
class Utterance:
    start: float  # game seconds
    seat: int | None
    confidence: float
    flagged: bool = False


class FlagWatcher:
    def __init__(self, grace_s: float = OVERRUN_GRACE_S, *, needs_seat: bool = False) -> None:
        """``needs_seat``: the layout can tell whose speech is whose, so an
        utterance no seat claims is not the table's (the module's docstring);
        one microphone cannot, and flags what it hears."""
        self.grace_s = grace_s
        self.needs_seat = needs_seat
        self._open: Utterance | None = None
        # The turn whose time has run out (the procedure's key), and when
        # it was first seen so.
        self._over: tuple[int | str, ...] | None = None
        self._over_since = 0.0

    @property
    def hearing(self) -> bool:
        return self._open is not None

    def opened(
        self, now: float, start: float, seat: int | None, confidence: float, game: Game | None
    ) -> Flag | None:
        """An utterance that began at ``start`` (game seconds) was just
        recognised as one, at ``now``."""
        self._open = Utterance(start, seat, confidence)
        return self.tick(now, game)

    def closed(self) -> None:
        self._open = None

    def attributed(
        self, now: float, seat: int | None, confidence: float, game: Game | None
    ) -> Flag | None:
        """The layout now knows better whose the open utterance is: the flag
        it earns now that it is someone's (at its own start, as if the seat
        had been known from the onset)."""
        if self._open is None or self._open.flagged:
            return None
        self._open.seat, self._open.confidence = seat, confidence
        return self.tick(now, game)

    def tick(self, now: float, game: Game | None) -> Flag | None:
        """The flag the open utterance earns by ``now``, once."""
        if game is None:
            return None
        self._see_turn(now, game)
        heard = self._open
        if heard is None or heard.flagged:
            return None
        if self.needs_seat and heard.seat is None:
            return None  # no seat's: not the table's (yet)
        broken = rule_broken(game, heard.seat)
        if broken is None:
            return None
        kind, seat = broken
        at = heard.start
        if kind in ("overrun", "last_word_overrun"):
            # Finishing a word after the bell is not running over.
            at = max(heard.start, self._over_since) + self.grace_s
            if now < at:
                return None
        heard.flagged = True
        return Flag(round(at, 3), kind, seat, heard.confidence, phase_name(game))

    def _see_turn(self, now: float, game: Game) -> None:
        key = running_over(game)
        if key != self._over:
            self._over, self._over_since = key, now


class LevelGate:
    """Speech is flagged only when it is about as loud as the table's own
    speakers: other tables' talk, a café's babble, reaches the microphone
    quieter than a player at this table, and to every detector it is speech.

    The reference is learned from the game itself: the median loudness of
    the last ``keep`` utterances heard while a speaker had the floor (at
    least ``learn_from_s`` long). Until it has ``needs`` of them, nothing
    is held back. ``below_db``: how much quieter than the reference speech
    may be and still be flagged (docs/listening.md gives the figures it was
    chosen by)."""

    def __init__(
        self, below_db: float = 12.0, keep: int = 25, needs: int = 3, learn_from_s: float = 0.5
    ) -> None:
        self.below_db = below_db
        self.needs = needs
        self.learn_from_s = learn_from_s
        self._levels: deque[float] = deque(maxlen=keep)

    def learn(self, level_db: float) -> None:
        self._levels.append(level_db)

    @property
    def reference(self) -> float | None:
        if len(self._levels) < self.needs:
            return None
        return float(statistics.median(self._levels))

    def passes(self, level_db: float) -> bool:
        reference = self.reference
        return reference is None or level_db >= reference - self.below_db
