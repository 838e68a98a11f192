"""The light language: how each seat mode (``core.views.lights``) looks on
an LED, as brightness over time. docs/lights.md explains the choices.

A pattern is a period and the brightness in each part of it; time counts
from the moment the seat entered its mode, so a change shows at once (a new
blink starts lit). ``PWM`` uses brightness levels; plain on/off LEDs
(``ONOFF``) show the same modes with on and off only. The sweep at the
start and end of a game runs round the table seat by seat.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Pattern:
    period: float  # seconds; 0: steady
    steps: tuple[tuple[float, float], ...]  # (until this fraction of the period, brightness)

    def level(self, elapsed: float) -> float:
        if self.period <= 0:
            return self.steps[0][1]
        phase = (elapsed % self.period) / self.period
        for until, brightness in self.steps:
            if phase < until:
                return brightness
        return self.steps[-1][1]


def steady(level: float) -> Pattern:
    return Pattern(0.0, ((1.0, level),))


def blink(period: float, on: float = 1.0, off: float = 0.0) -> Pattern:
    return Pattern(period, ((0.5, on), (1.0, off)))


# Two short flashes, then a pause: nothing else at the table looks like it.
DOUBLE_FLASH = Pattern(1.6, ((0.08, 1.0), (0.16, 0.0), (0.24, 1.0), (1.0, 0.0)))

PWM: dict[str, Pattern] = {
    "off": steady(0.0),  # out of the game
    "idle": steady(0.04),  # in the game, nothing asked: a faint glow
    "steady": steady(1.0),  # your minute
    "slow_blink": blink(1.0),  # the warning: last seconds
    "fast_blink": blink(0.25),  # over time
    "penalised": DOUBLE_FLASH,  # lost the next speech, nomination or vote
    "may_vote": steady(0.25),  # a vote: you may put your hand down
    "holding": steady(1.0),  # your hand is on the table
}

ONOFF: dict[str, Pattern] = {
    **{
        mode: Pattern(p.period, tuple((u, 1.0 if b >= 0.5 else 0.0) for u, b in p.steps))
        for mode, p in PWM.items()
    },
    "idle": steady(0.0),
    "may_vote": blink(1.0),  # no dim level: blinking invites the vote ...
    "holding": steady(1.0),  # ... and steady shows the hand is down
}

SWEEP_STEP = 0.08  # seconds each seat is lit as the sweep goes round


def patterns(kind: str) -> dict[str, Pattern]:
    return PWM if kind == "pwm" else ONOFF


def sweep_level(seat: int, elapsed: float) -> float | None:
    """During a sweep: seat ``seat`` (1-based) is lit in its slot, dark
    otherwise; None once the sweep has passed the seat (back to its mode)."""
    slot = (seat - 1) * SWEEP_STEP
    if elapsed < slot:
        return 0.0
    if elapsed < slot + SWEEP_STEP:
        return 1.0
    return None
