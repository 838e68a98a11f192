"""The sports table's night actions: one resolver per action, by name.

A ruleset's night step names its action (``NightStep.action``); at morning
the night hands each step's choices to that action's resolver, in the order
the ruleset gives (``Ruleset.night_resolution``). A resolver writes what it
decides into the night's ``Night``: who is blocked, shot, killed, healed.
A new action is a new resolver here and a name in the ruleset loader's list,
not a branch in the night.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..rules import NightStep
from ..step import Step

#: (seat, target) for each choice of one step
Picks = list[tuple[int, int]]


@dataclass(slots=True)
class Night:
    """What the night's resolvers have decided so far (one morning only)."""

    blocked: set[int] = field(default_factory=set)
    kills: list[int] = field(default_factory=list)  # in resolution order
    healed: set[int] = field(default_factory=set)


Resolver = Callable[[Step, NightStep, Picks, Night], None]


def _unblocked(picks: Picks, night: Night) -> Picks:
    """A blocked seat's own choice has no effect."""
    return [(seat, target) for seat, target in picks if seat not in night.blocked]


def _block(t: Step, step: NightStep, picks: Picks, night: Night) -> None:
    night.blocked.update(target for _, target in picks)


def _shoot(t: Step, step: NightStep, picks: Picks, night: Night) -> None:
    """A team shot counts only if every living shooter picked the same seat."""
    game = t.game
    shooters = [s.number for s in game.seats if s.out is None and s.role in step.roles]
    mine = _unblocked(picks, night)
    targets = {target for _, target in mine}
    shot_by = {seat for seat, _ in mine}
    if shooters and shot_by.issuperset(shooters) and len(targets) == 1:
        night.kills.append(targets.pop())
    else:
        # Said even when no shooter is left alive: silence at morning
        # would tell the table that the shooting team is gone.
        t.record("miss", step=step.id)
        t.say("miss")


def _kill(t: Step, step: NightStep, picks: Picks, night: Night) -> None:
    night.kills.extend(target for _, target in _unblocked(picks, night))


def _heal(t: Step, step: NightStep, picks: Picks, night: Night) -> None:
    night.healed.update(target for _, target in _unblocked(picks, night))


def _nothing(t: Step, step: NightStep, picks: Picks, night: Night) -> None:
    """A check is answered when it is made; a wake-up step takes no choice."""


RESOLVERS: dict[str, Resolver] = {
    "none": _nothing,
    "shoot": _shoot,
    "kill": _kill,
    "check": _nothing,
    "heal": _heal,
    "block": _block,
}
