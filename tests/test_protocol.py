"""The protocol of real games of both rulesets in JSON, CSV and HTML, made
the way a user makes them (``companion protocol JOURNAL``), saved into a
games folder, and its deal checked (``companion verify-deal``)."""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime
from pathlib import Path

import pytest
from helpers import EXAMPLES
from protocol_games import NAMES, SEEDS, companion, companion_process, dealt_script, journal_of

from companion.config.rulesets import load_ruleset
from companion.core.state import Game
from companion.protocol import archive, deal, formats, model

GAMES = ("tournament", "club-full", "club-stopped")


@pytest.fixture(scope="module")
def journals(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("games")
    return {game: journal_of(game, folder) for game in GAMES}


def _json(journal: Path, *more: str) -> dict[str, object]:
    run = companion("protocol", journal, "--format", "json", *more)
    assert run.returncode == 0, run.stderr
    data: dict[str, object] = json.loads(run.stdout)
    return data


@pytest.mark.parametrize("game", GAMES)
def test_the_json_protocol_holds_the_table_and_every_record(
    journals: dict[str, Path], game: str
) -> None:
    data = _json(journals[game])
    replayed = companion("replay", journals[game], "--json")
    state = json.loads(replayed.stdout)
    seats = data["seats"]
    assert isinstance(seats, list)
    assert [s["name"] for s in seats] == NAMES
    assert [s["role"] for s in seats] == [s["role"] for s in state["seats"]]
    assert [bool(s["out"]) for s in seats] == [not s["alive"] for s in state["seats"]]
    events = data["events"]
    assert isinstance(events, list)
    # as many votes and outs as the text protocol has lines for them
    text = companion("protocol", journals[game], "--format", "json").stdout
    lines = companion("replay", journals[game]).stdout.splitlines()
    assert sum(e["kind"] == "votes" for e in events) == sum(
        "за игрока" in x.lower() or "За уход всех" in x for x in lines
    )
    assert sum(e["kind"] == "nomination" for e in events) == sum("выставил" in x for x in lines)
    assert text.count('"kind": "out"') == sum("покидает стол" in x for x in lines)
    assert data["game"]["result"] == (  # type: ignore[index]
        None if state["result"] is None else {**state["result"], **_extra(data)}
    )
    ruleset = data["game"]["ruleset"]  # type: ignore[index]
    assert data["deal"]["dealt"] is True  # type: ignore[index]
    assert data["deal"]["seed"] == SEEDS[ruleset]  # type: ignore[index]
    assert data["deal"]["commitment"] == deal.commitment(SEEDS[ruleset])  # type: ignore[index]


def _extra(data: dict[str, object]) -> dict[str, object]:
    result = data["game"]["result"]  # type: ignore[index]
    return {"stopped": result["stopped"], "text": result["text"]}


def test_offences_carry_their_clauses_and_a_cancellation_and_a_stop_show(
    journals: dict[str, Path],
) -> None:
    data = _json(journals["club-stopped"])
    events = data["events"]
    assert isinstance(events, list)
    offences = [e for e in events if e["kind"] == "offence"]
    assert offences and all(e["clause"] and e["seat"] for e in offences)
    assert {"remarks.1", "remarks.5", "remarks.8"} <= {e["clause"] for e in offences}
    cancelled = [e for e in events if e["kind"] == "offence_cancelled"]
    assert [(e["seat"], e["clause"]) for e in cancelled] == [(1, "remarks.5")]
    result = data["game"]["result"]  # type: ignore[index]
    assert result["reason"] == "stopped" and result["stopped"] == "пожарная тревога"
    seat1 = data["seats"][0]  # type: ignore[index]
    assert seat1["offences"] == []  # the cancelled remark no longer stands
    seat10 = data["seats"][9]  # type: ignore[index]
    assert seat10["out"]["how"] == "removed"
    assert {o["clause"] for o in seat10["offences"]} >= {"remarks.1", "remarks.5"}


def test_a_full_club_game_has_checks_kills_and_the_best_move(journals: dict[str, Path]) -> None:
    data = _json(journals["club-full"])
    kinds = {e["kind"] for e in data["events"]}  # type: ignore[union-attr]
    assert {"check", "night_choice", "out", "votes", "nomination", "result"} <= kinds
    assert data["game"]["result"]["winners"] == ["maniac"]  # type: ignore[index]


def test_the_tournament_game_has_its_best_move(journals: dict[str, Path]) -> None:
    data = _json(journals["tournament"], "--lang", "en")
    best = [e for e in data["events"] if e["kind"] == "best_move"]  # type: ignore[union-attr]
    assert len(best) == 1
    assert best[0]["seat"] == 7 and best[0]["seats"] == [2, 5, 6] and best[0]["count"] == 2
    assert best[0]["text"] == "Best move: 2, 5, 6 (seat 7, black: 2)"


@pytest.mark.parametrize("game", GAMES)
def test_the_csv_is_one_table_with_a_section_per_row(journals: dict[str, Path], game: str) -> None:
    """In English the CSV's header and kinds are the ids (in Russian, words:
    tests/test_protocol_words.py)."""
    run = companion("protocol", journals[game], "--format", "csv", "--lang", "en")
    assert run.returncode == 0, run.stderr
    rows = list(csv.DictReader(io.StringIO(run.stdout)))
    assert list(rows[0]) == list(formats.COLUMNS)
    sections = [r["section"] for r in rows]
    assert sections == sorted(sections, key=["game", "deal", "seat", "event"].index)
    seats = [r for r in rows if r["section"] == "seat"]
    assert [r["name"] for r in seats] == NAMES
    events = [r for r in rows if r["section"] == "event"]
    data = _json(journals[game], "--lang", "en")
    kinds = ["revote" if e.get("revote") else e["kind"] for e in data["events"]]  # type: ignore[union-attr]
    assert [r["kind"] for r in events] == kinds
    assert [r["text"] for r in events] == [e["text"] for e in data["events"]]  # type: ignore[union-attr]
    for row in events:
        if row["kind"] in ("votes", "revote"):
            assert row["count"] == str(len(row["seats"].split()))
    seed = [r["text"] for r in rows if r["section"] == "deal" and r["kind"] == "seed"]
    assert seed == [str(data["deal"]["seed"])]  # type: ignore[index]


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("lang", ["ru", "en"])
def test_the_html_is_one_self_contained_printable_page(
    journals: dict[str, Path], game: str, lang: str
) -> None:
    run = companion("protocol", journals[game], "--format", "html", "--lang", lang)
    assert run.returncode == 0, run.stderr
    page = run.stdout
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert f'<html lang="{lang}">' in page
    assert "@media print" in page and "<style>" in page
    for external in ("http:", "https:", "src=", "href=", "<script", "@import", "url("):
        assert external not in page, external
    # a name with markup is text, escaped once more than it was typed
    assert "Зоя &lt;b&gt;&amp;amp;" in page and "<b>" not in page
    title = "Протокол игры" if lang == "ru" else "Game protocol"
    assert f"<h1>{title}</h1>" in page
    commitment = deal.commitment(SEEDS["tournament" if game == "tournament" else "club"])
    assert commitment in page


def test_the_protocol_goes_to_a_file_with_o(journals: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "p.html"
    run = companion_process("protocol", journals["tournament"], "--format", "html", "-o", out)
    assert run.returncode == 0 and run.stdout == ""
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_save_all_writes_three_files_that_sort_by_date(
    journals: dict[str, Path], tmp_path: Path
) -> None:
    protocol, _ = archive.from_journal(journals["club-full"], load_ruleset)
    folder = tmp_path / "club" / "games"
    later = archive.save_all(protocol, folder, datetime(2026, 12, 1, 21, 5))
    first = archive.save_all(protocol, folder, datetime(2026, 11, 30, 19, 0))
    again = archive.save_all(protocol, folder, datetime(2026, 12, 1, 21, 5))
    assert [p.name for p in later] == [
        "2026-12-01_21-05_club.json",
        "2026-12-01_21-05_club.csv",
        "2026-12-01_21-05_club.html",
    ]
    assert again[0].name == "2026-12-01_21-05_club-2.json"
    names = sorted(p.name for p in folder.iterdir())
    assert names[:3] == sorted(p.name for p in first)
    assert not [n for n in names if n.endswith(".part")]
    assert json.loads(later[0].read_text(encoding="utf-8"))["format"] == formats.FORMAT
    assert later[2].read_text(encoding="utf-8") == formats.render(protocol, "html")


# --- verify-deal, as a user runs it -------------------------------------------------


def _protocol_file(journal: Path, folder: Path) -> Path:
    path = folder / f"{journal.stem}.json"
    run = companion("protocol", journal, "--format", "json", "-o", path)
    assert run.returncode == 0, run.stderr
    return path


@pytest.mark.parametrize("game", GAMES)
def test_verify_deal_says_fair_for_a_real_deal(
    journals: dict[str, Path], game: str, tmp_path: Path
) -> None:
    path = _protocol_file(journals[game], tmp_path)
    run = companion_process("verify-deal", path, "--lang", "en")  # as a user runs it
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.count("\n") == 1 and "the deal is fair" in run.stdout


def _tampered(path: Path, change: str) -> Path:
    data = json.loads(path.read_text(encoding="utf-8"))
    if change == "role":  # the don's card given to the first red seat
        seats = data["seats"]
        don = next(s for s in seats if s["role"] == "don")
        red = next(s for s in seats if s["team"] in ("red", "civilians") and s["role"] != "don")
        don["role"], red["role"] = red["role"], don["role"]
    elif change == "seed":
        data["deal"]["seed"] += 1
    elif change == "commitment":
        data["deal"]["commitment"] = deal.commitment(1)
    elif change == "order":
        data["deal"]["order"].reverse()
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ("role", "the roles were not dealt from this seed"),
        ("seed", "the seed was changed after it was shown"),
        ("commitment", "the seed was changed after it was shown"),
        ("order", "deal.order is not ruleset 'club'"),
    ],
)
def test_verify_deal_catches_a_changed_protocol(
    journals: dict[str, Path], tmp_path: Path, change: str, why: str
) -> None:
    path = _tampered(_protocol_file(journals["club-full"], tmp_path), change)
    run = companion("verify-deal", path, "--lang", "en")
    assert run.returncode == 1
    assert run.stdout.count("\n") == 1 and "NOT fair" in run.stdout and why in run.stdout


