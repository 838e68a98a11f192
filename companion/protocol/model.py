"""The game protocol as plain values: built once from a finished (or stopped)
``Game``, then written as JSON, CSV or HTML (``formats``).

What it holds: the table (ruleset, seats, names, roles), every record of the
game's log in order (offences with their clauses, nominations, every vote,
kills, checks, the best move, the result) with its text in one language, and
the deal (seed, commitment, the deal it was dealt from: ``deal``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..core.state import Game, Record
from . import deal as fair
from .forum_text import forum_fields
from .report import _TEMPLATES, _offence_text, records

Period = Literal["setup", "night", "day"]

#: record fields that name one seat the record is about, in the order tried
_SEAT_KEYS = ("seat", "by")
_TARGET_KEYS = ("target", "nominee")
_SEATS_KEYS = ("voters", "seats", "suspects")
_COUNT_KEYS = ("votes", "black", "at")


@dataclass(frozen=True, slots=True)
class SeatOffence:
    offence: str  # the ruleset's id
    clause: str
    text: str  # the ruleset's wording (Russian) or the id (English)


@dataclass(frozen=True, slots=True)
class SeatLine:
    seat: int
    name: str
    role: str
    role_name: str
    team: str
    team_name: str
    out_how: str | None  # killed / voted / removed; None: at the table at the end
    out_day: int | None
    fouls: int  # the count the ladder read at the end (club remarks reset each night)
    offences: tuple[SeatOffence, ...]  # every offence still standing, in order
    rating_penalty: int
    excluded: bool
    #: the role dealt, when the game changed it (the forum game's converts,
    #: thefts and demotions); "" when it is ``role``
    dealt_role: str = ""


@dataclass(frozen=True, slots=True)
class Entry:
    """One record of the game's log."""

    day: int
    period: Period
    kind: str  # the record kind: nomination, votes, out, offence, check ...
    seat: int | None
    target: int | None
    seats: tuple[int, ...]  # voters, tied seats, best-move suspects
    count: int | None  # votes, black seats in a best move, ladder step
    clause: str | None
    text: str  # the protocol line in the protocol's language
    data: tuple[tuple[str, object], ...]  # the record's own fields


@dataclass(frozen=True, slots=True)
class Outcome:
    winners: tuple[str, ...]
    losers: tuple[str, ...]
    reason: str
    clause: str | None
    stopped: str | None  # the host's reason when the game was stopped early
    text: str


@dataclass(frozen=True, slots=True)
class Deal:
    dealt: bool  # False: the host gave the roles at setup (nothing to prove)
    seed: int  # the seed the host committed to (the deal's, unless players mixed in)
    commitment: str  # sha256 hex of deal.seed_text(seed)
    hashed: str  # that text, without its newline
    order: tuple[str, ...]  # the ruleset's deal laid out before the shuffle
    players: str | None = None  # the players' value mixed into the seed, if any


@dataclass(frozen=True, slots=True)
class Protocol:
    lang: str
    ruleset: str
    title: str
    date: str | None  # when the game was played (ISO 8601), when known
    source: str | None  # the journal it was made from, when known
    seats: tuple[SeatLine, ...]
    entries: tuple[Entry, ...]
    result: Outcome | None
    deal: Deal
    team_names: tuple[tuple[str, str], ...]

    def name(self, seat: int | None) -> str:
        if seat is None or not 1 <= seat <= len(self.seats):
            return ""
        return self.seats[seat - 1].name


def _dealt_roles(game: Game) -> list[str]:
    """Each seat's role at the deal (the setup record's)."""
    for record in records(game):
        if record.kind == "setup":
            roles = str(dict(record.data)["roles"]).split(",")
            if len(roles) == len(game.seats):
                return roles
    return [seat.role for seat in game.seats]


