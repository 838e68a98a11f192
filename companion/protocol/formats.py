"""The protocol as JSON and CSV (docs/protocol.md), and every format by
name (``render``); reading the JSON back for ``companion verify-deal`` is
``verify``."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from typing import Any

from ..textfiles.printable import printable, printable_json, printable_lines
from .game_log import result_fields
from .model import Entry, Protocol
from .names import clause_text
from .page import to_html
from .templates import KIND_WORDS
from .text import to_text

#: the JSON's "format"; a reader refuses any other
FORMAT = "companion-protocol/1"

#: the CSV's columns, in order (one table; ``section`` says what a row is)
COLUMNS = (
    "section",
    "day",
    "period",
    "kind",
    "seat",
    "name",
    "role",
    "team",
    "target",
    "seats",
    "count",
    "total",
    "clause",
    "text",
)

#: the CSV in Russian: its header, and the words of its ``section``,
#: ``period`` and ``kind`` values (English keeps the ids, which are words)
CSV_WORDS: dict[str, str] = {
    "section": "раздел",
    "day": "день",
    "period": "период",
    "kind": "что",
    "seat": "место",
    "name": "имя",
    "role": "роль",
    "team": "команда",
    "target": "цель",
    "seats": "места",
    "count": "счёт",
    "total": "за игру",
    "clause": "пункт",
    "text": "текст",
    "game": "игра",
    "deal": "раздача",
    "event": "событие",
    "setup": "рассадка",
    "night": "ночь",
    "ruleset": "правила",
    "date": "дата",
    "journal": "журнал",
    "result": "итог",
    "dealt": "по зерну",
    "seed": "зерно",
    "commitment": "хеш",
    "order": "роли до перемешивания",
    "players": "значение игроков",
    "alive": "за столом",
    "killed": "убит",
    "voted": "заголосован",
    "removed": "удалён",
    "revote": "переголосование",
    "yes": "да",
    "no": "нет",
}


def to_json(protocol: Protocol) -> dict[str, Any]:
    result = protocol.result
    deal = protocol.deal
    return {
        "format": FORMAT,
        "game": {
            "ruleset": protocol.ruleset,
            "title": protocol.title,
            "seats": len(protocol.seats),
            "date": protocol.date,
            "journal": protocol.source,
            "lang": protocol.lang,
            "result": None
            if result is None
            else {**result_fields(result), "stopped": result.stopped, "text": result.text},
        },
        "deal": {
            "dealt": deal.dealt,
            "seed": deal.seed,
            "commitment": deal.commitment,
            "hashed": deal.hashed,
            "order": list(deal.order),
            "players": deal.players,
        },
        "seats": [
            {
                "seat": s.seat,
                "name": s.name,
                "role": s.role,
                "role_name": s.role_name,
                "team": s.team,
                "team_name": s.team_name,
                "out": None if s.out_how is None else {"how": s.out_how, "day": s.out_day},
                "fouls": s.fouls,
                "fouls_total": s.fouls_total,
                "offences": [
                    {"offence": o.offence, "clause": o.clause, "text": o.text} for o in s.offences
                ],
                "rating_penalty": s.rating_penalty,
                "excluded": s.excluded,
                # the forum game: the role dealt, when the game changed it
                **({"dealt_role": s.dealt_role} if s.dealt_role else {}),
            }
            for s in protocol.seats
        ],
        "events": [_event(e) for e in protocol.entries],
    }


def _event(entry: Entry) -> dict[str, Any]:
    revote = {"revote": entry.revote} if entry.kind == "votes" else {}
    return {
        "day": entry.day,
        "period": entry.period,
        "kind": entry.kind,
        "seat": entry.seat,
        "target": entry.target,
        "seats": list(entry.seats),
        "count": entry.count,
        "clause": entry.clause,
        "text": entry.text,
        "data": {key: _plain(value) for key, value in entry.data},
        **revote,
    }


def _plain(value: object) -> object:
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def json_text(protocol: Protocol) -> str:
    """The JSON, its unprintable characters escaped (the same JSON)."""
    return printable_json(json.dumps(to_json(protocol), ensure_ascii=False, indent=2)) + "\n"


def csv_text(protocol: Protocol) -> str:
    """One table: game, deal, seat and event rows, told apart by ``section``.
    In Russian the header and the values are words; in English the ids."""
    russian = protocol.lang == "ru"
    header = {column: CSV_WORDS[column] for column in COLUMNS} if russian else None
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, COLUMNS, lineterminator="\r\n")
    if header is None:
        writer.writeheader()
    else:
        writer.writerow(header)
    writer.writerows(
        {key: csv_cell(value) for key, value in row.items()} for row in _csv_rows(protocol)
    )
    return buffer.getvalue()


#: what a spreadsheet reads as the start of a formula (OWASP, "CSV Injection")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """A cell as the CSV holds it. A number stays a number. Text from the
    game (a name, a stop reason, an offence's wording) is made printable,
    and when a spreadsheet would take it for a formula (``=HYPERLINK(…)``,
    ``=cmd|' /C calc'!A0``: it begins with one of ``FORMULA_START``, spaces
    aside) it gets a leading ``'``, as OWASP recommends: the spreadsheet
    shows it as text and runs nothing."""
    if not isinstance(value, str):
        return value
    text = printable(value)
    if text.lstrip(" ").startswith(FORMULA_START):
        return "'" + text
    return text


def _csv_rows(protocol: Protocol) -> Iterator[dict[str, object]]:
    russian = protocol.lang == "ru"
    kinds = KIND_WORDS[protocol.lang]

    def word(key: str) -> str:
        return CSV_WORDS.get(key, key) if russian else key

    def row(section: str, kind: str, **fields: object) -> dict[str, object]:
        return {"section": word(section), "kind": kind, **fields}

    yield row("game", word("ruleset"), text=protocol.title if russian else protocol.ruleset)
    yield row("game", word("seats"), count=len(protocol.seats))
    if protocol.date:
        yield row("game", word("date"), text=protocol.date)
    if protocol.source:
        yield row("game", word("journal"), text=protocol.source)
    result = protocol.result
    if result is not None:
        teams = dict(protocol.team_names)
        yield row(
            "game",
            word("result"),
            team=(", " if russian else " ").join(
                teams.get(t, t) if russian else t for t in result.winners
            ),
            clause=(clause_text(result.clause or "", "ru") if russian else result.clause) or "",
            text=result.stopped or (result.text if russian else result.reason),
        )
    deal = protocol.deal
    yield row("deal", word("dealt"), text=word("yes" if deal.dealt else "no"))
    yield row("deal", word("seed"), text=str(deal.seed))
    yield row("deal", word("commitment"), text=deal.commitment)
    roles = dict(protocol.role_names)
    order = [roles.get(r, r) if russian else r for r in deal.order]
    yield row("deal", word("order"), text=(", " if russian else " ").join(order))
    if deal.players is not None:
        yield row("deal", word("players"), text=deal.players)
    for s in protocol.seats:
        yield row(
            "seat",
            word(s.out_how or "alive"),
            day=s.out_day if s.out_day is not None else "",
            seat=s.seat,
            name=s.name,
            role=s.role_name if russian else s.role,
            team=s.team_name if russian else s.team,
            count=s.fouls,
            total=s.fouls_total,
            clause=("; " if russian else " ").join(
                (o.clause_text if russian else o.clause) for o in s.offences
            ),
            text="; ".join(o.text for o in s.offences),
        )
    for e in protocol.entries:
        kind = "revote" if e.revote else e.kind
        yield row(
            "event",
            (CSV_WORDS["revote"] if e.revote else kinds.get(e.kind, e.kind)) if russian else kind,
            day=e.day,
            period=word(e.period),
            seat=e.seat if e.seat is not None else "",
            name=protocol.name(e.seat),
            target=e.target if e.target is not None else "",
            seats=" ".join(map(str, e.seats)),
            count=e.count if e.count is not None else "",
            clause=(e.clause_text if russian else e.clause) or "",
            text=e.text,
        )


#: the formats ``render`` makes; the first is ``companion protocol``'s default
FORMATS = ("text", "json", "csv", "html")


def render(protocol: Protocol, fmt: str) -> str:
    if fmt == "text":
        return printable_lines(to_text(protocol))
    if fmt == "json":
        return json_text(protocol)
    if fmt == "csv":
        return csv_text(protocol)
    if fmt == "html":
        return printable_lines(to_html(protocol))
    raise ValueError(f"no protocol format {fmt!r} ({', '.join(FORMATS)})")
