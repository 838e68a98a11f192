"""What the protocol's pages for people (the text a terminal shows, the
HTML page) say the same way: their words, a seat's end and count, the
result, the votes table's rows and how to check the deal."""

from __future__ import annotations

from dataclasses import dataclass

from .model import Entry, Protocol, SeatLine

WORDS: dict[str, dict[str, str]] = {
    "ru": {
        "title": "Протокол игры",
        "seats": "мест",
        "players": "Игроки",
        "seat": "Место",
        "name": "Имя",
        "role": "Роль",
        "team": "Команда",
        "end": "Итог игрока",
        "fouls": "Счёт",
        "unit.remark": "Замечания",
        "unit.foul": "Фолы",
        "count": "{count} (за игру: {total})",
        "offences": "Нарушения",
        "alive": "за столом",
        "killed": "убит ночью {day}",
        "voted": "заголосован в день {day}",
        "removed": "удалён, день {day}",
        "course": "Ход игры",
        "setup": "Рассадка",
        "night": "Ночь {day}",
        "day": "День {day}",
        "day_head": "День",
        "votes": "Голосования",
        "vote_kind": "Голосование",
        "first_vote": "голосование",
        "revote": "переголосование",
        "all_leave": "за уход всех",
        "nominee": "Кандидат",
        "for": "Голосов",
        "voters": "Голосовали",
        "all": "все",
        "clause": "Пункт",
        "what": "Что",
        "best_move": "Лучший ход",
        "deal": "Раздача",
        "given": "Роли назначил ведущий (не раздача по зерну): проверять нечего.",
        "commitment": "Хеш зерна (показан до раздачи)",
        "seed": "Зерно",
        "players_value": "Значение игроков",
        "order": "Роли до перемешивания",
        "check": "Проверка",
        "check_text": "хеш — это sha256 строки «{hashed}» с переводом строки в конце:",
        "check_file": "или по файлу протокола для программ:",
        "protocol_file": "ПРОТОКОЛ.json",
        "no_result": "Игра не закончена",
        "stopped": "Игра остановлена: {reason}",
        "from": "Из журнала {source}",
        "none": "нет",
        "nobody": "никто",
        "rating": "рейтинг −{points}",
        "excluded": "исключён",
        "changed": "при раздаче: {role}",
    },
    "en": {
        "title": "Game protocol",
        "seats": "seats",
        "players": "Players",
        "seat": "Seat",
        "name": "Name",
        "role": "Role",
        "team": "Team",
        "end": "End",
        "fouls": "Count",
        "unit.remark": "Remarks",
        "unit.foul": "Fouls",
        "count": "{count} (in the game: {total})",
        "offences": "Offences",
        "alive": "at the table",
        "killed": "killed, night {day}",
        "voted": "voted out, day {day}",
        "removed": "removed, day {day}",
        "course": "Course of the game",
        "setup": "Seating",
        "night": "Night {day}",
        "day": "Day {day}",
        "day_head": "Day",
        "votes": "Votes",
        "vote_kind": "Vote",
        "first_vote": "vote",
        "revote": "revote",
        "all_leave": "all leaving",
        "nominee": "Nominee",
        "for": "Votes",
        "voters": "Voters",
        "all": "all",
        "clause": "Clause",
        "what": "What",
        "best_move": "Best move",
        "deal": "The deal",
        "given": "The host gave the roles (no seeded deal): nothing to check.",
        "commitment": "Seed hash (shown before the deal)",
        "seed": "Seed",
        "players_value": "Players' value",
        "order": "The roles before the shuffle",
        "check": "Check",
        "check_text": "the hash is the sha256 of the line “{hashed}” with a newline at its end:",
        "check_file": "or, from the protocol as JSON:",
        "protocol_file": "PROTOCOL.json",
        "no_result": "The game is not over",
        "stopped": "The game was stopped: {reason}",
        "from": "From the journal {source}",
        "none": "none",
        "nobody": "nobody",
        "rating": "rating −{points}",
        "excluded": "excluded",
        "changed": "dealt: {role}",
    },
}


