"""The forum game's night deadline: which choices stand, what the skips
cost, which guns fire (the Tin Man's taken guns, his block), and the
morning written into the game (docs/forum-rules-catalogue.md 3.2 steps
0-5 and 9; the per-target steps 6-8 are ``forum_night``'s).
"""

from __future__ import annotations

from ..effects import Say
from ..state import Game, Out, Seat
from ..step import Step
from .morning import LONE_GUNS, Gun, Morning, Night, Shot
from .night import resolve
from .posts import last_post, owner_seats, team_choice
from .rules import ForumRules, forum_rules
from .state import (
    MEMBER_ROLE,
    MM_TEAMS,
    ForumState,
    Skips,
    lookup,
    phase_name,
    put,
    remembered,
    state,
)


def add_skip(t: Step, skips: Skips, seat: int, clause: str) -> tuple[Skips, int]:
    """One more skip for ``seat`` (recorded): the new counts and the seat's."""
    used = lookup(skips, seat) + 1
    t.record("skip", seat=seat, skips=used, clause=clause)
    return put(skips, seat, used), used


def announce(t: Step, cue: str, **args: int | str) -> None:
    """A public announcement: spoken at the table, in the results post."""
    t.record("public", phase=phase_name(t.game), cue=cue, **args)
    t.effects.append(Say(cue, tuple(args.items())))


def tell(t: Step, to: int, cue: str, **args: int | str) -> None:
    """A private note: the host passes it to ``to`` alone."""
    t.record("private", to=to, cue=cue, **args)
    t.tell("private", to=to, cue=cue, **args)


def _rules(game: Game) -> ForumRules:
    rules = forum_rules(game.rules)
    assert rules is not None
    return rules


def gun_alive(game: Game, gun: Gun) -> bool:
    """roles.tin_woodman.9 «Если истинный владелец пушки (или мм сторона) днем
    погибает, то пушка в руках ЖД уходит вместе с ним» (amb.18): a team's
    gun while one of the team lives; a lone owner's unless he left the game
    by day (his death the night the gun was taken changes nothing, P1)."""
    if not gun.isdigit():
        return bool(owner_seats(game, gun))
    out = game.seat(int(gun)).out
    return out is None or out.how == "killed"


def gun_kind(game: Game, gun: Gun) -> str:
    """The kind of shot a gun fires: a team's, or its lone owner's role's."""
    return "team" if not gun.isdigit() else LONE_GUNS.get(game.seat(int(gun)).role, "")


