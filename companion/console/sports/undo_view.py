"""What an undo took back, in the host's words: «Отменено: голосование за
игрока 8 — 6 рук. Снова: Голосование: за игрока 8 (пауза)».

Read off the states before and after the undo: the protocol records the
undone input had added (a nomination, a count, a removal ...), or, for an
input that records nothing (a hand on the table, a button let go), what
changed in the ballot; then where the table stands again. A night choice
names seats, so that line is shown only while the roles are (the log's
secret lines), and the line the table may see says only «ночной выбор».
"""

from __future__ import annotations

from ...core.state import Game, Record
from ...protocol.report import records
from ..words import Words
from .seat_marks import hands_up
from .seat_view import phase_line

#: records that go with another one (a check goes with its night choice)
_QUIET = frozenset({"undone", "check", "ladder", "public", "private", "night_clauses"})
#: what the host is shown of an undo, at most
MAX_ITEMS = 3


def undo_line(before: Game, after: Game, words: Words) -> tuple[str, str | None]:
    """(the line for anyone, the line with the night's seats or None)."""
    taken = _taken_back(before, after)
    public: list[str] = []
    secret: list[str] = []
    for record in taken:
        if record.kind in _QUIET:
            continue
        said = _record_words(record, words)
        if record.kind == "night_choice":
            public.append(words("undo.night_choice_public"))
            secret.append(said)
        else:
            public.append(said)
            secret.append(said)
    if not public:
        public = secret = _state_words(before, after, words)
    where = phase_line(after, words)
    if after.paused:
        where = words("undo.where_paused", where=where)
    line = words("undo.line", what=_listed(public, words), where=where)
    private = words("undo.line", what=_listed(secret, words), where=where)
    return line, (private if private != line else None)


def _taken_back(before: Game, after: Game) -> list[Record]:
    """The records of the input the undo took back: after its own
    ``undone`` record only the microphone's flags it proposed again
    (``Undone.past_flags``), and the record names how many it took."""
    now = records(after)
    at = max((k for k, record in enumerate(now) if record.kind == "undone"), default=len(now) - 1)
    kinds = str(dict(now[at].data).get("records", ""))
    return records(before)[at : at + len(kinds.split(",")) if kinds else at]


def _listed(items: list[str], words: Words) -> str:
    unique = list(dict.fromkeys(items))
    if not unique:
        return words("undo.input")
    shown = "; ".join(unique[:MAX_ITEMS])
    return shown + ("; …" if len(unique) > MAX_ITEMS else "")


def _record_words(record: Record, words: Words) -> str:
    data = dict(record.data)
    kind = record.kind
    if kind == "votes":
        votes = int(str(data.get("votes", 0)))
        if data.get("nominee") == 0:
            return words("undo.all_leave_votes", votes=votes, hands=hands(votes, words))
        return words("undo.votes", seat=data.get("nominee"), votes=votes, hands=hands(votes, words))
    if kind == "time_added":
        return words("undo.time_added", seconds=f"{float(str(data.get('seconds', 0))):+g}")
    key = "undo." + kind
    template = words(key)
    if template == key:  # a record kind with no words of its own
        return words("undo.record")
    try:
        return words(key, **data)
    except (KeyError, IndexError, ValueError):
        return template


def _state_words(before: Game, after: Game, words: Words) -> list[str]:
    """An input that left no record: a hand put down or lifted, or the
    table moved on by a timer or the host."""
    down = [n for n in hands_up(before) if n not in hands_up(after)]
    lifted = [n for n in hands_up(after) if n not in hands_up(before)]
    said = [words("undo.hand", seat=n) for n in down]
    said += [words("undo.hand_lifted", seat=n) for n in lifted]
    if not said and phase_line(before, words) != phase_line(after, words):
        said.append(words("undo.moved_on", where=phase_line(before, words)))
    return said


def hands(count: int, words: Words) -> str:
    """«рука», «руки», «рук» as Russian counts them."""
    if words.lang != "ru":
        return words("undo.hand_one" if count == 1 else "undo.hand_many")
    if count % 10 == 1 and count % 100 != 11:
        return words("undo.hand_one")
    if 2 <= count % 10 <= 4 and not 12 <= count % 100 <= 14:
        return words("undo.hand_few")
    return words("undo.hand_many")
