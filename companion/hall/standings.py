"""The standings: every protocol that arrived, scored by a scheme (pure).

A protocol is the JSON ``companion protocol --format json`` prints (the
``companion-protocol/1`` format, roles revealed). A player is known by the
name the table wrote for the seat; a seat without a name counts as the seat
of that table («Стол 3, место 7»), since two tables' «Игрок 7» are two people.

Points per seat and game (scoring.Scheme): the team's win, loss or draw, the
best move by the black seats it found, the removal, the fouls, the ruleset's
rating penalty. A game stopped by the host without a result scores nothing
but counts as played.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .scoring import Scheme


@dataclass(frozen=True, slots=True)
class Game:
    """One arrived protocol, with where it came from."""

    table: int  # 0 when unknown (a file read from a folder)
    game: str  # the game's id (the protocol topic's, or the file's name)
    data: Mapping[str, Any]  # the parsed protocol JSON


@dataclass(slots=True)
class Row:
    """One player's line of the standings."""

    player: str
    games: int = 0
    wins: int = 0
    best_move: float = 0.0
    penalties: float = 0.0  # removals, fouls, rating penalties (zero or negative)
    points: float = 0.0  # everything, best move and penalties included
    tables: set[int] = field(default_factory=set)


def player_of(seat: Mapping[str, Any], table: int) -> str:
    name = seat.get("name")
    if isinstance(name, str) and name.strip():
        return name.strip()
    return f"#{table}.{seat.get('seat')}"


def _best_moves(data: Mapping[str, Any]) -> dict[int, int]:
    """Seat -> black seats among its best move's suspects."""
    found: dict[int, int] = {}
    for event in data.get("events") or ():
        if not isinstance(event, Mapping) or event.get("kind") != "best_move":
            continue
        seat, black = event.get("seat"), event.get("count")
        if isinstance(seat, int) and isinstance(black, int):
            found[seat] = black
    return found


def _number(value: object) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def score_game(game: Game, scheme: Scheme) -> list[tuple[str, Row]]:
    """Each seat's row for this game alone (games = 1)."""
    data = game.data
    info = data.get("game") if isinstance(data.get("game"), Mapping) else {}
    result = info.get("result") if isinstance(info, Mapping) else None
    winners: set[str] = set()
    losers: set[str] = set()
    # a result the host stopped names nobody: the game scores nothing
    decided = isinstance(result, Mapping) and not result.get("stopped")
    if isinstance(result, Mapping):
        winners = {w for w in result.get("winners") or () if isinstance(w, str)}
        losers = {w for w in result.get("losers") or () if isinstance(w, str)}
    best = _best_moves(data)
    rows = []
    for seat in data.get("seats") or ():
        if not isinstance(seat, Mapping):
            continue
        row = Row(player_of(seat, game.table), games=1, tables={game.table})
        team = seat.get("team")
        if decided and team in winners:
            row.wins, row.points = 1, scheme.win
        elif decided and team in losers:
            row.points = scheme.loss
        elif decided:  # no winner named: a draw (5.6, nobody left at the table)
            row.points = scheme.draw if not winners else scheme.loss
        number = seat.get("seat")
        if isinstance(number, int) and number in best:
            row.best_move = scheme.best_move_points(best[number])
        out = seat.get("out")
        if isinstance(out, Mapping) and out.get("how") == "removed":
            row.penalties += scheme.removed
        row.penalties += scheme.per_foul * _number(seat.get("fouls_total"))
        row.penalties -= scheme.rating_penalty * _number(seat.get("rating_penalty"))
        row.points += row.best_move + row.penalties
        rows.append((row.player, row))
    return rows


def standings(games: Iterable[Game], scheme: Scheme) -> list[Row]:
    """Every player's row over the games, best first: points, then wins,
    then the fewer games, then the name (a stable order for equal rows)."""
    table: dict[str, Row] = {}
    for game in games:
        for player, row in score_game(game, scheme):
            total = table.setdefault(player, Row(player))
            total.games += row.games
            total.wins += row.wins
            total.best_move += row.best_move
            total.penalties += row.penalties
            total.points += row.points
            total.tables |= row.tables
    return sorted(table.values(), key=lambda r: (-round(r.points, 6), -r.wins, r.games, r.player))


def places(rows: list[Row]) -> list[int]:
    """The place of each row: equal points and wins share a place (1, 2, 2, 4)."""
    out: list[int] = []
    for index, row in enumerate(rows):
        previous = rows[index - 1] if index else None
        same = (
            previous is not None
            and round(previous.points, 6) == round(row.points, 6)
            and previous.wins == row.wins
        )
        out.append(out[-1] if same else index + 1)
    return out


def points_text(value: float) -> str:
    """A number of points as people write it: ``3``, ``2.25``, ``-0.5``."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text
