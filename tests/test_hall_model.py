"""The hall's model (issue 27, the board's side): what the tables send, fed
as the broker delivers it, duplicates dropped by (game, seq); the standings
scored from real protocols by the shipped schemes; the exports."""

from __future__ import annotations

import csv
import io
import json
import os
import zipfile
from pathlib import Path

import pytest
from hall_games import protocol_bytes

from companion.hall import topics
from companion.hall.exports import (
    archive_bytes,
    export_standings,
    read_protocol_dir,
    standings_csv,
    standings_html,
)
from companion.hall.model import HallModel
from companion.hall.scoring import ScoringError, find_scheme, parse_scheme, shipped
from companion.hall.standings import Game, places, points_text, standings

NAMES = ["Анна", "Борис", "Вера", "Глеб", "Даша", "Егор", "Жанна", "Зоя", "Игорь", "Кира"]


def state(game: str, seq: int, **fields: object) -> bytes:
    return json.dumps({"game": game, "seq": seq, **fields}).encode()


def topic(table: int, sub: str, event: str = "cup") -> str:
    return topics.table_topic(event, table, sub)


# --- the model -------------------------------------------------------------


def test_a_state_shows_and_its_timer_counts_from_the_deadline() -> None:
    hall = HallModel("cup")
    update = hall.feed(
        topic(3, topics.STATE),
        state("g1", 5, phase="day", speaker=4, deadline=1000.0, fouls={"2": 1, "7": 3},
              out=[{"seat": 9, "why": "voted"}], announcement="Говорит игрок 4"),
    )  # fmt: skip
    assert update is not None and update.table == 3 and not update.standings
    view = hall.tables[3]
    assert (view.phase, view.speaker, view.fouls, view.out) == (
        "day", 4, {2: 1, 7: 3}, [(9, "voted")],
    )  # fmt: skip
    assert view.time_left(now=958.5) == 41.5
    assert view.time_left(now=1003.0) == 0.0  # never below nothing
    assert view.announcement == "Говорит игрок 4"


def test_what_comes_twice_or_late_is_dropped() -> None:
    hall = HallModel("cup")
    assert hall.feed(topic(1, topics.STATE), state("g1", 5, phase="day")) is not None
    # the retained state again (a resubscription), and an older one (the outbox)
    assert hall.feed(topic(1, topics.STATE), state("g1", 5, phase="day")) is None
    assert hall.feed(topic(1, topics.STATE), state("g1", 3, phase="night")) is None
    assert hall.tables[1].phase == "day"
    # the same input's state again with its announcement (hall/dedup.py): news
    said = state("g1", 5, phase="day", announcement="День 1")
    assert hall.feed(topic(1, topics.STATE), said) is not None
    assert hall.tables[1].announcement == "День 1"
    assert hall.feed(topic(1, topics.STATE), state("g1", 6, phase="voting")) is not None
    # the next game replaces it; a late state of the game left behind is dropped
    assert hall.feed(topic(1, topics.STATE), state("g2", 1, phase="setup")) is not None
    assert hall.feed(topic(1, topics.STATE), state("g1", 9, phase="night")) is None
    assert (hall.tables[1].game, hall.tables[1].phase) == ("g2", "setup")
    assert hall.duplicates == 3


def test_captions_are_the_last_announcement_once_each() -> None:
    hall = HallModel("cup")
    hall.feed(topic(2, topics.STATE), state("g", 4, phase="day", announcement="старое"))
    caption = json.dumps({"game": "g", "seq": 7, "text": "Ночь"}).encode()
    assert hall.feed(topic(2, topics.CAPTIONS), caption) is not None
    assert hall.feed(topic(2, topics.CAPTIONS), caption) is None
    assert hall.tables[2].announcement == "Ночь"
    older = json.dumps({"game": "g", "seq": 3, "text": "Утро"}).encode()
    assert hall.feed(topic(2, topics.CAPTIONS), older) is None
    assert hall.tables[2].announcement == "Ночь"
    # a caption in parts: each part once
    second = json.dumps({"game": "g", "seq": 7, "part": 1, "text": "Мафия просыпается"}).encode()
    assert hall.feed(topic(2, topics.CAPTIONS), second) is not None
    assert hall.feed(topic(2, topics.CAPTIONS), second) is None
    assert hall.tables[2].announcement == "Мафия просыпается"