def words_of(protocol: Protocol) -> dict[str, str]:
    return WORDS.get(protocol.lang, WORDS["en"])


def result_text(protocol: Protocol) -> str:
    w = words_of(protocol)
    result = protocol.result
    if result is None:
        return w["no_result"]
    if result.stopped is not None:
        return w["stopped"].format(reason=result.stopped)
    return result.text.removeprefix("Итог: ").removeprefix("Result: ")


def count_head(protocol: Protocol) -> str:
    w = words_of(protocol)
    return w.get("unit." + protocol.unit, w["fouls"])


def count_text(seat: SeatLine, w: dict[str, str]) -> str:
    """The count as it stood when the seat left (or at the end), and the
    game's whole when resets took some back."""
    if seat.fouls_total == seat.fouls:
        return str(seat.fouls)
    return w["count"].format(count=seat.fouls, total=seat.fouls_total)


def end_text(seat: SeatLine, w: dict[str, str]) -> str:
    if seat.out_how is None:
        return w["alive"]
    template = w.get(seat.out_how, seat.out_how)
    return template.format(day=seat.out_day)


def marks_text(seat: SeatLine, w: dict[str, str]) -> str:
    marks = [f"{o.text} ({o.clause_text})" if o.clause_text else o.text for o in seat.offences]
    if seat.rating_penalty:
        marks.append(w["rating"].format(points=seat.rating_penalty))
    if seat.excluded:
        marks.append(w["excluded"])
    return "; ".join(marks)


def role_text(seat: SeatLine, w: dict[str, str], protocol: Protocol) -> str:
    """The role at the end, and the role dealt when the game changed it."""
    if not seat.dealt_role:
        return seat.role_name
    names = dict(protocol.role_names)
    dealt = names.get(seat.dealt_role, seat.dealt_role)
    return f"{seat.role_name} ({w['changed'].format(role=dealt)})"


@dataclass(frozen=True, slots=True)
class VoteRow:
    day: int
    kind: str  # the vote, the revote or the all-leave vote, in words
    nominee: str
    name: str
    votes: int | None
    voters: str


def vote_rows(protocol: Protocol) -> list[VoteRow]:
    w = words_of(protocol)
    rows = []
    for x in protocol.entries:
        if x.kind != "votes":
            continue
        if x.target == 0:
            kind, nominee = w["all_leave"], w["all"]
        else:
            kind, nominee = w["revote" if x.revote else "first_vote"], str(x.target)
        voters = ", ".join(map(str, x.seats)) or w["nobody"]
        rows.append(VoteRow(x.day, kind, nominee, protocol.name(x.target), x.count, voters))
    return rows


def best_moves(protocol: Protocol) -> list[Entry]:
    return [x for x in protocol.entries if x.kind == "best_move"]


def course(protocol: Protocol) -> list[tuple[str, list[Entry]]]:
    """The log night by night and day by day: each part's title and its
    entries (the sports table's night and day markers are the titles)."""
    w = words_of(protocol)
    parts: list[tuple[str, list[Entry]]] = []
    key: tuple[str, int] | None = None
    for entry in protocol.entries:
        marker = entry.kind in ("night", "day")
        here = (entry.period, entry.day)
        if marker or (here != key and not (entry.period == "setup" and parts)):
            title = w["setup"] if entry.period == "setup" else w[entry.period]
            parts.append((title.format(day=entry.day), []))
            key = here
        if not marker:
            parts[-1][1].append(entry)
    return parts


def check_commands(protocol: Protocol) -> tuple[str, str]:
    """The two shell commands that check the deal, exactly as typed."""
    w = words_of(protocol)
    return (
        f'echo "{protocol.deal.hashed}" | sha256sum',
        f"companion verify-deal {w['protocol_file']}",
    )


def order_text(protocol: Protocol) -> str:
    names = dict(protocol.role_names)
    return ", ".join(names.get(role, role) for role in protocol.deal.order)