def build(
    game: Game,
    *,
    dealt: bool,
    lang: str = "ru",
    date: str | None = None,
    source: str | None = None,
    host_seed: int | None = None,
    players: str | None = None,
) -> Protocol:
    """The protocol of ``game``. ``dealt``: the roles came from the seed (the
    setup gave none). When the players gave a value that was mixed into the
    deal (``deal.mixed_seed``), ``host_seed`` is the seed the host committed
    to and ``players`` that value; the game's seed must be their mix."""
    if lang not in _TEMPLATES:
        raise ValueError(f"no protocol language {lang!r} (ru, en)")
    rules = game.rules
    english = lang == "en"
    role_names = {role.id: role.id if english else role.name for role in rules.roles}
    team_names = {team.id: team.id if english else team.name for team in rules.teams}
    dealt_roles = _dealt_roles(game)
    seats = tuple(
        SeatLine(
            seat=seat.number,
            name=seat.name,
            role=seat.role,
            role_name=role_names.get(seat.role, seat.role),
            team=seat.team,
            team_name=team_names.get(seat.team, seat.team),
            out_how=seat.out.how if seat.out else None,
            out_day=seat.out.day if seat.out else None,
            fouls=seat.count,
            offences=tuple(_seat_offence(game, key, lang) for key in seat.offences),
            rating_penalty=seat.rating_penalty,
            excluded=seat.excluded,
            dealt_role=""
            if dealt_roles[seat.number - 1] == seat.role
            else dealt_roles[seat.number - 1],
        )
        for seat in game.seats
    )
    entries = tuple(_entries(game, lang))
    options = getattr(game.procedure_state, "options", ())  # the forum game's deal options
    order = fair.laid_out(rules, len(game.seats), options) or []
    committed = game.seed
    if players is not None:
        if host_seed is None or fair.mixed_seed(host_seed, players) != game.seed:
            raise ValueError("the game's seed is not the host's seed mixed with the players' value")
        committed = host_seed
    text = fair.seed_text(committed)
    return Protocol(
        lang=lang,
        ruleset=rules.name,
        title=rules.title,
        date=date,
        source=source,
        seats=seats,
        entries=entries,
        result=_outcome(game, entries),
        deal=Deal(dealt, committed, fair.commitment(committed), text[:-1], tuple(order), players),
        team_names=tuple(team_names.items()),
    )


def _seat_offence(game: Game, key: str, lang: str) -> SeatOffence:
    try:
        clause = game.rules.offence(key).clause
    except KeyError:
        clause = ""
    return SeatOffence(key, clause, _offence_text(game, key, lang))


def _entries(game: Game, lang: str) -> list[Entry]:
    period: Period = "setup"
    out = []
    for record in records(game):
        if record.kind in ("night", "day"):
            period = "night" if record.kind == "night" else "day"
        data = dict(record.data)
        out.append(
            Entry(
                day=record.day,
                period=period,
                kind=record.kind,
                seat=_first_int(data, _SEAT_KEYS),
                target=_first_int(data, _TARGET_KEYS),
                seats=_first_list(data, _SEATS_KEYS),
                count=_first_int(data, _COUNT_KEYS),
                clause=str(data["clause"]) if data.get("clause") else None,
                text=describe(game, record, lang),
                data=record.data,
            )
        )
    return out


def _first_int(data: dict[str, object], keys: tuple[str, ...]) -> int | None:
    for key in keys:
        value = data.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def _first_list(data: dict[str, object], keys: tuple[str, ...]) -> tuple[int, ...]:
    for key in keys:
        value = data.get(key)
        if isinstance(value, list | tuple):
            return tuple(v for v in value if isinstance(v, int))
    return ()


def _outcome(game: Game, entries: tuple[Entry, ...]) -> Outcome | None:
    result = game.result
    if result is None:
        return None
    stopped = next((e for e in reversed(entries) if e.kind == "stopped"), None)
    text = next((e.text for e in reversed(entries) if e.kind == "result"), "")
    return Outcome(
        winners=result.winners,
        losers=result.losers,
        reason=result.reason,
        clause=result.clause,
        stopped=str(dict(stopped.data).get("reason", "")) if stopped else None,
        text=text,
    )


def describe(game: Game, record: Record, lang: str) -> str:
    """One record as the text protocol words it (companion/protocol/report.py),
    without the day prefix."""
    words = _TEMPLATES[lang]
    rules = game.rules
    english = lang == "en"
    role_names = {role.id: role.name for role in rules.roles}
    team_names = {team.id: team.name for team in rules.teams}
    step_names = {step.id: step.name for step in (*rules.night0, *rules.night)}
    data = dict(record.data)
    kind = record.kind
    forum_fields(kind, data, lang, rules)
    if kind == "out":
        data["how"] = words.get(str(data["how"]), data["how"])
    elif kind == "check":
        data["answer"] = words.get(str(data["answer"]), data["answer"])
    elif kind == "result":
        for key in ("winners", "losers"):
            names = [team_names.get(t, t) for t in str(data[key]).split(",") if t]
            data[key] = ", ".join(names) or words["nobody"]
    elif kind == "exempt" and not english:
        data["role"] = role_names.get(str(data["role"]), data["role"])
    elif kind == "night_choice" and not english:
        data["step"] = step_names.get(str(data["step"]), data["step"])
    elif kind == "surrender":
        data["team"] = team_names.get(str(data["team"]), data["team"])
    elif kind in ("offence", "offence_cancelled"):
        data["offence"] = _offence_text(game, str(data["offence"]), lang)
    if kind == "votes" and data.get("nominee") == 0:  # voting.ALL: the all-leave vote
        kind = "all_leave_votes"
    template = words.get(kind)
    try:
        return template.format(**data) if template else f"{record.kind} {data}"
    except (KeyError, IndexError, ValueError):  # a record newer than its template
        return f"{record.kind} {data}"
