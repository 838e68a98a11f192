"""The forum game's additions to the replay JSON (docs/replay-json.md):
each seat's team (roles and teams change in this game), the public
announcements and the private notes, in order. Registered in
``protocol/procedures.py``."""

from __future__ import annotations

from typing import Any

from ..core.state import Game
from .game_log import records


def forum_summary(game: Game, out: dict[str, Any]) -> None:
    for seat, entry in zip(game.seats, out["seats"], strict=True):
        entry["team"] = seat.team
    public, private = [], []
    for record in records(game):
        data = dict(record.data)
        if record.kind == "public":
            phase, cue = data.pop("phase"), data.pop("cue")
            public.append({"day": record.day, "phase": phase, "cue": cue, "args": data})
        elif record.kind == "private":
            to, cue = data.pop("to"), data.pop("cue")
            private.append({"to": to, "day": record.day, "cue": cue, "args": data})
    out["public"] = public
    out["private"] = private
