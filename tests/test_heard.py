"""A microphone's flag in the engine (``SpeechFlagged``): each ruleset's
``[listening]`` offence proposed to the host, a kind the ruleset maps to no
offence told to the host, a flag that could not tell whose settled by the
host's offence to any seat; and in the console, the proposal in the queue,
confirmed with a key (asking whose when the microphone could not tell)."""

from __future__ import annotations

from pathlib import Path

import pytest
from console_driver import config, console, hosting
from helpers import TOURNAMENT_ROLES

from companion.config.rulesets import load_ruleset
from companion.core.effects import ProposeOffence, TellHost
from companion.core.engine import apply, new_game
from companion.core.events import GameSetUp, OffenceGiven, SpeechFlagged
from companion.core.state import Proposal
from companion.runner.codec import decode, encode

CLUB_ROLES = (
    "civilian", "sheriff", "mafia", "civilian", "doctor",
    "don", "putana", "civilian", "maniac", "mafia",
)  # fmt: skip


def _night(ruleset: str):  # type: ignore[no-untyped-def]
    roles = TOURNAMENT_ROLES if ruleset == "tournament" else CLUB_ROLES
    game, _ = new_game(GameSetUp(load_ruleset(ruleset), 10, tuple(roles)))
    assert game.phase == "night"
    return game


@pytest.mark.parametrize(
    ("ruleset", "offence"),
    [("club", "night_gestures_talk_touch"), ("tournament", "night_behaviour")],
)
def test_speech_at_night_proposes_the_rulesets_offence(ruleset: str, offence: str) -> None:
    game, effects = apply(_night(ruleset), SpeechFlagged("night", 4, 0.9))
    assert game.proposals == (Proposal(4, offence, "heard_night"),)
    assert ProposeOffence(4, offence, "heard_night") in effects
    assert game.log is not None and game.log.kind == "speech_flagged"
    assert dict(game.log.data) == {"kind": "night", "seat": 4, "confidence": 0.9}
    assert game.seat(4).offences == ()  # proposed, never given by itself


def test_a_kind_the_ruleset_names_no_offence_for_is_told() -> None:
    game, effects = apply(_night("tournament"), SpeechFlagged("last_word_overrun", 2))
    assert game.proposals == ()
    assert TellHost("speech_flagged", (("kind", "last_word_overrun"), ("seat", 2))) in effects


def test_whose_unknown_is_settled_by_the_hosts_offence_to_any_seat() -> None:
    game, _ = apply(_night("club"), SpeechFlagged("night", 0, 0.7))
    assert game.proposals == (Proposal(0, "night_gestures_talk_touch", "heard_night"),)
    game, _ = apply(game, OffenceGiven(6, "night_gestures_talk_touch"))
    assert game.proposals == () and game.seat(6).out is not None  # removal.4: out


def test_the_flag_is_a_journal_line() -> None:
    event = SpeechFlagged("out_of_turn", 3, 0.625)
    line = encode(event)
    assert line == {"input": "heard", "kind": "out_of_turn", "seat": 3, "confidence": 0.625}
    assert decode("heard", line, load_ruleset) == event
    assert decode("heard", {"input": "heard", "kind": "night"}, load_ruleset) == SpeechFlagged(
        "night"
    )
    with pytest.raises(ValueError, match="kind must be one of"):
        decode("heard", {"input": "heard", "kind": "cough"}, load_ruleset)


async def test_a_flag_reaches_the_consoles_queue_and_a_key_confirms_it(tmp_path: Path) -> None:
    app = console(config(tmp_path))
    async with hosting(app) as host:
        await host.keys("ctrl+s", "enter")  # asked once, started: a dealt tournament game, night 0
        assert app.table is not None
        app.table.submit(SpeechFlagged("night", 0, 0.8))  # as the ears' process sends it
        await host.pilot.pause()
        queue = str(app.screen.query_one("#proposals").render())
        assert "?" in queue and "микрофон: речь ночью" in queue
        said = [line for line, _ in app.screen.log_lines]  # type: ignore[attr-defined]
        assert any("Предложено: место не определено, " in line for line in said), said
        assert not any("игрок 0" in line for line in said), said
        await host.keys("y")  # whose? the host types the seat
        await host.type("7")
        assert host.game.proposals == ()
        assert host.game.seat(7).offences == ("night_behaviour",)
        app.table.submit(SpeechFlagged("night", 2, 0.9))
        await host.pilot.pause()
        await host.keys("y")  # the seat known: one key gives it
        assert host.game.seat(2).offences == ("night_behaviour",)
