"""Protocols in hostile hands (issue 24, item 3): anyone may hand
``verify-deal`` a protocol they edited. A table of tampered protocols of
three real games (club, tournament, forum), each checked by the real
``python -m companion.cli verify-deal``: before, swapping two roles and
adding the old ones as ``dealt_role`` was «the deal is fair», exit 0. (The
CSV in a spreadsheet is tests/test_hostile_protocol_csv.py.)
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import EXAMPLES
from protocol_games import companion, journal_of

from companion.config.rulesets import load_ruleset
from companion.core.engine import new_game
from companion.core.events import GameSetUp
from companion.core.state import Record
from companion.protocol import deal as fair
from companion.protocol.lines import describe

Data = dict[str, Any]

# --- verify-deal: tampered protocols ------------------------------------------------


def _forum_script(path: Path) -> Path:
    """A dealt 20-player forum game in which the Mafia shoots the ДМ, who
    joins it (a role_changed record; as tests/test_forum_deal.py)."""
    game, _ = new_game(GameSetUp(load_ruleset("forum"), 20, seed=5))
    by_role = {seat.role: seat.number for seat in game.seats}
    lines: list[dict[str, Any]] = [
        {"at": 0, "input": "setup", "ruleset": "forum", "seats": 20, "seed": 5}
    ]
    victim = next(s.number for s in game.seats if s.role == "civilian")
    for voter in range(1, 21):
        target = victim if voter != victim else by_role["cop"]
        lines.append({"at": 1, "input": "vote", "voter": voter, "target": target})
    lines.append({"at": 2, "input": "deadline", "name": "vote"})
    shot = {"input": "post", "seat": by_role["don"], "action": "shoot"}
    lines.append({"at": 3, **shot, "target": by_role["mafia_child"]})
    lines.append({"at": 4, "input": "deadline", "name": "night"})
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def protocols(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Data]:
    """The JSON protocols of three real games: club, tournament, forum."""
    folder = tmp_path_factory.mktemp("protocols")
    journals = {
        "club": journal_of("club-full", folder),
        "tournament": journal_of("tournament", folder),
    }
    forum = folder / "forum.game.jsonl"
    done = companion("replay", _forum_script(folder / "forum.jsonl"), "--journal", forum)
    assert done.returncode == 0, done.stderr
    journals["forum"] = forum
    made = {}
    for game, journal in journals.items():
        done = companion("protocol", journal, "--format", "json", "--lang", "en")
        assert done.returncode == 0, done.stderr
        made[game] = json.loads(done.stdout)
    return made


def _swap_two(data: Data, *, keep_dealt: bool) -> None:
    """Two seats with different roles trade them (names and teams too); with
    ``keep_dealt`` the old roles are written as their ``dealt_role``."""
    seats = [s for s in data["seats"] if "dealt_role" not in s]
    one = seats[0]
    other = next(s for s in seats if s["team"] != one["team"])
    for key in ("role", "role_name", "team", "team_name"):
        one[key], other[key] = other[key], one[key]
    if keep_dealt:
        one["dealt_role"], other["dealt_role"] = other["role"], one["role"]


def _setup_roles(data: Data) -> None:
    setup = data["events"][0]["data"]
    roles = setup["roles"].split(",")
    j = next(i for i, role in enumerate(roles) if role != roles[0])
    roles[0], roles[j] = roles[j], roles[0]
    setup["roles"] = ",".join(roles)


def _retext(data: Data, index: int) -> None:
    """The event's text as its record says (a careful forger's)."""
    event = data["events"][index]
    record = Record(event["day"], event["kind"], tuple(event["data"].items()))
    event["text"] = describe(load_ruleset(data["game"]["ruleset"]), record, "en")


def _forge_role_change(data: Data) -> None:
    """A role change inserted after the setup, its text as a real one's."""
    seat = data["seats"][0]
    change = {"seat": 1, "was": seat["role"], "role": "don", "team": "mafia"}
    event = {**copy.deepcopy(data["events"][1]), "kind": "role_changed", "data": change}
    data["events"].insert(1, event)
    _retext(data, 1)


def _forum_was(data: Data) -> None:
    index = next(i for i, e in enumerate(data["events"]) if e["kind"] == "role_changed")
    data["events"][index]["data"]["was"] = "civilian"
    _retext(data, index)


def _forum_unchanged_dealt(data: Data) -> None:
    seat = next(s for s in data["seats"] if "dealt_role" not in s)
    seat["dealt_role"] = seat["role"]


def _forum_drop_dealt(data: Data) -> None:
    next(s for s in data["seats"] if "dealt_role" in s).pop("dealt_role")


def _new_seed(data: Data) -> None:
    """A forger's own seed, its commitment and line recomputed to match."""
    deal = data["deal"]
    deal["seed"] += 1
    deal["commitment"] = fair.commitment(deal["seed"])
    deal["hashed"] = fair.seed_text(deal["seed"])[:-1]


