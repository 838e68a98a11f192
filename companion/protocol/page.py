"""The protocol as one printable HTML page: inline CSS (with a print
layout), no scripts, no external files, every text escaped."""

from __future__ import annotations

from collections.abc import Iterable
from html import escape

from .model import Entry, Protocol, SeatLine

_WORDS: dict[str, dict[str, str]] = {
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
        "offences": "Нарушения",
        "alive": "за столом",
        "killed": "убит ночью {day}",
        "voted": "заголосован в день {day}",
        "removed": "удалён, день {day}",
        "course": "Ход игры",
        "setup": "Рассадка",
        "night": "Ночь {day}",
        "day": "День {day}",
        "votes": "Голосования",
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
        "check": "Проверка",
        "check_text": "хеш — это sha256 строки «{hashed}» с переводом строки в конце:",
        "no_result": "Игра не закончена",
        "stopped": "Игра остановлена: {reason}",
        "from": "Из журнала {source}",
        "none": "нет",
        "rating": "рейтинг −{points}",
        "excluded": "исключён",
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
        "offences": "Offences",
        "alive": "at the table",
        "killed": "killed, night {day}",
        "voted": "voted out, day {day}",
        "removed": "removed, day {day}",
        "course": "Course of the game",
        "setup": "Seating",
        "night": "Night {day}",
        "day": "Day {day}",
        "votes": "Votes",
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
        "check": "Check",
        "check_text": "the hash is the sha256 of the line “{hashed}” with a newline at its end:",
        "no_result": "The game is not over",
        "stopped": "The game was stopped: {reason}",
        "from": "From the journal {source}",
        "none": "none",
        "rating": "rating −{points}",
        "excluded": "excluded",
    },
}

# System fonts only (no external files); DejaVu/Liberation carry Cyrillic on Debian.
_CSS = """
*{box-sizing:border-box}
body{font:14px/1.4 "DejaVu Sans","Liberation Sans",Arial,sans-serif;color:#111;
 margin:24px auto;max-width:60em;padding:0 16px;background:#fff}
h1{font-size:22px;margin:0 0 4px}
h2{font-size:17px;margin:20px 0 6px;border-bottom:2px solid #333;padding-bottom:2px}
h3{font-size:14px;margin:12px 0 4px}
.sub{color:#444;margin:0 0 8px}
.result{font-size:16px;font-weight:bold;padding:6px 10px;border:2px solid #333;
 display:inline-block;margin:6px 0}
table{border-collapse:collapse;width:100%;margin:4px 0}
th,td{border:1px solid #999;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#e8e8e8}
td.n{text-align:right;width:3em}
tr.black td{background:#eee}
tr.out td{color:#555}
ol.course{margin:0;padding-left:2em}
li.offence,li.offence_cancelled,li.ladder{color:#8a0000}
li.out,li.result,li.stopped{font-weight:bold}
code{font:12px "DejaVu Sans Mono",monospace;word-break:break-all}
.foot{color:#666;font-size:12px;margin-top:24px}
@media print{
 body{margin:0;max-width:none;font-size:11pt;padding:0}
 h2{break-after:avoid}
 table,li{break-inside:avoid}
 th,tr.black td{background:#e8e8e8 !important;-webkit-print-color-adjust:exact;
  print-color-adjust:exact}
 @page{size:A4;margin:14mm}
}
"""


def to_html(protocol: Protocol) -> str:
    w = _WORDS.get(protocol.lang, _WORDS["en"])
    e = _text
    parts = [
        "<!DOCTYPE html>",
        f'<html lang="{e(protocol.lang)}"><head><meta charset="utf-8">',
        f"<title>{e(w['title'])} — {e(protocol.title)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>{e(w['title'])}</h1>",
        f'<p class="sub">{e(protocol.title)} · {len(protocol.seats)} {e(w["seats"])}'
        + (f" · {e(protocol.date)}" if protocol.date else "")
        + "</p>",
        f'<p class="result">{e(_result_text(protocol, w))}</p>',
        f"<h2>{e(w['players'])}</h2>",
        _seat_table(protocol, w),
        *_offences(protocol, w),
        *_votes(protocol, w),
        *_best_moves(protocol, w),
        f"<h2>{e(w['course'])}</h2>",
        *_course(protocol, w),
        f"<h2>{e(w['deal'])}</h2>",
        _deal(protocol, w),
    ]
    if protocol.source:
        parts.append(f'<p class="foot">{e(w["from"].format(source=protocol.source))}</p>')
    parts.append("</body></html>\n")
    return "\n".join(parts)


def _text(value: object) -> str:
    return escape(str(value), quote=True)


def _result_text(protocol: Protocol, w: dict[str, str]) -> str:
    result = protocol.result
    if result is None:
        return w["no_result"]
    if result.stopped is not None:
        return w["stopped"].format(reason=result.stopped)
    return result.text.removeprefix("Итог: ").removeprefix("Result: ")


