"""The light language every procedure speaks (docs/lights.md): one mode per
seat, derived from the state by the procedure's ``lights``. The seat shell
(companion/seats/lights.py) renders each mode; a procedure picks among them
and defines none of its own, so the same buttons serve every game."""

from __future__ import annotations

OFF, STEADY, SLOW_BLINK, FAST_BLINK = "off", "steady", "slow_blink", "fast_blink"
PENALISED, MAY_VOTE, HOLDING, IDLE = "penalised", "may_vote", "holding", "idle"

#: every mode, in the order docs/lights.md lists them
MODES: tuple[str, ...] = (OFF, STEADY, SLOW_BLINK, FAST_BLINK, PENALISED, MAY_VOTE, HOLDING, IDLE)
