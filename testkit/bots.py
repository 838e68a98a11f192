"""A seeded bot that plays whole games by reading the game's state and
writing only inputs the engine accepts, as a host and ten players would:
speeches ended by «next», by «Пас» or by the speaker's button, overruns,
nominations, presses and releases in votes (some early, some twice), ties
and revotes, offences and dismissed proposals, undo, night shots and
checks, the best move. Every input goes through ``ScriptReplay.feed`` while
it is written, so the stream is legal by construction. Tests and benches
(``bench/engine.py``, the crash and soak benches) play its games.
"""

from __future__ import annotations

import functools
import json
import random
from typing import Any

from companion.config.rulesets import load_ruleset
from companion.core import views
from companion.core.sports.night import steps as night_steps
from companion.core.sports.state import current_turn, table
from companion.core.state import Game
from companion.runner.replay import ScriptReplay
from companion.runner.script import ScriptError, ScriptLine, parse_line, parse_lines

load = functools.lru_cache(maxsize=None)(load_ruleset)
ALIAS = {"shoot": "shot", "check": "check", "heal": "heal", "block": "block", "kill": "kill"}


class Bot:
    """Writes one game's script, line by line, by playing it.

    ``keep_alive``: nobody ever leaves (shots miss, votes tie and the
    all-leave vote fails), so one game can run for as long as asked.
    """

    def __init__(self, seed: int, ruleset: str, keep_alive: bool = False) -> None:
        self.rng = random.Random(seed)
        self.keep_alive = keep_alive
        self.table = ScriptReplay(source="bot")
        self.now = 0.0
        self.lines: list[str] = []
        rules = load(ruleset)
        self.warning = next(o.id for o in rules.offences if o.cost == "warning")
        self.fouls = [o.id for o in rules.offences if o.cost == "count"]
        self.emit({"input": "setup", "ruleset": ruleset, "seats": 10, "seed": seed})

    @property
    def game(self) -> Game:
        assert self.table.game is not None
        return self.table.game

    def emit(self, obj: dict[str, Any], after: float = 0.0) -> bool:
        """Offer one input at ``now + after``; keep it if the engine takes it."""
        self.now += after
        text = json.dumps({"at": self.now, **obj}, separators=(",", ":"))
        line = parse_line(text, len(self.lines) + 1, "bot", self.now, load)
        try:
            self.table.feed(line)
        except ScriptError:
            return False
        self.lines.append(text)
        return True

    def wait_for(self, timer: str) -> None:
        """Let a running timer fire (a "wait" line at its deadline)."""
        if timer in self.table.timers:
            deadline = self.table.timers[timer][0]
            self.emit({"input": "wait"}, max(0.0, deadline - self.now))
        else:  # it has already run out (an overrun): the host moves on
            self.emit({"input": "next"}, 1)

    def play(self, until_inputs: int) -> list[str]:
        while self.game.phase != "ended" and self.taken() < until_inputs:
            self.turn()
        return self.lines

    def taken(self) -> int:
        """How many inputs the game has had so far."""
        return self.table.inputs

    def turn(self) -> None:
        """One move of the phase's (a night step, a speech, a vote); now and
        then a proposal dismissed."""
        phase = self.game.phase
        if phase == "night":
            self.night()
        elif phase == "speeches":
            self.speech()
        elif phase == "voting":
            self.vote()
        if self.game.proposals and self.rng.random() < 0.5:
            self.emit({"input": "dismiss", "index": 0}, 0.5)

    # --- the night ----------------------------------------------------------
    def night(self) -> None:
        game, rng = self.game, self.rng
        step = night_steps(game)[table(game).night_step]
        actors = [s.number for s in game.seats if s.alive and s.role in step.roles]
        alive = [s.number for s in game.seats if s.alive]
        if step.action == "none" or not actors:
            if rng.random() < 0.5:
                self.emit({"input": "next"}, 3)
            else:
                self.wait_for("night")
            return
        if step.action == "shoot":
            if self.keep_alive:
                # one shooter short: a miss when the step runs out
                for seat in actors[1:]:
                    self.emit({"input": "shot", "seat": seat, "target": actors[0]}, 2)
                self.emit({"input": "next"}, 2) if rng.random() < 0.5 else self.wait_for("night")
                return
            target = rng.choice(alive)
            for seat in actors:
                aim = target if rng.random() < 0.8 else rng.choice(alive)
                self.emit({"input": "shot", "seat": seat, "target": aim}, 2)
            self.emit({"input": "next"}, 1)  # a step never ends by itself (issue 8)
            return
        for seat in actors:
            targets = [n for n in alive if n != seat] or alive
            name = ALIAS[step.action]
            if step.action == "kill" and rng.random() < 0.5:
                name = "choice"  # the generic spelling
            self.emit({"input": name, "seat": seat, "target": rng.choice(targets)}, 3)
        self.emit({"input": "next"}, 1)

    # --- speeches -------------------------------------------------------------
    def speech(self) -> None:
        game, rng = self.game, self.rng
        state = table(game)
        turn = current_turn(game)
        assert turn is not None
        seat = game.seat(turn.seat)
        alive = [s.number for s in game.seats if s.alive]
        rules = game.rules
        if turn.kind == "last_word" and turn.seat == state.first_victim and not state.best_move:
            suspects = rng.sample([n for n in range(1, 11) if n != turn.seat], 3)
            self.emit({"input": "best_move", "seat": turn.seat, "suspects": suspects}, 5)
        if turn.kind == "speech" and views.may_nominate(game, seat) and not state.turn_over:
            free = [n for n in alive if n not in state.nominees]
            if self.keep_alive:  # nominees come in pairs: a single one would be voted out
                later = any(t.kind == "speech" for t in state.turns[state.turn_at + 1 :])
                want = len(state.nominees) == 1 or (not state.nominees and later)
                want = want and (len(state.nominees) == 1 or rng.random() < 0.4)
            else:
                want = len(state.nominees) < 3 and rng.random() < 0.4
            if free and want:
                self.emit({"input": "nominate", "by": turn.seat, "target": rng.choice(free)}, 10)
        roll = rng.random()
        if roll < 0.04:
            self.emit({"input": "offence", "seat": rng.choice(alive), "offence": self.warning}, 2)
        elif roll < 0.07 and not self.keep_alive:
            self.emit({"input": "offence", "seat": rng.choice(alive), "offence": rng.choice(self.fouls)}, 2)  # fmt: skip
        elif roll < 0.10:
            other = rng.choice([n for n in alive if n != turn.seat] or alive)
            self.emit({"input": "press", "seat": other}, 1)  # out of turn: ignored
        elif roll < 0.13 and self.emit({"input": "undo"}, 1):
            return  # the bot looks at the game again
        if self.game.phase != "speeches" or current_turn(self.game) != turn:
            return
        end = rng.random()
        if end < 0.4:
            self.emit({"input": "next"}, rng.randrange(5, 50))
        elif end < 0.55:
            self.emit({"input": "pass", "seat": turn.seat}, rng.randrange(5, 50))
        elif end < 0.7:
            self.emit({"input": "press", "seat": turn.seat}, rng.randrange(5, 50))
        else:  # overrun: the warning and the turn timer fire, then the host moves on
            self.wait_for("turn")
            self.emit({"input": "next"}, rules.timings.warning_s / 2)

    # --- votes ------------------------------------------------------------------
    def vote(self) -> None:
        game, rng = self.game, self.rng
        ballot = table(game).ballot
        assert ballot is not None
        if ballot.counting:
            self.emit({"input": "next"}, 1) if rng.random() < 0.5 else self.wait_for("count")
            for seat in sorted(table(self.game).held):
                self.emit({"input": "release", "seat": seat}, 0.5)
            return
        voted = frozenset().union(*(v for i, v in enumerate(ballot.votes) if i != ballot.index))
        eligible = [s.number for s in game.seats if views.may_vote(game, s)]
        free = [n for n in eligible if n not in voted]
        if self.keep_alive:
            # half the table on the first of two nominees: a tie; the revote ties
            # again; a minority wants all of them out, so all stay
            share = len(eligible) // 2 if ballot.kind != "all_leave" else len(eligible) // 2 - 1
            hands = free[: max(0, share)]
        else:
            hands = [n for n in free if rng.random() < 0.4]
        for seat in hands:
            self.emit({"input": "press", "seat": seat}, 0.25)
        if hands and rng.random() < 0.2:
            # a hand lifted before «Спасибо», and put back
            self.emit({"input": "release", "seat": hands[0]}, 0.25)
            self.emit({"input": "press", "seat": hands[0]}, 0.25)
        if voted and rng.random() < 0.1:
            self.emit({"input": "press", "seat": min(voted)}, 0.25)  # a second vote
        self.emit({"input": "next"}, 0.25) if rng.random() < 0.5 else self.wait_for("vote")


def games(count: int) -> list[list[str]]:
    """Whole games, club and tournament, dealt by seed, played to their end."""
    return [
        Bot(seed, "club" if seed % 2 else "tournament").play(until_inputs=5_000)
        for seed in range(count)
    ]


def long_game(inputs: int, seed: int = 7) -> list[str]:
    """One tournament game nobody leaves, ``inputs`` inputs long (timers included)."""
    return Bot(seed, "tournament", keep_alive=True).play(until_inputs=inputs)


def parsed(script: list[str]) -> list[ScriptLine]:
    return parse_lines(script, "bench", load)