def test_verify_deal_of_given_roles_says_there_is_nothing_to_check(tmp_path: Path) -> None:
    journal = tmp_path / "given.jsonl"
    assert companion("replay", EXAMPLES / "demo.jsonl", "--journal", journal).returncode == 0
    run = companion("verify-deal", _protocol_file(journal, tmp_path), "--lang", "en")
    assert run.returncode == 3 and run.stdout.count("\n") == 1
    assert "no deal to check: the host gave the roles" in run.stdout and "fair" not in run.stdout


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"\xff\xfe", "not UTF-8"),
        (b'{"format": ', ":1: not JSON"),
        (b"[1, 2]", "'format': not a companion protocol"),
        (b'{"format": "companion-protocol/1", "game": {"ruleset": "club"}}', "'deal': missing"),
        (
            b'{"format": "companion-protocol/1", "game": {"ruleset": "club"}, "seats": [],'
            b' "deal": {"dealt": true, "seed": -4}}',
            "'deal.seed': not a seed",
        ),
        (
            b'{"format": "companion-protocol/1", "game": {"ruleset": "club"},'
            b' "seats": [{"seat": 1}], "deal": {}}',
            "'seats[0].role': missing",
        ),
    ],
)
def test_verify_deal_of_a_bad_file_is_one_line_naming_it(
    tmp_path: Path, content: bytes, says: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    run = companion("verify-deal", path, "--lang", "en")
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.count("\n") == 1
    assert run.stderr.startswith(f"companion: {path}") and says in run.stderr


def test_verify_deal_of_a_missing_file(tmp_path: Path) -> None:
    run = companion("verify-deal", tmp_path / "none.json", "--lang", "en")
    assert run.returncode == 2 and "none.json: No such file" in run.stderr


def test_protocol_of_a_broken_journal_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"at": 0, "input": "setup", "ruleset": "club"}\n', encoding="utf-8")
    run = companion("protocol", bad)
    assert run.returncode == 2 and run.stdout == "" and run.stderr.count("\n") == 1
    assert str(bad) in run.stderr


