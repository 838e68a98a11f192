"""Cue and timer timing while the console draws a game in progress and
CPU-bound processes keep every core busy (part of ``bench/console.py``).

The console runs headless (Textual's pilot) as ``companion`` builds it: one
``LiveTable`` with its loop in its own thread on the real clock, the real
sound stream (the default device: run under ``run-tests``' PulseAudio null
sink, or on a machine with a card), every timer's cues scheduled ahead. The
game is the tournament's with its timings scaled down (bench/cues.py: a
0.3 s speech) so that a run has hundreds of cues; the bench moves the game
on as a host would (the next speaker once time is up, votes and nights).
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from bench.cues import neighbours, scaled_rules
from bench.naive import ROLES, pct
from companion.config import Config, PathsConfig, SeatsConfig
from companion.console.app import ConsoleApp
from companion.core.events import GameSetUp, HostAdvanced


async def _play(app: ConsoleApp, cues: int, give_up: float) -> None:
    app.start_game(GameSetUp(scaled_rules(), 10, ROLES), None)
    table = app.table
    assert table is not None
    speaker: Any = table.voice.speaker
    while time.monotonic() < give_up:
        await asyncio.sleep(0.04)  # the console draws meanwhile
        game = table.game
        started = getattr(speaker, "playback", None)
        if started is not None and len(started.started) >= cues:
            return
        if game is None or game.phase == "ended":
            return
        if game.phase != "speeches" or game.turn_over:
            table.submit(HostAdvanced())  # the host moves on


def timing(cues: int, busy: int) -> list[str]:
    """Lines of figures (or why there are none)."""
    with tempfile.TemporaryDirectory(prefix="companion-timing-") as folder:
        config = Config(
            seats=SeatsConfig(mode="simulated"),
            paths=PathsConfig(
                Path(folder) / "journals", Path(folder) / "games", Path(folder) / "roster.toml"
            ),
        )
        app = ConsoleApp(config, now=datetime.now)
        procs = neighbours(busy)
        try:
            lines = asyncio.run(_run(app, cues))
        finally:
            for proc in procs:
                proc.kill()
                proc.wait()
    return [
        f"with {busy} CPU-bound processes ({os.cpu_count()} cores) and the console drawing:",
        *lines,
    ]


async def _run(app: ConsoleApp, cues: int) -> list[str]:
    async with app.run_test(size=(150, 45)) as pilot:
        await pilot.pause()
        await _play(app, cues, time.monotonic() + 120 + cues * 0.5)
        table = app.table
        assert table is not None
        speaker: Any = table.voice.speaker
        playback = getattr(speaker, "playback", None)
        if playback is None:
            return [f"  no sound device ({type(speaker).__name__}): no cue figures"]
        started = list(playback.started)
        lateness = list(table.loop.stats.lateness)
        lines = [f"  priority: audio {speaker.priority}, timer loop {table.loop.priority}"]
        for name, kind in (("timer cues", True), ("input cues", False)):
            group = [s for s in started if s.scheduled == kind]
            if not group:
                continue
            handed = [s.handed - s.due for s in group]
            audible = [s.audible - s.due for s in group]
            lines.append(
                f"  {name} ({len(group)}): deadline -> handed to the device p50 {pct(handed, 0.5):7.2f} ms"
                f"  p99 {pct(handed, 0.99):7.2f} ms; -> at the device's output clock p50"
                f" {pct(audible, 0.5):7.2f} ms  p99 {pct(audible, 0.99):7.2f} ms"
            )
        lines.append(f"  underruns: {speaker.underruns}")
        lines.append(
            f"  timer firing error ({len(lateness)} timers): p50 {pct(lateness, 0.5):6.3f} ms"
            f"   p99 {pct(lateness, 0.99):6.3f} ms"
        )
        await app.action_quit()
    return lines


if __name__ == "__main__":
    print("\n".join(timing(int(sys.argv[1]) if len(sys.argv) > 1 else 200, os.cpu_count() or 2)))
