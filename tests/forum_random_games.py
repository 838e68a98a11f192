"""Random forum games made only of legal inputs, for the property and
secrecy tests (tests/test_forum_properties.py, tests/test_forum_secrecy.py).

A game is drawn from a few values (the seat count, the variant, the options,
the deal's seed, a play seed); every choice inside it comes from a
``random.Random`` of its own, so a failing example replays exactly. The
player knows the rules as docs/forum-rules-catalogue.md states them and
posts only what a cabinet may post: the role's own action on a living
target, never himself unless the role may (amb.54), never the same target
twice running (roles.doctor.3, roles.lawyer.4, roles.bouncer.5), the Tin
Man's one block (roles.tin_woodman.2), his guns (roles.tin_woodman.5), one
basement per team (roles.mafia.6), the Bomzh's owner's order (roles.tramp.4).
Every living seat votes or is autokilled; some forget, some vote for
themselves (forbid.8), some post late (deadline.vote.2).

Each accepted input goes through ``Driver.take``, which runs the observers
the tests give (each sees the game before, the input, the game after and the
effects); an input the engine refuses fails the game at once, since the
player meant it to be legal.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from hypothesis import strategies as st

from companion.config.rulesets import load_ruleset
from companion.core import engine
from companion.core.effects import Effect
from companion.core.events import (
    Event,
    GameSetUp,
    OffenceGiven,
    ProposalDismissed,
    WinDeclared,
)
from companion.core.forum.events import DeadlinePassed, ForumChoiceMade, ForumVoted
from companion.core.forum.outcome import faction, parity
from companion.core.forum.rules import the_forum_rules
from companion.core.forum.state import MM_TEAMS, last_target, state
from companion.core.rules import Ruleset
from companion.core.state import Game, Record, Seat

RULES: Ruleset = load_ruleset("forum")
START = "2026-12-01"

#: options beside the variant (FORUM_OPTIONS)
EXTRA_OPTIONS = ("no_basements", "multi_child")
#: host offences of each cost the forum ruleset has (sanction.2, sanction.7)
OFFENCES = ("role_reveal", "provocation", "role_reveal_autokill")

Observer = Callable[[Game, Event, Game, tuple[Effect, ...]], None]
#: (seats, two-sided, options, deal seed, extra roles): ``setup_for``'s arguments
Table = tuple[int, bool, tuple[str, ...], int, tuple[str, ...]]


@st.composite
def tables(draw: st.DrawFn) -> Table:
    """A table of 20-26: both variants, any options, the engine's deal or
    the deal with a Bomzh (and a second Kamikaze) put in; 26 seats: the 25
    deal with a Zombie beside it (roles.zombie.2), and maybe a Bomzh or a
    second Sniper (balance.26.2)."""
    seats = draw(st.integers(20, 26))
    two_sided = draw(st.booleans())
    options = tuple(o for o in EXTRA_OPTIONS if draw(st.booleans()))
    if seats == 26:
        extras: tuple[str, ...] = ("zombie", *draw(st.sampled_from([(), ("tramp",), ("sniper",)])))
    else:
        extras = draw(st.sampled_from([(), (), ("tramp",), ("tramp", "kamikaze")]))
    return seats, two_sided, options, draw(st.integers(0, 2**32)), extras


def deal(seats: int, two_sided: bool) -> list[str]:
    """The ruleset's deal for ``seats`` (20-25; 26: the 25 deal), one role
    per seat, unshuffled."""
    table = dict(the_forum_rules(RULES).two_sided_deals) if two_sided else dict(RULES.deals)
    return [role for role, n in table[min(seats, 25)] for _ in range(n)]


def setup_for(
    seats: int, two_sided: bool, options: tuple[str, ...], seed: int, extras: tuple[str, ...]
) -> GameSetUp:
    """A table of ``seats``: the engine's deal, or (with ``extras``) the
    deal with those roles in place of plain civilians and, for 26 seats,
    beside it (balance.26.1-2: the 25 deal, a Zombie, a second Sniper or
    Kamikaze, a Bomzh); shuffled by ``seed``."""
    opts = (("two_sided",) if two_sided else ()) + options
    if seats <= 25 and not extras:
        return GameSetUp(RULES, seats, seed=seed, start=START, options=opts)
    roles = deal(seats, two_sided)
    for extra in extras:
        if len(roles) < seats:
            roles.append(extra)
        else:
            roles[roles.index("civilian")] = extra
    while len(roles) < seats:
        roles.append("civilian")
    random.Random(seed).shuffle(roles)
    return GameSetUp(RULES, seats, roles=tuple(roles), seed=seed, start=START, options=opts)


def new_records(before: Game | None, after: Game) -> list[Record]:
    """The protocol records ``after`` added to ``before``'s, oldest first."""
    stop = before.log if before is not None else None
    out = []
    entry = after.log
    while entry is not None and entry is not stop:
        out.append(entry)
        entry = entry.prev
    out.reverse()
    return out


