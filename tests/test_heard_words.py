"""A forbidden phrase heard (``SpeechFlagged("word", ...)``): the ruleset's
``[listening.words]`` offence proposed with the words heard, its journal
line (the other flags' lines unchanged), the protocol's line, and the
console's queue showing «Слышно: "клянусь"»."""

from __future__ import annotations

from pathlib import Path

import pytest
from console_driver import config, console, hosting
from helpers import TOURNAMENT_ROLES

from companion.config.rulesets import load_ruleset
from companion.console.words import Words
from companion.core.effects import ProposeOffence
from companion.core.engine import apply, new_game
from companion.core.events import BadEvent, GameSetUp, OffenceGiven, SpeechFlagged
from companion.core.state import Game, Proposal
from companion.core.step import IllegalInput
from companion.protocol.report import protocol
from companion.runner.codec import decode, encode

CLUB_ROLES = (
    "civilian", "sheriff", "mafia", "civilian", "doctor",
    "don", "putana", "civilian", "maniac", "mafia",
)  # fmt: skip


def _game(ruleset: str) -> Game:
    roles = TOURNAMENT_ROLES if ruleset == "tournament" else CLUB_ROLES
    game, _ = new_game(GameSetUp(load_ruleset(ruleset), 10, tuple(roles)))
    return game


@pytest.mark.parametrize(
    ("ruleset", "phrase", "words", "offence"),
    [
        ("club", "oath", "клянусь", "oath_phrases"),  # removal.2
        ("club", "bet", "спорим", "bet_offer"),  # team_loss.1
        ("tournament", "oath", "зуб даю", "oath_or_bet"),  # 4.6.8
        ("tournament", "honestly", "честно", "honestly_or_religion"),  # 4.6.7
        ("tournament", "religion", "ей-богу", "honestly_or_religion"),  # 4.6.7
    ],
)
def test_a_phrase_proposes_its_entrys_offence(
    ruleset: str, phrase: str, words: str, offence: str
) -> None:
    game, effects = apply(_game(ruleset), SpeechFlagged("word", 3, 0.93, phrase, words))
    assert game.proposals == (Proposal(3, offence, f"heard_word:{words}"),)
    assert ProposeOffence(3, offence, f"heard_word:{words}") in effects
    assert game.log is not None and dict(game.log.data) == {
        "kind": "word",
        "seat": 3,
        "confidence": 0.93,
        "phrase": phrase,
        "words": words,
    }
    assert game.seat(3).offences == ()  # proposed, never given by itself


def test_whose_unknown_the_host_names_the_seat() -> None:
    game, _ = apply(_game("tournament"), SpeechFlagged("word", 0, 0.9, "oath", "клянусь"))
    assert game.proposals == (Proposal(0, "oath_or_bet", "heard_word:клянусь"),)
    game, _ = apply(game, OffenceGiven(5, "oath_or_bet"))
    assert game.proposals == () and game.seat(5).offences == ("oath_or_bet",)


def test_a_phrase_the_ruleset_does_not_list_is_refused() -> None:
    game = _game("club")
    with pytest.raises(IllegalInput, match="lists no forbidden words 'honestly'"):
        apply(game, SpeechFlagged("word", 0, 0.9, "honestly", "честно"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("word", 0, 0.9), "phrase must be a"),
        (("word", 0, 0.9, "oath"), "words must be the words heard"),
        (("word", 0, 0.9, "oath", "   "), "words must be the words heard"),
        (("word", 0, 0.9, "oath", "к" * 201), "words must be the words heard"),
        (("word", 0, 0.9, "oath", "клянусь\n"), "printable"),
        (("word", 0, 0.9, "Oath", "клянусь"), "phrase must be a"),
        (("night", 0, 0.9, "oath", "клянусь"), "only a 'word' flag"),
        (("night", 0, 0.9, "", "клянусь"), "only a 'word' flag"),
    ],
)
def test_a_malformed_word_flag_is_refused(args: tuple[object, ...], message: str) -> None:
    with pytest.raises(BadEvent, match=message):
        SpeechFlagged(*args)  # type: ignore[arg-type]


def test_the_journal_line() -> None:
    event = SpeechFlagged("word", 2, 0.875, "oath", "зуб даю")
    line = encode(event)
    assert line == {
        "input": "heard",
        "kind": "word",
        "seat": 2,
        "confidence": 0.875,
        "phrase": "oath",
        "words": "зуб даю",
    }
    assert decode("heard", line, load_ruleset) == event
    # the speech flags' lines are as they were before forbidden words
    assert encode(SpeechFlagged("night", 0, 0.5)) == {
        "input": "heard",
        "kind": "night",
        "seat": 0,
        "confidence": 0.5,
    }
    with pytest.raises(ValueError, match="'words' must be printable text of at most 200"):
        decode("heard", {**line, "words": 5}, load_ruleset)
    with pytest.raises(ValueError, match="'phrase' must be a non-empty string"):
        decode("heard", {**line, "phrase": ""}, load_ruleset)


def test_the_protocol_and_the_consoles_words() -> None:
    game, _ = apply(_game("club"), SpeechFlagged("word", 4, 0.9, "oath", "клянусь"))
    assert (
        protocol(game)[-1]
        == "[день 0] Микрофон: запрещённые слова «клянусь» (место 4, уверенность 90 %)"
    )
    assert "Microphone: forbidden words «клянусь» (seat 4" in protocol(game, "en")[-1]
    assert Words("ru").reason("heard_word:клянусь") == 'Слышно: "клянусь"'
    assert Words("en").reason("heard_word:зуб даю") == 'Heard: "зуб даю"'
    assert Words("ru").reason("heard_night") == "микрофон: речь ночью"  # unchanged


async def test_the_words_reach_the_consoles_queue(tmp_path: Path) -> None:
    app = console(config(tmp_path))
    async with hosting(app) as host:
        await host.keys("ctrl+s", "enter")  # asked once, started: a dealt tournament game, night 0
        assert app.table is not None
        app.table.submit(SpeechFlagged("word", 0, 0.95, "honestly", "честно"))
        await host.pilot.pause()
        queue = str(app.screen.query_one("#proposals").render())
        assert 'Слышно: "честно"' in queue and "?" in queue
        await host.keys("y")  # whose? the host types the seat
        await host.type("3")
        assert host.game.proposals == ()
        assert host.game.seat(3).offences == ("honestly_or_religion",)
