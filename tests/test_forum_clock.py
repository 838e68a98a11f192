"""The forum game's deadlines on the wall clock (companion/runner/forum_clock.py),
through the live table the console runs: the watch submits ``DeadlineNear``
and ``DeadlinePassed`` at their moments, each once, and they reach the
journal like any input. The wall clock here is a fake moved by hand."""

from __future__ import annotations

import io
from datetime import datetime

from companion.config.rulesets import load_ruleset
from companion.core import views
from companion.core.events import GameSetUp
from companion.core.forum.events import DeadlineNear, DeadlinePassed, ForumVoted
from companion.live.assembly import LiveTable, Outputs, TableSpec
from companion.runner.clock import FakeClock
from companion.runner.forum_clock import DeadlineWatch
from companion.voice.settings import VoiceSettings


class Wall:
    def __init__(self, moment: str) -> None:
        self.moment = datetime.fromisoformat(moment)

    def __call__(self) -> datetime:
        return self.moment

    def set(self, moment: str) -> None:
        self.moment = datetime.fromisoformat(moment)


def table(wall: Wall) -> tuple[LiveTable, list[str], io.StringIO]:
    rules = load_ruleset("forum")
    refused: list[str] = []
    captions = io.StringIO()
    spec = TableSpec(
        voice=VoiceSettings(lang="ru", captions_only=True), seats="none", threaded=False
    )
    live = LiveTable(
        spec,
        rules,
        20,
        outputs=Outputs(captions, None),
        clock=FakeClock(),
        on_refused=lambda event, reason, line: refused.append(reason),
        wall=wall,
    )
    live.submit(GameSetUp(rules, 20, seed=3, start="2026-12-01"))
    return live, refused, captions


def tick(live: LiveTable) -> None:
    assert live.deadlines is not None
    live.deadlines.tick()
    live.pump()


def test_the_windows_close_at_their_wall_clock_moments_each_once() -> None:
    wall = Wall("2026-12-01T12:00:00")
    live, refused, _ = table(wall)
    assert live.game is not None and views.phase_name(live.game) == "day_choices"
    tick(live)
    assert views.phase_name(live.game) == "day_choices"  # nothing due yet
    wall.set("2026-12-01T13:00:00")  # the last second a day choice counts (deadline.day.2)
    tick(live)
    assert views.phase_name(live.game) == "day_choices"
    wall.set("2026-12-01T13:00:01")
    tick(live)
    tick(live)  # a second look at the same moment submits nothing more
    assert views.phase_name(live.game) == "vote"
    for voter in range(1, 21):
        live.submit(ForumVoted(voter, 1 if voter != 1 else 2))
    wall.set("2026-12-01T21:01:00")
    tick(live)
    assert live.game.phase == "night"
    assert refused == []


def test_the_warning_comes_ten_minutes_before_and_is_spoken() -> None:
    wall = Wall("2026-12-01T12:50:00")
    live, refused, captions = table(wall)
    said = []
    assert live.deadlines is not None
    watch = DeadlineWatch(said.append, wall=wall)
    assert live.game is not None
    watch.changed(live.game)
    watch.tick()
    assert said == []  # 12:50:00 is eleven minutes before 13:00:01
    wall.set("2026-12-01T12:51:01")
    watch.tick()
    watch.tick()
    assert said == [DeadlineNear("day_choices")]
    tick(live)  # the live table's own watch says it through the voice
    assert "10" in captions.getvalue() or "десять" in captions.getvalue()
    assert refused == []


def test_a_deadline_missed_while_the_table_was_off_closes_at_once() -> None:
    """A restart after the deadline: the first look closes the window."""
    wall = Wall("2026-12-01T12:00:00")
    live, _, _ = table(wall)
    said = []
    watch = DeadlineWatch(said.append, wall=Wall("2026-12-02T09:00:00"))
    assert live.game is not None
    watch.changed(live.game)
    watch.tick()
    assert said == [DeadlinePassed("day_choices"), DeadlinePassed("vote")]


def test_a_time_of_day_without_a_date_is_todays() -> None:
    rules = load_ruleset("forum")
    live = LiveTable(
        TableSpec(voice=VoiceSettings(captions_only=True), seats="none", threaded=False),
        rules,
        20,
        outputs=Outputs(io.StringIO(), None),
        clock=FakeClock(),
        wall=Wall("2026-12-05T13:00:01"),
    )
    live.submit(GameSetUp(rules, 20, seed=3))  # no start date: times of day
    tick(live)
    assert live.game is not None and views.phase_name(live.game) == "vote"
