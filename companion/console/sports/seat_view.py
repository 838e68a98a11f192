"""What the table screen shows of the game: a seat's card, the phase line,
the big timer's value. Pure functions of a ``Game`` (and the clock), so the
screen only puts their results on widgets."""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from rich.text import Text

from ...core import views
from ...core.sports.state import current_turn, table_or_blank, table_seat
from ...core.state import Game, Seat
from ...protocol.names import clause_text, offence_text
from ...runner.clock import Deadlines
from ..fit import ellipsis, first_fit, short_name
from ..words import Words
from .seat_marks import seat_marks

#: the timer that runs the current phase (the core's timer names)
PHASE_TIMER = {"speeches": "turn", "night": "night"}


@dataclass(frozen=True, slots=True)
class SeatLook:
    text: Text
    classes: tuple[str, ...]


def seat_look(
    game: Game, seat: Seat, words: Words, show_roles: bool, width: int | None = None
) -> SeatLook:
    """A seat's card: number and name, role (when revealed) or how it left,
    the offence count against the ladder, the rights lost, what it is doing.
    ``width``: the card's width in cells (None: no limit); what does not
    fit is said shorter (a role's first word, the marks without their
    words, a name cut with «…»), never cut mid-word without an ellipsis."""
    room = width or 1_000
    text = Text()
    number = f"{seat.number}"
    text.append(number, style="bold")
    if seat.name:
        gap = "  " if len(number) + 2 + cell_len(seat.name) <= room else " "
        text.append(gap + ellipsis(seat.name, room - len(number) - len(gap)))
    text.append("\n")
    role = ""
    if show_roles:
        name = next((r.name for r in game.rules.roles if r.id == seat.role), seat.role)
        role = name if words.lang == "ru" else seat.role
        role = first_fit([role, short_name(role)], room)
        text.append(role, style="italic")
    gone = ""
    if seat.out is not None:
        how = words("out." + seat.out.how)
        gone = first_fit([f"{how} ({seat.out.day})", how], room)
        if not role or cell_len(role) + 2 + cell_len(gone) <= room:
            text.append(("  " if role else "") + gone)
            gone = ""  # else on the line of marks, which a seat out has none of
    unit = "●" * seat.count + "○" * max(0, _removal_at(game) - 1 - seat.count)
    lost = " ".join(words("lost." + right) for right in _rights_lost(game, seat))
    beside = [f"{unit}  {lost}", f"{unit} {lost}"]
    if lost and not role and min(map(cell_len, beside)) > room:
        # A narrow card: the rights lost on the role's line, free while hidden.
        text.append(ellipsis(lost, room) + "\n" + (unit or " ") + "\n")
    else:
        text.append("\n" + (first_fit(beside, room) if lost else unit or " ") + "\n")
    doing = seat_marks(game, seat, words)
    flags = doing.shown
    text.append(gone or first_fit(_marks_ways(flags), room))
    classes = ["seat", _fouls_class(game, seat)]
    if seat.out is not None:
        classes.append("-out")
    classes += doing.classes
    return SeatLook(text, tuple(classes))


def _marks_ways(flags: tuple[tuple[str, str], ...]) -> list[str]:
    """The marks line said ever shorter for a narrow card: with their words;
    then the words only where they hold a seat's number (a night choice's
    target); then the marks alone."""
    said = [f"{mark} {word}" for mark, word in flags]
    numbered = [
        f"{mark} {word}" if any(c.isdigit() for c in word) else mark for mark, word in flags
    ]
    marks = [mark for mark, _ in flags]
    return ["  ".join(said), " ".join(said), " ".join(numbered), " ".join(marks)]


#: the number key of seats 10-12 (sports/screen.py's SEAT_KEYS); 1-9 are their own
KEY_SHOWN = {10: "0", 11: "-", 12: "="}


def seat_key(number: int) -> str:
    return KEY_SHOWN.get(number, str(number))


def silent_seats(table: object) -> frozenset[int]:
    """The seats whose real button the table does not listen to (the last
    self-test found it silent: ``TableSpec.silent_seats``); none when the
    seats are simulated (the keys are every seat's button then)."""
    if getattr(table, "simulated_seats", None) is not None:
        return frozenset()
    return frozenset(getattr(getattr(table, "spec", None), "silent_seats", ()))


def keyed(look: SeatLook, number: int, words: Words) -> SeatLook:
    """A card whose button is not listened to: the key that stands in for it
    on the flags line, and the class that draws its border."""
    text = look.text.copy()
    flags = text.plain.rsplit("\n", 1)[-1]
    text.append(("  " if flags else "") + "⌨ " + words("silent_key", key_name=seat_key(number)))
    return SeatLook(text, (*look.classes, "-silent"))


