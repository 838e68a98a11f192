"""A game's state across the pipe between the table's process and the
console, without its history.

A ``Game`` links to the state before it (``prev``, the host's undo) and to
its protocol records (``log``, a linked list): pickled whole, every update
would carry the game so far, and a long game's chains are deeper than
pickle's recursion allows. The console needs neither the undo chain (undo
happens in the table's process) nor the records twice: each update carries
the state alone and the records the console has not had yet (after an
undo: how many of those it has to keep).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..core.state import Game, Record


@dataclass(frozen=True, slots=True)
class WireGame:
    bare: Game  # no prev, no log
    keep: int  # records of the console's copy that still stand
    records: tuple[tuple[int, str, tuple[tuple[str, object], ...]], ...]  # then these


class StateSender:
    """The table's side: remembers which records the console has."""

    def __init__(self) -> None:
        self._sent: list[Record] = []  # held, so that no two live records share an id
        self._position: dict[int, int] = {}  # id(record) -> its place in _sent

    def pack(self, game: Game | None) -> WireGame | None:
        if game is None:
            return None
        fresh: list[Record] = []
        entry = game.log
        while entry is not None and id(entry) not in self._position:
            fresh.append(entry)
            entry = entry.prev
        keep = 0 if entry is None else self._position[id(entry)] + 1
        for dropped in self._sent[keep:]:
            del self._position[id(dropped)]
        del self._sent[keep:]
        fresh.reverse()
        for record in fresh:
            self._position[id(record)] = len(self._sent)
            self._sent.append(record)
        records = tuple((r.day, r.kind, r.data) for r in fresh)
        return WireGame(replace(game, log=None, prev=None), keep, records)

    def pack_update(self, update: Any) -> tuple[Any, ...]:
        """An ``assembly.Update`` for the pipe: its state packed."""
        return (update.at, self.pack(update.game), update.deadlines, update.effects)


class StateReceiver:
    """The console's side: rebuilds each state's records."""

    def __init__(self) -> None:
        self._chain: list[Record] = []

    def unpack(self, wire: WireGame | None) -> Game | None:
        if wire is None:
            return None
        del self._chain[wire.keep :]
        for day, kind, data in wire.records:
            self._chain.append(Record(day, kind, data, self._chain[-1] if self._chain else None))
        return replace(wire.bare, log=self._chain[-1] if self._chain else None)

    def unpack_update(self, sent: tuple[Any, ...]) -> Any:
        """``StateSender.pack_update``'s tuple as an ``assembly.Update`` again."""
        from .assembly import Update

        at, wire, deadlines, effects = sent
        return Update(at, self.unpack(wire), deadlines, effects)