class _Dusk:
    """Reads the cabinets at the night deadline into a ``Night``."""

    def __init__(self, t: Step) -> None:
        self.t = t
        self.game = t.game
        self.s: ForumState = state(t.game)
        self.rules = _rules(t.game)
        self.alive = [x for x in t.game.seats if x.out is None]
        self.skips = self.s.skips
        self.last = self.s.last_target
        self.exploded: list[int] = []
        self.autokilled: list[int] = []  # roles.vampire.2
        self.lost: list[int] = []  # roles lost to a skip (the Doctor: roles.doctor.5)

    def chosen(self, seat: Seat, action: str) -> int:
        """The seat's standing choice, or 0; a lost move voids it (sanction.2)."""
        post = last_post(self.s.posts, seat.number, action)
        target = post[2] if post is not None else 0
        if target and seat.number in self.s.lost_move:
            self.t.record("lost_move", seat=seat.number, clause="sanction.2")
            return 0
        if target:
            self.last = remembered(self.last, seat.number, target, self.game.day)
        return target

    def skipped(self, seat: Seat) -> None:
        """deadline.night.2: a civilian role with no choice has skipped."""
        role = self.rules.role(seat.role)
        self.skips, used = add_skip(self.t, self.skips, seat.number, "deadline.night.2")
        if used <= role.free_skips:
            return
        clause = role.after_skips_clause or role.clause
        if role.after_skips == "lose_role":
            self.lost.append(seat.number)
        elif role.after_skips == "die":
            self.exploded.append(seat.number)
        elif role.after_skips == "autokill":
            self.autokilled.append(seat.number)
        elif role.after_skips == "sanction":
            self.t.propose(seat.number, "mm_no_choice", clause)

    def night(self) -> Night:
        game, rules, s = self.game, self.rules, self.s
        choices: dict[int, int] = {}
        for seat in self.alive:
            role = rules.role(seat.role)
            if role.acts not in ("night", "first_night", "once"):
                continue
            if role.acts == "first_night" and s.vampire_done:
                continue
            if seat.number in s.lost_move:  # sanction.2, .7: the move is lost, not skipped
                self.t.record("lost_move", seat=seat.number, clause="sanction.2")
                continue
            target = self.chosen(seat, role.action)
            if target:
                choices[seat.number] = target
            elif role.acts != "once":  # the block is optional until used
                self.skipped(seat)
        held = [
            (tm, gun)
            for tm, gun in s.guns
            if game.seat(tm).out is None and gun_alive(game, gun) and gun_kind(game, gun)
        ]
        taken = {gun for _, gun in held}
        shots: list[Shot] = []
        for seat in self.alive:
            kind = LONE_GUNS.get(seat.role)
            if kind and seat.number in choices and str(seat.number) not in taken:
                shots.append(Shot(kind, str(seat.number), seat.number, choices[seat.number]))
        hidden: dict[int, str] = {}
        dons = frozenset(x.number for x in self.alive if rules.role(x.role).don)
        for team in MM_TEAMS:
            members = [x for x in self.alive if x.team == team]
            if not members:
                continue
            target = team_choice(game, s.posts, team, "shoot")
            hide = team_choice(game, s.posts, team, "hide")
            if hide and game.seat(hide).team == team and game.seat(hide).out is None:
                hidden[hide] = team
                self.t.set_state(basement_used=(*state(self.t.game).basement_used, team))
            if not target:  # deadline.night.4-5: the last on the list, to the host
                self.t.propose(members[-1].number, "mm_no_choice", "deadline.night.5")
            elif team not in taken:
                poster = next((x.number for x in members if x.number in dons), members[0].number)
                shots.append(Shot("team", team, poster, target, team=team))
        for tin_man, gun in held:
            post = last_post(_fires(s, gun), tin_man, "fire")
            if post is not None and post[2]:
                team = gun if not gun.isdigit() else ""
                shots.append(
                    Shot(gun_kind(game, gun), gun, tin_man, post[2], borrowed=True, team=team)
                )
        shots = self.block(shots, dons)
        holding: dict[int, tuple[str, ...]] = {}
        for tin_man, gun in held:
            holding[tin_man] = (*holding.get(tin_man, ()), gun)
        heal = next(
            (choices[x.number] for x in self.alive if x.role == "doctor" and x.number in choices), 0
        )
        bite = next(
            (
                (x.number, choices[x.number])
                for x in self.alive
                if x.role == "vampire" and x.number in choices
            ),
            None,
        )
        return Night(
            number=game.day,
            roles={x.number: x.role for x in self.alive},
            teams={x.number: x.team for x in self.alive},
            dons=dons,
            shots=tuple(shots),
            heal=heal,
            hidden=hidden,
            marks={
                x.number: choices[x.number]
                for x in self.alive
                if x.role == "kamikaze" and x.number in choices
            },
            bite=bite,
            invulnerable=frozenset(
                x.number for x in self.alive if x.role == "tin_woodman" and x.number not in holding
            ),
            holding=holding,
            gun_kinds={gun: gun_kind(game, gun) for _, gun in held},
            was_pom=frozenset(s.was_pom),
            multi_child="multi_child" in s.options,
            cop_told=self.rules.cop_private_result,
            exploded=tuple(self.exploded),
            autokilled=tuple(self.autokilled),
        )

    def block(self, shots: list[Shot], dons: frozenset[int]) -> list[Shot]:
        """3.2 step 4: the Tin Man's one block voids the gun its target holds
        tonight (roles.tin_woodman.3-4; a Don's block voids his team's shot)."""
        for tin_man in [x for x in self.alive if x.role == "tin_woodman"]:
            target = self.chosen(tin_man, "block")
            if not target:
                continue
            self.t.set_state(block_used=(*state(self.t.game).block_used, tin_man.number))
            aimed = self.game.seat(target)
            guns = {str(target)} if aimed.role in LONE_GUNS else set()
            if target in dons:
                guns.add(aimed.team)
            # He hits a player who holds a gun tonight, fired or not (a gun
            # he took himself is not the target's tonight): roles.tin_woodman.3-4
            guns -= {gun for _, gun in state(self.t.game).guns}
            void = [x for x in shots if x.gun in guns and not x.borrowed]
            hit = bool(guns)
            tell(self.t, tin_man.number, "block_hit" if hit else "block_missed", seat=target)
            self.t.record(
                "block",
                seat=tin_man.number,
                target=target,
                hit=int(hit),
                clause="roles.tin_woodman.3" if hit else "roles.tin_woodman.4",
            )
            shots = [x for x in shots if x not in void]
        return shots