def _order_for_swap(data: Data) -> None:
    """An unknown ruleset and a deal.order laid out so that the seed deals
    the swapped roles: fair by the protocol's own order, so never trusted."""
    _swap_two(data, keep_dealt=False)
    roles = [s["role"] for s in data["seats"]]
    places = fair.deal(list(range(len(roles))), data["deal"]["seed"])  # where each goes
    order = [""] * len(roles)
    for seat, place in enumerate(places):
        order[place] = roles[seat]
    data["deal"]["order"] = order
    data["game"]["ruleset"] = "homebrew"


def _set(path: str, value: object) -> Callable[[Data], None]:
    def change(data: Data) -> None:
        *parts, last = path.split(".")
        target: Any = data
        for part in parts:
            target = target[int(part)] if part.isdigit() else target[part]
        target[last] = value

    return change


def _seat_added(data: Data) -> None:
    data["seats"].append({**copy.deepcopy(data["seats"][-1]), "seat": len(data["seats"]) + 1})


def _seat_removed(data: Data, *, order: bool = False) -> None:
    data["seats"].pop()
    if order:
        data["deal"]["order"].pop()


def _seats_renumbered(data: Data) -> None:
    """Seats 1 and 2 trade numbers: the table would show each role at the other."""
    data["seats"][0]["seat"], data["seats"][1]["seat"] = 2, 1


def _extra(where: str, key: str) -> Callable[[Data], None]:
    def change(data: Data) -> None:
        target = data["seats"][0] if where == "seat" else data["events"][1]["data"]
        target[key] = "don"

    return change


def _second_setup(data: Data) -> None:
    data["events"].insert(2, copy.deepcopy(data["events"][0]))


def _no_setup(data: Data) -> None:
    data["events"].pop(0)


def _text(data: Data) -> None:
    data["events"][1]["text"] = "Seat 1: role civilian → don (mafia)"


def _escape(data: Data) -> None:
    data["seats"][0]["role_name"] = "\x1b]52;c;cHduZWQ=\x07\x1b[2J"


#: id: (game, change, extra arguments, exit status, what the line says)
TAMPERED: dict[str, tuple[str, Callable[[Data], None], tuple[str, ...], int, str]] = {
    "untouched club": ("club", lambda d: None, (), 0, "the deal is fair"),
    "untouched tournament": ("tournament", lambda d: None, (), 0, "the deal is fair"),
    "untouched forum": ("forum", lambda d: None, (), 0, "the deal is fair"),
    "role swapped": ("club", lambda d: _swap_two(d, keep_dealt=False), (), 1, "the protocol says"),
    "role swapped, dealt_role added (the issue's)": (
        "club",
        lambda d: _swap_two(d, keep_dealt=True),
        (),
        1,
        "but the game dealt it and played it",
    ),
    "tournament: the same": (
        "tournament",
        lambda d: _swap_two(d, keep_dealt=True),
        (),
        1,
        "but the game dealt it",
    ),
    "forum: the same": (
        "forum",
        lambda d: _swap_two(d, keep_dealt=True),
        (),
        1,
        "but the game dealt",
    ),
    "seed changed": ("club", _set("deal.seed", 159765), (), 1, "is not the sha256 of seed 159765"),
    "seed, commitment and line changed": ("club", _new_seed, (), 1, "the roles were not dealt"),
    "commitment changed": ("club", _set("deal.commitment", fair.commitment(1)), (), 1, "sha256"),
    "commitment not the one shown": (
        "club",
        lambda d: None,
        ("--shown", fair.commitment(1)[:16]),
        1,
        "not the hash shown",
    ),
    "dealt_role added, role unchanged": (
        "club",
        _set("seats.0.dealt_role", "civilian"),
        (),
        1,
        "but its role never changed",
    ),
    "forum: dealt_role added to an unchanged seat": (
        "forum",
        _forum_unchanged_dealt,
        (),
        1,
        "but its role never changed",
    ),
    "forum: dealt_role taken away": ("forum", _forum_drop_dealt, (), 1, "not the ruleset's deal"),
    "forum: the change's 'was' changed": ("forum", _forum_was, (), 1, "role changes from"),
    "club: a role change forged": ("club", _forge_role_change, (), 1, "never changes roles"),
    "seat added": ("club", _seat_added, (), 1, "10 roles for a table of 11 seats"),
    "seat removed": ("club", _seat_removed, (), 1, "10 roles for a table of 9 seats"),
    "seat and its role removed": (
        "club",
        lambda d: _seat_removed(d, order=True),
        (),
        1,
        "not ruleset 'club''s deal for 9",
    ),
    "seats renumbered": ("club", _seats_renumbered, (), 1, "is seat 2, not seat 1"),
    "game.seats changed": ("club", _set("game.seats", 11), (), 1, "game.seats is 11"),
    "ruleset renamed": (
        "club",
        _set("game.ruleset", "tournament"),
        (),
        1,
        "not ruleset 'tournament'",
    ),
    "ruleset renamed to one not here": (
        "club",
        _set("game.ruleset", "homebrew"),
        (),
        3,
        "cannot be checked here",
    ),
    "ruleset not here, order laid to fit a swap": (
        "club",
        _order_for_swap,
        (),
        3,
        "cannot be checked",
    ),
    "ruleset named by a path": (
        "club",
        _set("game.ruleset", "../rulesets/club"),
        (),
        2,
        "not a ruleset's name",
    ),
    "setup record's roles changed": ("club", _setup_roles, (), 1, "the setup record deals"),
    "setup record removed": ("club", _no_setup, (), 1, "do not begin with the game's setup"),
    "second setup record": ("club", _second_setup, (), 1, "a second setup"),
    "role's name changed": ("club", _set("seats.0.role_name", "don"), (), 1, "names seat 1's role"),
    "team changed": ("club", _set("seats.0.team", "maniac"), (), 1, "puts seat 1 in team"),
    "team's name changed": (
        "club",
        _set("seats.0.team_name", "mafia"),
        (),
        1,
        "names seat 1's team",
    ),
    "event text changed": ("club", _text, (), 1, "is not what its record says"),
    "field added to a seat": ("club", _extra("seat", "real_role"), (), 1, "seats[0].real_role"),
    "field added to a record": (
        "club",
        _extra("event", "role"),
        (),
        1,
        "not a record of this game",
    ),
    "deal.hashed changed": (
        "club",
        _set("deal.hashed", "companion-deal-v1 1"),
        (),
        1,
        "deal.hashed",
    ),
    "players' value added": (
        "club",
        _set("deal.players", "4 7 1"),
        (),
        1,
        "the roles were not dealt",
    ),
    "dealt turned off": ("club", _set("deal.dealt", False), (), 3, "no deal to check"),
    "a role with terminal escapes": ("club", _escape, (), 1, "\\x1b]52;c;cHduZWQ=\\x07\\x1b[2J"),
}


