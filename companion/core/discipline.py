"""Offences and the ladder: what the host gives and what it costs, and when.

The catalogue, the costs and the ladder are ruleset data; this module only
applies them. Each branch names the ruleset field it reads.
"""

from __future__ import annotations

from . import outcome
from .rules import LadderStep, Offence
from .state import Out
from .step import IllegalInput, Step, living, require, seat_in_range


def find_offence(t: Step, key: str) -> Offence:
    try:
        return t.game.rules.offence(key)
    except KeyError:
        raise IllegalInput(f"no offence {key!r} in ruleset {t.game.rules.name!r}") from None


def give(t: Step, number: int, key: str) -> None:
    game = t.game
    require(game.phase not in ("setup", "ended"), f"no offences can be given in phase {game.phase}")
    offence = find_offence(t, key)
    seat = seat_in_range(game, number)
    speaking = t.procedure.speaking(game) == number  # a last word
    if seat.out is not None and not speaking:
        require(
            offence.while_out,
            f"seat {number} is out of the game; offence {offence.id!r} applies to players at the table",
        )
    # The host's offence settles a matching proposal from the table; a
    # microphone's flag that could not tell the seat (0) is settled by it too.
    left = [p for p in game.proposals if (p.seat, p.offence) != (number, offence.id)]
    if len(left) == len(game.proposals):
        unknown = [i for i, p in enumerate(left) if (p.seat, p.offence) == (0, offence.id)]
        if unknown:
            del left[unknown[0]]
    t.set(proposals=tuple(left))
    exempt = seat.role in offence.exempt_roles  # club: the Maniac exception
    t.update_seat(
        number,
        offences=(*seat.offences, offence.id),
        excluded=seat.excluded or offence.excluded,
        rating_penalty=seat.rating_penalty + (0 if exempt else offence.rating_penalty),
    )
    t.record("offence", seat=number, offence=offence.id, clause=offence.clause)

    cost = offence.cost
    if cost == "warning":
        t.say("warning", seat=number)
    elif cost == "count":
        _add_count(t, number)
    elif cost == "removal":
        if offence.team_loss_when_alive == len(living(t.game)):  # tournament 4.8.4
            outcome.team_loss(t, (seat.team,), "team_loss", offence.team_loss_clause)
        else:
            remove(t, number, offence.clause)
    elif cost == "removal_at_morning":  # the procedure's morning carries it out
        t.procedure.leave_at_morning(t, number, True)
        t.say("leaves_at_morning", seat=number)
    elif cost in t.procedure.costs:  # the procedure's own (the forum's demotion)
        t.procedure.sanction(t, number, cost)
    elif cost == "team_loss":
        if exempt:
            t.record("exempt", seat=number, role=seat.role, offence=offence.id)
            if seat.out is None:
                remove(t, number, offence.clause, cue=offence.exempt_cue)
            elif offence.exempt_cue:
                t.say(offence.exempt_cue, seat=number)
        else:
            losers = offence.teams_lose or (seat.team,)
            outcome.team_loss(t, losers, "team_loss", offence.clause)


#: the seat field that holds each right's loss (``LadderStep.loses``); a
#: lost speech is kept by the procedure with its speeches (``lose_speech``)
_RIGHT_FIELDS = {"nomination": "no_nomination_day", "vote": "no_vote_day"}


