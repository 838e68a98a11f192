"""Every protocol surface in the reader's words (issue 23, must-holds 5 and 9).

Games of all three rulesets (every example script, the forum's scripted
games, and games made for what the examples lack: a pause and a changed
time, an undo, a stop with a reason, a player named in Latin letters) in
every format: the text, the CSV, the HTML's visible text, the JSON's lines
for people, and the host log's lines. In Russian none holds a Latin word
but the players' names and the deal check's shell commands; no Python
list, no raw record, no float with more than one decimal. Then the
protocol a club publishes: revotes labelled, the best move as «Лучший ход:
2, 5, 6», each count as it stood when the player left.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from typing import Any

import pytest
from forum_scripts import GAMES as FORUM_GAMES
from forum_scripts import load
from helpers import EXAMPLES

from companion.commands.offline import listen_lines
from companion.config.rulesets import load_ruleset
from companion.core.effects import ProposeOffence
from companion.core.state import Game, Record
from companion.protocol import formats, model
from companion.protocol.hostlog import HostLog
from companion.protocol.lines import describe
from companion.protocol.sheet import check_commands
from companion.runner.replay import ScriptReplay
from companion.runner.script import parse_lines

#: Latin words a Russian surface may hold besides the players' names: the
#: hash's name in the deal check («хеш — это sha256 строки …»)
ALLOWED = frozenset({"sha256"})

LATIN = re.compile(r"[A-Za-z][A-Za-z0-9]*")
#: a Python list or dict, a raw record, a float with two or more decimals
RAW = re.compile(r"\[\d|\['|\{'|\d[.,]\d{2,}|\b(?:True|False|None)\b")

NAMES = ["Анна", "Bob", "Вера", "Глеб", "Даша", "Егор", "Жанна", "Зоя <b>&amp;", "Игорь", "Кира"]

#: games made from an example with lines added at its end: a last word is
#: running when club-ladder.jsonl ends
MADE: dict[str, tuple[str, list[dict[str, Any]]]] = {
    "club: corrections and a stop": (
        "club-ladder.jsonl",
        [
            {"after": 1, "input": "pause"},
            {"after": 1, "input": "adjust", "seconds": 7.3456},
            {"after": 1, "input": "resume"},
            {"after": 1, "input": "adjust", "seconds": -2.25},
            {"after": 1, "input": "offence", "seat": 1, "offence": "shouting"},
            {"after": 1, "input": "undo"},
            {"after": 1, "input": "heard", "kind": "out_of_turn", "seat": 5, "confidence": 0.8765},
            {"after": 1, "input": "heard", "kind": "night", "seat": 0, "confidence": 0.5},
            {
                "after": 1,
                "input": "heard",
                "kind": "word",
                "seat": 4,
                "confidence": 0.9,
                "phrase": "oath",
                "words": "клянусь",
            },
            {"after": 1, "input": "offence", "seat": 2, "offence": "shouting"},
            {"after": 1, "input": "cancel_offence", "seat": 2, "offence": "shouting"},
            {"after": 1, "input": "stop", "reason": "пожарная тревога"},
        ],
    ),
}


def _lines(example: str, extra: list[dict[str, Any]], names: list[str] | None) -> list[str]:
    lines = []
    for line in (EXAMPLES / example).read_text(encoding="utf-8").splitlines():
        if names and '"input": "setup"' in line and '"seats": 10' not in line:
            setup = json.loads(line)
            if len(setup.get("roles", ())) == len(names):
                line = json.dumps({**setup, "names": names}, ensure_ascii=False)
        lines.append(line)
    return lines + [json.dumps(x, ensure_ascii=False) for x in extra]


def _play(lines: list[str], source: str) -> tuple[Game, list[Any]]:
    """The game the lines play, and every effect it had (for the host log)."""
    effects: list[Any] = []
    table = ScriptReplay(source=source, on_effects=lambda _now, found: effects.extend(found))
    game = table.run(parse_lines(lines, source, load))  # the forum's variants too
    assert game is not None
    return game, effects


def _games() -> Iterator[tuple[str, list[str]]]:
    for path in sorted(EXAMPLES.glob("*.jsonl")):
        yield path.stem, _lines(path.name, [], NAMES)
    for name, (example, extra) in MADE.items():
        yield name, _lines(example, extra, NAMES)
    for name, script in FORUM_GAMES.items():
        yield name, script().lines


GAMES = dict(_games())


@pytest.fixture(scope="module")
def played() -> dict[str, tuple[Game, list[Any]]]:
    return {name: _play(lines, name) for name, lines in GAMES.items()}


class _Visible(HTMLParser):
    """The text a browser shows (the title too), not the style sheet."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        self.hidden += tag == "style"

    def handle_endtag(self, tag: str) -> None:
        self.hidden -= tag == "style"

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)


