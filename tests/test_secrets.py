"""Secrets stay with the host (issue 8, item 7): what the table hears
(captions in place of speech) and what only the host may read (roles,
check answers, proposals) go to two streams, and over many random games
the table's stream never carries a role or a check answer.

The games are whole club and tournament games played by the bench's bot
(testkit/bots.py) through the same effects sink as a live table
(``LiveTable``, on a fake clock): the real phrase catalogue and caption speaker on
one stream, the host log on the other."""

from __future__ import annotations

import io

import pytest

from companion.core.effects import Effect, Say, TellHost
from companion.core.events import GameSetUp
from companion.live.assembly import LiveTable, Outputs, TableSpec, Update
from companion.protocol.names import role_name
from companion.runner.clock import FakeClock
from companion.voice.catalogue_load import load_catalogue
from companion.voice.phrases import Catalogue
from companion.voice.settings import VoiceSettings
from testkit.bots import Bot, parsed

GAMES = 16

#: the only arguments a spoken cue may carry: seats, counts, times, the
#: discipline's public words, and teams only when the game is decided
PUBLIC_ARGS = {"seat", "seats", "nominees", "votes", "night", "day", "seconds", "count", "unit", "loss", "reason"}  # fmt: skip
END_CUES = {"game_won", "team_loses"}


def play(seed: int, lang: str) -> tuple[list[Effect], str, str, Catalogue, GameSetUp]:
    ruleset = "club" if seed % 2 else "tournament"
    lines = parsed(Bot(seed, ruleset).play(until_inputs=3_000))
    setup = lines[0].event
    assert isinstance(setup, GameSetUp)
    captions, host = io.StringIO(), io.StringIO()
    seen: list[Effect] = []
    refused: list[str] = []
    clock = FakeClock()

    def update(update: Update) -> None:
        seen.extend(update.effects)

    table = LiveTable(
        spec(lang),
        setup.ruleset,
        setup.seats,
        outputs=Outputs(captions, host),
        clock=clock,
        on_update=update,
        on_refused=lambda event, reason, line: refused.append(reason),
        lang=lang,
    )
    for line in lines:  # as the console's keys would, each at its time
        clock.set(max(clock.now(), line.at))
        if line.event is not None:
            table.submit(line.event, at=line.at)
    table.close()  # waits for any phrase rendered on first use
    assert not refused
    return seen, captions.getvalue(), host.getvalue(), load_catalogue(lang), setup


def spec(lang: str = "ru") -> TableSpec:
    voice = VoiceSettings(lang=lang, captions_only=True)
    return TableSpec(voice=voice, seats="none", threaded=False)


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_the_tables_stream_never_carries_a_role_or_a_check_answer(lang: str) -> None:
    checks = 0
    for seed in range(GAMES):
        effects, captions, host, catalogue, setup = play(seed, lang)
        rules = setup.ruleset
        said = [e for e in effects if isinstance(e, Say)]
        # Every spoken cue carries public arguments only.
        for say in said:
            names = {name for name, _ in say.args}
            allowed = PUBLIC_ARGS | ({"team"} if say.cue in END_CUES else set())
            assert names <= allowed, (seed, say)
        # The table's stream is the spoken cues, in order, one line each, and
        # nothing else.
        expected = [catalogue.text(s.cue, dict(s.args), rules) for s in said]
        lines = captions.splitlines()
        assert [line[2:] for line in lines] == expected, seed
        assert all(line[:2] in ("» ", "! ") for line in lines)
        # The host's stream has what the table must not hear ...
        told = [e for e in effects if isinstance(e, TellHost)]
        roles = [dict(t.args) for t in told if t.what == "role"]
        assert len(roles) == setup.seats
        answers = [dict(t.args) for t in told if t.what == "check"]
        checks += len(answers)
        role_word = "роль" if lang == "ru" else "role"
        for role in roles:
            name = role_name(str(role["role"]), lang)  # the ruleset's name, not the id
            line = f"{'Место' if lang == 'ru' else 'Seat'} {role['seat']}: {role_word} {name}"
            assert line in host
        check_word = "Проверка" if lang == "ru" else "Check"
        assert host.count(check_word) >= len(answers)
        # ... and none of it reaches the table's stream.
        assert role_word not in captions.lower() and check_word not in captions
    assert checks > 20  # the games had checks to keep secret


def test_the_host_log_and_captions_take_only_their_own_effects() -> None:
    """The sink hands each stream only its kind: a TellHost never reaches
    the captions, a Say never reaches the host log."""
    from companion.config.rulesets import load_ruleset

    rules = load_ruleset("tournament")
    captions, host = io.StringIO(), io.StringIO()
    table = LiveTable(spec(), rules, 10, outputs=Outputs(captions, host), clock=FakeClock())
    sink = table.session.on_effects
    assert sink is not None
    sink(0.0, (TellHost("role", (("seat", 5), ("role", "sheriff"))),))
    sink(
        1.0,
        (
            TellHost(
                "check", (("seat", 5), ("target", 6), ("reveals", "team:black"), ("answer", "yes"))
            ),
        ),
    )
    sink(2.0, (Say("night_falls", (("night", 1),)),))
    table.close()
    assert captions.getvalue() == "» Наступает ночь. Город засыпает.\n"
    assert host.getvalue().splitlines() == [
        "00:00.00  Место 5: роль Шериф",
        "00:01.00  Проверка: игрок 5 → игрок 6: чёрный? да",
    ]
