"""The long game of the crash bench (bench/crash.py): a tournament game of
~450 script lines whose every input is at least ``MARGIN`` game-seconds
before every timer deadline pending when it is taken, so that the real
clock's jitter cannot swap an input and a timer on the realtime path (why,
and the speed that goes with it: bench/crash.py).
"""

from __future__ import annotations

import json
import math
from typing import Any

from companion.core.effects import Effect
from companion.core.events import Event, TimerExpired
from companion.runner.replay import ScriptReplay
from companion.runner.session import GameSession
from testkit.bots import Bot, parsed

MARGIN = 2.0  # game-seconds between an input and the next pending deadline
GRID = 20  # script times are multiples of 1/GRID s (clean numbers in the journal)


class BriskBot(Bot):
    """``Bot``, brisk: short gaps, few long waits, and every input at least
    ``margin`` game-seconds before the next pending timer deadline."""

    def __init__(self, seed: int, ruleset: str, keep_alive: bool = False, margin: float = MARGIN):
        self.margin = margin
        super().__init__(seed, ruleset, keep_alive)

    def emit(self, obj: dict[str, Any], after: float = 0.0) -> bool:
        if obj["input"] == "wait":
            return super().emit(obj, after)
        after = min(after * 0.3, 2.0)  # a vote's presses fit in its 2 s window
        while True:
            first = min((d for d, _ in self.table.timers.values()), default=math.inf)
            if first - self.now >= self.margin - 1e-6:
                break
            # Too close to fit in before: let the timer fire first (a "wait"
            # at its deadline), then look again (it may have started another).
            self.now = max(self.now, first)
            super().emit({"input": "wait"})
        target = min(self.now + after, first - self.margin)
        self.now = max(self.now, math.floor(target * GRID + 1e-6) / GRID)
        return super().emit(obj, 0.0)

    def wait_for(self, timer: str) -> None:
        # Waiting out a 60 s speech or a 30 s night step is what makes a game
        # long; a few are kept (the warning, the turn's and the night's
        # expiries), the rest are cut short by the host.
        running = self.table.timers.get(timer)
        keep = 0.25 if timer == "night" else 0.1
        if running and running[0] - self.now > 5 and self.rng.random() > keep:
            if timer != "turn":  # an overrun's wait is followed by the host's «next»
                self.emit({"input": "next"}, 1)
            return
        super().wait_for(timer)


def crash_game(seed: int = 8, calm_inputs: int = 300, finish: bool = True) -> list[str]:
    """The script: nobody leaves for ``calm_inputs`` inputs, then (``finish``)
    the game is played to its end."""
    bot = BriskBot(seed, "tournament", keep_alive=True)
    bot.play(until_inputs=calm_inputs)
    if finish:
        bot.keep_alive = False
        bot.play(until_inputs=10 * calm_inputs + 1000)
    return bot.lines


class _Watch(GameSession):
    """Notes how close each input came to the next pending deadline."""

    def __init__(self) -> None:
        super().__init__()
        self.clearance = math.inf

    def take(self, event: Event, at: float, **where: Any) -> tuple[Effect, ...]:
        if type(event) is not TimerExpired:
            taken = round(max(at, self.now), 6)
            for deadline, _ in self.timers.deadlines.values():
                self.clearance = min(self.clearance, deadline - taken)
        return super().take(event, at, **where)


def clearance(script: list[str]) -> tuple[float, str, float]:
    """Replay ``script`` on the fake clock: (the least gap between an input
    and a pending deadline, the final phase, the last line's time)."""
    watch = _Watch()
    table = ScriptReplay(session=watch)
    table.run(parsed(script))
    assert table.game is not None
    return watch.clearance, table.game.phase, json.loads(script[-1])["at"]
