"""Voting: one window per nominee, «Спасибо», «Принято», ties, revote, all-leave.

A vote is a hand on the table: a seat button pressed inside the window. The
window closes with «Спасибо» (timer ``vote`` or the host); hands stay down
until the count and «Принято» (timer ``count`` or the host). Voters who
have not voted by the last nominee are counted for that nominee.

A ballot ends in the sports table's transition table: ``day_over`` (no
vote, or all stay), ``voted_out`` (last words, then the night) or ``tie``
(the tied speak again).
"""

from __future__ import annotations

from ..effects import Ignored
from ..state import Out, evolve
from ..step import Step
from . import rights
from .state import Ballot, BallotKind, Turn, table, with_seat, without_seat

ALL = 0  # the all-leave ballot's single candidate


def start(t: Step) -> None:
    """After the day's speeches: vote on the nominees, if there is a vote."""
    game = t.game
    nominees = table(game).nominees
    if not game.rules.voting.removed_nominee_stays:
        nominees = tuple(n for n in nominees if game.seat(n).out is None)
    if not nominees:
        t.record("no_vote", reason="no_nominees")
        t.say("no_nominees")
        t.ended("night_falls")
        return
    if len(nominees) == 1 and game.day == 1 and game.rules.voting.day1_single_nominee_no_vote:
        t.record("no_vote", reason="day1_single_nominee", nominee=nominees[0])
        t.say("single_nominee_no_vote", seat=nominees[0])
        t.ended("night_falls")
        return
    t.say("voting_begins", nominees=",".join(map(str, nominees)))
    _open_ballot(t, "vote", nominees)


def start_revote(t: Step) -> None:
    nominees = table(t.game).nominees
    t.say("revote_begins", nominees=",".join(map(str, nominees)))
    _open_ballot(t, "revote", nominees)


def _open_ballot(
    t: Step, kind: BallotKind, candidates: tuple[int, ...], tied: tuple[int, ...] = ()
) -> None:
    empty: tuple[tuple[int, ...], ...] = tuple(() for _ in candidates)
    t.set(phase="voting")
    t.set_state(ballot=Ballot(kind, candidates, 0, False, empty, tied))
    _open_candidate(t)


def _eligible(t: Step) -> frozenset[int]:
    game = t.game
    return frozenset(s.number for s in game.seats if rights.may_vote(game, s))


def _open_candidate(t: Step) -> None:
    ballot = table(t.game).ballot
    assert ballot is not None
    candidate = ballot.candidates[ballot.index]
    if ballot.kind != "all_leave" and ballot.index == len(ballot.candidates) - 1:
        # Whoever has not voted is counted for the last nominee.
        voted = {n for votes in ballot.votes[: ballot.index] for n in votes}
        rest = tuple(sorted(_eligible(t) - voted))
        _set_votes(t, rest)
        t.record("votes", nominee=candidate, votes=len(rest), voters=sorted(rest), rest=True)
        t.say("rest_votes", seat=candidate, votes=len(rest))
        _resolve(t)
        return
    if ballot.kind == "all_leave":
        t.say("all_leave_question", seats=",".join(map(str, ballot.tied)))
    else:
        t.say("vote_question", seat=candidate)
    if not table(t.game).host_closes_votes:  # else the host's «Спасибо» closes it
        t.start_timer("vote", t.game.rules.timings.vote_window_s)


def _set_votes(t: Step, voters: tuple[int, ...]) -> None:
    ballot = table(t.game).ballot
    assert ballot is not None
    t.set_state(ballot=_with_votes(ballot, voters))


def _with_votes(ballot: Ballot, voters: tuple[int, ...]) -> Ballot:
    """The ballot with ``voters`` as the current candidate's."""
    votes = list(ballot.votes)
    votes[ballot.index] = voters
    return evolve(ballot, {"votes": tuple(votes)})


def pressed(t: Step, number: int) -> None:
    """A hand on the table. ``Ignored`` exactly when it changes nothing: a hand
    that is no vote and costs nothing is not even held (its release is then
    ignored too)."""
    game = t.game
    state = table(game)
    ballot = state.ballot
    assert ballot is not None
    if ballot.counting:
        t.effects.append(Ignored(f"seat {number} pressed after «Спасибо»"))
        return
    seat = game.seat(number)
    if not rights.may_vote(game, seat):
        t.effects.append(Ignored(f"seat {number} may not vote"))
        return
    rules = game.rules.voting
    index = ballot.index
    votes = ballot.votes
    second = False  # a loop, not any() over a generator: this runs for every hand
    for i, voters in enumerate(votes):
        if number in voters and i != index:
            second = True
            break
    offence = rules.second_vote_offence
    if (second and not offence) or number in votes[index]:
        t.effects.append(Ignored(f"seat {number} has already voted"))
        return
    held = with_seat(state.held, number)
    if second and offence:  # no vote, but the table proposes the offence (club remarks.6)
        t.set_state(held=held)
        t.propose(number, offence, "voted for a second nominee")
        return
    if ballot.candidates[index] == number and rules.self_vote_offence:
        t.propose(number, rules.self_vote_offence, "voted for themself")
    # the hand held and its vote counted in one change of the table's state
    t.set_state(held=held, ballot=_with_votes(ballot, with_seat(votes[index], number)))


