"""What a game leaves behind: the state as JSON (docs/replay-json.md) and the
protocol a club keeps (who sat where, roles, offences, nominations, votes,
kills, checks, result)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core import views
from ..core.state import Game, Record
from ..core.table_state import table_or_blank
from .forum_text import forum_fields


def summary(game: Game, ignored: Sequence[int] = ()) -> dict[str, Any]:
    """The final state as printed by ``companion replay --json``.

    ``ignored``: the script lines of the inputs the engine took without
    changing the game (their effects held an ``Ignored``); the replay driver
    knows them, the game does not.
    """
    result = game.result
    out = {
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
        "nominees": list(table_or_blank(game).nominees),
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
                    "last_word_s": _num(seat.out.last_word_s),
                },
                "offences": seat.count,
                "next_speech_s": _num(views.next_speech_s(game, seat)),
                "may_nominate": views.may_nominate(game, seat),
                "may_vote": views.may_vote(game, seat),
            }
            for seat in game.seats
        ],
    }
    if game.rules.forum is not None:
        _forum(game, out)
    return out


def _forum(game: Game, out: dict[str, Any]) -> None:
    """The forum game's additions (docs/replay-json.md): each seat's team
    (roles and teams change in this game), the public announcements and
    the private notes, in order."""
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


def _num(seconds: float) -> int | float:
    """Whole seconds print as 60, not 60.0."""
    return int(seconds) if float(seconds).is_integer() else seconds


def records(game: Game) -> list[Record]:
    """The protocol's records, oldest first."""
    out: list[Record] = []
    entry = game.log
    while entry is not None:
        out.append(entry)
        entry = entry.prev
    out.reverse()
    return out


