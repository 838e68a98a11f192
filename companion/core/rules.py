"""A ruleset as typed, validated values.

The TOML files in ``rulesets/`` are parsed into these frozen objects by
``companion.core.ruleset_load``; the engine reads nothing else. Every field
that a club may want to change lives here, so the engine holds procedure and
no numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol, get_args

from ..textfiles.toml_table import TomlTable

#: What an offence costs. ``count`` adds to the ladder (a remark in the club
#: text, a foul in the tournament text); the others act at once. These are
#: every procedure's; a procedure may add costs of its own
#: (``Procedure.costs``, paid by its ``sanction``: the forum's demotion).
CoreCost = Literal[
    "warning",  # spoken warning, nothing is counted
    "count",  # one remark / foul on the ladder
    "removal",  # leaves the table now, no last word
    "removal_at_morning",  # leaves without last word when the host announces morning
    "team_loss",  # the offender's team (or `teams_lose`) loses the game
]
CORE_COSTS: tuple[str, ...] = get_args(CoreCost)
#: a core cost, or one of the procedure's own
Cost = str

#: When a ladder consequence bites.
#: ``this_round_or_next``: the discussion of the current day if the seat has
#: not yet spoken in it, else the next day's (tournament 4.4).
#: ``next_day``: the next day's discussion (club text: «в следующем Дневном
#: обсуждении»).
Bites = Literal["this_round_or_next", "next_day"]

#: Rights a ladder step can take away.
Right = Literal["speech", "nomination", "vote"]

#: What a night step lets its roles do.
NightAction = Literal[
    "none",  # wake, look, agree (night 0)
    "shoot",  # team shot: counts only if all living shooters pick the same seat
    "kill",  # a single role's own kill (e.g. a maniac)
    "check",  # a check answered to the host only
    "heal",  # saves the chosen seat from this night's kills
    "block",  # the chosen seat's own night choice has no effect
]

#: The order a night's actions resolve in when a ruleset gives none: a
#: block first, since it voids what the blocked seat does whenever its
#: step comes; then the kills in step order, and heals over them.
DEFAULT_NIGHT_RESOLUTION: tuple[NightAction, ...] = ("block", "shoot", "kill", "heal")

#: The procedure of play a ruleset names: a name in the registry
#: (``companion.core.procedures``): ``sports_table``, the club and
#: tournament texts' timed table; ``forum``, the role game of seed 004.
ProcedureName = str

#: seat count -> role id -> how many (``[deals]``)
Deals = tuple[tuple[int, tuple[tuple[str, int], ...]], ...]

#: How a team wins. ``eliminate``: when no seat of a hostile team is alive.
#: ``parity``: when its living seats are at least all other living seats and
#: no other ``parity`` team is alive.
WinKind = Literal["eliminate", "parity"]


@dataclass(frozen=True, slots=True)
class Team:
    id: str
    name: str  # Russian, as the host says it
    color: str  # "red" / "black" / ...; checks can reveal it
    win: WinKind


@dataclass(frozen=True, slots=True)
class Role:
    id: str
    name: str
    team: str  # a Team.id


@dataclass(frozen=True, slots=True)
class NightStep:
    id: str
    cue: str  # voice cue id spoken when the step begins
    roles: tuple[str, ...]  # Role.ids that wake
    action: NightAction
    seconds: float
    #: for ``check``: what the answer reveals, "role:<id>" or "color:<color>"
    reveals: str | None = None
    #: first night on which the step runs (0 = night zero)
    from_night: int = 1
    #: what the host and the protocol call the step (Russian); defaults to the id
    name: str = ""
    #: voice cue spoken when the step ends («Мафия засыпает»); none if empty
    end_cue: str = ""


@dataclass(frozen=True, slots=True)
class Offence:
    id: str  # stable, snake_case, unique within the ruleset
    clause: str  # where the text says it: "4.6.1", "remarks.3", ...
    text: str  # the Russian wording of the source text
    cost: Cost
    #: tournament: the 3.1.x violations this sanction covers
    violations: tuple[str, ...] = ()
    #: teams that lose when cost is team_loss; empty = the offender's team
    teams_lose: tuple[str, ...] = ()
    #: roles for which a team_loss becomes a plain removal and no rating
    #: penalty applies (club: «правило не распространяется на ... Маньяка»)
    exempt_roles: tuple[str, ...] = ()
    #: cue spoken instead when an exempt role leaves («Наш игровой стол покинул Маньяк»)
    exempt_cue: str | None = None
    #: may be given to a seat that is already out (info leaks after leaving)
    while_out: bool = False
    #: with this many players alive the offence costs the team the game instead
    #: (tournament 4.8.4: leaving the table with four players)
    team_loss_when_alive: int | None = None
    team_loss_clause: str | None = None
    #: rating points the offender loses (club: −10 for leaving on one's own)
    rating_penalty: int = 0
    #: the offender is also excluded from the club (club: deliberate peeking;
    #: tournament 5.3); recorded in the protocol
    excluded: bool = False
    #: further clauses the entry draws on (e.g. "5.3" beside "4.8.2")
    see_also: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class LadderStep:
    at: int  # the count that triggers the step
    clause: str
    loses: tuple[Right, ...] = ()
    bites: Bites = "next_day"
    removal: bool = False  # leaves the table without a last word
    team_loss_when_alive: int | None = None  # tournament 4.8.4
    team_loss_clause: str | None = None


@dataclass(frozen=True, slots=True)
class Ladder:
    unit: str  # "remark" / "foul": the word the text uses
    steps: tuple[LadderStep, ...]
    reset_after_night: bool  # club: «После каждой ночи замечания аннулируются»
    reset_clause: str | None = None


@dataclass(frozen=True, slots=True)
class Timings:
    speech_s: float = 60
    warning_s: float = 10  # warning this long before the end
    last_word_s: float = 60
    #: last word of each player when several leave after a revote (tournament 5.5)
    multi_leave_last_word_s: float = 60
    tie_speech_s: float = 30
    #: tie speech of a seat that lost its speech (tournament 5.4: 30 s)
    silenced_tie_speech_s: float = 0
    vote_window_s: float = 2  # «Кто за ...» until «Спасибо»
    count_s: float = 2  # «Спасибо» until «... Принято»
    night_step_s: float = 30  # default length of a night step


@dataclass(frozen=True, slots=True)
class Voting:
    #: release before «Спасибо»: "offence" keeps the vote and proposes
    #: `release_before_thanks_offence`; "withdraw" takes the vote back
    release_before_thanks: Literal["offence", "withdraw"] = "withdraw"
    release_before_thanks_offence: str | None = None
    #: offence proposed for a hand lifted between «Спасибо» and «Принято»
    release_before_accepted_offence: str | None = None
    #: offence proposed when a nominee votes for himself / a voter votes twice
    self_vote_offence: str | None = None
    second_vote_offence: str | None = None
    #: day 1 with a single nominee: no vote
    day1_single_nominee_no_vote: bool = True
    #: a nominee removed before or during the vote is still voted on (tournament 5.1)
    removed_nominee_stays: bool = False


@dataclass(frozen=True, slots=True)
class MissRule:
    """Tournament 5.2: with `alive` players left, `nights` misses in a row by
    the shooting team give the game to `winner`."""

    alive: int
    nights: int
    winner: str  # a Team.id
    clause: str


@dataclass(frozen=True, slots=True)
class ForbiddenWords:
    """``[listening.words.<id>]``: phrases the recogniser listens for and the
    offence they propose (companion/ears/words.py matches them). A phrase is
    words separated by spaces; a word ending in ``*`` is a stem that takes
    any ending (``клян*``: клянусь, клянёмся, клялся is not: ``клял*``).
    ``unless``: phrases that, heard over the same words, are ordinary speech
    («отвечаю на вопрос»), so nothing is proposed."""

    id: str
    offence: str
    phrases: tuple[str, ...]
    unless: tuple[str, ...] = ()


class RulesetReader(Protocol):
    """What a procedure's section parser (``Procedure.read_rules``) sees of
    the ruleset read so far."""

    @property
    def roles(self) -> tuple[Role, ...]: ...

    def parse_deals(self, deals: TomlTable | None) -> Deals:
        """A table laid out as ``[deals]``, checked as it is."""
        ...


@dataclass(frozen=True, slots=True)
class ProcedureRules:
    """A procedure's own part of a ruleset (a section such as ``[forum]``):
    each procedure that has one subclasses it and registers its parser
    (``Procedure.read_rules``). What the shared parts ask of it is here."""

    @property
    def options(self) -> tuple[str, ...]:
        """The options a game may be set up with (``GameSetUp.options``)."""
        return ()

    def deals(self, options: tuple[str, ...]) -> Deals | None:
        """The deals the setup's options ask for instead of ``[deals]``."""
        return None