def visible_text(page: str) -> str:
    parser = _Visible()
    parser.feed(page)
    return "\n".join(parser.parts)


def _json_for_people(text: str) -> str:
    """The JSON's fields meant for people (lines, names of roles and teams)."""
    data = json.loads(text)
    shown = [data["game"]["result"]["text"]] if data["game"]["result"] else []
    for seat in data["seats"]:
        shown += [seat["role_name"], seat["team_name"], *(o["text"] for o in seat["offences"])]
    shown += [event["text"] for event in data["events"]]
    return "\n".join(shown)


def surfaces(game: Game, effects: list[Any], lang: str) -> dict[str, str]:
    protocol = model.build(game, dealt=False, lang=lang, source="2026-12-01_20-15_club.jsonl")
    host = HostLog(io.StringIO(), lang)
    host_lines = [host.line(effect, game.rules) for effect in effects]
    return {
        "text": formats.render(protocol, "text"),
        "csv": formats.render(protocol, "csv"),
        "html": visible_text(formats.render(protocol, "html")),
        "json": _json_for_people(formats.render(protocol, "json")),
        "host log": "\n".join(line for line in host_lines if line),
    }


def latin_words(text: str, game: Game, protocol: model.Protocol | None = None) -> set[str]:
    """Latin words outside the allow-list: the players' names, the hash
    and the deal check's commands, the journal's file name."""
    for name in sorted((seat.name for seat in game.seats if seat.name), key=len, reverse=True):
        text = text.replace(name, " ")
    if protocol is not None:
        for verbatim in (*check_commands(protocol), protocol.deal.hashed, protocol.deal.commitment):
            text = text.replace(verbatim, " ")
    text = text.replace("2026-12-01_20-15_club.jsonl", " ")
    return set(LATIN.findall(text)) - ALLOWED


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_russian_surface_of_every_game_is_in_words(
    played: dict[str, tuple[Game, list[Any]]], name: str
) -> None:
    game, effects = played[name]
    protocol = model.build(game, dealt=False, lang="ru", source="2026-12-01_20-15_club.jsonl")
    for surface, text in surfaces(game, effects, "ru").items():
        assert not latin_words(text, game, protocol), (surface, latin_words(text, game, protocol))
        raw = [line for line in text.splitlines() if RAW.search(line)]
        assert not raw, (surface, raw[:3])


@pytest.mark.parametrize("name", sorted(GAMES))
def test_english_surfaces_have_no_russian_words_of_ours(
    played: dict[str, tuple[Game, list[Any]]], name: str
) -> None:
    """In English the protocol's own words are English: Cyrillic comes only
    from the game (names, the ruleset's title, the host's reason)."""
    game, effects = played[name]
    ours = re.compile(r"[А-Яа-яЁё]+")
    # the ruleset's own words (its title, a clause that is a sentence of its
    # text), the host's reason for stopping and the words a microphone heard
    theirs = " ".join(
        [seat.name for seat in game.seats]
        + [game.rules.title, game.rules.ladder.reset_clause or "", "пожарная тревога", "клянусь"]
    )
    for surface, text in surfaces(game, effects, "en").items():
        words = set(ours.findall(text)) - set(ours.findall(theirs))
        assert not words, (surface, words)
        raw = [line for line in text.splitlines() if RAW.search(line)]
        assert not raw, (surface, raw[:3])