def test_an_outage_resend_of_many_captions_is_dropped_by_dedup() -> None:
    # a table away a while sends its queue again (paho keeps 2 000): the
    # board drops every one by Dedup's rules, not only the last few hundred
    hall = HallModel("cup")
    said = [json.dumps({"game": "g", "seq": n, "text": f"c{n}"}).encode() for n in range(900)]
    for caption in said:
        assert hall.feed(topic(5, topics.CAPTIONS), caption) is not None
    for caption in said:
        assert hall.feed(topic(5, topics.CAPTIONS), caption) is None
    assert hall.duplicates == 900 == hall.dedup.dropped
    assert hall.tables[5].announcement == "c899"


def test_the_model_drops_what_dedup_drops() -> None:
    # one rule for every receiver: the board's model and a bare Dedup agree
    # on each message (the model adds only the games left behind)
    from companion.hall.dedup import Dedup

    sent = [
        (topic(1, topics.STATE), state("g1", 5, phase="day")),
        (topic(1, topics.STATE), state("g1", 5, phase="day")),
        (topic(1, topics.STATE), state("g1", 5, phase="day", announcement="x")),
        (topic(1, topics.STATE), state("g1", 4, phase="night")),
        (topic(1, topics.CAPTIONS), json.dumps({"game": "g1", "seq": 6, "text": "a"}).encode()),
        (topic(1, topics.CAPTIONS), json.dumps({"game": "g1", "seq": 6, "text": "a"}).encode()),
        (topic(1, topics.CAPTIONS), json.dumps({"game": "g1", "seq": 6, "part": 1, "text": "b"}).encode()),
        (topic(2, topics.STATE), state("g1", 5, phase="day")),
        (topic(1, topics.STATE), state("g1", 7, phase="voting")),
    ]  # fmt: skip
    hall, dedup = HallModel("cup"), Dedup()
    for where, payload in sent:
        model_took = hall.feed(where, payload) is not None
        assert model_took == dedup.fresh(where, payload, json.loads(payload)), (where, payload)
    assert hall.duplicates == dedup.dropped == 3


def test_a_protocol_is_kept_once_byte_for_byte(tmp_path: Path) -> None:
    hall = HallModel("cup")
    data = protocol_bytes("tournament-red-win", tmp_path, NAMES)
    update = hall.feed(topics.protocol_topic("cup", 4, "g7"), data)
    assert update is not None and update.standings
    assert hall.feed(topics.protocol_topic("cup", 4, "g7"), data) is None
    assert hall.raw_protocols == {(4, "g7"): data}
    assert [(g.table, g.game) for g in hall.protocols()] == [(4, "g7")]
    # the ending undone and made again: the new protocol replaces the old
    again = data.replace(b'"date": "', b'"date": "~')
    assert again != data and hall.feed(topics.protocol_topic("cup", 4, "g7"), again) is not None
    assert hall.raw_protocols == {(4, "g7"): again}


@pytest.mark.parametrize(
    ("sub", "payload", "why"),
    [
        (topics.STATE, b"\xff\xfe", "not UTF-8 JSON"),
        (topics.STATE, b"[1, 2]", "no game"),
        (topics.STATE, b'{"game": "g", "seq": true}', "no game"),
        (topics.LINK, b"maybe", "not online or offline"),
        ("protocol/g1", b'{"format": "other"}', "not a companion-protocol/1"),
    ],
)
def test_a_bad_payload_is_one_line_not_an_error(sub: str, payload: bytes, why: str) -> None:
    hall = HallModel("cup")
    assert hall.feed(topic(5, sub), payload) is None
    (line,) = hall.refused
    assert line.startswith("mafia/cup/table/5/") and why in line and "\n" not in line


def test_other_events_and_topics_and_empty_clears_are_ignored() -> None:
    hall = HallModel("cup")
    assert hall.feed(topic(1, topics.STATE, event="other"), state("g", 1)) is None
    assert hall.feed("mafia/cup/board", b"{}") is None
    assert hall.feed(topic(1, topics.STATE), b"") is None
    assert hall.feed(topic(1, topics.LINK), b"offline") is not None
    assert hall.tables[1].link == "offline" and not hall.refused