def released(t: Step, number: int) -> None:
    state = table(t.game)
    ballot = state.ballot
    assert ballot is not None
    if number not in state.held:
        t.effects.append(Ignored(f"seat {number} released with nothing held"))
        return
    t.set_state(held=without_seat(state.held, number))
    if ballot.index >= len(ballot.votes) or number not in ballot.votes[ballot.index]:
        return  # a hand lifted after its count (or one that was not a vote)
    rules = t.game.rules.voting
    if not ballot.counting:
        if rules.release_before_thanks == "withdraw":
            _set_votes(t, without_seat(ballot.votes[ballot.index], number))
        elif rules.release_before_thanks_offence:
            t.propose(number, rules.release_before_thanks_offence, "hand lifted before «Спасибо»")
    elif rules.release_before_accepted_offence:
        t.propose(number, rules.release_before_accepted_offence, "hand lifted before «Принято»")


def advance(t: Step) -> None:
    """«Спасибо» when the window is open, «Принято» when counting."""
    ballot = table(t.game).ballot
    assert ballot is not None
    if not ballot.counting:
        t.cancel_timers("vote")
        t.set_state(ballot=evolve(ballot, {"counting": True}))
        t.say("thanks", urgent=True)
        t.start_timer("count", t.game.rules.timings.count_s)
        return
    t.cancel_timers("count")
    voters = ballot.votes[ballot.index]
    candidate = ballot.candidates[ballot.index]
    t.record("votes", nominee=candidate, votes=len(voters), voters=sorted(voters))
    t.say("votes_accepted", votes=len(voters))
    t.set_state(ballot=evolve(ballot, {"index": ballot.index + 1, "counting": False}))
    if ballot.index + 1 < len(ballot.candidates):
        _open_candidate(t)
    else:
        _resolve(t)


def _resolve(t: Step) -> None:
    game = t.game
    ballot = table(game).ballot
    assert ballot is not None
    timings = game.rules.timings
    if ballot.kind == "all_leave":
        yes = len(ballot.votes[0])
        alive = sum(1 for s in game.seats if s.out is None)
        if yes * 2 > alive:  # a strict majority of the table
            t.say("all_leave_accepted", votes=yes)
            _send_out(t, ballot.tied, timings.multi_leave_last_word_s)
        else:
            t.record("all_stay", votes=yes)
            t.say("all_leave_rejected", votes=yes)
            t.ended("day_over")
        return
    counts = [len(v) for v in ballot.votes]
    top = max(counts)
    leaders = tuple(c for c, n in zip(ballot.candidates, counts, strict=True) if n == top)
    if len(leaders) == 1:
        _send_out(t, leaders, timings.last_word_s)
    elif ballot.kind == "revote" and set(leaders) == set(ballot.candidates):
        # The same tie again: ask whether all of them leave.
        _open_ballot(t, "all_leave", (ALL,), tied=leaders)
    else:
        t.record("tie", seats=list(leaders))
        t.say("tie", seats=",".join(map(str, leaders)))
        t.set_state(nominees=leaders)
        t.ended("tie", tuple(Turn(n, "tie_speech") for n in leaders))


def _send_out(t: Step, seats: tuple[int, ...], last_word_s: float) -> None:
    game = t.game
    turns: list[Turn] = []
    for number in seats:
        seat = game.seat(number)
        if seat.out is not None:  # tournament 5.1: a removed nominee is still voted on
            t.record("voted_already_out", seat=number)
            continue
        t.update_seat(number, out=Out("voted", game.day, last_word_s))
        t.record("out", seat=number, how="voted", last_word_s=last_word_s)
        t.say("voted_out", seat=number)
        turns.append(Turn(number, "last_word", last_word_s))
    if turns:
        t.ended("voted_out", tuple(turns))
    else:
        t.ended("day_over")


def take_back(t: Step, number: int) -> None:
    """A removed voter's hand leaves the table, and a vote in an open window
    goes with it."""
    state = table(t.game)
    if number in state.held:
        t.set_state(held=without_seat(state.held, number))
    ballot = state.ballot
    open_window = ballot is not None and not ballot.counting and ballot.index < len(ballot.votes)
    if ballot is not None and open_window and number in ballot.votes[ballot.index]:
        votes = ballot.votes
        votes = (
            *votes[: ballot.index],
            without_seat(votes[ballot.index], number),
            *votes[ballot.index + 1 :],
        )
        t.set_state(ballot=evolve(ballot, {"votes": votes}))