def test_the_made_game_shows_its_corrections_in_words(
    played: dict[str, tuple[Game, list[Any]]],
) -> None:
    game, _ = played["club: corrections and a stop"]
    text = formats.render(model.build(game, dealt=False), "text")
    assert "Пауза (осталось: речь — " in text
    assert re.search(r"Время изменено на \+7,3 с \(осталось \d+(,\d)? с\)", text)
    assert re.search(r"Время изменено на -2,2 с|Время изменено на -2,3 с", text)
    assert "Ведущий отменил: нарушение" in text
    assert "Микрофон: речь не в свою минуту (место 5, уверенность 88 %)" in text
    assert "Микрофон: запрещённые слова «клянусь» (место 4, уверенность 90 %)" in text
    assert "Игра остановлена: пожарная тревога" in text
    assert "(игра остановлена)" in text  # the result's reason in words
    english = formats.render(model.build(game, dealt=False, lang="en"), "text")
    assert "The host took back: offence" in english and "Paused (left: speech: " in english


def test_revotes_are_labelled_in_every_format(played: dict[str, tuple[Game, list[Any]]]) -> None:
    game, _ = played["club-maniac-wins"]
    protocol = model.build(game, dealt=False)
    revotes = [e for e in protocol.entries if e.revote]
    assert revotes and all(e.kind == "votes" for e in revotes)
    tie = next(i for i, e in enumerate(protocol.entries) if e.kind == "tie")
    assert protocol.entries.index(revotes[0]) > tie
    text = formats.render(protocol, "text")
    assert sum(
        line.strip().startswith("Переголосование: за игрока") for line in text.splitlines()
    ) == len(revotes)
    assert any(re.match(r"\d+\s+переголосование\s+\d", line) for line in text.splitlines())
    page = visible_text(formats.render(protocol, "html"))
    assert page.count("переголосование") == len(revotes)  # the votes table's rows
    rows = list(csv.reader(io.StringIO(formats.render(protocol, "csv"))))
    assert sum(row[3] == "переголосование" for row in rows) == len(revotes)
    data = json.loads(formats.render(protocol, "json"))
    assert sum(bool(e.get("revote")) for e in data["events"]) == len(revotes)


def test_the_best_move_is_a_list_of_seats_in_words(
    played: dict[str, tuple[Game, list[Any]]],
) -> None:
    game, _ = played["demo"]
    protocol = model.build(game, dealt=False)
    text = formats.render(protocol, "text")
    assert "Лучший ход: 2, 5, 6 (игрок 7, чёрных: 2)" in text.splitlines()
    assert "Лучший ход: 2, 5, 6" in visible_text(formats.render(protocol, "html"))


def test_a_count_is_as_it_stood_when_the_player_left(
    played: dict[str, tuple[Game, list[Any]]],
) -> None:
    """club-ladder: seat 10 leaves with five remarks on day 1; seats 4 and 8
    stay with three and four that the night cancels."""
    game, _ = played["club-ladder"]
    assert [game.seats[n - 1].count for n in (4, 8, 10)] == [0, 0, 0]  # what the core holds
    protocol = model.build(game, dealt=False)
    seats = {s.seat: s for s in protocol.seats}
    assert (seats[10].fouls, seats[10].fouls_total, seats[10].out_how) == (5, 5, "removed")
    assert (seats[4].fouls, seats[4].fouls_total) == (0, 3)
    assert (seats[8].fouls, seats[8].fouls_total) == (0, 4)
    rows = list(csv.reader(io.StringIO(formats.render(protocol, "csv"))))
    header = rows[0]
    ten = next(r for r in rows if r[0] == "место" and r[header.index("место")] == "10")
    assert (ten[header.index("счёт")], ten[header.index("за игру")]) == ("5", "5")
    text = formats.render(protocol, "text")
    assert re.search(r"^10 .*удалён, день 1\s+5$", text, re.MULTILINE)
    assert re.search(r"^4 .*за столом\s+0 \(за игру: 3\)$", text, re.MULTILINE)


