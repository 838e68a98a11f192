"""The forum game's day vote, counted at its deadline (docs/forum-rules-catalogue.md 4.2).

Pure: ``count`` reads the ballots and the day roles' choices and returns
who leaves and why; the procedure writes it into the game.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class DayChoices:
    protected: int = 0  # the Lawyer's (roles.lawyer.3)
    annulled: int = 0  # the Bouncer's (roles.bouncer.3)
    #: Bomzh -> the seat his vote goes to by his owner's order (roles.tramp.4)
    ordered: tuple[tuple[int, int], ...] = ()


@dataclass(slots=True)
class Count:
    tally: dict[int, int] = field(default_factory=dict)
    out: int = 0  # who leaves by the vote; 0: nobody (vote.6)
    autokilled: list[int] = field(default_factory=list)  # in seat order
    self_voters: list[int] = field(default_factory=list)  # forbid.8
    clause: str = ""


def count(voters: list[int], ballots: dict[int, int], choices: DayChoices) -> Count:
    """``voters``: the living seats at the close; ``ballots``: voter ->
    target (0: a post naming nobody, amb.36)."""
    result = Count()
    ordered = dict(choices.ordered)
    for voter in voters:
        if voter not in ballots:
            result.autokilled.append(voter)  # deadline.autokill.2, duty.1
            continue
        target = ballots[voter]
        if target == voter:
            result.self_voters.append(voter)  # forbid.8: not counted, autokill
            result.autokilled.append(voter)
            continue
        if voter == choices.annulled:
            continue  # roles.bouncer.3
        target = ordered.get(voter, target)  # roles.tramp.4 (amb.29 g)
        if target in voters:
            result.tally[target] = result.tally.get(target, 0) + 1
    ranked = {seat: n for seat, n in result.tally.items() if seat != choices.protected}
    if not ranked:
        result.clause = "vote.6"
        return result
    top = max(ranked.values())
    leaders = [seat for seat, n in ranked.items() if n == top]
    if len(leaders) == 1:
        result.out = leaders[0]
        protected_led = result.tally.get(choices.protected, 0) >= top and choices.protected
        result.clause = "vote.7" if protected_led else "vote.5"
    else:
        result.clause = "vote.6"  # «с учетом выбора ролевых»: after the Lawyer (amb.7)
    return result


def tally_text(tally: dict[int, int]) -> str:
    """«5:4,3:2»: seat and votes, most votes first (the results post)."""
    items = sorted(tally.items(), key=lambda kv: (-kv[1], kv[0]))
    return ",".join(f"{seat}:{n}" for seat, n in items)