def silent_line(seats: list[int], words: Words) -> str:
    """The log's line for the seats whose keys stand in for their buttons."""
    keys = ", ".join(seat_key(n) for n in seats)
    if len(seats) == 1:
        return words("silent_seat", seat=seats[0], key_name=keys)
    return words("silent_seats", seats=", ".join(map(str, seats)), keys=keys)


def _removal_at(game: Game) -> int:
    """The count at which the ladder removes a seat (the dots drawn)."""
    steps = [s.at for s in game.rules.ladder.steps if s.removal]
    return min(steps) if steps else 4


def _fouls_class(game: Game, seat: Seat) -> str:
    """Colours by the ladder: none, some, rights lost, one short of removal."""
    if seat.count == 0:
        return "fouls-none"
    removal = _removal_at(game)
    if seat.count >= removal - 1:
        return "fouls-last"
    if any(s.at <= seat.count and s.loses for s in game.rules.ladder.steps):
        return "fouls-loss"
    return "fouls-some"


def _rights_lost(game: Game, seat: Seat) -> list[str]:
    if seat.out is not None:
        return []
    day = max(game.day, 1)
    lost = []
    if table_seat(game, seat.number).silenced_day >= day:
        lost.append("speech")
    if seat.no_nomination_day >= day:
        lost.append("nomination")
    if seat.no_vote_day >= day:
        lost.append("vote")
    return lost


def offence_name(game: Game, offence_id: str, words: Words) -> str:
    """``п. 4.6.4 Отрыв руки ...``, ``замечания, п. 3 Крики ...``: where the
    rules say it and the ruleset's words (Russian), or the clause and the id
    (English), whole (the proposals and the log wrap them)."""
    try:
        offence = game.rules.offence(offence_id)
    except KeyError:
        return offence_text(offence_id, words.lang, game.rules)
    if words.lang != "ru":
        return f"{offence.clause} {offence.id}"
    return f"{clause_text(offence.clause, 'ru', game.rules)} {offence.text}"


def phase_line(game: Game, words: Words) -> str:
    name = views.phase_name(game)
    state = table_or_blank(game)
    turn = current_turn(game)
    ballot = state.ballot
    if name in ("speech", "last_word", "tie_speech") and turn is not None:
        return words("phase." + name, day=game.day, seat=turn.seat)
    if name in ("vote", "count") and ballot is not None:
        return words("phase." + name, seat=ballot.candidates[ballot.index])
    if name.startswith("all_leave") and ballot is not None:
        return words("phase." + name, seats=", ".join(map(str, ballot.tied)))
    if name == "night":
        line = words("phase.night", day=game.day)
        if state.night_step < len(state.tonight):
            step = state.tonight[state.night_step]
            line += " — " + (step.name or step.id)
        return line
    return words("phase." + name, day=game.day)


def votes_line(game: Game, words: Words) -> str:
    ballot = table_or_blank(game).ballot
    if ballot is None:
        return ""
    counts = []
    for index, candidate in enumerate(ballot.candidates):
        if index < len(ballot.votes):
            who = "∀" if candidate == 0 else str(candidate)
            counts.append(f"{who}: {len(ballot.votes[index])}")
    return words("votes", votes=", ".join(counts))


def timer_value(game: Game, deadlines: Deadlines, now: float) -> tuple[str, str]:
    """The big timer's text (``m:ss``) and its state: "", "warning",
    "overrun" or "paused"."""
    name = PHASE_TIMER.get(game.phase)
    state = table_or_blank(game)
    if game.phase == "voting" and state.ballot is not None:
        name = "count" if state.ballot.counting else "vote"
    paused = dict(game.paused)
    if name is not None and name in paused:
        return _clock(paused[name]), "paused"
    if state.turn_over and game.phase == "speeches":
        return _clock(0), "overrun"
    running = deadlines.get(name or "")
    if running is None and name == "vote" and state.host_closes_votes:
        return "", ""  # the window waits for the host's «Спасибо»: no time runs
    if running is None:
        return "-:--", ""
    left = max(0.0, running[0] - now)
    look = "warning" if game.phase == "speeches" and state.turn_warned else ""
    return _clock(left), look


def _clock(seconds: float) -> str:
    whole = int(seconds + 0.999)  # 59.2 s left shows 1:00 until it is 59 s
    return f"{whole // 60}:{whole % 60:02d}"