def cancel(t: Step, number: int, key: str) -> None:
    """Take back the seat's latest offence ``key``: its count and the rights
    the ladder took for it come back. A removal (or a team's loss) is taken
    back only by an undo: a seat that has left stays out."""
    game = t.game
    require(
        game.phase not in ("setup", "ended"), f"no offences can be cancelled in phase {game.phase}"
    )
    offence = find_offence(t, key)
    seat = seat_in_range(game, number)
    require(offence.id in seat.offences, f"seat {number} has no offence {offence.id!r} to cancel")
    require(seat.out is None, f"seat {number} has left the table: only an undo brings them back")
    require(
        offence.cost in ("warning", "count", "removal_at_morning"),
        f"offence {offence.id!r} costs {offence.cost}: only an undo takes it back",
    )
    at = len(seat.offences) - 1 - seat.offences[::-1].index(offence.id)
    left = seat.offences[:at] + seat.offences[at + 1 :]
    exempt = seat.role in offence.exempt_roles
    changes: dict[str, object] = {
        "offences": left,
        "excluded": any(game.rules.offence(o).excluded for o in left),
        "rating_penalty": seat.rating_penalty - (0 if exempt else offence.rating_penalty),
    }
    given_back: list[str] = []
    if offence.cost == "count":
        count = seat.count - 1
        changes["count"] = count
        steps = game.rules.ladder.steps
        kept = {right for s in steps if s.at <= count for right in s.loses}
        for ladder_step in steps:
            if count < ladder_step.at <= seat.count:
                for right in ladder_step.loses:
                    if right not in kept:
                        given_back.append(right)
    for back in given_back:
        if back in _RIGHT_FIELDS:
            changes[_RIGHT_FIELDS[back]] = 0
    t.update_seat(number, **changes)
    if "speech" in given_back:
        t.procedure.lose_speech(t, number, 0)
    if offence.cost == "removal_at_morning":
        leaves = any(game.rules.offence(o).cost == "removal_at_morning" for o in left)
        t.procedure.leave_at_morning(t, number, leaves)
    t.record("offence_cancelled", seat=number, offence=offence.id, clause=offence.clause)
    t.say("offence_cancelled", seat=number)


def _add_count(t: Step, number: int) -> None:
    count = t.seat(number).count + 1
    t.update_seat(number, count=count)
    t.say("offence_counted", seat=number, count=count, unit=t.game.rules.ladder.unit)
    for ladder_step in t.game.rules.ladder.steps:
        if ladder_step.at == count:
            _climb(t, number, ladder_step)


def _climb(t: Step, number: int, ladder_step: LadderStep) -> None:
    t.record("ladder", seat=number, at=ladder_step.at, clause=ladder_step.clause)
    if ladder_step.removal:
        if ladder_step.team_loss_when_alive == len(living(t.game)):  # tournament 4.8.4
            outcome.team_loss(t, (t.seat(number).team,), "team_loss", ladder_step.team_loss_clause)
        else:
            remove(t, number, ladder_step.clause, reason="count")
        return
    bites_on = _bite_day(t, number, ladder_step)
    changes: dict[str, int] = {}
    if "speech" in ladder_step.loses:
        t.procedure.lose_speech(t, number, bites_on)
    if "nomination" in ladder_step.loses:
        changes["no_nomination_day"] = bites_on
    if "vote" in ladder_step.loses:
        changes["no_vote_day"] = bites_on
    t.update_seat(number, **changes)
    when = "today" if bites_on == t.game.day else "next_day"
    t.say("loses_rights", seat=number, loss="_".join((*ladder_step.loses, when)))


def _bite_day(t: Step, number: int, ladder_step: LadderStep) -> int:
    game = t.game
    # Tournament 4.4: this round if the seat's own speech is still ahead
    # (the procedure knows its speeches).
    if ladder_step.bites == "this_round_or_next" and t.procedure.speech_ahead(game, number):
        return game.day
    return game.day + 1


def _say_removed(t: Step, number: int, cue: str | None, reason: str) -> None:
    if cue:
        t.say(cue, seat=number)
    else:
        t.say("removed", seat=number, reason=reason)


def remove(
    t: Step, number: int, clause: str, cue: str | None = None, reason: str = "offence"
) -> None:
    """The seat leaves the table now, without a last word. ``reason``: an
    "offence" given, or the ladder's "count"."""
    game = t.game
    if game.seat(number).out is not None:
        # Only a seat speaking its own last word gets here once out: the removal
        # cuts the word short, and how and when the seat left stands.
        _say_removed(t, number, cue, reason)
        t.procedure.removed_speaker(t, number)
        return
    t.update_seat(number, out=Out("removed", game.day, 0))
    t.procedure.leave_at_morning(t, number, False)
    t.record("out", seat=number, how="removed", clause=clause)
    _say_removed(t, number, cue, reason)
    t.procedure.seat_removed(t, number)
    if outcome.check(t):
        return
    t.procedure.removed_speaker(t, number)
