"""The forum game's night, resolved at once from the choices that stand.

docs/forum-rules-catalogue.md 3.1-3.2: every choice is judged against the
state at the start of the night (P1, amb.2) and every effect lands
together at its end; one outcome per target from all the actions aimed at
it (P2). The «форс-мажоры» are per-target cases here, each with its
clause. Pure: ``resolve`` reads a ``Night`` and returns a ``Morning``
(both in ``forum/morning.py``); ``forum/dusk.py`` reads the one from the
cabinets and writes the other into the game.
"""

from __future__ import annotations

from .morning import KILLS, Gun, Morning, Night, Shot
from .state import MEMBER_ROLE, MM_TEAMS

__all__ = ["Gun", "Morning", "Night", "Shot", "resolve"]


class _Resolver:
    def __init__(self, night: Night) -> None:
        self.n = night
        self.m = Morning()
        cop_shots = [s for s in night.shots if s.kind == "cop"]
        #: seats the Cop's bullet reached: civilians it protects from MM shots (fm.2)
        self.cop_hit = {s.target for s in cop_shots}
        #: plain МЖ bitten by the Zombie's gun, joining at the end of the night
        self.recruits: dict[int, Shot] = {}

    # --- what a seat is, at the start of the night ------------------------
    def role(self, seat: int) -> str:
        return self.n.roles.get(seat, "")

    def side(self, seat: int) -> str:
        """The seat's side for tonight's bullets: a Tin Man holding a
        team's, the Maniac's or the Zombie's gun is as vulnerable as its
        owner (roles.tin_woodman.8 «уязвим для пуль, точно также, как и
        истинный владелец», amb.53 a)."""
        for gun in self.n.holding.get(seat, ()):
            kind = self.n.gun_kinds.get(gun, "")
            if kind == "team":
                return gun
            if kind in ("maniac", "zombie"):
                return kind
        return self.n.teams.get(seat, "")

    def is_mm(self, seat: int) -> bool:
        """An MM member (either team, converts too) or the lone Maniac (roles.cop.3)."""
        return self.side(seat) in (*MM_TEAMS, "maniac")

    def is_cop(self, seat: int) -> bool:
        return self.role(seat) == "cop"

    def convert(self, seat: int, team: str, clause: str) -> None:
        """The seat goes over to an MM team (or the zombies) as a plain member."""
        self.m.changes[seat] = (MEMBER_ROLE[team], team)
        self.m.clauses.append(clause)
        self.m.tell(seat, "joined_team", team=team)

    def demote(self, seat: int, clause: str) -> None:
        self.m.changes[seat] = ("civilian", "civilians")
        self.m.clauses.append(clause)

    def missed(self, shot: Shot, clause: str) -> None:
        """A shot that killed nobody, as the public sees it (roles.cop.5, roles.mafia.7)."""
        if shot.kind == "cop":
            self.m.say("cop_missed", clause)
        elif shot.kind in ("sniper", "maniac"):
            self.m.say("shooter_missed", clause, shooter=shot.kind)

    # --- the night -----------------------------------------------------------
    def resolve(self) -> Morning:
        for seat in self.n.autokilled:  # roles.vampire.2 «Пропуск хода - Автокилл»
            self.m.autokilled.append(seat)
            self.m.clauses.append("roles.vampire.2")
        for seat in self.n.exploded:  # roles.kamikaze.4 «"взрывается" в одиночку»
            self.m.die(seat, "roles.kamikaze.4")
        by_target: dict[int, list[Shot]] = {}
        for shot in self.n.shots:
            if shot.target in self.n.roles:
                by_target.setdefault(shot.target, []).append(shot)
        for target, shots in by_target.items():
            self.target(target, shots)
        self.kamikazes()
        self.recruit()
        self.vampire()
        return self.m

    def target(self, target: int, shots: list[Shot]) -> None:
        n, m = self.n, self.m
        if target in n.invulnerable:  # roles.tin_woodman.5, roles.sniper.8
            for shot in shots:
                m.taken.append((target, shot.gun))
                m.tell(target, "gun_taken", gun=shot.gun)
                if shot.kind == "cop":
                    m.say("cop_missed", "amb.16")
            m.clauses.append("roles.tin_woodman.5")
            return
        role = self.role(target)
        lethal: list[Shot] = []
        for shot in shots:
            if shot.borrowed and self.owns(shot, target):
                m.clauses.append("roles.tin_woodman.6")  # not his own team or owner
                continue
            if shot.kind == "cop":
                if self.is_mm(target) or self.side(target) == "zombie":
                    lethal.append(shot)  # roles.cop.3
                else:
                    self.cop_checked(shot, target)
            elif shot.kind == "sniper":
                self.sniper(shot, target, lethal)
            elif shot.kind == "zombie":
                self.zombie(shot, target, lethal)
            elif shot.kind == "maniac":
                self.maniac(shot, target, shots, lethal)
            else:
                lethal.append(shot)  # a team's shot: roles.mafia.4
        if role == "mafia_child":
            lethal = self.child(target, shots, lethal)
        elif role == "tramp":
            lethal = self.tramp(target, shots, lethal)
        self.general(target, role, lethal)

    def owns(self, shot: Shot, target: int) -> bool:
        if shot.team:
            return self.n.teams.get(target, "") == shot.team
        return shot.gun == str(target)

    def cop_checked(self, shot: Shot, target: int) -> None:
        """roles.cop.4: a civilian hit is checked; «Коп промахнулся» (roles.cop.5)."""
        self.m.say("cop_missed", "roles.cop.4")
        if self.n.cop_told and not shot.borrowed:  # amb.8's option
            self.m.tell(shot.by, "cop_checked", seat=target)

    def sniper(self, shot: Shot, target: int, lethal: list[Shot]) -> None:
        m = self.m
        if self.is_cop(target) and target not in self.n.was_pom:
            # roles.sniper.4 / fm.13.1: the shooter loses his role and learns the Cop
            self.demote(shot.by, "fm.13.1" if shot.borrowed else "roles.sniper.4")
            m.tell(shot.by, "found_cop", seat=target)
            return
        if target in self.n.dons:
            # roles.sniper.5-7, fm.6 (basement or not), fm.13.2 (the Tin Man)
            team = self.n.teams[target]
            self.convert(shot.by, team, "fm.13.2" if shot.borrowed else "roles.sniper.5")
            m.say("sniper_joined_mm", "roles.sniper.6")
            return
        if self.duel(shot, target):
            return
        lethal.append(shot)

    def duel(self, shot: Shot, target: int) -> bool:
        """fm.7, fm.7.2: the Vampire bit the shooter who shoots him: the Vampire leaves."""
        bite = self.n.bite
        if bite is not None and bite == (target, shot.by) and not shot.borrowed:
            self.m.die(target, "fm.7")
            return True
        return False

    def zombie(self, shot: Shot, target: int, lethal: list[Shot]) -> None:
        m = self.m
        if self.is_cop(target) or target in self.n.dons:
            m.die(shot.by, "fm.12" if shot.borrowed else "roles.zombie.7")
            if shot.borrowed:
                m.tell(shot.by, "found_cop" if self.is_cop(target) else "found_don", seat=target)
            return
        if self.role(target) == "civilian" and self.n.teams.get(target) == "civilians":
            self.recruits[target] = shot  # roles.zombie.5, fm.11: see recruit()
            return
        lethal.append(shot)  # roles.zombie.6

    def recruit(self) -> None:
        """roles.zombie.5 «Если попадёт в мж - тот переходит к нему в
        команду», fm.11 «МЖ переходит в ЛС к Зомби», fm.11.2 «ЖД будет
        знать, кто новый зомби»; amb.30 c: a recruit killed the same night
        is dead, not recruited."""
        m = self.m
        for target, shot in self.recruits.items():
            if target in m.deaths:
                continue
            m.changes[target] = ("zombie_member", "zombie")
            m.clauses.append("fm.11" if shot.borrowed else "roles.zombie.5")
            m.tell(target, "joined_team", team="zombie")
            if shot.borrowed:
                m.tell(shot.by, "new_member", seat=target, team="zombie")

    def maniac(self, shot: Shot, target: int, shots: list[Shot], lethal: list[Shot]) -> None:
        if self.is_cop(target):
            if any(s.kind == "team" for s in shots):
                self.m.clauses.append("fm.1")  # the Mafia's shot kills him; the Maniac stays
            elif not shot.borrowed:
                self.m.die(shot.by, "fm.5")  # roles.maniac.3
            return
        if self.duel(shot, target):
            return
        lethal.append(shot)

    def child(self, target: int, shots: list[Shot], lethal: list[Shot]) -> list[Shot]:
        """The ДМ (roles.mafia_child.*, fm.3, fm.4, fm.10, amb.21)."""
        m, n = self.m, self.n
        teams = {s.team for s in lethal if s.kind == "team"}
        others = [s for s in lethal if s.kind != "team"]
        cop = target in self.cop_hit
        if teams and (cop or len(teams) > 1):
            if n.heal != target:  # fm.3; two teams claiming him (amb.21 b, d)
                m.die(target, "fm.3")
            return others
        if len(teams) == 1:
            (team,) = teams
            shot = next(s for s in lethal if s.kind == "team")
            self.convert(target, team, "roles.mafia_child.2")
            if shot.borrowed:
                m.say("mm_found_child", "fm.10.2")
                m.tell(shot.by, "new_member", seat=target, team=team)  # fm.10.3
            elif n.heal == target:
                m.say("doctor_healed_healthy", "fm.4")
            return others
        if cop:
            if n.multi_child:  # roles.mafia_child.7, .9
                m.changes[target] = ("cop_assistant", "civilians")
                m.tell(target, "joined_cops")
                m.clauses.append("roles.mafia_child.7")
            else:  # roles.mafia_child.3: not told
                self.demote(target, "roles.mafia_child.3")
        return others

    def tramp(self, target: int, shots: list[Shot], lethal: list[Shot]) -> list[Shot]:
        """The Bomzh (roles.tramp.3-5, fm.14, fm.15, amb.29)."""
        m, n = self.m, self.n
        takers = [s for s in shots if s.kind == "cop" or (s.kind in ("team", "maniac"))]
        others = [s for s in lethal if s.kind not in ("team", "maniac")]
        teams = {s.team for s in takers if s.kind == "team"}
        cop = next((s for s in takers if s.kind == "cop"), None)
        if cop is not None:
            owner = cop  # fm.14, amb.29 a: «Пуля Копа спасает мирного»
        elif len(teams) > 1 or (teams and any(s.kind == "maniac" for s in takers)):
            if n.heal != target:  # fm.15, amb.29 b, e
                m.die(target, "fm.15")
            return others
        elif takers:
            owner = takers[0]
        else:
            return others
        m.tramp_owner[target] = str(owner.by) if owner.borrowed else owner.gun
        m.clauses.append("fm.14" if teams and cop is not None else "roles.tramp.3")
        if owner.borrowed or owner.kind != "team":
            m.tell(owner.by, "tramp_is", seat=target)
        else:
            for seat, team in n.teams.items():
                if team == owner.team:
                    m.tell(seat, "tramp_is", seat=target)  # roles.tramp.5
        return others

    def general(self, target: int, role: str, lethal: list[Shot]) -> None:
        """P2's general rule (3.2 step 7.8) and the Kamikaze's save (7.6)."""
        m, n = self.m, self.n
        saved = False
        for shot in lethal:
            if n.heal == target:
                saved = True  # roles.cop.3, roles.mafia.4, roles.maniac.4, fm.13
                m.clauses.append("roles.doctor.2")
                if shot.kind == "cop":
                    m.say("cop_missed", "roles.cop.5")
            elif target in n.hidden:
                self.missed(shot, "roles.mafia.7")  # amb.13
            elif self.cop_protects(target, shot):
                saved = True
                m.clauses.append("fm.2")
            elif self.immune_holding(target, shot):
                m.clauses.append("amb.53")
            else:
                m.die(target, KILLS[shot.kind])
        if saved and role == "kamikaze" and target not in m.deaths:
            m.say("kamikaze_saved", "roles.kamikaze.11")

    def cop_protects(self, target: int, shot: Shot) -> bool:
        """roles.mafia.5, fm.2, amb.11: the Cop's bullet saves a civilian
        from MM shots (either team, the lone Maniac)."""
        return (
            target in self.cop_hit
            and shot.kind in ("team", "maniac")
            and not self.is_mm(target)
            and self.side(target) != "zombie"
        )

    def immune_holding(self, target: int, shot: Shot) -> bool:
        """amb.53 a: the Tin Man holding a gun has its owner's immunities."""
        guns = self.n.holding.get(target, ())
        if not guns:
            return False
        kinds = {self.n.gun_kinds.get(gun, "") for gun in guns}
        if "cop" in kinds and shot.kind in ("sniper", "zombie", "maniac"):
            return True
        return "team" in kinds and shot.kind == "sniper"

    def kamikazes(self) -> None:
        """3.2 step 8: each Kamikaze killed tonight takes his victim, healed
        or not (roles.kamikaze.5, fm.16), unless hidden (roles.kamikaze.6-7);
        a chain of Kamikazes each dies at most once (amb.15)."""
        m, n = self.m, self.n
        done: set[int] = set()
        changed = True
        while changed:
            changed = False
            for kamikaze, victim in n.marks.items():
                if kamikaze in done or kamikaze not in m.deaths or kamikaze in n.exploded:
                    continue
                done.add(kamikaze)
                changed = True
                if victim in n.hidden:
                    m.say("shooter_missed", "roles.kamikaze.7", shooter="kamikaze")
                elif victim in n.roles:
                    m.die(victim, "roles.kamikaze.5")

    def vampire(self) -> None:
        """The bite lands at the end of the night (roles.vampire.3-6, fm.6);
        a Vampire who died tonight bites nobody (amb.22 a)."""
        bite = self.n.bite
        if bite is None:
            return
        vampire, bitten = bite
        m, n = self.m, self.n
        if vampire in m.deaths or bitten not in n.roles:
            return
        role, team = n.roles[bitten], n.teams[bitten]  # as the night began (P1)
        if n.roles[bitten] == "mafia_child" and bitten in self.cop_hit:
            self.demote(vampire, "roles.vampire.5")
            m.say("vampire_bit_child", "roles.vampire.5")
        elif team in (*MM_TEAMS, "zombie"):
            self.convert(vampire, team, "roles.vampire.4")  # fm.6: a hidden Don too
        elif role == "civilian":
            self.demote(vampire, "roles.vampire.3")
        else:  # a role's theft (roles.vampire.3, .6, amb.22 c, d)
            m.changes[vampire] = (role, team)
            m.changes[bitten] = ("civilian", "civilians")
            m.clauses.append("roles.vampire.3")
            m.tell(bitten, "lost_role")  # roles.vampire.7: not by whom
            m.tell(vampire, "your_role", role=role)
            if role in _COPS:
                self.cops_chat(vampire, bitten)

    def cops_chat(self, vampire: int, bitten: int) -> None:
        """roles.vampire.6 «укушенный исключается из копской, а вместо него
        добавляется Вампир»: the Копская is told its members anew."""
        cops = sorted(
            {seat for seat, role in self.n.roles.items() if role in _COPS} - {bitten} | {vampire}
        )
        if len(cops) > 1:
            for seat in cops:
                self.m.tell(seat, "cops", seats=",".join(str(x) for x in cops))
            self.m.clauses.append("roles.vampire.6")


#: the Копская's roles (roles.cop_assistant.2)
_COPS = ("cop", "cop_assistant")


def resolve(night: Night) -> Morning:
    return _Resolver(night).resolve()
