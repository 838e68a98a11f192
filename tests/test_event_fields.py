"""Every input the live table produces can be written to the journal and
read back as the same event (the journal is a table script)."""

from __future__ import annotations

import json
from typing import get_args

import pytest

from companion.config.rulesets import load_ruleset
from companion.core.events import (
    BestMoveMade,
    Event,
    GameSetUp,
    GameStopped,
    HostAdvanced,
    NightChoiceMade,
    Nominated,
    OffenceCancelled,
    OffenceGiven,
    ProcedureEvent,
    ProposalDismissed,
    SeatPressed,
    SeatReleased,
    SpeechFlagged,
    SpeechPassed,
    TeamSurrendered,
    TimeAdjusted,
    TimerExpired,
    TimersPaused,
    TimersResumed,
    Undone,
    WinDeclared,
)
from companion.core.forum.events import EVENTS as FORUM_EVENTS
from companion.core.forum.events import (
    DeadlineMoved,
    DeadlineNear,
    DeadlinePassed,
    ForumChoiceMade,
    ForumVoted,
)
from companion.runner.codec import encode as event_fields
from companion.runner.script import parse_line

CLUB = load_ruleset("club")

EVENTS: list[Event] = [
    GameSetUp(CLUB, 10, None, 5, 3),
    GameSetUp(CLUB, 4, ("civilian", "mafia", "maniac", "sheriff")),
    HostAdvanced(),
    Undone(),
    TimersResumed(),
    SeatPressed(3),
    SeatReleased(3),
    SpeechPassed(2),
    Nominated(1, 4),
    OffenceGiven(2, "warning"),
    ProposalDismissed(0),
    SpeechFlagged("night"),
    ForumChoiceMade(3, "shoot", 5),
    ForumChoiceMade(3, "fire", 7, "2026-12-01T21:30:00", gun="mafia"),
    ForumChoiceMade(4, "protect", 0, "12:59:59"),
    ForumVoted(2, 9),
    ForumVoted(2, 0, "2026-12-01T21:00:59", edit=True),
    DeadlinePassed("vote"),
    DeadlineNear("night"),
    DeadlineMoved("night", "2026-12-02T01:00:00"),
    WinDeclared(("mafia", "maniacs")),
    SpeechFlagged("out_of_turn", 4, 0.875),
    BestMoveMade(3, (1, 2, 4)),
    TeamSurrendered("mafia"),
    OffenceCancelled(2, "warning"),
    GameStopped("пожарная тревога"),
    GameSetUp(CLUB, 4, ("civilian", "mafia", "maniac", "sheriff"), names=("Аня", "", "Bob", "Ё")),
    TimerExpired("turn", 4),
    NightChoiceMade(3, 4, "shoot"),
    NightChoiceMade(3, 4, "heal"),
    NightChoiceMade(3, 4),
    TimersPaused((("turn", 3.5), ("warning", 0.0))),
    TimeAdjusted(-10, (("vote", 1.25),)),
]


def test_every_kind_of_event_is_tried() -> None:
    # every core input, and each procedure's own (a ProcedureEvent each)
    kinds = set(get_args(Event)) - {ProcedureEvent} | set(FORUM_EVENTS)
    assert {type(event) for event in EVENTS} == kinds


@pytest.mark.parametrize("event", EVENTS, ids=lambda e: type(e).__name__)
def test_an_event_survives_the_journal(event: Event) -> None:
    fields = event_fields(event)
    line = parse_line(json.dumps(fields), 1, "journal", 0.0, load_ruleset)
    assert line.event == event
