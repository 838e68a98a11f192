"""The protocol as one printable HTML page: inline CSS (with a print
layout), no scripts, no external files, every text escaped."""

from __future__ import annotations

from collections.abc import Iterable
from html import escape

from .model import Protocol, SeatLine
from .sheet import (
    best_moves,
    check_commands,
    count_head,
    count_text,
    course,
    end_text,
    marks_text,
    order_text,
    result_text,
    role_text,
    vote_rows,
    words_of,
)

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
    w = words_of(protocol)
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
        f'<p class="result">{e(result_text(protocol))}</p>',
        f"<h2>{e(w['players'])}</h2>",
        _seat_table(protocol, w),
        *_offences(protocol, w),
        *_votes(protocol, w),
        *_best_moves(protocol, w),
        f"<h2>{e(w['course'])}</h2>",
        *_course(protocol),
        f"<h2>{e(w['deal'])}</h2>",
        _deal(protocol, w),
    ]
    if protocol.source:
        parts.append(f'<p class="foot">{e(w["from"].format(source=protocol.source))}</p>')
    parts.append("</body></html>\n")
    return "\n".join(parts)


def _text(value: object) -> str:
    return escape(str(value), quote=True)


def _row(cells: Iterable[object], css: str = "", head: bool = False) -> str:
    tag = "th" if head else "td"
    attr = f' class="{css}"' if css else ""
    return f"<tr{attr}>" + "".join(f"<{tag}>{_text(c)}</{tag}>" for c in cells) + "</tr>"


def _seat_table(protocol: Protocol, w: dict[str, str]) -> str:
    head = (w["seat"], w["name"], w["role"], w["team"], w["end"], count_head(protocol))
    rows = [_row((*head, w["offences"]), head=True)]
    for s in protocol.seats:
        css = " ".join(c for c in ("black" if _black(s) else "", "out" if s.out_how else "") if c)
        cells = (
            s.seat,
            s.name,
            role_text(s, w, protocol),
            s.team_name,
            end_text(s, w),
            count_text(s, w),
        )
        rows.append(_row((*cells, marks_text(s, w)), css))
    return "<table>" + "".join(rows) + "</table>"


def _black(seat: SeatLine) -> bool:
    return seat.team in ("black", "mafia")


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
        rows.append(_row((x.day, x.seat or "", protocol.name(x.seat), x.text, x.clause_text)))
    return [f"<h2>{_text(w['offences'])}</h2>", "<table>" + "".join(rows) + "</table>"]


def _votes(protocol: Protocol, w: dict[str, str]) -> list[str]:
    found = vote_rows(protocol)
    if not found:
        return []
    head = (w["day_head"], w["vote_kind"], w["nominee"], w["name"], w["for"], w["voters"])
    rows = [_row(head, head=True)]
    for x in found:
        rows.append(_row((x.day, x.kind, x.nominee, x.name, x.votes, x.voters)))
    return [f"<h2>{_text(w['votes'])}</h2>", "<table>" + "".join(rows) + "</table>"]


def _best_moves(protocol: Protocol, w: dict[str, str]) -> list[str]:
    found = best_moves(protocol)
    if not found:
        return []
    return [f"<h2>{_text(w['best_move'])}</h2>"] + [f"<p>{_text(x.text)}</p>" for x in found]


def _course(protocol: Protocol) -> list[str]:
    """The whole log, one list per night and day."""
    out: list[str] = []
    for title, entries in course(protocol):
        items = "".join(f'<li class="{_text(x.kind)}">{_text(x.text)}</li>' for x in entries)
        out += [f"<h3>{_text(title)}</h3>", f'<ol class="course">{items}</ol>' if items else ""]
    return out


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
    if deal.order:
        rows.append(_row((w["order"], order_text(protocol))))
    by_hand, by_file = check_commands(protocol)
    check = (
        f"{_text(w['check_text'].format(hashed=deal.hashed))}<br>"
        f"<code>{_text(by_hand)}</code><br>"
        f"{_text(w['check_file'])}<br>"
        f"<code>{_text(by_file)}</code>"
    )
    rows.append(f"<tr><td>{_text(w['check'])}</td><td>{check}</td></tr>")
    return "<table>" + "".join(rows) + "</table>"
