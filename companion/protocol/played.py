"""What a protocol says the game played, held against its deal: the second
half of ``companion verify-deal`` (``verify`` does the first: the seed, its
commitment, the ruleset's deal).

The seed deals each seat a role; from there on only the game's own records
change a role (the forum game's ``role_changed``: a convert, a theft, a
demotion). So every field of a protocol that carries a role is known once
the deal is: the setup record's roles, each ``role_changed``'s ``was``, a
seat's ``role``, ``dealt_role``, ``team`` and their names, an ``exempt``
record's role, a private note telling a seat its role, and every event's
``text`` (rendered again from its record and compared). Each is checked;
a field a protocol does not have is refused, so that nothing can carry a
role past the check. What is not checked is the play itself (who voted
whom, what a check answered): a protocol is not its journal.
"""

from __future__ import annotations

from typing import Any

from ..core.procedures import named
from ..core.rules import Ruleset
from ..core.state import Record
from ..core.vocabulary_check import check_record
from . import deal as fair
from .lines import describe
from .names import role_name, team_name

#: the fields of a protocol (formats.to_json); any other is refused
FIELDS: dict[str, frozenset[str]] = {
    "": frozenset({"format", "game", "deal", "seats", "events"}),
    "game": frozenset({"ruleset", "title", "seats", "date", "journal", "lang", "result"}),
    "deal": frozenset({"dealt", "seed", "commitment", "hashed", "order", "players"}),
    "seats": frozenset(
        [
            "seat",
            "name",
            "role",
            "role_name",
            "team",
            "team_name",
            "out",
            "fouls",
            "fouls_total",
            "offences",
            "rating_penalty",
            "excluded",
            "dealt_role",
        ]
    ),
    "events": frozenset(
        [
            "day",
            "period",
            "kind",
            "seat",
            "target",
            "seats",
            "count",
            "clause",
            "text",
            "data",
            "revote",
        ]
    ),
}
#: a private note that tells a seat its role, and the role the ДМ is told
#: instead of its own (roles.mafia_child.4-5)
_YOUR_ROLE = "your_role"
_CHILD, _CHILD_TOLD = "mafia_child", "civilian"


def unfair(reason: str, **args: object) -> fair.Verdict:
    return fair.Verdict(False, reason, tuple(args.items()))


def check(data: dict[str, Any], rules: Ruleset, dealt: list[str], seed: int) -> fair.Verdict | None:
    """Why the protocol ``data`` is not the game its deal began (None: it
    is). ``dealt``: the roles the seed deals, seat 1 first; ``seed``: the
    seed the deal used (mixed with the players' value if there was one).
    The shape of ``data`` (keys and their types) was checked by ``verify``."""
    return (
        _fields(data)
        or _game(data, rules)
        or _setup(data["events"], rules, dealt, seed)
        or _course(data, rules, dealt)
    )


def _fields(data: dict[str, Any]) -> fair.Verdict | None:
    for part, allowed in FIELDS.items():
        if part == "":
            items = [("", data)]
        elif isinstance(data[part], list):
            items = [(f"{part}[{i}].", item) for i, item in enumerate(data[part])]
        else:
            items = [(f"{part}.", data[part])]
        for where, item in items:
            for key in item:
                if key not in allowed:
                    return unfair("field", key=f"{where}{key}")
    return None


def _game(data: dict[str, Any], rules: Ruleset) -> fair.Verdict | None:
    game, deal, seats = data["game"], data["deal"], data["seats"]
    hashed = deal.get("hashed")
    if hashed is not None and hashed != fair.seed_text(deal["seed"])[:-1]:
        return unfair("hashed", got=str(hashed), seed=deal["seed"])
    if game.get("title", rules.title) != rules.title:
        return unfair("title", got=str(game["title"]), ruleset=rules.name)
    if game.get("seats", len(seats)) != len(seats):
        return unfair("seats", got=game["seats"], want=len(seats))
    for index, seat in enumerate(seats):
        if seat.get("seat") != index + 1:
            return unfair("seat_number", index=index, got=seat.get("seat"), want=index + 1)
    return None


def _setup(
    events: list[dict[str, Any]], rules: Ruleset, dealt: list[str], seed: int
) -> fair.Verdict | None:
    """The setup record, the first event, is the deal the game played."""
    setup = events[0]["data"] if events and events[0]["kind"] == "setup" else None
    if setup is None:
        return unfair("no_setup")
    want = {"ruleset": rules.name, "seats": len(dealt), "seed": seed}
    for key, value in want.items():
        if setup.get(key) != value:
            return unfair("setup_field", key=key, got=str(setup.get(key)), want=str(value))
    roles = str(setup.get("roles", "")).split(",")
    if len(roles) != len(dealt):
        return unfair("setup_field", key="roles", got=",".join(roles), want=",".join(dealt))
    for number, (got, wanted) in enumerate(zip(roles, dealt, strict=True), 1):
        if got != wanted:
            return unfair("setup_roles", seat=number, got=got, want=wanted)
    return None


