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
from . import procedures
from .game_log import records
from .lines import describe as describe_record
from .lines import texts
from .names import clause_text, offence_text, role_name, team_name
from .templates import TEMPLATES

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
    clause_text: str = ""  # the clause in words (``names.clause_text``)


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
    #: the ladder's count (remarks, fouls) as it stood when the seat left the
    #: table, or at the end for a seat still there (club remarks are cancelled
    #: after each night, so the end's count would be 0 for most)
    fouls: int
    offences: tuple[SeatOffence, ...]  # every offence still standing, in order
    rating_penalty: int
    excluded: bool
    #: the role dealt, when the game changed it (the forum game's converts,
    #: thefts and demotions); "" when it is ``role``
    dealt_role: str = ""
    #: every count given over the game, less those cancelled (resets aside)
    fouls_total: int = 0


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
    revote: bool = False  # a vote of the revote after the day's tie
    clause_text: str = ""  # ``clause`` in words (``names.clause_text``)


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
    #: what the ruleset's ladder counts: "remark", "foul" (``SeatLine.fouls``)
    unit: str = ""
    #: the role names, for the deal laid out in words
    role_names: tuple[tuple[str, str], ...] = ()

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
    if lang not in TEMPLATES:
        raise ValueError(f"no protocol language {lang!r} (ru, en)")
    rules = game.rules
    role_names = {role.id: role_name(role.id, lang, rules) for role in rules.roles}
    team_names = {team.id: team_name(team.id, lang, rules) for team in rules.teams}
    dealt_roles = _dealt_roles(game)
    counts = seat_counts(game)
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
            fouls=counts[seat.number][0],
            offences=tuple(_seat_offence(game, key, lang) for key in seat.offences),
            rating_penalty=seat.rating_penalty,
            excluded=seat.excluded,
            dealt_role=""
            if dealt_roles[seat.number - 1] == seat.role
            else dealt_roles[seat.number - 1],
            fouls_total=counts[seat.number][1],
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
        unit=rules.ladder.unit,
        role_names=tuple(role_names.items()),
    )


def _seat_offence(game: Game, key: str, lang: str) -> SeatOffence:
    try:
        clause = game.rules.offence(key).clause
    except KeyError:
        clause = ""
    text = offence_text(key, lang, game.rules)
    return SeatOffence(key, clause, text, clause_text(clause, lang, game.rules))


def seat_counts(game: Game) -> dict[int, tuple[int, int]]:
    """Each seat's ladder count as it stood when it left the table (or at
    the end), and the counts given over the game, read off the log: an
    offence that costs a count adds one, its cancellation takes it back, a
    night's reset (club) zeroes the seats still at the table."""
    now = dict.fromkeys(range(1, len(game.seats) + 1), 0)
    total = dict(now)
    left: set[int] = set()
    for record in records(game):
        data = dict(record.data)
        seat = data.get("seat")
        if record.kind in ("offence", "offence_cancelled") and isinstance(seat, int):
            try:
                counted = game.rules.offence(str(data["offence"])).cost == "count"
            except KeyError:
                counted = False
            if counted and seat in now:
                step = 1 if record.kind == "offence" else -1
                now[seat] = max(0, now[seat] + step)
                total[seat] = max(0, total[seat] + step)
        elif record.kind == "out" and isinstance(seat, int):
            left.add(seat)
        elif record.kind == "counts_reset":
            now = {n: count if n in left else 0 for n, count in now.items()}
    return {n: (now[n], total[n]) for n in now}


def _entries(game: Game, lang: str) -> list[Entry]:
    period: Period = "setup"
    out = []
    log = records(game)
    lines = texts(game.rules, log, lang)
    periods = procedures.of(game.rules).periods  # a procedure's own announcements
    tied = False
    for record, text in zip(log, lines, strict=True):
        if record.kind in ("night", "day"):
            period = "night" if record.kind == "night" else "day"
            tied = False
        elif record.kind == "public" and dict(record.data).get("cue") in periods:
            period = "night" if periods[str(dict(record.data)["cue"])] == "night" else "day"
        tied = tied or record.kind == "tie"
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
                text=text,
                data=record.data,
                revote=tied and record.kind == "votes" and data.get("nominee") != 0,
                clause_text=clause_text(str(data.get("clause") or ""), lang, game.rules),
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
    """One record as the text protocol words it, without the day prefix (a
    vote alone: ``lines.texts`` knows a revote by the tie before it)."""
    return describe_record(game.rules, record, lang)
