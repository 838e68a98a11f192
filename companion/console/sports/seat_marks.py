"""What a seat is doing now, as the marks on its card: speaking, nominated,
a hand on the table, tonight's choices. Pure functions of the state.

Each mark shows only while it is true at the table: a nomination until its
vote is over, a hand until its vote is counted («Принято»), a night choice
until morning; a seat out of the game shows none but its own last word.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...core.sports.state import TableState, current_turn, table_or_blank
from ...core.state import Game, Seat
from ..words import Words


@dataclass(frozen=True, slots=True)
class Marks:
    """A card's marks as (mark, word) pairs, and the card's classes."""

    shown: tuple[tuple[str, str], ...]
    classes: tuple[str, ...]


def nominees_stand(game: Game) -> bool:
    """The day's nominations still matter: the speeches before the vote,
    the tie speeches, the vote itself (not the last words after it, nor the
    night)."""
    state = table_or_blank(game)
    if game.phase == "voting":
        return True
    return game.phase == "speeches" and state.after in ("vote", "revote")


def hands_up(game: Game) -> tuple[int, ...]:
    """The hands on the table that count now: the voters of the window
    open or being counted; none once «Принято» has counted them."""
    state = table_or_blank(game)
    ballot = state.ballot
    if game.phase != "voting" or ballot is None or ballot.index >= len(ballot.votes):
        return ()
    return ballot.votes[ballot.index]


def seat_marks(game: Game, seat: Seat, words: Words) -> Marks:
    state = table_or_blank(game)
    shown: list[tuple[str, str]] = []
    classes: list[str] = []
    turn = current_turn(game)
    if (
        turn is not None
        and turn.seat == seat.number
        and (seat.out is None or turn.kind == "last_word")
    ):
        shown.append(("▶", words("last_word" if turn.kind == "last_word" else "speaking")))
        classes.append("-speaking")
    if seat.out is None and seat.number in state.nominees and nominees_stand(game):
        shown.append(("★", words("nominated")))
        classes.append("-nominated")
    if seat.out is None and seat.number in hands_up(game):
        shown.append((words("hand_mark"), words("hand")))
        classes.append("-held")
    if game.phase == "night":
        shown += _night_marks(game, state, seat.number, words)
    return Marks(tuple(shown), tuple(classes))


def _night_marks(game: Game, state: TableState, number: int, words: Words) -> list[tuple[str, str]]:
    """Tonight's choices on the chooser's card («выстрел → 5») and on the
    target's («← выстрел»), until morning."""
    actions = {step.id: step.action for step in state.tonight}
    marks: list[tuple[str, str]] = []
    aimed: list[str] = []
    for step_id, seat, target in state.choices:
        action = actions.get(step_id, "")
        if seat == number:
            marks.append(("→", words("choice." + action, target=target)))
        if target == number:
            word = words("aimed." + action)
            if word not in aimed:
                aimed.append(word)
    marks += [("←", word) for word in aimed]
    return marks


def choice_lines(before: Game | None, after: Game, words: Words) -> list[tuple[str, bool]]:
    """The log's lines for the night choices an input added: one the table
    may see (the step), one only while the roles are shown (who and whom)."""
    if after.phase != "night":
        return []
    state = table_or_blank(after)
    old = (
        set(table_or_blank(before).choices)
        if before is not None and before.phase == "night"
        else set()
    )
    names = {step.id: step.name or step.id for step in state.tonight}
    lines: list[tuple[str, bool]] = []
    told: set[str] = set()
    for step_id, seat, target in state.choices:
        if (step_id, seat, target) in old:
            continue
        step = names.get(step_id, step_id)
        if step_id not in told:  # once: how many chose is not the table's to count
            told.add(step_id)
            lines.append((words("choice_taken", step=step), False))
        lines.append((words("choice_line", step=step, seat=seat, target=target), True))
    return lines