def _row(cells: Iterable[object], css: str = "", head: bool = False) -> str:
    tag = "th" if head else "td"
    attr = f' class="{css}"' if css else ""
    return f"<tr{attr}>" + "".join(f"<{tag}>{_text(c)}</{tag}>" for c in cells) + "</tr>"


def _seat_table(protocol: Protocol, w: dict[str, str]) -> str:
    rows = [_row((w["seat"], w["name"], w["role"], w["team"], w["end"], w["offences"]), head=True)]
    for s in protocol.seats:
        css = " ".join(c for c in ("black" if _black(s) else "", "out" if s.out_how else "") if c)
        rows.append(_row((s.seat, s.name, s.role_name, s.team_name, _end(s, w), _marks(s, w)), css))
    return "<table>" + "".join(rows) + "</table>"


def _black(seat: SeatLine) -> bool:
    return seat.team in ("black", "mafia")


def _end(seat: SeatLine, w: dict[str, str]) -> str:
    if seat.out_how is None:
        return w["alive"]
    template = w.get(seat.out_how, seat.out_how)
    return template.format(day=seat.out_day)


def _marks(seat: SeatLine, w: dict[str, str]) -> str:
    marks = [f"{o.text} ({o.clause})" for o in seat.offences]
    if seat.rating_penalty:
        marks.append(w["rating"].format(points=seat.rating_penalty))
    if seat.excluded:
        marks.append(w["excluded"])
    return "; ".join(marks)


def _offences(protocol: Protocol, w: dict[str, str]) -> list[str]:
    kinds = ("offence", "offence_cancelled", "ladder", "exempt", "proposal_dismissed")
    found = [x for x in protocol.entries if x.kind in kinds]
    if not found:
        return []
    rows = [
        _row(
            (w["day"].format(day="").strip(), w["seat"], w["name"], w["what"], w["clause"]),
            head=True,
        )
    ]
    for x in found:
        rows.append(_row((x.day, x.seat or "", protocol.name(x.seat), x.text, x.clause or "")))
    return [f"<h2>{_text(w['offences'])}</h2>", "<table>" + "".join(rows) + "</table>"]


def _votes(protocol: Protocol, w: dict[str, str]) -> list[str]:
    found = [x for x in protocol.entries if x.kind == "votes"]
    if not found:
        return []
    head = (w["day"].format(day="").strip(), w["nominee"], w["name"], w["for"], w["voters"])
    rows = [_row(head, head=True)]
    for x in found:
        nominee = w["all"] if x.target == 0 else x.target
        voters = " ".join(map(str, x.seats))
        rows.append(_row((x.day, nominee, protocol.name(x.target), x.count, voters)))
    return [f"<h2>{_text(w['votes'])}</h2>", "<table>" + "".join(rows) + "</table>"]


def _best_moves(protocol: Protocol, w: dict[str, str]) -> list[str]:
    found = [x for x in protocol.entries if x.kind == "best_move"]
    if not found:
        return []
    return [f"<h2>{_text(w['best_move'])}</h2>"] + [f"<p>{_text(x.text)}</p>" for x in found]


def _course(protocol: Protocol, w: dict[str, str]) -> list[str]:
    """The whole log, one list per night and day."""
    out: list[str] = []
    group: list[Entry] = []
    for entry in protocol.entries:
        if entry.kind in ("night", "day") and group:
            out.extend(_group(group, w))
            group = []
        group.append(entry)
    if group:
        out.extend(_group(group, w))
    return out


def _group(group: list[Entry], w: dict[str, str]) -> list[str]:
    first = group[0]
    title = w[first.period].format(day=first.day) if first.period != "setup" else w["setup"]
    shown = group[1:] if first.kind in ("night", "day") else group
    items = "".join(f'<li class="{_text(x.kind)}">{_text(x.text)}</li>' for x in shown)
    return [f"<h3>{_text(title)}</h3>", f'<ol class="course">{items}</ol>' if items else ""]


def _deal(protocol: Protocol, w: dict[str, str]) -> str:
    deal = protocol.deal
    if not deal.dealt:
        return f"<p>{_text(w['given'])}</p>"
    rows = [
        _row((w["commitment"], deal.commitment)),
        _row((w["seed"], deal.seed)),
    ]
    if deal.players is not None:
        rows.append(_row((w["players_value"], deal.players)))
    check = (
        f"{_text(w['check_text'].format(hashed=deal.hashed))}<br>"
        f"<code>echo &quot;{_text(deal.hashed)}&quot; | sha256sum</code><br>"
        f"<code>companion verify-deal PROTOCOL.json</code>"
    )
    rows.append(f"<tr><td>{_text(w['check'])}</td><td>{check}</td></tr>")
    return "<table>" + "".join(rows) + "</table>"
