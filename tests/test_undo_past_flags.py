"""The host's undo passes over the microphone's flags (a trap found playing
the console with a chattering room: the host's «u» took back a flag that had
come in meanwhile, a second «u» the next flag, and the host's own input
stayed). The console's «u» is ``Undone(past_flags=True)``: the last input of
anyone but the microphone is taken back, the timers as it found them, and
the flags that came after it are proposed again. A script's or an old
journal's ``undo`` still takes back the last input, a flag too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from console_driver import Host, config, console, hosting
from helpers import TOURNAMENT_ROLES, play, setup

from companion.config.rulesets import load_ruleset
from companion.core import engine, views
from companion.core.effects import Effect
from companion.core.engine import step
from companion.core.events import Event, SpeechFlagged, Undone
from companion.core.sports.state import current_turn
from companion.core.sports.state import table as table_state
from companion.core.state import Game
from companion.core.step import IllegalInput
from companion.core.views import trailing_flags
from companion.protocol.report import records
from companion.runner.journal import Journal, read
from companion.runner.replay import ScriptReplay
from companion.runner.resume import resume_journal

NEXT = {"input": "next"}
HOST_UNDO = {"input": "undo", "past_flags": True}


def heard(seat: int, after: float = 1.0) -> dict[str, Any]:
    return {"after": after, "input": "heard", "kind": "out_of_turn", "seat": seat,
            "confidence": 0.9}  # fmt: skip


def kinds(game: Game) -> list[str]:
    return [record.kind for record in records(game)]


def speech_ended_by_mistake(table: ScriptReplay) -> Game:
    """Day 1, seat 1's speech ended by the host after 25 s, and two flags
    from the microphone after it."""
    return play(
        setup("tournament", TOURNAMENT_ROLES), NEXT, NEXT, {"after": 25, **NEXT},
        heard(4), heard(6), table=table,
    )  # fmt: skip


def test_the_hosts_undo_takes_back_the_hosts_input_behind_the_flags() -> None:
    table = ScriptReplay()
    flagged = speech_ended_by_mistake(table)
    assert current_turn(flagged).seat == 2  # type: ignore[union-attr]
    game = play({"after": 1, **HOST_UNDO}, table=table)
    assert current_turn(game).seat == 1  # type: ignore[union-attr]
    speech_s = load_ruleset("tournament").timings.speech_s
    assert dict(game.paused)["turn"] == pytest.approx(speech_s - 25)  # as the host found it
    assert table.timers == {}  # paused: the host looks first
    # The flags, proposed again after the undo, in their order.
    assert kinds(game)[-3:] == ["undone", "speech_flagged", "speech_flagged"]
    assert "speech_flagged" not in dict(records(game)[-3].data)["records"]
    assert [flag.seat for flag in trailing_flags(game)] == [4, 6]
    assert game.proposals == flagged.proposals


def test_a_scripts_undo_takes_back_the_last_flag_as_before() -> None:
    table = ScriptReplay()
    flagged = speech_ended_by_mistake(table)
    game = play({"after": 1, "input": "undo"}, table=table)
    assert current_turn(game).seat == 2  # type: ignore[union-attr]
    assert game == flagged.prev  # the flag for seat 6 taken back, seat 4's kept
    assert game.proposals == flagged.prev.proposals  # type: ignore[union-attr]
    assert dict(records(game)[-1].data)["records"] == "speech_flagged"


def test_the_hosts_undo_again_walks_back_past_the_flags_each_time() -> None:
    table = ScriptReplay()
    speech_ended_by_mistake(table)
    play({"after": 1, **HOST_UNDO}, table=table)
    game = play({"after": 1, **HOST_UNDO}, table=table)  # the host's «next» before
    night = play(setup("tournament", TOURNAMENT_ROLES), NEXT)
    assert views.phase_name(game) == views.phase_name(night)
    assert [flag.seat for flag in trailing_flags(game)] == [4, 6]
    assert "speech_flagged" not in dict(records(game)[-3].data)["records"]
    # The timers follow: what ran then runs or is paused, never both.
    assert not (set(table.timers) & set(dict(game.paused)))


def test_with_nothing_but_flags_after_the_setup_there_is_nothing_to_undo() -> None:
    game = play(setup("tournament", TOURNAMENT_ROLES), heard(4))
    with pytest.raises(Exception, match="nothing to undo"):
        step(game, Undone(past_flags=True))
    back, _ = step(game, Undone())  # the flag itself, as a script's undo
    assert trailing_flags(back) == ()


def test_the_hosts_undo_is_journaled_and_resumes_alike(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    journal = Journal.create(path)
    table = ScriptReplay(journal)
    speech_ended_by_mistake(table)
    live = play({"after": 1, **HOST_UNDO}, {"after": 2, "input": "resume"}, heard(5),
                table=table)  # fmt: skip
    journal.close()
    undo = [json.loads(x) for x in read(path).lines if '"undo"' in x]
    assert len(undo) == 1 and undo[0]["past_flags"] is True
    assert undo[0]["remaining"][0][0] == "turn"
    resumed = resume_journal(path, load_ruleset)
    try:
        game = resumed.session.game
        assert game == live and trailing_flags(game) == trailing_flags(live)
        assert resumed.session.timers.deadlines.keys() == table.timers.keys()
    finally:
        assert resumed.session.journal is not None
        resumed.session.journal.close()


def test_a_flag_refused_where_the_table_stands_again_is_left_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A flag the restored game refuses is not proposed again (no built-in
    procedure refuses one anywhere: a stand-in for one that would)."""
    flagged = speech_ended_by_mistake(ScriptReplay())
    take = engine.step

    def refusing_seat_4(game: Game, event: Event) -> tuple[Game, tuple[Effect, ...]]:
        if isinstance(event, SpeechFlagged) and event.seat == 4:
            raise IllegalInput("not heard here")
        return take(game, event)

    monkeypatch.setattr(engine, "step", refusing_seat_4)
    back, _ = engine.apply(flagged, Undone(past_flags=True))
    assert current_turn(back).seat == 1  # type: ignore[union-attr]
    assert [flag.seat for flag in trailing_flags(back)] == [6]


async def test_the_consoles_u_takes_back_the_hosts_nomination_behind_a_flag(
    tmp_path: Path,
) -> None:
    """Played as the trap was found: the host's input, the microphone's flag
    after it, then «u»: the host's input is taken back and said so, the flag
    still waits for «y» or «n»."""
    app = console(config(tmp_path, "club"))
    async with hosting(app) as host:
        await host.keys("ctrl+s", "enter")
        await host.until("speech")
        await host.nominate(6)
        assert app.table is not None
        app.table.submit(SpeechFlagged("out_of_turn", seat=4, confidence=0.9))
        await host.settle()
        flagged = host.game
        assert [flag.seat for flag in trailing_flags(flagged)] == [4]
        await host.keys("u")
        assert table_state(host.game).nominees == ()
        assert "Отменено: выставление игрока 6" in logged(host)
        assert [flag.seat for flag in trailing_flags(host.game)] == [4]
        assert host.game.proposals == flagged.proposals


def logged(host: Host) -> str:
    log = host.app.screen.query_one("#log")
    return "\n".join(str(line.text) for line in log.lines)  # type: ignore[attr-defined]