def test_the_public_view_holds_only_named_fields() -> None:
    hall = HallModel("cup")
    hall.feed(topic(1, topics.STATE), state("g", 1, phase="night", roles={"3": "don"}))
    public = hall.tables[1].public()
    assert "roles" not in json.dumps(public)
    assert public["phase"] == "night"
    hall.feed(topic(1, topics.STATE), state("g", 2, phase="ended", result={"winner": ["red"]}))
    assert hall.tables[1].result == "red"


# --- the schemes -----------------------------------------------------------


def test_the_shipped_schemes_load_and_cite_their_source() -> None:
    assert {"club", "tournament", "wins"} <= set(shipped())
    club = find_scheme("club")
    assert club.source == "000_07616eb4a4475db1.txt" and club.rating_penalty == 1.0
    assert find_scheme("tournament").removed == -0.5
    assert club.best_move_points(3) == 0.5 and club.best_move_points(1) == 0.0


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ('name = "x"\ntitle = "x"\nsource = "x"\nwinn = 1.0\n', "x.toml:4: winn: unknown key; did you mean 'win'?"),
        ('name = "x"\ntitle = "x"\nsource = "x"\nwin = "one"\n', "x.toml:4: win: expected a number"),
        ('name = "x"\ntitle = "x"\nsource = "x"\n[best_move]\n4 = 1.0\n', "x.toml:5: best_move.4: must be the number"),
        ('title = "x"\nsource = "x"\n', "x.toml: name: required key is missing"),
        ('name = "x"\ntitle = "x"\nsource = "x"\nloss = 1e9\n', "x.toml:4: loss: must be from -1000 to 1000"),
    ],
)  # fmt: skip
def test_a_bad_scheme_is_one_line_naming_file_line_key(text: str, line: str) -> None:
    with pytest.raises(ScoringError) as caught:
        parse_scheme(text, "x.toml")
    assert str(caught.value).startswith(line) and "\n" not in str(caught.value)


def test_an_unknown_scheme_name_lists_the_shipped() -> None:
    with pytest.raises(ScoringError, match=r"no such scheme \(shipped: club, tournament"):
        find_scheme("fiim")


# --- the standings from real protocols --------------------------------------


@pytest.fixture(scope="module")
def round_of_games(tmp_path_factory: pytest.TempPathFactory) -> list[Game]:
    """Three tables: a red win, a game cut short with a removal and a best
    move (no result), a draw; the same ten players at each."""
    folder = tmp_path_factory.mktemp("round")
    games = ["tournament-red-win", "tournament-fourth-foul-4-5", "tournament-draw-5-6"]
    return [
        Game(table, name, json.loads(protocol_bytes(name, folder, NAMES)))
        for table, name in enumerate(games, 1)
    ]


def test_the_standings_score_wins_best_move_and_removals(round_of_games: list[Game]) -> None:
    rows = {row.player: row for row in standings(round_of_games, find_scheme("tournament"))}
    # the draw is a table of seven: the last three names played two games
    assert [rows[name].games for name in NAMES] == [3] * 7 + [2] * 3
    # red won the first game: its seven red seats take a point each
    red = {s["name"] for s in round_of_games[0].data["seats"] if s["team"] == "red"}
    assert {p for p, row in rows.items() if row.wins == 1} == red
    # the second game: seat 4 (Глеб) removed on a fourth foul, seat 7 (Жанна) a best move of 2
    assert rows["Глеб"].penalties == -0.5
    assert rows["Жанна"].best_move == 0.25
    assert rows["Жанна"].points == rows["Жанна"].wins + 0.25
    # the wins-only scheme knows no best move nor penalty
    plain = {row.player: row for row in standings(round_of_games, find_scheme("wins"))}
    assert plain["Глеб"].points == plain["Глеб"].wins and plain["Жанна"].best_move == 0


def test_a_draw_scores_the_schemes_draw(round_of_games: list[Game]) -> None:
    draw = parse_scheme('name="d"\ntitle="d"\nsource="-"\ndraw = 0.5\nwin = 0\n', "d.toml")
    rows = standings(round_of_games[2:], draw)
    assert {row.points for row in rows} == {0.5}


def test_the_clubs_minus_ten_is_taken_from_the_protocol() -> None:
    seat = {"seat": 1, "name": "Ушёл", "team": "civilians", "out": {"how": "removed", "day": 1},
            "fouls_total": 0, "rating_penalty": 10}  # fmt: skip
    data = {"game": {"result": {"winners": ["mafia"], "losers": ["civilians"]}}, "seats": [seat]}
    (row,) = standings([Game(1, "g", data)], find_scheme("club"))
    assert (row.points, row.penalties) == (-10.0, -10.0)


