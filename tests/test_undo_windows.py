"""Undo of what a timer or the host ended (issue 23, «every correction
possible»): the vote window, its count, a last word and each night step come
back paused with what they had, the host keys what was missing, and what
follows comes from the corrected inputs. Table scripts on the fake clock,
both sports rulesets; the journal's undo line carries the time left, so a
resumed game does what the live one did."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import TOURNAMENT_ROLES, play, setup

from companion.config.rulesets import load_ruleset
from companion.core import views
from companion.core.sports.state import current_turn, table
from companion.core.state import Game
from companion.protocol.report import records
from companion.runner.journal import Journal, read
from companion.runner.replay import ScriptReplay
from companion.runner.resume import resume_journal
from companion.runner.script import parse_lines

CLUB_ROLES = [
    "civilian", "putana", "mafia", "civilian", "sheriff",
    "don", "doctor", "mafia", "maniac", "civilian",
]  # fmt: skip
ROLES = {"club": CLUB_ROLES, "tournament": TOURNAMENT_ROLES}
NEXT = {"input": "next"}
UNDO = {"input": "undo"}


def wait(seconds: float) -> dict[str, Any]:
    return {"after": seconds, "input": "wait"}


def day_one_nominating(ruleset: str, *targets: int) -> list[dict[str, Any]]:
    """Night 0 skipped; on day 1 seats 1, 2 ... nominate ``targets`` in their
    minutes, everyone else passes: the last speech ends the day."""
    lines = [setup(ruleset, ROLES[ruleset]), NEXT, NEXT]
    for speaker in range(1, 11):
        if speaker <= len(targets):
            lines.append({"input": "nominate", "by": speaker, "target": targets[speaker - 1]})
        lines.append({"after": 1, **NEXT})
    return lines


def phase(game: Game) -> str:
    return views.phase_name(game)


def kinds(game: Game) -> list[str]:
    return [record.kind for record in records(game)]


@pytest.mark.parametrize("ruleset", ["club", "tournament"])
def test_a_vote_nobody_keyed_is_undone_back_into_its_window_and_keyed_again(ruleset: str) -> None:
    """Trap 1: «Спасибо» → «Ноль голосов. Принято.» → the rest for 8 → 8 out,
    with nobody at the keys. Undo twice: the window for 5 is back, paused and
    whole; six hands keyed, «Спасибо», and 5 leaves instead of 8."""
    lines = day_one_nominating(ruleset, 5, 8)
    voted = play(*lines, wait(10))
    assert voted.seat(8).out is not None and voted.seat(5).out is None

    table_ = ScriptReplay()
    back = play(*lines, wait(10), UNDO, table=table_)
    assert phase(back) == "count"  # «Принято» for 5 taken back
    assert back.seat(8).out is None and back.paused == (("count", 2.0),)
    assert table_.timers == {}  # nothing runs: the host looks first

    back = play(UNDO, table=table_)
    assert phase(back) == "vote" and table(back).ballot is not None
    assert back.paused == (("vote", 2.0),)  # the window had run out: whole again
    assert records(back)[-1].kind == "undone"
    assert dict(records(back)[-1].data)["left"] == "vote=2"

    hands = [{"input": "press", "seat": n} for n in (1, 2, 3, 4, 6, 7)]
    game = play(*hands, NEXT, wait(3), table=table_)
    votes = [dict(r.data) for r in records(game) if r.kind == "votes"]
    assert [(v["nominee"], v["votes"]) for v in votes][-2:] == [(5, 6), (8, 4)]
    assert game.seat(5).out is not None and game.seat(8).out is None
    assert phase(game) == "last_word" and current_turn(game).seat == 5  # type: ignore[union-attr]


@pytest.mark.parametrize("ruleset", ["club", "tournament"])
def test_an_undone_window_runs_again_whole_when_the_host_lets_it(ruleset: str) -> None:
    lines = day_one_nominating(ruleset, 5, 8)
    table_ = ScriptReplay()
    play(*lines, wait(10), UNDO, UNDO, table=table_)
    game = play({"after": 5, "input": "resume"}, table=table_)
    assert phase(game) == "vote"
    # The question is asked again as the window runs on.
    deadline, _ = table_.timers["vote"]
    assert deadline == pytest.approx(table_.now + 2.0)
    game = play({"after": 1, "input": "press", "seat": 3}, wait(5), table=table_)
    assert [dict(r.data)["votes"] for r in records(game) if r.kind == "votes"][-2:] == [1, 9]


@pytest.mark.parametrize("ruleset", ["club", "tournament"])
def test_a_last_word_that_ran_out_comes_back_paused(ruleset: str) -> None:
    lines = day_one_nominating(ruleset, 5, 8)
    last_word_s = load_ruleset(ruleset).timings.last_word_s
    table_ = ScriptReplay()
    game = play(*lines, wait(10), wait(last_word_s + 1), table=table_)
    assert phase(game) == "last_word" and table(game).turn_over  # over time
    game = play(UNDO, table=table_)
    assert phase(game) == "last_word" and not table(game).turn_over
    assert dict(game.paused)["turn"] == 0.0  # a speech keeps what it had
    game = play({"input": "adjust", "seconds": 10}, {"input": "resume"}, table=table_)
    assert table_.timers["turn"][0] == pytest.approx(table_.now + 10)


@pytest.mark.parametrize("ruleset", ["club", "tournament"])
def test_the_host_ending_a_speech_by_mistake_is_undone_paused_with_its_time(ruleset: str) -> None:
    table_ = ScriptReplay()
    play(setup(ruleset, ROLES[ruleset]), NEXT, NEXT, {"after": 25, **NEXT}, table=table_)
    game = play({"after": 2, **UNDO}, table=table_)
    assert current_turn(game).seat == 1  # type: ignore[union-attr]
    left = dict(game.paused)
    speech_s = load_ruleset(ruleset).timings.speech_s
    assert left["turn"] == pytest.approx(speech_s - 25)
    assert left["warning"] == pytest.approx(left["turn"] - 10)
    play({"after": 3, "input": "resume"}, table=table_)
    assert table_.timers["turn"][0] == pytest.approx(table_.now + speech_s - 25)


def test_undoing_a_pause_lets_the_time_run_on() -> None:
    table_ = ScriptReplay()
    play(setup("club", CLUB_ROLES), NEXT, NEXT, {"after": 20, "input": "pause"}, table=table_)
    game = play({"after": 5, **UNDO}, table=table_)
    assert not game.paused and dict(game.timers).keys() == {"turn", "warning"}
    assert table_.timers["turn"][0] == pytest.approx(table_.now + 40)


def night_steps(ruleset: str) -> list[str]:
    return [step.id for step in load_ruleset(ruleset).night]


def to_night_one(ruleset: str) -> list[dict[str, Any]]:
    """Day 1 with no nominations: night 1 begins after the last speech."""
    return [*day_one_nominating(ruleset), wait(1)]


@pytest.mark.parametrize(
    ("ruleset", "step"),
    [(r, s) for r in ("club", "tournament") for s in night_steps(r)],
)
def test_each_night_step_that_ran_out_is_undone_back_and_asked_again(
    ruleset: str, step: str
) -> None:
    """Trap 1's night: undoing the maniac's expired step jumped to the
    doctor and the maniac's kill was refused. Now the step comes back,
    paused and whole, its choice is taken, and the step is asked again
    when it runs on."""
    rules = load_ruleset(ruleset)
    steps = rules.night
    index = [s.id for s in steps].index(step)
    table_ = ScriptReplay()
    game = play(*to_night_one(ruleset), table=table_)
    assert game.phase == "night"
    # Let this step and the ones before it run out on their own.
    elapsed = sum(s.seconds for s in steps[: index + 1])
    game = play(wait(elapsed + 0.1), table=table_)
    assert table(game).night_step == index + 1 or game.phase != "night"
    game = play(UNDO, table=table_)
    assert game.phase == "night" and table(game).night_step == index
    assert game.paused == (("night", float(steps[index].seconds)),)
    actor_role = steps[index].roles[0] if steps[index].roles else None
    if actor_role is not None and steps[index].action != "none":
        actor = ROLES[ruleset].index(actor_role) + 1
        game = play({"input": "choice", "seat": actor, "target": 10}, table=table_)
        assert (step, actor, 10) in table(game).choices
    said: list[str] = []
    table_.on_effects = lambda at, effects: said.extend(e.cue for e in effects if hasattr(e, "cue"))
    play({"input": "resume"}, table=table_)
    assert said == ["resumed", steps[index].cue]


def test_an_undo_is_journaled_with_its_time_left_and_resumes_alike(tmp_path: Path) -> None:
    lines = [*day_one_nominating("club", 5, 8), wait(10), UNDO, UNDO]
    path = tmp_path / "game.jsonl"
    journal = Journal.create(path)
    table_ = ScriptReplay(journal)
    live = play(*lines, {"input": "press", "seat": 3}, table=table_)
    journal.close()
    undo_lines = [json.loads(x) for x in read(path).lines if '"undo"' in x]
    assert [line["remaining"] for line in undo_lines] == [[["count", 2.0]], [["vote", 2.0]]]
    resumed = resume_journal(path, load_ruleset)
    try:
        game = resumed.session.game
        assert game == live and game.paused == live.paused
        assert resumed.session.timers.deadlines == {}
    finally:
        assert resumed.session.journal is not None
        resumed.session.journal.close()


def test_an_old_journals_undo_means_what_it_meant(tmp_path: Path) -> None:
    """A journal written before undo carried the time left: its undo brought
    the timer back with its old deadline, which fired at once; read again,
    it does the same, so the journal's next lines still fit."""
    old = [
        {"at": 0, "input": "setup", "ruleset": "club", "roles": CLUB_ROLES, "journal": True},
        {"at": 60, "input": "timer", "name": "night", "generation": 1},
        {"at": 61, "input": "undo"},
        {"at": 61, "input": "timer", "name": "night", "generation": 1},
    ]
    replay = ScriptReplay(auto_timers=False)
    replay.run(parse_lines([json.dumps(x) for x in old], "old", load_ruleset))
    game = replay.game
    assert game is not None and not game.paused and table(game).night_step == 1


def test_a_simulated_tables_vote_window_waits_for_the_host() -> None:
    """Must-hold 2: on simulated seats the window stays open until the
    host's «Спасибо» (GameSetUp.host_closes_votes, journaled in the setup)."""
    lines = day_one_nominating("club", 5, 8)
    lines[0] = {**lines[0], "host_closes_votes": True}
    table_ = ScriptReplay()
    game = play(*lines, wait(60), table=table_)
    assert phase(game) == "vote" and "vote" not in table_.timers
    hands = [{"after": 2, "input": "press", "seat": n} for n in (1, 2, 3, 4, 6, 7)]
    game = play(*hands, NEXT, wait(3), table=table_)
    assert game.seat(5).out is not None
    assert "no_vote" not in kinds(game)