@pytest.mark.parametrize("case", list(TAMPERED))
def test_verify_deal_of_a_tampered_protocol(
    protocols: dict[str, Data], tmp_path: Path, case: str
) -> None:
    game, change, extra, status, said = TAMPERED[case]
    data = copy.deepcopy(protocols[game])
    change(data)
    path = tmp_path / "protocol.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    done = companion("verify-deal", path, *extra, "--lang", "en")
    out = done.stdout + done.stderr
    assert done.returncode == status, out
    assert said in out
    assert out.count("\n") == 1 and "Traceback" not in out
    assert all(ch.isprintable() for ch in out[:-1])  # nothing from the file reaches a terminal raw
    if status == 1:
        assert out.startswith(f"{path}: the deal is NOT fair: ")


def test_a_tampered_protocol_in_russian(protocols: dict[str, Data], tmp_path: Path) -> None:
    data = copy.deepcopy(protocols["club"])
    _swap_two(data, keep_dealt=True)
    path = tmp_path / "protocol.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    done = companion("verify-deal", path)
    assert done.returncode == 1
    assert done.stdout.startswith(f"{path}: раздача НЕ честная: в seats[] у места ")
    assert "а по раздаче и ходу игры — «" in done.stdout
    data["game"]["ruleset"] = "homebrew"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    done = companion("verify-deal", path)
    assert done.returncode == 3
    assert done.stdout == (
        f"{path}: раздачу здесь не проверить: правил «homebrew» здесь нет, а без них раздачу "
        "не проверить (их файл кладут в папку правил: docs/protocol.md)\n"
    )


def test_random_legal_forum_games_are_fair(tmp_path: Path) -> None:
    """No false alarm: forum games of random legal play (converts, thefts,
    demotions, bites: tests/forum_random_games.py), dealt from their seeds,
    are fair by verify_file in both languages, every role change checked."""
    from forum_random_games import EXTRA_OPTIONS, Driver, setup_for

    from companion.protocol import formats, model, verify

    rng = random.Random(24)
    changes = 0
    for _ in range(20):
        options = tuple(o for o in EXTRA_OPTIONS if rng.random() < 0.5)
        table = (rng.randint(20, 25), rng.random() < 0.5, options, rng.randrange(2**32), ())
        driver = Driver(setup_for(*table), rng.randrange(2**32))
        driver.play(6)
        for lang in ("ru", "en"):
            data = json.loads(formats.json_text(model.build(driver.game, dealt=True, lang=lang)))
            changes += sum(1 for e in data["events"] if e["kind"] == "role_changed")
            path = tmp_path / "protocol.json"
            path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
            verdict = verify.verify_file(path, load_ruleset, None, "en")
            assert verdict.fair, (table, lang, verdict.text("en"))
    assert changes > 20  # the games did change roles


@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.glob("*.jsonl")))
def test_every_example_game_holds_to_its_deal(example: str) -> None:
    """No false alarm on any record kind: every example game's protocol
    (its roles given, so checked as if its setup had dealt them) passes
    the check of what the game played, in both languages."""
    from companion.protocol import formats, model, played
    from companion.runner.replay import ScriptReplay
    from companion.runner.script import read_script

    table = ScriptReplay(source=example)
    game = table.run(read_script(EXAMPLES / example, load_ruleset))
    assert game is not None
    for lang in ("ru", "en"):
        data = json.loads(formats.json_text(model.build(game, dealt=True, lang=lang)))
        dealt = data["events"][0]["data"]["roles"].split(",")
        assert played.check(data, game.rules, dealt, game.seed) is None