_TEMPLATES: dict[str, dict[str, str]] = {
    "ru": {
        "setup": "Стол: правила «{ruleset}», мест {seats}",
        "night": "Ночь {number}",
        "day": "День {number}",
        "nomination": "Игрок {by} выставил игрока {target}",
        "passed": "Игрок {seat} закончил речь досрочно («Пас»)",
        "overrun": "Игрок {seat}: время вышло",
        "speech_lost": "Игрок {seat} лишён слова",
        "votes": "За игрока {nominee}: {votes} (голосовали: {voters})",
        "all_leave_votes": "За уход всех голосуемых: {votes} (голосовали: {voters})",
        "tie": "Поровну: {seats}",
        "all_stay": "Все остаются за столом (за уход всех: {votes})",
        "no_vote": "Голосования нет ({reason})",
        "out": "Игрок {seat} покидает стол: {how}",
        "voted_already_out": "Игрок {seat} уже покинул стол",
        "offence": "Игрок {seat}: {offence} (п. {clause})",
        "ladder": "Игрок {seat}: {at}-я ступень дисциплины (п. {clause})",
        "proposal_dismissed": "Предложение снято: игрок {seat}, {offence}",
        "speech_flagged": "Микрофон: {kind} (место {seat}, уверенность {confidence})",
        "night_choice": "{step}: игрок {seat} → игрок {target}",
        "check": "Проверка: игрок {seat} проверил игрока {target}: {answer}",
        "miss": "Промах",
        "counts_reset": "Замечания аннулированы",
        "best_move": "Лучший ход игрока {seat}: {suspects} (чёрных: {black})",
        "surrender": "Команда «{team}» сдалась",
        "offence_cancelled": "Игрок {seat}: нарушение снято ({offence}, п. {clause})",
        "stopped": "Ведущий остановил игру: {reason}",
        "undone": "Ведущий отменил последний ввод ({records})",
        "paused": "Пауза (осталось: {left})",
        "resumed": "Время пошло",
        "time_added": "Время изменено на {seconds:+g} с (осталось {left:g} с)",
        "exempt": "Игрок {seat} ({role}) покидает стол, игра продолжается (исключение для роли)",
        "result": "Итог: победа — {winners}; поражение — {losers} ({reason})",
        "seat": "Место {seat}: {role}",
        "excluded": "исключён из клуба",
        "rating": "рейтинг −{points}",
        "killed": "убит ночью",
        "voted": "заголосован",
        "removed": "удалён",
        "yes": "да",
        "no": "нет",
        "day_prefix": "день",
        "nobody": "никто",
        "ignored": "Вводы без последствий: {count} (строки сценария: {lines})",
        # the forum game (the fields in words: forum_text.forum_fields)
        "public": "Объявлено: {cue}",
        "private": "Лично игроку {to}: {cue}",
        "choice": "Ход игрока {seat}: {action} → {target}",
        "vote": "Голос игрока {seat} → {target}{edit}",
        "late": "Игрок {seat}: {post} в {at}, после срока {deadline} — не засчитано (п. {clause})",
        "second_vote": "Игрок {seat}: второй пост в голосовании (→ {target}) не засчитан (п. {clause})",
        "skip": "Игрок {seat} пропустил ход (пропусков: {skips}; п. {clause})",
        "deadline": "Срок истёк: {name}",
        "lost_move": "Ход игрока {seat} не засчитан: лишение хода (п. {clause})",
        "block": "Блок ЖД: игрок {seat} → игрок {target}: {hit} (п. {clause})",
        "night_clauses": "Исход ночи по пунктам: {clauses}",
        "role_changed": "Игрок {seat}: роль «{was}» → «{role}» ({team})",
        "win_declared": "Ведущий объявил победу: {teams}",
    },
    "en": {
        "setup": "Table: ruleset {ruleset!r}, {seats} seats",
        "night": "Night {number}",
        "day": "Day {number}",
        "nomination": "Seat {by} nominated seat {target}",
        "passed": "Seat {seat} ended their speech early",
        "overrun": "Seat {seat}: time is up",
        "speech_lost": "Seat {seat} has lost their speech",
        "votes": "For seat {nominee}: {votes} (voters: {voters})",
        "all_leave_votes": "For all nominees leaving: {votes} (voters: {voters})",
        "tie": "Tie: {seats}",
        "all_stay": "Everyone stays (votes for all leaving: {votes})",
        "no_vote": "No vote ({reason})",
        "out": "Seat {seat} leaves the table: {how}",
        "voted_already_out": "Seat {seat} has already left",
        "offence": "Seat {seat}: {offence} (clause {clause})",
        "ladder": "Seat {seat}: discipline step {at} (clause {clause})",
        "proposal_dismissed": "Proposal dismissed: seat {seat}, {offence}",
        "speech_flagged": "Microphone: {kind} (seat {seat}, confidence {confidence})",
        "night_choice": "{step}: seat {seat} → seat {target}",
        "check": "Check: seat {seat} checked seat {target}: {answer}",
        "miss": "Miss",
        "counts_reset": "Remarks cancelled",
        "best_move": "Best move of seat {seat}: {suspects} (black: {black})",
        "surrender": "Team {team!r} surrendered",
        "offence_cancelled": "Seat {seat}: offence withdrawn ({offence}, clause {clause})",
        "stopped": "The host stopped the game: {reason}",
        "undone": "The host took back the last input ({records})",
        "paused": "Paused (left: {left})",
        "resumed": "Timers running again",
        "time_added": "Time changed by {seconds:+g} s ({left:g} s left)",
        "exempt": "Seat {seat} ({role}) leaves, the game goes on (role exception)",
        "result": "Result: winners — {winners}; losers — {losers} ({reason})",
        "seat": "Seat {seat}: {role}",
        "excluded": "excluded from the club",
        "rating": "rating −{points}",
        "killed": "killed at night",
        "voted": "voted out",
        "removed": "removed",
        "yes": "yes",
        "no": "no",
        "day_prefix": "day",
        "nobody": "nobody",
        "ignored": "Inputs that changed nothing: {count} (script lines: {lines})",
        # the forum game (the fields in words: forum_text.forum_fields)
        "public": "Announced: {cue}",
        "private": "Privately to seat {to}: {cue}",
        "choice": "Move of seat {seat}: {action} → {target}",
        "vote": "Vote of seat {seat} → {target}{edit}",
        "late": "Seat {seat}: {post} at {at}, after the deadline {deadline}: not counted"
        " (clause {clause})",
        "second_vote": "Seat {seat}: a second post in the vote (→ {target}) not counted"
        " (clause {clause})",
        "skip": "Seat {seat} skipped (skips: {skips}; clause {clause})",
        "deadline": "Deadline passed: {name}",
        "lost_move": "The move of seat {seat} does not count: move lost (clause {clause})",
        "block": "The Tin Man's block: seat {seat} → seat {target}: {hit} (clause {clause})",
        "night_clauses": "The night's outcome by clause: {clauses}",
        "role_changed": "Seat {seat}: role {was} → {role} ({team})",
        "win_declared": "The host declared the win: {teams}",
    },
}


