"""Each protocol record as one line of words, Russian by default or English.

The templates (``TEMPLATES``) lay out a record's fields once those fields
are words: seats lists as «1, 4, 8», seconds with at most one decimal,
ids (roles, teams, night steps, offences, clauses, reasons, timers, record
kinds) as the ruleset's or this module's words (``names``, the forum's
``forum_text``). ``texts`` words a whole log, where a vote after a tie is a
revote («переголосование»).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..core.rules import Ruleset
from ..core.state import Record
from . import procedures
from .names import clause_text, offence_text, role_name, step_name, team_name, teams_text
from .templates import FLAG_WORDS, KIND_WORDS, TEMPLATES, TIMER_WORDS

#: fields that hold a clause id, by the kinds whose templates show them
_CLAUSE_KINDS = frozenset(
    {"offence", "offence_cancelled", "ladder", "late", "second_vote", "skip", "lost_move", "block"}
)


def seats_text(value: object, lang: str) -> str:
    """Seat numbers (a list, or "1,4,8") as «1, 4, 8»; none as «никто»."""
    if isinstance(value, list | tuple):
        seats = [str(v) for v in value]
    else:
        seats = [part.strip() for part in str(value).split(",") if part.strip()]
    return ", ".join(seats) or TEMPLATES[lang]["nobody"]


def seconds_text(value: object, lang: str) -> str:
    """Seconds with at most one decimal: 11.4864 → «11,5» (Russian) / "11.5"."""
    try:
        seconds = round(float(str(value)), 1)
    except ValueError:
        return str(value)
    text = f"{seconds:g}" if seconds.is_integer() else f"{seconds:.1f}"
    return text.replace(".", ",") if lang == "ru" else text


def signed_seconds(value: object, lang: str) -> str:
    text = seconds_text(value, lang)
    return text if text.startswith("-") else "+" + text


def kinds_text(kinds: object, lang: str) -> str:
    """Record kinds (comma-separated) as words, each once: «голоса ×2, уход»."""
    names = [KIND_WORDS[lang].get(k, k) for k in str(kinds).split(",") if k]
    counted: dict[str, int] = {}
    for name in names:
        counted[name] = counted.get(name, 0) + 1
    return ", ".join(name if n == 1 else f"{name} ×{n}" for name, n in counted.items())


def timers_text(left: object, lang: str) -> str:
    """A pause's timers, "turn=42.5,warning=32.5": «речь — 42,5 с, …»."""
    words = TEMPLATES[lang]
    shown = []
    for part in str(left).split(","):
        name, _, seconds = part.partition("=")
        if not name:
            continue
        timer = TIMER_WORDS[lang].get(name, name)
        shown.append(words["timer_left"].format(timer=timer, seconds=seconds_text(seconds, lang)))
    return ", ".join(shown) or words["nothing"]


def flag_fields(kind: object, seat: object, lang: str, words: object = "") -> tuple[str, str]:
    """A flag's kind in words (with the words heard, for a forbidden phrase)
    and its seat (``?``: not known), for a line."""
    named = FLAG_WORDS[lang].get(str(kind), str(kind))
    return (f"{named} «{words}»" if words else named), str(seat or "?")


def texts(rules: Ruleset, records: Iterable[Record], lang: str) -> list[str]:
    """Every record's line, in order; a vote after the day's tie is a revote."""
    out = []
    tied = False
    for record in records:
        if record.kind in ("day", "night"):
            tied = False
        elif record.kind == "tie":
            tied = True
        out.append(describe(rules, record, lang, revote=tied))
    return out


def describe(rules: Ruleset, record: Record, lang: str, *, revote: bool = False) -> str:
    """One record's line (without the day). ``revote``: a vote is a revote."""
    words = TEMPLATES[lang]
    data = dict(record.data)
    kind = record.kind
    procedures.of(rules).record_fields(kind, data, lang, rules)
    if kind in _CLAUSE_KINDS or kind == "out":
        data["clause"] = clause_text(str(data.get("clause") or ""), lang, rules)
    if kind == "setup":
        data["ruleset"] = rules.title if lang == "ru" else rules.name
    elif kind == "out":
        data["how"] = words.get(str(data["how"]), data["how"])
        if data["clause"]:
            data["how"] = f"{data['how']} ({data['clause']})"
    elif kind == "check":
        data["answer"] = words.get(str(data["answer"]), data["answer"])
    elif kind == "result":
        for key in ("winners", "losers"):
            data[key] = teams_text(data[key], lang, rules, words["nobody"])
        data["reason"] = words.get("reason." + str(data["reason"]), data["reason"])
    elif kind == "exempt":
        data["role"] = role_name(str(data["role"]), lang, rules)
    elif kind in ("night_choice", "miss"):
        data["step"] = step_name(str(data["step"]), lang, rules)
    elif kind == "surrender":
        data["team"] = team_name(str(data["team"]), lang, rules)
    elif kind == "speech_flagged":
        heard = data.get("words", "")
        data["kind"], data["seat"] = flag_fields(data["kind"], data["seat"], lang, heard)
        data["confidence"] = f"{round(float(str(data['confidence'])) * 100)} %"
    elif kind in ("offence", "offence_cancelled", "proposal_dismissed", "exempt"):
        data["offence"] = offence_text(str(data["offence"]), lang, rules)
        if kind == "proposal_dismissed" and not data.get("seat"):
            kind = "proposal_dismissed_unknown"  # a microphone's flag: whose, nobody knew
    elif kind in ("votes", "tie", "all_stay"):
        for key in ("voters", "seats"):
            if key in data:
                data[key] = seats_text(data[key], lang)
    elif kind == "best_move":
        data["suspects"] = seats_text(data["suspects"], lang)
    elif kind == "no_vote":
        reason = words.get("no_vote." + str(data["reason"]), str(data["reason"]))
        if data.get("nominee"):
            reason += words["no_vote_nominee"].format(nominee=data["nominee"])
        data["reason"] = reason
    elif kind == "undone":
        data["records"] = kinds_text(data["records"], lang)
        kind = "undone" if data["records"] else "undone_nothing"
        if data.get("left"):  # the timers the undo brought back, paused
            data["left"] = timers_text(data["left"], lang)
            kind += "_paused"
    elif kind == "paused":
        data["left"] = timers_text(data["left"], lang)
    elif kind == "time_added":
        data["seconds"] = signed_seconds(data["seconds"], lang)
        data["left"] = seconds_text(data["left"], lang)
    if kind == "votes":
        if data.get("nominee") == 0:  # voting.ALL: the all-leave vote
            kind = "all_leave_votes"
        elif data.get("rest"):
            kind = "rest_votes"
        if revote and kind != "all_leave_votes":
            kind = "re" + kind
    template = words.get(kind)
    try:
        return template.format(**data) if template else _fallback(record, lang)
    except (KeyError, IndexError, ValueError):  # a record newer than its template
        return _fallback(record, lang)


def _fallback(record: Record, lang: str) -> str:
    """A record with no line of its own: its kind in words, and nothing raw."""
    return KIND_WORDS[lang].get(record.kind, TEMPLATES[lang]["other"])