def _acts_by_day(game: Game, seat: int) -> bool:
    rules = forum_rules(game.rules)
    assert rules is not None
    return rules.role(game.seat(seat).role).acts == "day"


def _fires(s: ForumState, gun: str) -> tuple[tuple[int, str, int, str, str], ...]:
    return tuple(p for p in s.posts if p[1] == "fire" and p[3] == gun)


def read_night(t: Step) -> tuple[Night, Morning]:
    """Read the cabinets and resolve the night; write the skips' effects."""
    dusk = _Dusk(t)
    night = dusk.night()
    morning = resolve(night)
    for seat in dusk.lost:  # roles.doctor.5-6: the second skip
        morning.changes.setdefault(seat, ("civilian", "civilians"))
        morning.say(f"{t.game.seat(seat).role}_lost_role", "roles.doctor.5")
    # A lost move is spent by the night for a night role; a day role's waits for its day.
    lost = tuple(n for n in state(t.game).lost_move if _acts_by_day(t.game, n))
    t.set_state(skips=dusk.skips, last_target=dusk.last, lost_move=lost)
    return night, morning


def write_morning(t: Step, night: Night, morning: Morning) -> None:
    """3.2 step 9: everything lands together."""
    game = t.game
    # The notices in one fixed order, not the order the targets were
    # resolved in, which follows the seats and would tell who sits where.
    for cue, args in sorted(morning.public, key=_notice_order):
        announce(t, cue, **args)
    # By seat: no trace of who shot whom (3.5). The Vampire autokilled at
    # night (roles.vampire.2) is announced as any night death: «автокилл»
    # at night could only be his, and a dead player's role is not named.
    for seat in sorted({*morning.deaths, *morning.autokilled}):
        if seat in morning.autokilled:
            t.update_seat(seat, out=Out("removed", game.day, 0))
            t.record("out", seat=seat, how="removed", clause="roles.vampire.2")
        else:
            t.update_seat(seat, out=Out("killed", game.day, 0))
            t.record("out", seat=seat, how="killed", clause="night")
        announce(t, "forum_killed", seat=seat)
    if not morning.deaths and not morning.autokilled:
        announce(t, "night_no_deaths")
    joined: list[str] = []
    for seat, (role, team) in morning.changes.items():
        if _change(t, seat, role, team, notify=False):
            joined.append(team)
    for team in dict.fromkeys(joined):  # each team told its members once
        tell_members(t, team)
    if night.bite is not None:
        _theft(t, night, morning)
    for to, cue, args in morning.private:
        tell(t, to, cue, **args)
    t.record("night_clauses", clauses=",".join(dict.fromkeys(morning.clauses)))
    vampire_done = (
        state(t.game).vampire_done
        or night.bite is not None
        or any(game.seat(x).role == "vampire" for x in night.autokilled)
    )
    t.set_state(
        guns=tuple(morning.taken),
        tramp_owner=tuple(morning.tramp_owner.items()),
        vampire_done=vampire_done,
    )


