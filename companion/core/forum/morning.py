"""The forum night's inputs and outputs as values: the shots that stand,
the ``Night`` the host read from the cabinets at the deadline, and the
``Morning`` its resolution (``forum_night``) writes: deaths, autokills,
changes of role and team, the public and private words, the guns taken
and the Bomzh's vote owners (docs/forum-rules-catalogue.md 3.2).
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: a gun's owner: a seat's number as text for a lone gun, a team id for a team's
Gun = str

#: the guns of lone roles, by role (amb.16); a team's gun is its Don's
LONE_GUNS = {"cop": "cop", "sniper": "sniper", "maniac": "maniac", "zombie": "zombie"}


@dataclass(frozen=True, slots=True)
class Shot:
    kind: str  # "cop", "team", "sniper", "maniac", "zombie"
    gun: Gun  # whose gun fired (the owner, also when the Tin Man fires it)
    by: int  # the seat that fired (the Tin Man for a taken gun; a team's poster)
    target: int
    borrowed: bool = False  # the Tin Man fired it (roles.tin_woodman.5)
    team: str = ""  # for a team's gun: the team


@dataclass(frozen=True, slots=True)
class Night:
    """The night as the host read the cabinets at the deadline."""

    number: int
    roles: dict[int, str]  # living seats' roles at the start of the night
    teams: dict[int, str]
    dons: frozenset[int]  # living seats with a Don's rules
    shots: tuple[Shot, ...]  # after blocks and taken guns
    heal: int = 0
    hidden: dict[int, str] = field(default_factory=dict)  # member -> team (basement)
    marks: dict[int, int] = field(default_factory=dict)  # Kamikaze -> victim
    bite: tuple[int, int] | None = None  # (Vampire, bitten) on his night
    #: Tin Men holding no gun tonight: shots at them fail and are taken
    invulnerable: frozenset[int] = frozenset()
    #: Tin Man -> the guns he holds tonight (he is as vulnerable as their owners)
    holding: dict[int, tuple[Gun, ...]] = field(default_factory=dict)
    #: gun -> the kind of shot it fires (its owner's, as the night began)
    gun_kinds: dict[Gun, str] = field(default_factory=dict)
    was_pom: frozenset[int] = frozenset()
    multi_child: bool = False
    #: the Cop is told «мирный» when his shot meets a civilian (amb.8's option)
    cop_told: bool = False
    #: Kamikazes dying before any shot: the second skip (roles.kamikaze.4)
    exploded: tuple[int, ...] = ()
    #: seats out before any shot: the Vampire with no bite (roles.vampire.2)
    autokilled: tuple[int, ...] = ()


@dataclass(slots=True)
class Morning:
    deaths: list[int] = field(default_factory=list)
    #: out of the game by «автокилл», not killed (roles.vampire.2)
    autokilled: list[int] = field(default_factory=list)
    #: seat -> (role, team) it ends the night with
    changes: dict[int, tuple[str, str]] = field(default_factory=dict)
    public: list[tuple[str, dict[str, int | str]]] = field(default_factory=list)
    private: list[tuple[int, str, dict[str, int | str]]] = field(default_factory=list)
    #: (Tin Man, gun) taken for the next night
    taken: list[tuple[int, Gun]] = field(default_factory=list)
    #: Bomzh -> the gun that owns his vote on the coming day
    tramp_owner: dict[int, Gun] = field(default_factory=dict)
    #: the clauses the night's outcome rests on, in order (the protocol)
    clauses: list[str] = field(default_factory=list)

    def say(self, cue: str, clause: str, **args: int | str) -> None:
        if (cue, args) not in self.public:
            self.public.append((cue, args))
        self.clauses.append(clause)

    def tell(self, to: int, cue: str, **args: int | str) -> None:
        if (to, cue, args) not in self.private:
            self.private.append((to, cue, args))

    def die(self, seat: int, clause: str) -> None:
        if seat not in self.deaths and seat not in self.autokilled:
            self.deaths.append(seat)
            self.clauses.append(clause)


#: the clause a death by each gun rests on
KILLS = {
    "cop": "roles.cop.3",
    "team": "roles.mafia.4",
    "sniper": "roles.sniper.3",
    "maniac": "roles.maniac.4",
    "zombie": "roles.zombie.6",
}
