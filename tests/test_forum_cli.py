"""The forum rule tests' table scripts through the real command line: a
few of them written to a file and run as ``python -m companion.cli replay
FILE --json`` in a process of its own, which must print the replay JSON
the tests checked (every ``Table.json()`` also compares with the CLI run in
process)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from forum_table import Table, dead, role, said, told
from protocol_games import companion_process


def _fm_8() -> Table:
    """fm.8 «Снайпер умирает как маф»."""
    roles = ["cop", "doctor", "sniper", "kamikaze", "civilian", "civilian"]
    roles += ["don", "mafia", "maniac", "civilian"]
    return Table(roles, "two_sided").day().night((3, "shoot", 7), (9, "shoot", 3), (7, "shoot", 5))


def _fm_14() -> Table:
    """fm.14 «голос Бомжа уходит Копу», then the Cop's order (roles.tramp.3-4)."""
    roles = ["cop", "doctor", "sniper", "kamikaze", "tramp", "mafia_child"]
    roles += ["don", "mafia", "maniacs_don", "maniacs_member"]
    table = Table(roles).day().night((1, "shoot", 5), (7, "shoot", 5), (9, "shoot", 5))
    table.post(1, "order", 8, at="12:00:00")
    return table.day(votes={5: 3, 1: 8, 2: 8, 9: 2})


def _tin_man() -> Table:
    """roles.tin_woodman.5 «отбирает ружьё … на одну, следующую ночь»."""
    roles = ["cop", "doctor", "sniper", "tin_woodman", "civilian", "mafia_child"]
    roles += ["don", "mafia", "maniacs_don", "maniacs_member"]
    table = Table(roles).day().night((7, "shoot", 4), (2, "heal", 1))
    return table.day().night((4, "fire", 6, "mafia"), (2, "heal", 2))


def _vampire_and_mourning() -> Table:
    """roles.vampire.2 «Пропуск хода - Автокилл» after a mourning night
    (roles.tin_woodman.13)."""
    roles = ["cop", "doctor", "sniper", "tin_woodman", "vampire", "civilian"]
    roles += ["don", "mafia", "maniacs_don", "maniacs_member"]
    return Table(roles).day(out=4).night((5, "bite", 2)).day().night((7, "shoot", 6))


def _end_final_1() -> Table:
    """end.final.1 «дневной ролевой против одного ММ»."""
    table = Table(["bouncer", "civilian", "civilian", "civilian", "don", "mafia"])
    table.day((1, "annul", 5), out=6).night((5, "shoot", 2))
    return table.day((1, "annul", 4), out=3).night((5, "shoot", 4))


SCRIPTS: dict[str, Callable[[], Table]] = {
    "fm_8": _fm_8,
    "fm_14": _fm_14,
    "tin_man": _tin_man,
    "vampire_mourning": _vampire_and_mourning,
    "end_final_1": _end_final_1,
}


def _replay_process(path: Path) -> dict[str, object]:
    done = companion_process("replay", path, "--json")  # a real process, as a user runs it
    assert done.returncode == 0, done.stderr
    printed: dict[str, object] = json.loads(done.stdout)
    return printed


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_companion_replay_prints_the_same_outcome(name: str, tmp_path: Path) -> None:
    table = SCRIPTS[name]()
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in table.lines), encoding="utf-8")
    assert _replay_process(path) == table.json()


def test_the_scripts_show_their_rules() -> None:
    """What each script above is for, read from its replay JSON."""
    j = _fm_8().json()
    assert dead(j) == {3: "killed", 5: "killed"} and role(j, 3) == ("mafia", "mafia")
    j = _fm_14().json()
    assert told(j, 1, "tramp_is", seat=5) and dead(j) == {8: "voted"}
    j = _tin_man().json()
    assert role(j, 6) == ("mafia", "mafia")
    assert said(j, "mm_found_child")
    j = _vampire_and_mourning().json()
    assert said(j, "mourning", day=1) and said(j, "forum_killed", seat=5, day=2)
    assert dead(j) == {4: "voted", 5: "removed", 6: "killed"}
    j = _end_final_1().json()
    assert j["result"] is not None and j["result"]["clause"] == "end.final.1"
