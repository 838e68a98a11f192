"""A table script played at its own pace at a live table (``companion replay
--realtime``): the real clock, the voice, the journal, exactly as the console
plays a game, with a feeder thread standing in for the people at the table."""

from __future__ import annotations

import threading
import time

from ..core.events import Event, GameSetUp
from ..core.state import Game
from ..runner.clock import GameClock
from ..runner.journal import Journal
from ..runner.journal_writer import SETTLE_S
from ..runner.script import ScriptError, ScriptLine
from ..runner.session import GameSession
from ..voice.settings import VoiceSettings
from .assembly import LiveTable, Outputs, TableSpec


def replay_realtime(
    lines: list[ScriptLine],
    settings: VoiceSettings,
    outputs: Outputs,
    *,
    journal: Journal | None = None,
    session: GameSession | None = None,
    speed: float = 1.0,
    source: str = "script",
) -> Game | None:
    """Play a table script at its own pace (``speed`` times as fast) on the
    real clock, with the voice, journaling every accepted input.
    ``session``: a game rebuilt from its journal, which the script goes on.
    An input the engine refuses stops the run, as in a plain replay: a
    ScriptError names the line."""
    session = session or GameSession(journal=journal)
    if session.game is not None:
        rules, seats = session.game.rules, len(session.game.seats)
    else:
        setup = next((ln.event for ln in lines if isinstance(ln.event, GameSetUp)), None)
        if setup is None:
            return None
        rules, seats = setup.ruleset, setup.seats

    refused: list[ScriptError] = []
    by_number = {line.number: line for line in lines}
    finished = threading.Event()

    def rejected(event: Event, reason: str, number: int | None) -> None:
        line = by_number.get(number or 0)
        error = ScriptError(source, line.number if line else 0, line.text if line else "", reason)
        error.refused_in = rules
        refused.append(error)
        finished.set()
        table.stop()

    clock = GameClock(start_at=session.now, speed=speed)
    table = LiveTable(
        TableSpec(voice=settings, seats="none", speed=speed),
        rules,
        seats,
        outputs=outputs,
        session=session,
        clock=clock,
        on_refused=rejected,
        lang=settings.lang,
    )

    # The script's order is the game's, as in its replay on the fake clock,
    # however late the feeder or the loop comes round on a busy machine: no
    # timer due after an input's moment fires before that input is taken,
    # and none due after the script's last line fires at all.
    inputs = [line for line in lines if line.event is not None]  # not "wait"
    end = max((line.at for line in lines), default=session.now)
    next_ats = [line.at for line in inputs[1:]] + [end]

    def feed() -> None:  # a thread that only enqueues, each line at its time
        for line, next_at in zip(inputs, next_ats, strict=True):
            if finished.wait(max(0.0, clock.wall_time(line.at) - time.monotonic())):
                return
            assert line.event is not None
            ruleset = line.fields.get("ruleset")
            table.submit(
                line.event,
                at=line.at,
                line=line.fields.get("line", line.number),
                ruleset=ruleset if isinstance(ruleset, str) else None,
                next_at=next_at,
            )
        if not finished.wait(max(0.0, clock.wall_time(end) - time.monotonic())):
            table.stop()

    table.loop.end_at(inputs[0].at if inputs else end)
    feeder = threading.Thread(target=feed, name="script", daemon=True)
    feeder.start()
    table.start()
    try:
        while table.running():
            table.join(0.2)
    except KeyboardInterrupt:
        finished.set()
        table.stop()
        table.join(SETTLE_S + 5.0)  # the loop waits for the journal's writer
    finally:
        table.voice.close()  # the journal belongs to the caller, who closes it
    if refused:
        raise refused[0]
    return table.game