def test_a_protocol_built_in_process_matches_the_cli(
    journals: dict[str, Path], tmp_path: Path
) -> None:
    protocol, warnings = archive.from_journal(journals["tournament"], load_ruleset, "en")
    assert warnings == []
    assert protocol.lang == "en" and protocol.name(8) == NAMES[7] and protocol.name(99) == ""
    assert (
        formats.render(protocol, "json")
        == companion("protocol", journals["tournament"], "--format", "json", "--lang", "en").stdout
    )
    with pytest.raises(ValueError, match="format"):
        formats.render(protocol, "pdf")
    with pytest.raises(ValueError, match="language"):
        model.build(protocol_game(tmp_path), dealt=True, lang="de")


def protocol_game(tmp_path: Path) -> Game:
    from companion.runner.replay import ScriptReplay
    from companion.runner.script import read_script

    replay = ScriptReplay()
    game = replay.run(read_script(dealt_script("tournament", tmp_path), load_ruleset))
    assert game is not None
    return game


def test_verify_deal_against_the_hash_the_players_noted(
    journals: dict[str, Path], tmp_path: Path
) -> None:
    path = _protocol_file(journals["tournament"], tmp_path)
    noted = deal.commitment(SEEDS["tournament"])[:16]
    assert companion("verify-deal", path, "--shown", noted.upper(), "--lang", "en").returncode == 0
    other = companion("verify-deal", path, "--shown", deal.commitment(5)[:20], "--lang", "en")
    assert other.returncode == 1 and "is not the hash shown before the deal" in other.stdout
    short = companion("verify-deal", path, "--shown", "abc", "--lang", "en")
    assert short.returncode == 2 and "at least 16 hex digits" in short.stderr
