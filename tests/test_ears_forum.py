"""The microphone at a forum game (issue 25, part 3): the forum's rule
flags nothing (docs/listening.md, "A forum game"), offline and live, on
one microphone and on a layout that tells seats apart. Under the sports
table's rule every word of its night was a ``night`` flag."""

from __future__ import annotations

from forum_table import THREE, Table

from companion.core.state import Game
from companion.ears.detect import Segment
from companion.ears.flags import flags_for
from companion.ears.watch import FlagWatcher

#: game seconds: the day opens at 0, the night at 10 h, the next day an hour on
NIGHT_AT, MORNING_AT = 36_000.0, 39_600.0


def _forum_timeline() -> list[tuple[float, Game]]:
    """A forum game's first day, its night (posts in it) and the next day."""
    table = Table(THREE)
    day = table.game
    table.day()
    night = table.game
    assert night.phase == "night"
    table.night((1, "shoot", 8), (2, "heal", 8), close=False)
    timeline = [(0.0, day), (NIGHT_AT, night), (NIGHT_AT + 1_800, table.game)]
    table.deadline("night")
    assert table.game.phase == "day"
    return [*timeline, (MORNING_AT, table.game)]


def test_a_forum_night_with_the_microphone_on_raises_no_flag() -> None:
    timeline = _forum_timeline()
    assert timeline[2][1].phase == "night"  # posts taken, the window still open
    talk = [
        Segment(NIGHT_AT + 1, NIGHT_AT + 40, 0.95),  # the night's first minute
        Segment(NIGHT_AT + 1_799, NIGHT_AT + 1_830, 0.9),  # across a post
        Segment(MORNING_AT - 10, MORNING_AT + 10, 0.9),  # into the morning
        Segment(100.0, 160.0, 0.9),  # in the day
    ]
    seats = [Segment(s.start, s.end, s.confidence, seat=n) for n, s in enumerate(talk, 3)]
    assert flags_for(talk, timeline) == []
    assert flags_for(seats, timeline, needs_seat=True) == []


def test_a_forum_night_heard_live_raises_no_flag() -> None:
    timeline = _forum_timeline()
    night = timeline[1][1]
    for seat, needs_seat in ((None, False), (4, True), (4, False)):
        watcher = FlagWatcher(needs_seat=needs_seat)
        raised = [watcher.opened(NIGHT_AT + 2, NIGHT_AT + 1, seat, 0.9, night)]
        # the utterance goes on through the night's hours, ticked as the link does
        for at, game in timeline[1:]:
            raised += [watcher.tick(at + s, game) for s in range(0, 600, 10)]
        assert raised == [None] * len(raised)
