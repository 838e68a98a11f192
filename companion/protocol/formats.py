"""The protocol as JSON and CSV (docs/protocol.md), the HTML page by name
(``render``), and reading the JSON back for ``companion verify-deal``."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..core.rules import Ruleset
from . import deal as fair
from .model import Entry, Protocol
from .page import to_html

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
    "clause",
    "text",
)


class ProtocolFileError(ValueError):
    """A protocol file that cannot be read: one line naming the file and key."""


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
            else {
                "winners": list(result.winners),
                "losers": list(result.losers),
                "reason": result.reason,
                "clause": result.clause,
                "stopped": result.stopped,
                "text": result.text,
            },
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
    }


def _plain(value: object) -> object:
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def json_text(protocol: Protocol) -> str:
    return json.dumps(to_json(protocol), ensure_ascii=False, indent=2) + "\n"


def csv_text(protocol: Protocol) -> str:
    """One table: game, deal, seat and event rows, told apart by ``section``."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, COLUMNS, lineterminator="\r\n")
    writer.writeheader()
    writer.writerows(_csv_rows(protocol))
    return buffer.getvalue()


def _csv_rows(protocol: Protocol) -> Iterator[dict[str, object]]:
    def row(section: str, kind: str, **fields: object) -> dict[str, object]:
        return {"section": section, "kind": kind, **fields}

    yield row("game", "ruleset", text=protocol.ruleset)
    yield row("game", "seats", count=len(protocol.seats))
    if protocol.date:
        yield row("game", "date", text=protocol.date)
    if protocol.source:
        yield row("game", "journal", text=protocol.source)
    result = protocol.result
    if result is not None:
        yield row(
            "game",
            "result",
            team=" ".join(result.winners),
            clause=result.clause or "",
            text=result.stopped or result.reason,
        )
    deal = protocol.deal
    yield row("deal", "dealt", text="yes" if deal.dealt else "no")
    yield row("deal", "seed", text=str(deal.seed))
    yield row("deal", "commitment", text=deal.commitment)
    yield row("deal", "order", text=" ".join(deal.order))
    if deal.players is not None:
        yield row("deal", "players", text=deal.players)
    for s in protocol.seats:
        yield row(
            "seat",
            s.out_how or "alive",
            day=s.out_day if s.out_day is not None else "",
            seat=s.seat,
            name=s.name,
            role=s.role,
            team=s.team,
            count=s.fouls,
            clause=" ".join(o.clause for o in s.offences),
            text="; ".join(o.text for o in s.offences),
        )
    for e in protocol.entries:
        yield row(
            "event",
            e.kind,
            day=e.day,
            period=e.period,
            seat=e.seat if e.seat is not None else "",
            name=protocol.name(e.seat),
            target=e.target if e.target is not None else "",
            seats=" ".join(map(str, e.seats)),
            count=e.count if e.count is not None else "",
            clause=e.clause or "",
            text=e.text,
        )


def render(protocol: Protocol, fmt: str) -> str:
    if fmt == "json":
        return json_text(protocol)
    if fmt == "csv":
        return csv_text(protocol)
    if fmt == "html":
        return to_html(protocol)
    raise ValueError(f"no protocol format {fmt!r} (json, csv, html)")


# --- reading the JSON back (verify-deal) --------------------------------------------


