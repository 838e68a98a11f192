"""What every output of a game reads alike: its records in order, and its
result as plain data (the replay JSON's ``result``, the protocol JSON's
``game.result``: ``report.py`` and ``formats.py``)."""

from __future__ import annotations

from typing import Any, Protocol

from ..core.state import Game, Record


class HasResult(Protocol):
    """A game's result as the core keeps it, or as the protocol tells it."""

    @property
    def winners(self) -> tuple[str, ...]: ...
    @property
    def losers(self) -> tuple[str, ...]: ...
    @property
    def reason(self) -> str: ...
    @property
    def clause(self) -> str | None: ...


def seconds_value(seconds: float) -> int | float:
    """Seconds as JSON: whole seconds print as 60, not 60.0."""
    return int(seconds) if float(seconds).is_integer() else seconds


def result_fields(result: HasResult) -> dict[str, Any]:
    """Winners, losers, reason and clause as JSON."""
    return {
        "winners": list(result.winners),
        "losers": list(result.losers),
        "reason": result.reason,
        "clause": result.clause,
    }


def records(game: Game) -> list[Record]:
    """The protocol's records, oldest first."""
    out: list[Record] = []
    entry = game.log
    while entry is not None:
        out.append(entry)
        entry = entry.prev
    out.reverse()
    return out
