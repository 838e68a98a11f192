"""The protocol as plain text: what ``companion protocol`` prints on a
terminal (its default format) and a club can paste where it publishes
results. The same parts as the HTML page (``page``): the result, the
players with their ends and counts, the votes (revotes labelled), the best
move, the course of the game night by night and day by day, the deal."""

from __future__ import annotations

from collections.abc import Sequence

from .model import Protocol
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


def to_text(protocol: Protocol) -> str:
    return "\n".join(text_lines(protocol)) + "\n"


def text_lines(protocol: Protocol) -> list[str]:
    w = words_of(protocol)
    head = f"{w['title']}: {protocol.title}"
    sub = f"{len(protocol.seats)} {w['seats']}" + (f" · {protocol.date}" if protocol.date else "")
    lines = [head, sub, result_text(protocol), ""]
    lines += _heading(w["players"])
    seat_rows = [
        (
            str(s.seat),
            s.name,
            role_text(s, w, protocol),
            s.team_name,
            end_text(s, w),
            count_text(s, w),
        )
        for s in protocol.seats
    ]
    columns = (w["seat"], w["name"], w["role"], w["team"], w["end"], count_head(protocol))
    lines += _table(columns, seat_rows)
    marked = [(s.seat, marks_text(s, w)) for s in protocol.seats]
    if any(marks for _, marks in marked):
        lines += ["", *_heading(w["offences"])]
        lines += [f"{seat}: {marks}" for seat, marks in marked if marks]
    votes = vote_rows(protocol)
    if votes:
        lines += ["", *_heading(w["votes"])]
        columns = (w["day_head"], w["vote_kind"], w["nominee"], w["name"], w["for"], w["voters"])
        rows = [
            (
                str(v.day),
                v.kind,
                v.nominee,
                v.name,
                "" if v.votes is None else str(v.votes),
                v.voters,
            )
            for v in votes
        ]
        lines += _table(columns, rows)
    for entry in best_moves(protocol):
        lines += ["", entry.text]
    lines += ["", *_heading(w["course"])]
    lines += _course(protocol)
    lines += ["", *_heading(w["deal"])]
    lines += _deal(protocol, w)
    if protocol.source:
        lines += ["", w["from"].format(source=protocol.source)]
    return lines


def _heading(title: str) -> list[str]:
    return [title, "─" * len(title)]


def _table(columns: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """Columns padded to their widest cell; the last one is not padded."""
    widths = [max(len(row[i]) for row in (columns, *rows)) for i in range(len(columns))]

    def line(cells: Sequence[str]) -> str:
        padded = [cell.ljust(width) for cell, width in zip(cells[:-1], widths, strict=False)]
        return "  ".join((*padded, cells[-1])).rstrip()

    return [line(columns), *(line(row) for row in rows)]


def _course(protocol: Protocol) -> list[str]:
    out: list[str] = []
    for title, entries in course(protocol):
        out += ["", title, *(f"  {entry.text}" for entry in entries)]
    return out[1:]


def _deal(protocol: Protocol, w: dict[str, str]) -> list[str]:
    deal = protocol.deal
    if not deal.dealt:
        return [w["given"]]
    lines = [f"{w['commitment']}: {deal.commitment}", f"{w['seed']}: {deal.seed}"]
    if deal.players is not None:
        lines.append(f"{w['players_value']}: {deal.players}")
    if deal.order:
        lines.append(f"{w['order']}: {order_text(protocol)}")
    by_hand, by_file = check_commands(protocol)
    lines.append(f"{w['check']}: {w['check_text'].format(hashed=deal.hashed)}")
    lines += [f"  {by_hand}", w["check_file"], f"  {by_file}"]
    return lines