def test_the_csv_header_and_kinds_are_russian_words(
    played: dict[str, tuple[Game, list[Any]]],
) -> None:
    game, _ = played["club-team-loss"]
    rows = list(csv.DictReader(io.StringIO(formats.render(model.build(game, dealt=False), "csv"))))
    assert list(rows[0])[:4] == ["раздел", "день", "период", "что"]
    assert {r["раздел"] for r in rows} == {"игра", "раздача", "место", "событие"}
    result = next(r for r in rows if r["что"] == "итог")
    assert result["текст"].startswith("Итог: ")


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_the_host_log_words_checks_roles_and_proposals(
    played: dict[str, tuple[Game, list[Any]]], lang: str
) -> None:
    host = HostLog(io.StringIO(), lang)
    lines = []
    for name in ("club-voting", "club-maniac-wins"):  # proposals; checks
        game, effects = played[name]
        lines += [line for effect in effects if (line := host.line(effect, game.rules))]
    expected = {
        "ru": ("Место 1: роль Мирный житель", "Предложено нарушение: игрок", "Проверка: игрок"),
        "en": ("Seat 1: role civilian", "Proposed offence: seat", "Check: seat"),
    }[lang]
    for start in expected:
        assert any(line.startswith(start) for line in lines), (start, lines[:12])
    checks = [line for line in lines if line.startswith(expected[2])]
    assert all(line.endswith(("? да", "? нет", "? yes", "? no")) for line in checks), checks


def test_listen_says_what_it_heard_in_words() -> None:
    result = {
        "segments": [{"start": 3.0123, "end": 65.5, "seat": None, "confidence": 0.8765}],
        "flags": [{"at": 3.0123, "kind": "night", "seat": 4, "confidence": 0.5, "phase": "night"}],
    }
    assert listen_lines(result, "ru") == [
        "Речь: отрезков 1",
        "  0:03–1:05,5  место не определено (уверенность 88 %)",
        "Флаги: 1",
        "  0:03  речь ночью: место 4 (уверенность 50 %)",
    ]
    assert listen_lines(result, "en")[3] == "  0:03  speech at night: seat 4 (confidence 50 %)"


@pytest.mark.parametrize(
    ("lang", "unknown", "known"),
    [
        ("ru", "Предложено нарушение: место не определено, ", "Предложено нарушение: игрок 3, "),
        ("en", "Proposed offence: seat unknown, ", "Proposed offence: seat 3, "),
    ],
    ids=["ru", "en"],
)
def test_a_microphones_flag_without_a_seat_is_no_seat_0(
    lang: str, unknown: str, known: str
) -> None:
    """One microphone cannot tell whose voice it heard (seat 0): the host
    log says so, in words, not «игрок 0»."""
    host = HostLog(io.StringIO(), lang)
    offence = "night_gestures_talk_touch"
    assert str(host.line(ProposeOffence(0, offence, "heard_night"))).startswith(unknown)
    assert str(host.line(ProposeOffence(3, offence, "heard_night"))).startswith(known)


@pytest.mark.parametrize(
    ("lang", "unknown", "known"),
    [
        ("ru", "Предложение снято: место не определено, ", "Предложение снято: игрок 3, "),
        ("en", "Proposal dismissed: seat unknown, ", "Proposal dismissed: seat 3, "),
    ],
    ids=["ru", "en"],
)
def test_a_dismissed_flag_without_a_seat_is_no_seat_0_in_the_protocol(
    lang: str, unknown: str, known: str
) -> None:
    """The protocol's line (its text, CSV and page alike) for a microphone's
    flag the host dismissed, whose nobody knew."""
    rules = load_ruleset("tournament")
    offence = (("offence", "night_behaviour"),)
    dismissed = Record(0, "proposal_dismissed", (("seat", 0), *offence))
    assert describe(rules, dismissed, lang).startswith(unknown)
    seated = Record(0, "proposal_dismissed", (("seat", 3), *offence))
    assert describe(rules, seated, lang).startswith(known)