#: the microphone's flag kinds (core.events.FLAG_KINDS) in words
FLAG_WORDS: dict[str, dict[str, str]] = {
    "ru": {
        "night": "речь ночью",
        "vote": "речь во время голосования",
        "between": "речь между речами",
        "overrun": "речь после конца минуты",
        "last_word_overrun": "речь после конца последнего слова",
        "out_of_turn": "речь не в свою минуту",
        "word": "запрещённые слова",
    },
    "en": {
        "night": "speech at night",
        "vote": "speech during a vote",
        "between": "speech between speeches",
        "overrun": "speech after the minute ended",
        "last_word_overrun": "speech after the last word ended",
        "out_of_turn": "speech in another's minute",
        "word": "forbidden words",
    },
}


def flag_fields(kind: object, seat: object, lang: str, words: object = "") -> tuple[str, str]:
    """A flag's kind in words (with the words heard, for a forbidden phrase)
    and its seat (``?``: not known), for a line."""
    named = FLAG_WORDS[lang].get(str(kind), str(kind))
    return (f"{named} «{words}»" if words else named), str(seat or "?")


def protocol(game: Game, lang: str = "ru", ignored: Sequence[int] = ()) -> list[str]:
    """The protocol as text lines, in Russian (default) or English. With
    ``ignored`` (as for ``summary``) a last line lists those script lines."""
    words = _TEMPLATES[lang]
    rules = game.rules
    role_names = {role.id: role.name for role in rules.roles}
    team_names = {team.id: team.name for team in rules.teams}
    step_names = {step.id: step.name for step in (*rules.night0, *rules.night)}

    def teams(ids: object) -> str:
        names = [team_names.get(t, t) for t in str(ids).split(",") if t]
        return ", ".join(names) or words["nobody"]

    lines = []
    for record in records(game):
        data = dict(record.data)
        forum_fields(record.kind, data, lang, rules)
        if record.kind == "out":
            data["how"] = words.get(str(data["how"]), data["how"])
        elif record.kind == "check":
            data["answer"] = words.get(str(data["answer"]), data["answer"])
        elif record.kind == "result":
            data["winners"], data["losers"] = teams(data["winners"]), teams(data["losers"])
        elif record.kind == "exempt":
            data["role"] = (
                role_names.get(str(data["role"]), data["role"]) if lang == "ru" else data["role"]
            )
        elif record.kind == "night_choice" and lang == "ru":
            data["step"] = step_names.get(str(data["step"]), data["step"])
        elif record.kind == "surrender":
            data["team"] = team_names.get(str(data["team"]), data["team"])
        elif record.kind == "speech_flagged":
            heard = data.get("words", "")
            data["kind"], data["seat"] = flag_fields(data["kind"], data["seat"], lang, heard)
        elif record.kind in ("offence", "offence_cancelled"):
            data["offence"] = _offence_text(game, str(data["offence"]), lang)
        kind = record.kind
        if kind == "votes" and data.get("nominee") == 0:  # voting.ALL: the all-leave vote
            kind = "all_leave_votes"
        template = words.get(kind)
        text = template.format(**data) if template else f"{record.kind} {data}"
        lines.append(f"[{words['day_prefix']} {record.day}] {text}")
        if record.kind == "setup":
            # The roles as dealt (the setup's): the forum game changes them later,
            # and its protocol says when (role_changed).
            dealt = str(dict(record.data).get("roles", "")).split(",")
            for seat in game.seats:
                held = dealt[seat.number - 1] if len(dealt) == len(game.seats) else seat.role
                role = role_names.get(held, held) if lang == "ru" else held
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
    if lang != "ru":
        return offence_id
    try:
        text = game.rules.offence(offence_id).text
    except KeyError:
        return offence_id
    return text if len(text) <= 70 else text[:67].rstrip() + "…"