def _course(data: dict[str, Any], rules: Ruleset, dealt: list[str]) -> fair.Verdict | None:
    """Each seat's role and team from the deal through the role changes,
    against every event and the seats' lines."""
    lang = data["game"]["lang"]
    roles = {n: role for n, role in enumerate(dealt, 1)}
    teams = {n: _team_of(rules, role) for n, role in roles.items()}
    held = {n: {role} for n, role in roles.items()}
    records = []
    tied = False
    for index, event in enumerate(data["events"]):
        kind, fields = event["kind"], event["data"]
        why = check_record(kind, fields.items(), len(dealt))
        if why is not None:
            return unfair("record", index=index, why=why)
        record = Record(event["day"], kind, tuple((k, _tuple(v)) for k, v in fields.items()))
        records.append(record)
        if kind in ("day", "night"):
            tied = False
        elif kind == "tie":
            tied = True
        problem = _text(index, event, record, rules, lang, tied) or _roles_in(
            index, kind, fields, rules, roles, teams, held
        )
        if problem is not None:
            return problem
    for index, seat in enumerate(data["seats"]):
        problem = _seat(index + 1, seat, rules, lang, dealt[index], roles, teams)
        if problem is not None:
            return problem
    return None


def _text(
    index: int, event: dict[str, Any], record: Record, rules: Ruleset, lang: str, revote: bool
) -> fair.Verdict | None:
    try:
        want = describe(rules, record, lang, revote=revote)
    except (KeyError, ValueError, TypeError, IndexError) as error:
        return unfair("record", index=index, why=f"{type(error).__name__}: {error}")
    if event["text"] != want:
        return unfair("text", index=index, got=event["text"], want=want)
    return None


def _roles_in(
    index: int,
    kind: str,
    fields: dict[str, Any],
    rules: Ruleset,
    roles: dict[int, str],
    teams: dict[int, str],
    held: dict[int, set[str]],
) -> fair.Verdict | None:
    """A record that carries a role: the role change, the exemption, the
    note telling a seat its role (the setup's is the first event's alone)."""
    if kind == "setup" and index > 0:
        return unfair("record", index=index, why="a second setup")
    if kind == "role_changed":
        seat, was, role, team = fields["seat"], fields["was"], fields["role"], fields["team"]
        if not named(rules.procedure).roles_change:
            return unfair("never_changes", index=index, ruleset=rules.name)
        if was != roles[seat]:
            return unfair("change_from", index=index, seat=seat, got=was, want=roles[seat])
        if not _is_role(rules, role) or not _is_team(rules, team):
            return unfair("unknown_role", index=index, got=f"{role}/{team}", ruleset=rules.name)
        roles[seat], teams[seat] = role, team
        held[seat].add(role)
    elif kind == "exempt" and fields["role"] != roles[fields["seat"]]:
        seat = fields["seat"]
        return unfair("event_role", index=index, seat=seat, got=fields["role"], want=roles[seat])
    elif kind == "private" and fields.get("cue") == _YOUR_ROLE:
        seat, told = fields["to"], fields.get("role")
        may = held[seat] | ({_CHILD_TOLD} if _CHILD in held[seat] else set())
        if told not in may:
            return unfair("told_role", index=index, seat=seat, got=str(told))
    return None


def _seat(
    number: int,
    seat: dict[str, Any],
    rules: Ruleset,
    lang: str,
    dealt: str,
    roles: dict[int, str],
    teams: dict[int, str],
) -> fair.Verdict | None:
    role, team = roles[number], teams[number]
    if seat["role"] != role:
        return unfair("played", seat=number, got=seat["role"], want=role)
    given = seat.get("dealt_role")
    if given is not None and (given != dealt or role == dealt):
        # A dealt_role is written only when the game changed the role.
        return unfair("unchanged", seat=number, got=str(given))
    if seat.get("team", team) != team:
        return unfair("team", seat=number, got=str(seat["team"]), want=team)
    names = (
        ("role_name", role_name(role, lang, rules)),
        ("team_name", team_name(team, lang, rules)),
    )
    for key, name in names:
        if seat.get(key, name) != name:
            return unfair(key, seat=number, got=str(seat[key]), want=name)
    return None


def _team_of(rules: Ruleset, role: str) -> str:
    try:
        return rules.role(role).team
    except KeyError:
        return ""


def _is_role(rules: Ruleset, role: object) -> bool:
    return isinstance(role, str) and _team_of(rules, role) != ""


def _is_team(rules: Ruleset, team: object) -> bool:
    try:
        rules.team(str(team))
    except KeyError:
        return False
    return True


def _tuple(value: object) -> object:
    """A record's lists are tuples in the engine (its texts read them so)."""
    return tuple(_tuple(v) for v in value) if isinstance(value, list) else value