#: the morning's notices in the order they are posted
_NOTICES = (
    "mourning", "doctor_lost_role", "cop_missed", "shooter_missed", "sniper_joined_mm",
    "doctor_healed_healthy", "kamikaze_saved", "mm_found_child", "vampire_bit_child",
)  # fmt: skip


def _notice_order(notice: tuple[str, dict[str, int | str]]) -> tuple[int, str]:
    cue, args = notice
    rank = _NOTICES.index(cue) if cue in _NOTICES else len(_NOTICES)
    return rank, ",".join(f"{k}={v}" for k, v in sorted(args.items()))


def _theft(t: Step, night: Night, morning: Morning) -> None:
    """amb.22 d: a stolen role keeps its counters (the Doctor's last patient,
    skips used, the Tin Man's block)."""
    assert night.bite is not None
    vampire, bitten = night.bite
    stolen = night.roles.get(bitten)
    if morning.changes.get(vampire, ("", ""))[0] != stolen or stolen is None:
        return
    s = state(t.game)
    last = [x for x in s.last_target if x[0] != vampire]
    last += [(vampire, target, when) for seat, target, when in s.last_target if seat == bitten]
    skips = put(s.skips, vampire, lookup(s.skips, bitten))
    used = (*s.block_used, vampire) if bitten in s.block_used else s.block_used
    t.set_state(last_target=tuple(last), skips=skips, block_used=used)


def tell_members(t: Step, team: str) -> None:
    """Each living member of ``team`` is told its members (spirit.3)."""
    members = ",".join(str(x.number) for x in t.game.seats if x.out is None and x.team == team)
    for member in members.split(",") if members else ():  # the team may be all dead (fm.8)
        tell(t, int(member), "team_members", team=team, seats=members)


def _change(t: Step, seat: int, role: str, team: str, notify: bool = True) -> bool:
    """The seat's role and team change; True when it joined an MM team
    (``notify``: its members are told at once)."""
    before = t.seat(seat)
    if (before.role, before.team) == (role, team):
        return False
    t.update_seat(seat, role=role, team=team)
    t.record("role_changed", seat=seat, was=before.role, role=role, team=team)
    if team != before.team and team in MM_TEAMS:
        if notify:
            tell_members(t, team)
        return True
    return False


def successions(t: Step) -> None:
    """The Pom takes the Cop's gun when the Cop is out (roles.cop_assistant.3);
    a new head Zombie among the recruits (roles.zombie.8, amb.30)."""
    seats = t.game.seats
    if not any(x.out is None and x.role == "cop" for x in seats):
        pom = next((x for x in seats if x.out is None and x.role == "cop_assistant"), None)
        if pom is not None:
            _change(t, pom.number, "cop", "civilians")
            t.set_state(was_pom=(*state(t.game).was_pom, pom.number))
            tell(t, pom.number, "now_cop")
    zombies = [x for x in seats if x.out is None and x.team == "zombie"]
    if zombies and not any(x.role == "zombie" for x in zombies):
        _change(t, zombies[0].number, "zombie", "zombie")
        tell(t, zombies[0].number, "now_head")


def demote(t: Step, seat: int) -> None:
    """sanction.2: the role becomes a plain civilian (an MM member stays in his team)."""
    x = t.seat(seat)
    role = MEMBER_ROLE.get(x.team, "civilian") if x.team != "civilians" else "civilian"
    _change(t, seat, role, x.team if x.team != "vampire" else "civilians")
    successions(t)