@dataclass(frozen=True, slots=True)
class Ruleset:
    name: str
    title: str
    source: str  # the seed text file it was written from
    min_seats: int
    max_seats: int
    teams: tuple[Team, ...]
    roles: tuple[Role, ...]
    #: seat count -> role id -> how many; used when setup gives no roles
    deals: Deals
    night0: tuple[NightStep, ...]
    night: tuple[NightStep, ...]
    offences: tuple[Offence, ...]
    ladder: Ladder
    timings: Timings = field(default_factory=Timings)
    voting: Voting = field(default_factory=Voting)
    miss_rule: MissRule | None = None
    draw_when_empty: bool = True  # tournament 5.6
    draw_clause: str | None = None
    best_move: bool = True  # the first night's victim names three suspects
    #: microphone flag kind -> the offence it proposes (``[listening]``);
    #: a kind left out is told to the host, not proposed
    listening: tuple[tuple[str, str], ...] = ()
    #: forbidden phrases and their offences (``[listening.words]``)
    forbidden_words: tuple[ForbiddenWords, ...] = ()
    #: how the table runs its phases (``companion.core.procedures``)
    procedure: ProcedureName = "sports_table"
    #: the night's actions in the order they resolve at morning; a step's
    #: action not listed resolves after those listed, in step order
    night_resolution: tuple[str, ...] = DEFAULT_NIGHT_RESOLUTION
    #: the procedure's own part of the ruleset (the forum game's ``[forum]``),
    #: read by the parser its procedure registers; None when it has none.
    #: The procedure reads it through an accessor of its own
    #: (``core.forum.rules.forum_rules``).
    procedure_rules: ProcedureRules | None = None

    # Lookups. Small tuples: a linear scan is faster than building dicts.
    def team(self, team_id: str) -> Team:
        for team in self.teams:
            if team.id == team_id:
                return team
        raise KeyError(team_id)

    def role(self, role_id: str) -> Role:
        for role in self.roles:
            if role.id == role_id:
                return role
        raise KeyError(role_id)

    def offence(self, key: str) -> Offence:
        """Find an offence by id, or by clause when no id matches."""
        for offence in self.offences:
            if offence.id == key:
                return offence
        for offence in self.offences:
            if offence.clause == key:
                return offence
        raise KeyError(key)

    def deal_for(
        self, seats: int, options: tuple[str, ...] = ()
    ) -> tuple[tuple[str, int], ...] | None:
        """The deal for a table of ``seats``; the procedure's own when the
        setup's options ask for one (the forum game's two-sided deal)."""
        own = None if self.procedure_rules is None else self.procedure_rules.deals(options)
        deals = self.deals if own is None else own
        for count, deal in deals:
            if count == seats:
                return deal
        return None
