"""The host's hands on the clock: pause, resume, add or take time.

The engine reads no clock. The shell that owns the deadlines measures how
long each running timer has left and puts it in the input
(``TimersPaused.remaining``, ``TimeAdjusted.remaining``); the journal keeps
those figures, so a replay does exactly what the live table did.
"""

from __future__ import annotations

from .events import Remaining, TimeAdjusted, TimersPaused
from .step import Step, require


def _running(t: Step) -> set[str]:
    return {name for name, _ in t.game.timers}


def _given(t: Step, remaining: Remaining) -> dict[str, float]:
    running = _running(t)
    given = {name: max(0.0, float(seconds)) for name, seconds in remaining}
    require(
        set(given) == running,
        f"the time left must be given for the running timers {sorted(running)}, got {sorted(given)}",
    )
    return given


def pause(t: Step, event: TimersPaused) -> None:
    require(not t.game.paused, "the timers are already paused")
    require(bool(t.game.timers), "no timer is running")
    left = _given(t, event.remaining)
    t.cancel_timers(*left)
    t.set(paused=tuple(left.items()))
    t.record("paused", left=left_text(tuple(left.items())))
    t.say("paused")


def left_text(left: tuple[tuple[str, float], ...]) -> str:
    """``turn=42.5,night=10``: paused timers as a record keeps them."""
    return ",".join(f"{name}={seconds:g}" for name, seconds in left)


def consistent(t: Step, left: tuple[tuple[str, float], ...]) -> tuple[tuple[str, float], ...]:
    """Timers brought back together (an undo): the warning still falls
    ``warning_s`` before the end of the turn it belongs to."""
    given = dict(left)
    if "turn" in given and "warning" in given:
        given["warning"] = max(0.0, given["turn"] - t.game.rules.timings.warning_s)
    return tuple(given.items())


def resume(t: Step) -> None:
    require(bool(t.game.paused), "the timers are not paused")
    asked_again = _undone_just_now(t)
    for name, seconds in t.game.paused:
        t.start_timer(name, seconds)
    t.set(paused=())
    t.record("resumed")
    t.say("resumed")
    if asked_again:  # the procedure asks again what the undo brought back
        t.procedure.ask_again(t)


def _undone_just_now(t: Step) -> bool:
    """The pause is an undo's (not the host's ``pause``): the newest record
    that paused the timers is an undo that brought them back paused."""
    entry = t.game.log
    while entry is not None:
        if entry.kind == "paused" or entry.kind == "resumed":
            return False
        if entry.kind == "undone" and any(name == "left" for name, _ in entry.data):
            return True
        entry = entry.prev
    return False


def adjust(t: Step, event: TimeAdjusted) -> None:
    game = t.game
    paused = bool(game.paused)
    left = dict(game.paused) if paused else _given(t, event.remaining)
    main = next(
        (name for name in t.procedure.main_timers.get(game.phase, ()) if name in left), None
    )
    if main is None:
        # No main timer runs: the procedure says whether one takes the time
        # (the sports table's speaker over time).
        main = t.procedure.more_time(t, event.seconds)
        require(main is not None, "there is no turn, vote window or night step to add time to")
        assert main is not None
        left[main] = event.seconds
    else:
        left[main] = max(0.0, left[main] + event.seconds)
    t.record("time_added", seconds=event.seconds, left=left[main])
    t.say("time_added", seconds=int(event.seconds))
    t.procedure.time_moved(t, left)
    if paused:
        t.set(paused=tuple(left.items()))
        return
    stale = _running(t) - set(left)
    if stale:
        t.cancel_timers(*stale)
    if left[main] <= 0:
        # Time taken beyond what was left: the turn, window or step is over now.
        t.cancel_timers(*left)
        _expire(t, main)
        return
    for name, seconds in left.items():
        t.start_timer(name, seconds)


def _expire(t: Step, main: str) -> None:
    """The time taken ran the turn, window or step out: as its timer would."""
    if t.procedure.ran_over(t.game, main):
        return  # already over time: nothing more to say
    expired = t.procedure.timers.get((main, t.game.phase))
    if expired is not None:
        expired(t)