def read_json(path: Path) -> dict[str, Any]:
    """A protocol JSON file, checked enough to verify its deal."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise ProtocolFileError(f"{path}: {error.strerror or error}") from None
    if len(raw) > 16 * 2**20:
        raise ProtocolFileError(f"{path}: {len(raw)} bytes: not a protocol (at most 16 MiB)")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise ProtocolFileError(f"{path}: not UTF-8 text (byte {error.start})") from None
    except json.JSONDecodeError as error:
        raise ProtocolFileError(
            f"{path}:{error.lineno}: not JSON ({error.msg}, column {error.colno})"
        ) from None
    except RecursionError:
        raise ProtocolFileError(f"{path}: not a protocol (nested too deep)") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ProtocolFileError(f"{path}: 'format': not a companion protocol (want {FORMAT!r})")
    return data


def verify_file(
    path: Path, rules_for: Callable[[str], Ruleset | None], noted: str | None = None
) -> fair.Verdict:
    """The deal check of a protocol JSON file (``companion verify-deal``).

    ``rules_for(name)``: the ruleset the protocol names, or None when it is
    not found here; then the deal is checked against the protocol's own
    ``deal.order``, and the verdict says so. ``noted``: the hash the players
    wrote down when it was shown (at least its first 16 hex digits): the
    protocol's commitment must begin with it.
    """
    if noted is not None and not _is_hex_prefix(noted):
        raise ProtocolFileError(f"--shown {noted[:70]!r}: give at least 16 hex digits of the hash")
    data = read_json(path)
    game = _key(path, data, "game", dict)
    ruleset = _key(path, game, "ruleset", str, "game.")
    deal = _key(path, data, "deal", dict)
    seats = _key(path, data, "seats", list)
    roles = []
    for index, seat in enumerate(seats):
        if not isinstance(seat, dict) or not isinstance(seat.get("role"), str):
            raise ProtocolFileError(f"{path}: 'seats[{index}].role': missing or not text")
        dealt = seat.get("dealt_role", seat["role"])  # a forum role changed since the deal
        if not isinstance(dealt, str):
            raise ProtocolFileError(f"{path}: 'seats[{index}].dealt_role': not text")
        roles.append(dealt)
    if _key(path, deal, "dealt", bool, "deal.") is not True:
        return fair.Verdict(
            False, "the host gave the roles at setup (from the cards)", checked=False
        )
    seed = _key(path, deal, "seed", int, "deal.")
    if isinstance(seed, bool) or not 0 <= seed < 2**64:
        raise ProtocolFileError(f"{path}: 'deal.seed': not a seed (0 to 2**64-1): {seed!r}")
    shown = _key(path, deal, "commitment", str, "deal.")
    order = _key(path, deal, "order", list, "deal.")
    if not all(isinstance(role, str) for role in order):
        raise ProtocolFileError(f"{path}: 'deal.order': not a list of role ids")
    players = deal.get("players")
    if players is not None and not isinstance(players, str):
        raise ProtocolFileError(f"{path}: 'deal.players': not text")
    if len(order) != len(roles):
        return fair.Verdict(
            False, f"the deal lists {len(order)} roles for a table of {len(roles)} seats"
        )
    rules = rules_for(ruleset)
    note = ""
    if rules is None:
        note = f" (ruleset {ruleset!r} is not here: checked against the protocol's deal.order)"
    else:
        want = fair.laid_out(rules, len(roles))
        # the forum game's two-sided deal is the other deal a table may use
        other = fair.laid_out(rules, len(roles), ("two_sided",))
        if want != order and (other is None or other != order):
            return fair.Verdict(
                False,
                f"deal.order is not ruleset {ruleset!r}'s deal for {len(roles)} seats "
                f"({' '.join(want) if want else 'it has none'})",
            )
    if noted is not None and not shown.lower().startswith(noted.lower()):
        return fair.Verdict(
            False,
            f"the protocol's commitment {shown[:16]}… is not the hash shown before the deal "
            f"({noted[:16]}…)",
        )
    verdict = fair.verify(seed=seed, shown=shown, order=order, roles=roles, players=players)
    return fair.Verdict(verdict.fair, verdict.why + note)


def _is_hex_prefix(text: str) -> bool:
    return 16 <= len(text) <= 64 and all(c in "0123456789abcdefABCDEF" for c in text)


def _key(path: Path, data: dict[str, Any], key: str, kind: type, prefix: str = "") -> Any:
    value = data.get(key)
    if not isinstance(value, kind):
        shown = "missing" if key not in data else f"not {kind.__name__}: {str(value)[:40]!r}"
        raise ProtocolFileError(f"{path}: '{prefix}{key}': {shown}")
    return value
