"""What a game leaves behind: the state as JSON (docs/replay-json.md) and the
protocol a club keeps (who sat where, roles, offences, nominations, votes,
kills, checks, result)."""

from __future__ import annotations

from typing import Any

from .core import views
from .core.state import Game, Record


def summary(game: Game) -> dict[str, Any]:
    """The final state as printed by ``companion replay --json``."""
    result = game.result
    return {
        "ruleset": game.rules.name,
        "phase": views.phase_name(game),
        "day": game.day,
        "result": None
        if result is None
        else {
            "winners": list(result.winners),
            "losers": list(result.losers),
            "reason": result.reason,
            "clause": result.clause,
        },
        "nominees": list(game.nominees),
        "proposals": [
            {"seat": p.seat, "offence": p.offence, "reason": p.reason} for p in game.proposals
        ],
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
                    "last_word_s": seat.out.last_word_s,
                },
                "offences": seat.count,
                "next_speech_s": views.next_speech_s(game, seat),
                "may_nominate": views.may_nominate(game, seat),
                "may_vote": views.may_vote(game, seat),
            }
            for seat in game.seats
        ],
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


_RU: dict[str, str] = {
    "setup": "Стол: правила {ruleset}, мест {seats}, роли {roles}",
    "night": "Ночь {number}",
    "day": "День {number}",
    "nomination": "Игрок {by} выставил игрока {target}",
    "passed": "Игрок {seat} закончил речь досрочно",
    "overrun": "Игрок {seat}: время вышло",
    "speech_lost": "Игрок {seat} лишён слова",
    "votes": "За игрока {nominee}: {votes} (голосовали: {voters})",
    "tie": "Поровну: {seats}",
    "all_stay": "Все остаются за столом (за подъём: {votes})",
    "no_vote": "Голосования нет ({reason})",
    "out": "Игрок {seat} покидает стол: {how}",
    "voted_already_out": "Игрок {seat} уже покинул стол",
    "offence": "Игрок {seat}: нарушение {offence} (п. {clause})",
    "ladder": "Игрок {seat}: {at}-я ступень дисциплины (п. {clause})",
    "proposal_dismissed": "Предложение снято: игрок {seat}, {offence}",
    "night_choice": "Ночь: {step}: игрок {seat} → {target}",
    "check": "Проверка: игрок {seat} проверил игрока {target}: {answer}",
    "miss": "Промах ({step})",
    "counts_reset": "Замечания аннулированы",
    "best_move": "Лучший ход игрока {seat}: {suspects} (чёрных: {black})",
    "surrender": "Команда {team} сдалась",
    "result": "Итог: победа {winners}; поражение {losers} ({reason})",
}


def protocol(game: Game) -> list[str]:
    """The protocol as text lines (Russian)."""
    lines = []
    for record in records(game):
        data = dict(record.data)
        template = _RU.get(record.kind)
        text = template.format(**data) if template else f"{record.kind} {data}"
        lines.append(f"[день {record.day}] {text}")
    for seat in game.seats:
        extra = []
        if seat.excluded:
            extra.append("исключён из клуба")
        if seat.rating_penalty:
            extra.append(f"рейтинг −{seat.rating_penalty}")
        if extra:
            lines.append(f"Игрок {seat.number}: {', '.join(extra)}")
    return lines