def test_equal_rows_share_a_place() -> None:
    data = {
        "game": {"result": {"winners": ["a"], "losers": ["b"]}},
        "seats": [{"seat": n, "name": f"P{n}", "team": "a" if n < 3 else "b"} for n in (1, 2, 3)],
    }
    rows = standings([Game(1, "g", data)], find_scheme("wins"))
    assert [r.player for r in rows] == ["P1", "P2", "P3"] and places(rows) == [1, 1, 3]
    assert points_text(2.25) == "2.25" and points_text(-0.0) == "0" and points_text(3) == "3"


# --- the exports ------------------------------------------------------------


def test_the_csv_neutralises_formulas_and_the_html_escapes() -> None:
    data = {
        "game": {"result": {"winners": ["a"], "losers": []}},
        "seats": [{"seat": 1, "name": '=HYPERLINK("http://x")', "team": "a"},
                  {"seat": 2, "name": "<script>alert(1)</script>", "team": "a"}],
    }  # fmt: skip
    rows = standings([Game(1, "g", data)], find_scheme("wins"))
    cells = list(csv.reader(io.StringIO(standings_csv(rows, "ru"))))
    assert cells[0][:2] == ["Место", "Игрок"]
    assert '\'=HYPERLINK("http://x")' in [line[1] for line in cells]
    page = standings_html(rows, find_scheme("wins"), "cup", "en")
    assert "<script>alert" not in page and "&lt;script&gt;" in page and "<th>Player</th>" in page


def test_export_from_a_folder_writes_all_three(tmp_path: Path) -> None:
    folder = tmp_path / "round"
    (folder / "table-2").mkdir(parents=True)
    won = protocol_bytes("tournament-red-win", tmp_path, NAMES)
    (folder / "table-2" / "g1.json").write_bytes(won)
    out, err = io.StringIO(), io.StringIO()
    files = {"csv_path": tmp_path / "s.csv", "html_path": tmp_path / "s.html",
             "archive_path": tmp_path / "round.zip"}  # fmt: skip
    code = export_standings(folder, "tournament", out=out, err=err, **files)
    assert code == 0, err.getvalue()
    text = files["csv_path"].read_bytes().decode("utf-8-sig")
    assert text.startswith("Место,Игрок,Игр,Побед,ЛХ,Штрафы,Очки\r\n1,")
    assert "Турнирная таблица" in files["html_path"].read_text(encoding="utf-8")
    with zipfile.ZipFile(files["archive_path"]) as archive:
        assert archive.namelist() == ["table-2/g1.json"]
        assert archive.read("table-2/g1.json") == won
    # the archive read back as a folder gives the same standings
    again = tmp_path / "again"
    zipfile.ZipFile(files["archive_path"]).extractall(again)
    assert [(g.table, g.game) for g in read_protocol_dir(again)] == [(2, "g1")]


def test_the_archive_is_the_same_for_the_same_protocols() -> None:
    raw = {(1, "a"): b'{"x": 1}', (3, "b/../c"): b"{}"}
    assert archive_bytes(raw) == archive_bytes(dict(reversed(list(raw.items()))))
    assert zipfile.ZipFile(io.BytesIO(archive_bytes(raw))).namelist() == [
        "table-1/a.json", "table-3/b_.._c.json",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("setup", "scheme", "expect"),
    [
        ("bad_json", "wins", "g.json:1: "),
        ("fifo", "wins", "g.json: "),
        ("ok", "nope", "no such scheme"),
        ("none", "wins", "--csv"),
    ],
)
def test_export_refusals_are_one_line(tmp_path: Path, setup: str, scheme: str, expect: str) -> None:
    folder = tmp_path / "round"
    folder.mkdir()
    if setup == "bad_json":
        (folder / "g.json").write_text("{not json")
    if setup == "fifo":  # a named pipe: refused at once, never waited on
        os.mkfifo(folder / "g.json")
    err = io.StringIO()
    target = None if setup == "none" else tmp_path / "s.csv"
    assert export_standings(folder, scheme, csv_path=target, err=err, out=io.StringIO()) == 2
    assert expect in err.getvalue() and err.getvalue().count("\n") == 1
    assert not (tmp_path / "s.csv").exists()
