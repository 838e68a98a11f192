"""Parse a ruleset's TOML text into the frozen values of :mod:`rules`.

Pure: the caller reads the file and passes its text and a ``source`` name used
in messages. Every problem raises :class:`DataFileError` naming the source,
the dotted key and the line, e.g.::

    rulesets/club.toml:42: offences.speech_out_of_turn.cost: 'fowl' is not one
    of warning, count, removal, removal_at_morning, team_loss

The layout is documented in ``docs/rulesets.md``. Checked: TOML syntax,
unknown keys at every level, missing required keys, types (a boolean is not
an integer; an integer is accepted where a float is expected), enumerated
values, and references between parts: a role's team, a night step's roles
and what a check reveals, a deal's roles and seat count, the offences named
by ``[voting]``, the teams and roles named by offences, the miss rule's
winner; duplicate night step ids; ladder steps in strictly increasing order;
and every number against the limits below (docs/rulesets.md, "Limits"), so
that a ruleset that loads cannot make the engine wait zero seconds, overflow
a float or enumerate without end.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import MISSING, fields
from typing import cast, get_args

from ..textfiles.toml_table import (
    ID,
    SNAKE,
    Context,
    DataFileError,
    TomlTable,
    parse_toml,
    show,
    toml_syntax_error,
)
from . import procedures
from .events import SPEECH_KINDS
from .rules import (
    CORE_COSTS,
    DEFAULT_NIGHT_RESOLUTION,
    Bites,
    ForbiddenWords,
    Ladder,
    LadderStep,
    MissRule,
    NightAction,
    NightStep,
    Offence,
    ProcedureRules,
    Right,
    Role,
    Ruleset,
    Team,
    Timings,
    Voting,
    WinKind,
)
from .ruleset_words import parse_forbidden_words

__all__ = ["DataFileError", "parse_ruleset", "toml_syntax_error"]

#: Seats a ruleset may allow: a game needs two, and no club table holds more
#: than twenty (the voice renders every seat's phrases ahead of time).
MIN_SEATS, MAX_SEATS = 2, 40
#: A timer runs at least 0.1 s (0 or less made replay loop without end) and
#: at most a day: longer than any game, and a forum «day» still fits.
MIN_TIMER_S, MAX_TIMER_S = 0.1, 86_400.0
#: Timings where 0 means "none": no warning, no tie speech without speech.
_OFF_TIMINGS = ("warning_s", "silenced_tie_speech_s")
#: Teams: the voice renders every set of winning teams ahead of time (2^n).
MAX_TEAMS = 8
#: Nights (``from_night``, ``miss_rule.nights``): a table of 20 is empty long before.
MAX_NIGHTS = 100
#: The count of the last ladder step: the voice says every count up to it.
MAX_LADDER = 20
MAX_RATING_PENALTY = 1000
_TOP = (
    "name", "title", "source", "seats", "best_move", "draw_when_empty", "draw_clause",
    "procedure", "night_resolution",
)  # fmt: skip
_PARTS = (
    "timings", "voting", "ladder", "teams", "roles", "deals", "night0", "night", "listening",
)  # fmt: skip
_RELEASE = ("offence", "withdraw")


def parse_ruleset(text: str, source: str) -> Ruleset:
    """Parse and check one ruleset; `source` names it in messages (a path).

    When `source` ends in ``.toml`` the ruleset's ``name`` must equal the
    file name without it, so that a ruleset is found by its name.
    """
    data = parse_toml(text, source)
    return _Parser(Context(source, text), data).ruleset()


def _names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


class _Parser:
    """Reads the parts in dependency order: timings before night steps (the
    default step length), teams before roles, roles before night steps,
    deals and offences, offences before voting."""

    def __init__(self, ctx: Context, data: dict[str, object]) -> None:
        self.ctx = ctx
        # A procedure's own section (``[forum]``): which procedure a ruleset
        # plays is not known yet, so every registered one's is a known key
        # (another procedure's is read by none).
        sections = [p.rules_section for p in procedures.PROCEDURES.values() if p.rules_section]
        top = (*_TOP, *sections, *_PARTS, "offences", "miss_rule")
        self.root = TomlTable(ctx, data, (), top)

    def ruleset(self) -> Ruleset:
        root = self.root
        name = root.str_("name", required=True)
        if not ID.match(name):
            root.fail("name", SNAKE)
        stem = re.sub(r"\.toml\Z", "", re.split(r"[\\/]", self.ctx.source)[-1])
        if self.ctx.source.endswith(".toml") and name != stem:
            root.fail("name", f"{show(name)} must equal the file name {show(stem)}")
        title = root.str_("title", required=True)
        source = root.str_("source", required=True)
        seats = root.table("seats", ("min", "max"), required=True)
        assert seats is not None
        self.min_seats = seats.int_("min", minimum=MIN_SEATS, maximum=MAX_SEATS)
        self.max_seats = seats.int_("max", minimum=self.min_seats, maximum=MAX_SEATS)
        self.timings = self.parse_timings()
        self.teams = tuple(self.parse_teams())
        self.team_ids = [team.id for team in self.teams]
        self.roles = tuple(self.parse_roles())
        self.role_ids = [role.id for role in self.roles]
        self.procedure = procedures.named(self.parse_procedure())
        deals = self.parse_deals(self.root.table("deals", None, required=False))
        night0 = tuple(self.parse_night("night0"))
        night = tuple(self.parse_night("night"))
        seen: set[str] = set()
        for key, steps in (("night0", night0), ("night", night)):
            for index, step in enumerate(steps):
                if step.id in seen:
                    self.ctx.fail((key, index, "id"), f"step id {show(step.id)} is used twice")
                seen.add(step.id)
        self.offences = tuple(self.parse_offences())
        miss = root.table("miss_rule", _names(MissRule), required=False)
        listening, forbidden_words = self.parse_listening()
        return Ruleset(
            name=name,
            title=title,
            source=source,
            min_seats=self.min_seats,
            max_seats=self.max_seats,
            teams=self.teams,
            roles=self.roles,
            deals=deals,
            night0=night0,
            night=night,
            offences=self.offences,
            ladder=self.parse_ladder(),
            timings=self.timings,
            voting=self.parse_voting(),
            miss_rule=None if miss is None else self.parse_miss(miss),
            draw_when_empty=root.bool_("draw_when_empty", True),
            draw_clause=root.opt_str("draw_clause"),
            best_move=root.bool_("best_move", True),
            listening=listening,
            forbidden_words=forbidden_words,
            procedure=self.procedure.name,
            night_resolution=self.parse_night_resolution(),
            procedure_rules=self.parse_procedure_rules(),
        )

    def parse_procedure_rules(self) -> ProcedureRules | None:
        """The procedure's own section, read by its parser."""
        read = self.procedure.read_rules
        if read is None:
            return None
        t = self.root.table(self.procedure.rules_section, None, required=True)
        assert t is not None
        return read(t, self)

    def parse_procedure(self) -> str:
        known = tuple(procedures.PROCEDURES)
        return self.root.choice("procedure", known, procedures.DEFAULT)

    def parse_night_resolution(self) -> tuple[str, ...]:
        if self.root.raw("night_resolution", False) is None:
            return DEFAULT_NIGHT_RESOLUTION
        return self.root.strs("night_resolution", get_args(NightAction), "night action")

    def parse_timings(self) -> Timings:
        table = self.root.table("timings", _names(Timings), required=False)
        if table is None:
            return Timings()
        values = {}
        for f in fields(Timings):
            assert f.default is not MISSING
            values[f.name] = table.float_(
                f.name,
                cast(float, f.default),
                minimum=MIN_TIMER_S,
                maximum=MAX_TIMER_S,
                off=f.name in _OFF_TIMINGS,
                unit=" seconds",
            )
        return Timings(**values)

    def parse_teams(self) -> Iterator[Team]:
        for ident, t in self.root.entries("teams", _names(Team)[1:], most=MAX_TEAMS):
            name = t.str_("name", required=True)
            color = t.str_("color", required=True)
            win = cast(WinKind, t.choice("win", get_args(WinKind)))
            yield Team(ident, name, color, win)

    def parse_roles(self) -> Iterator[Role]:
        for ident, t in self.root.entries("roles", _names(Role)[1:]):
            name = t.str_("name", required=True)
            team = t.str_("team", required=True)
            t.ref("team", "team", team, self.team_ids)
            yield Role(ident, name, team)

    def parse_deals(
        self, deals: TomlTable | None
    ) -> tuple[tuple[int, tuple[tuple[str, int], ...]], ...]:
        """``"10" = { civilian = 6, ... }`` -> sorted ((10, (("civilian", 6), ...)), ...)."""
        if deals is None:
            return ()
        out = []
        for key, body in deals.data.items():
            if not re.fullmatch(r"[1-9][0-9]{0,2}", key):
                deals.fail(key, 'a deal is keyed by its seat count, e.g. "10"')
            count = int(key)
            if not self.min_seats <= count <= self.max_seats:
                limits = f"{self.min_seats}..{self.max_seats}"
                deals.fail(key, f"{count} seats is outside seats {limits}")
            deal = TomlTable(self.ctx, body, (*deals.path, key), None)
            for role in deal.data:
                deal.ref(role, "role", role, self.role_ids)
            pairs = tuple((role, deal.int_(role, minimum=1, maximum=count)) for role in deal.data)
            dealt = sum(n for _, n in pairs)
            if dealt != count:
                deals.fail(key, f"the deal hands out {dealt} roles for {count} seats")
            out.append((count, pairs))
        return tuple(sorted(out))

    def parse_night(self, key: str) -> Iterator[NightStep]:
        colors = list(dict.fromkeys(team.color for team in self.teams))
        required = key == "night" and self.procedure.night_steps  # not the forum game's
        for t in self.root.array(key, _names(NightStep), required=required):
            ident = t.ident("id")
            cue = t.ident("cue")
            t.raw("roles", required=True)
            roles = t.strs("roles", self.role_ids, "role")
            action = cast(NightAction, t.choice("action", get_args(NightAction)))
            if action != "none" and not roles:
                t.fail("roles", f"a '{action}' step needs at least one role")
            reveals = t.opt_str("reveals")
            if action == "check" and reveals is None:
                t.fail("reveals", "a check step must say what it reveals: role:<id> or color:<c>")
            if action != "check" and reveals is not None:
                t.fail("reveals", "only a check step reveals something")
            if reveals is not None:
                kind, _, what = reveals.partition(":")
                known = {"role": self.role_ids, "color": colors}.get(kind)
                if known is None:
                    t.fail("reveals", f"{show(reveals)} must be role:<id> or color:<color>")
                t.ref("reveals", kind, what, known)
            first = 0 if key == "night0" else 1
            from_night = t.int_("from_night", first, minimum=first, maximum=MAX_NIGHTS)
            if key == "night0" and from_night != 0:
                t.fail("from_night", "a night0 step runs on night 0")
            seconds = t.float_(
                "seconds",
                self.timings.night_step_s,
                minimum=MIN_TIMER_S,
                maximum=MAX_TIMER_S,
                unit=" seconds",
            )
            name = t.opt_str("name") or ident
            end_cue = t.opt_str("end_cue") or ""
            if end_cue and not ID.match(end_cue):
                t.fail("end_cue", SNAKE)
            yield NightStep(ident, cue, roles, action, seconds, reveals, from_night, name, end_cue)

    def parse_offences(self) -> Iterator[Offence]:
        for ident, t in self.root.entries("offences", _names(Offence)[1:]):
            clause = t.str_("clause", required=True)
            text = t.str_("text", required=True)
            own = [(cost, p) for p in procedures.PROCEDURES.values() for cost in p.costs]
            cost = t.choice("cost", (*CORE_COSTS, *(cost for cost, _ in own)))
            owner = next((p for c, p in own if c == cost), self.procedure)
            if owner is not self.procedure and cost not in self.procedure.costs:
                title = owner.title or owner.name
                t.fail("cost", f'{cost!r} is {title}\'s (procedure = "{owner.name}")')
            teams_lose = t.strs("teams_lose", self.team_ids, "team")
            if teams_lose and cost != "team_loss":
                t.fail("teams_lose", "only an offence with cost 'team_loss' names losing teams")
            exempt_roles = t.strs("exempt_roles", self.role_ids, "role")
            exempt_cue = t.opt_str("exempt_cue")
            if exempt_cue is not None and not ID.match(exempt_cue):
                t.fail("exempt_cue", SNAKE)
            if exempt_cue is not None and not exempt_roles:
                t.fail("exempt_cue", "an exempt_cue needs exempt_roles")
            loss_alive, loss_clause = self.team_loss_when_alive(t)
            yield Offence(
                id=ident,
                clause=clause,
                text=text,
                cost=cost,
                violations=t.strs("violations"),
                teams_lose=teams_lose,
                exempt_roles=exempt_roles,
                exempt_cue=exempt_cue,
                while_out=t.bool_("while_out", False),
                team_loss_when_alive=loss_alive,
                team_loss_clause=loss_clause,
                rating_penalty=t.int_("rating_penalty", 0, maximum=MAX_RATING_PENALTY),
                excluded=t.bool_("excluded", False),
                see_also=t.strs("see_also"),
            )

    def team_loss_when_alive(self, t: TomlTable) -> tuple[int | None, str | None]:
        alive = t.opt_int("team_loss_when_alive", maximum=self.max_seats)
        clause = t.opt_str("team_loss_clause")
        if clause is not None and alive is None:
            t.fail("team_loss_clause", "needs team_loss_when_alive")
        return alive, clause

    def parse_ladder(self) -> Ladder:
        table = self.root.table("ladder", _names(Ladder), required=True)
        assert table is not None
        unit = table.str_("unit", required=True)
        steps: list[LadderStep] = []
        for t in table.array("steps", _names(LadderStep), required=True):
            at = t.int_("at", minimum=1, maximum=MAX_LADDER)
            if steps and at <= steps[-1].at:
                t.fail("at", f"ladder steps must increase: {at} comes after {steps[-1].at}")
            loss_alive, loss_clause = self.team_loss_when_alive(t)
            step = LadderStep(
                at=at,
                clause=t.str_("clause", required=True),
                loses=cast(tuple[Right, ...], t.strs("loses", get_args(Right), "right")),
                bites=cast(Bites, t.choice("bites", get_args(Bites), "next_day")),
                removal=t.bool_("removal", False),
                team_loss_when_alive=loss_alive,
                team_loss_clause=loss_clause,
            )
            steps.append(step)
        return Ladder(
            unit=unit,
            steps=tuple(steps),
            reset_after_night=table.bool_("reset_after_night", False),
            reset_clause=table.opt_str("reset_clause"),
        )

    def parse_voting(self) -> Voting:
        t = self.root.table("voting", _names(Voting), required=False)
        if t is None:
            return Voting()
        ids = [offence.id for offence in self.offences]

        def offence(key: str) -> str | None:
            value = t.opt_str(key)
            if value is not None:
                t.ref(key, "offence", value, ids)
            return value

        default = Voting()
        release = t.choice("release_before_thanks", _RELEASE, default.release_before_thanks)
        release_offence = offence("release_before_thanks_offence")
        if release == "offence" and release_offence is None:
            t.fail("release_before_thanks", "'offence' needs release_before_thanks_offence")
        return Voting(
            release_before_thanks="offence" if release == "offence" else "withdraw",
            release_before_thanks_offence=release_offence,
            release_before_accepted_offence=offence("release_before_accepted_offence"),
            self_vote_offence=offence("self_vote_offence"),
            second_vote_offence=offence("second_vote_offence"),
            day1_single_nominee_no_vote=t.bool_(
                "day1_single_nominee_no_vote", default.day1_single_nominee_no_vote
            ),
            removed_nominee_stays=t.bool_("removed_nominee_stays", default.removed_nominee_stays),
        )

    def parse_listening(self) -> tuple[tuple[tuple[str, str], ...], tuple[ForbiddenWords, ...]]:
        """``[listening]``: the offence each speech flag proposes, and the
        forbidden phrases of ``[listening.words]`` (ruleset_words)."""
        t = self.root.table("listening", (*SPEECH_KINDS, "words"), required=False)
        if t is None:
            return (), ()
        ids = [offence.id for offence in self.offences]
        pairs = []
        for kind in SPEECH_KINDS:
            value = t.opt_str(kind)
            if value is not None:
                t.ref(kind, "offence", value, ids)
                pairs.append((kind, value))
        return tuple(pairs), parse_forbidden_words(t, ids)

    def parse_miss(self, t: TomlTable) -> MissRule:
        alive = t.int_("alive", minimum=1, maximum=self.max_seats)
        nights = t.int_("nights", minimum=1, maximum=MAX_NIGHTS)
        winner = t.str_("winner", required=True)
        t.ref("winner", "team", winner, self.team_ids)
        return MissRule(alive, nights, winner, t.str_("clause", required=True))