def living(game: Game) -> list[Seat]:
    return [seat for seat in game.seats if seat.out is None]


def dead(game: Game) -> list[Seat]:
    return [seat for seat in game.seats if seat.out is not None]


@dataclass
class Driver:
    """Plays one game by its rules; ``take`` is the one door to the engine."""

    setup: GameSetUp
    play_seed: int
    observers: list[Observer] = field(default_factory=list)
    #: the accepted inputs, in order (the setup not included)
    inputs: list[Event] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.play_seed)
        self.game, self.first_effects = engine.new_game(self.setup)
        #: how often the player did each kind of thing
        self.seen: dict[str, int] = {}

    # --- the engine ----------------------------------------------------------
    def take(self, event: Event) -> tuple[Effect, ...]:
        before = self.game
        try:
            after, effects = engine.step(before, event)
        except engine.IllegalInput as error:
            raise AssertionError(f"a legal input was refused: {event!r}: {error}") from error
        self.game = after
        self.inputs.append(event)
        for observe in self.observers:
            observe(before, event, after, effects)
        return effects

    @property
    def ended(self) -> bool:
        return self.game.phase == "ended"

    def window(self) -> str:
        s = state(self.game)
        return s.open[0] if s.open else ""

    def deadline(self, name: str) -> str:
        return dict(state(self.game).deadlines)[name]

    def stamp(self, name: str) -> str:
        """A post's time: mostly none (entered live), sometimes in time,
        rarely at the deadline itself (late: deadline.*.2)."""
        roll = self.rng.random()
        if roll < 0.8:
            return ""
        if roll < 0.97:
            return self.deadline(name)[:-8] + "12:00:00"  # before every deadline
        return self.deadline(name)

    # --- whole game days -------------------------------------------------------
    def play(self, days: int) -> None:
        while not self.ended and self.game.day <= days:
            self.step_window()

    def step_window(self) -> None:
        """Post what the open window takes, then pass its deadline."""
        window = self.window()
        self.posts(window)
        if self.ended:
            return
        self.host()
        if self.ended:
            return
        if window == "day_choices" and self.rng.random() < 0.5:
            # the votes come in before 13:00 too; the vote's deadline closes
            # the day choices with it
            self.votes()
            if self.ended:
                return
            window = "vote"
        self.take(DeadlinePassed(window))

    def posts(self, window: str) -> None:
        if window == "day_choices":
            self.day_choices()
        elif window == "vote":
            self.votes()
        else:
            self.night()

    # --- posts -------------------------------------------------------------------
    def targets(self, seat: Seat, self_target: bool, not_twice: bool) -> list[int]:
        """The living seats ``seat`` may name now."""
        game = self.game
        last, when = last_target(state(game), seat.number)
        out = []
        for other in living(game):
            if other.number == seat.number and not self_target:
                continue
            if not_twice and other.number == last and when == game.day - 1:
                continue
            out.append(other.number)
        return out

    def post(self, seat: int, action: str, target: int, gun: str = "", window: str = "") -> None:
        self.take(ForumChoiceMade(seat, action, target, self.stamp(window), gun))
        self.seen[action] = self.seen.get(action, 0) + 1

    def day_choices(self) -> None:
        rules = the_forum_rules(self.game.rules)
        assert rules is not None
        for seat in living(self.game):
            role = rules.role(seat.role)
            if role.acts != "day" or self.rng.random() > 0.85:
                continue
            for _ in range(self.rng.choice((1, 1, 2))):  # a later post replaces (amb.33)
                targets = self.targets(seat, role.self_target, role.not_twice_running)
                if targets:
                    self.post(seat.number, role.action, self.rng.choice(targets), "", "day_choices")
        tramps = {b for b, _ in state(self.game).tramp_owner}
        for _tramp, owner in state(self.game).tramp_owner:  # roles.tramp.4
            speakers = [
                x.number
                for x in living(self.game)
                if (str(x.number) == owner if owner.isdigit() else x.team == owner)
            ]
            if speakers and self.rng.random() < 0.8:
                # not for a Bomzh himself (amb.29 f: refused)
                choices = [x.number for x in living(self.game) if x.number not in tramps]
                self.post(
                    self.rng.choice(speakers), "order", self.rng.choice(choices), "", "day_choices"
                )

    def votes(self) -> None:
        game = self.game
        everyone = [x.number for x in game.seats]
        for seat in living(game):
            roll = self.rng.random()
            if roll < 0.03:
                continue  # forgot: autokill (deadline.autokill.2)
            if roll < 0.04:
                target = seat.number  # forbid.8
            elif roll < 0.07:
                target = self.rng.choice([0, *everyone])  # amb.36: nobody, or a dead nick
            else:
                others = [x.number for x in living(game) if x.number != seat.number]
                target = self.rng.choice(others) if others else 0
            self.take(ForumVoted(seat.number, target, self.stamp("vote")))
            roll = self.rng.random()
            if roll < 0.05:  # vote.3: an edit while the site allows
                others = [x.number for x in living(game) if x.number != seat.number]
                if others:
                    self.take(ForumVoted(seat.number, self.rng.choice(others), "", edit=True))
            elif roll < 0.07:  # vote.2: a second post does not count
                self.take(ForumVoted(seat.number, self.rng.choice(everyone), ""))

    def night(self) -> None:
        rules = the_forum_rules(self.game.rules)
        assert rules is not None
        s = state(self.game)
        for seat in living(self.game):
            role = rules.role(seat.role)
            acts = role.acts
            if acts == "night" or (acts == "first_night" and not s.vampire_done):
                if self.rng.random() < 0.85:
                    targets = self.targets(seat, role.self_target, role.not_twice_running)
                    if targets:
                        self.post(seat.number, role.action, self.rng.choice(targets), "", "night")
            elif acts == "once" and seat.number not in s.block_used:
                if self.rng.random() < 0.3:
                    targets = self.targets(seat, False, False)
                    if targets:
                        self.post(seat.number, "block", self.rng.choice(targets), "", "night")
            elif acts == "team" and self.rng.random() < 0.6:
                targets = self.targets(seat, True, False)
                outside = [n for n in targets if self.game.seat(n).team != seat.team]
                pick = outside if outside and self.rng.random() < 0.9 else targets
                self.post(seat.number, "shoot", self.rng.choice(pick), "", "night")
            if (
                seat.team in MM_TEAMS
                and "no_basements" not in s.options
                and seat.team not in s.basement_used
                and self.rng.random() < 0.08
            ):
                members = [x.number for x in living(self.game) if x.team == seat.team]
                self.post(seat.number, "hide", self.rng.choice(members), "", "night")
            for tin_man, gun in s.guns:  # roles.tin_woodman.5, .11-12
                if tin_man == seat.number and self.rng.random() < 0.8:
                    targets = self.targets(seat, False, False)
                    if targets:
                        self.post(seat.number, "fire", self.rng.choice(targets), gun, "night")
            if self.rng.random() < 0.02:  # a choice withdrawn (target 0)
                action = "shoot" if acts == "team" else role.action
                if action != "none" and acts not in ("never", "day"):
                    self.post(seat.number, action, 0, "", "night")

    # --- the host ----------------------------------------------------------------
    def host(self) -> None:
        """Now and then the host: a confirmed or dismissed proposal, an
        offence, a win he may declare (end.two.3, end.three.4)."""
        game = self.game
        if game.proposals and self.rng.random() < 0.5:
            proposal = game.proposals[0]
            if game.seat(proposal.seat).out is None and self.rng.random() < 0.5:
                self.take(OffenceGiven(proposal.seat, proposal.offence))
                self.seen["sanctioned"] = self.seen.get("sanctioned", 0) + 1
            else:
                self.take(ProposalDismissed(0))
        if self.ended:
            return
        if self.rng.random() < 0.04:
            seat = self.rng.choice(living(self.game))
            self.take(OffenceGiven(seat.number, self.rng.choice(OFFENCES)))
            self.seen["offence"] = self.seen.get("offence", 0) + 1
        if self.ended:
            return
        alive = {faction(x) for x in living(self.game)}
        if parity(self.game) and self.rng.random() < 0.5:
            self.take(WinDeclared(("mafia",)))
            self.seen["declared"] = self.seen.get("declared", 0) + 1
        elif alive == set(MM_TEAMS) and self.rng.random() < 0.5:
            self.take(WinDeclared(MM_TEAMS))
            self.seen["declared"] = self.seen.get("declared", 0) + 1
