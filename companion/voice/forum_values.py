"""The values of the forum game's own cue arguments, as the engine gives
them (core/forum/), for rendering its phrases ahead of time. Registered
in ``voice/procedures.py``; ``at`` and a tally of votes are known only in
the game."""

from __future__ import annotations

from ..core.forum.rules import DEADLINES
from ..core.rules import Ruleset

WORDS: dict[str, tuple[str, ...]] = {
    "basements": ("yes", "no"),  # roles.mafia.10
    "child": ("plain", "multi"),  # roles.mafia_child.8
    "shooter": ("sniper", "maniac", "kamikaze"),  # roles.mafia.7
    "name": DEADLINES,
    "tally": ("-",),
    "at": (),
}


def forum_values(cue: str, arg: str, rules: Ruleset) -> list[int | str] | None:
    if arg in WORDS:
        return list(WORDS[arg])
    if arg == "minutes":
        return [rules.forum.warning_minutes if rules.forum is not None else 10]
    return None
