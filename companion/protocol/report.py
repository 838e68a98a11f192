"""What a game leaves behind: the state as JSON (docs/replay-json.md) and the
protocol a club keeps (who sat where, roles, offences, nominations, votes,
kills, checks, result)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core import views
from ..core.state import Game
from .game_log import records, result_fields, seconds_value
from .lines import flag_fields, texts
from .names import offence_text, role_name
from .procedures import SUMMARIES
from .templates import FLAG_WORDS, TEMPLATES


def summary(game: Game, ignored: Sequence[int] = ()) -> dict[str, Any]:
    """The final state as printed by ``companion replay --json``.

    ``ignored``: the script lines of the inputs the engine took without
    changing the game (their effects held an ``Ignored``); the replay driver
    knows them, the game does not.
    """
    part = SUMMARIES[game.rules.procedure]
    out = {
        "ruleset": game.rules.name,
        "phase": views.phase_name(game),
        "day": game.day,
        "result": None if game.result is None else result_fields(game.result),
        "nominees": part.nominees(game),
        "proposals": [
            {"seat": p.seat, "offence": p.offence, "reason": p.reason} for p in game.proposals
        ],
        "ignored": {"count": len(ignored), "lines": list(ignored)},
        "seats": [
            {
                "seat": seat.number,
                "role": seat.role,
                "alive": seat.out is None,
                "out": None
                if seat.out is None
                else {
                    "how": seat.out.how,
                    "day": seat.out.day,
                    "last_word_s": seconds_value(seat.out.last_word_s),
                },
                "offences": seat.count,
                **part.seat_rights(game, seat),
            }
            for seat in game.seats
        ],
    }
    part.extras(game, out)
    return out


#: kept under its old names for their readers (console/words.py, the tests)
_TEMPLATES = TEMPLATES
__all__ = ["FLAG_WORDS", "flag_fields", "protocol", "records", "summary"]


def protocol(game: Game, lang: str = "ru", ignored: Sequence[int] = ()) -> list[str]:
    """The protocol as text lines, in Russian (default) or English: every
    record with its day, the seats as dealt under the setup, the seats'
    exclusions and rating penalties at the end. With ``ignored`` (as for
    ``summary``) a last line lists those script lines."""
    words = TEMPLATES[lang]
    rules = game.rules
    log = records(game)
    lines = []
    for record, text in zip(log, texts(rules, log, lang), strict=True):
        lines.append(f"[{words['day_prefix']} {record.day}] {text}")
        if record.kind == "setup":
            # The roles as dealt (the setup's): the forum game changes them later,
            # and its protocol says when (role_changed).
            dealt = str(dict(record.data).get("roles", "")).split(",")
            for seat in game.seats:
                held = dealt[seat.number - 1] if len(dealt) == len(game.seats) else seat.role
                role = role_name(held, lang, rules)
                lines.append("  " + words["seat"].format(seat=seat.number, role=role))
    for seat in game.seats:
        extra = []
        if seat.excluded:
            extra.append(words["excluded"])
        if seat.rating_penalty:
            extra.append(words["rating"].format(points=seat.rating_penalty))
        if extra:
            lines.append(words["seat"].format(seat=seat.number, role=", ".join(extra)))
    if ignored:
        listed = ", ".join(map(str, ignored))
        lines.append(words["ignored"].format(count=len(ignored), lines=listed))
    return lines


def _offence_text(game: Game, offence_id: str, lang: str) -> str:
    return offence_text(offence_id, lang, game.rules)
