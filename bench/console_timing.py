"""Cue and timer timing while the console draws a game in progress and
CPU-bound processes keep every core busy (part of ``bench/console.py``).

The console runs headless (Textual's pilot) as ``companion`` builds it: the
table in a process of its own (``table_process``), its loop on the real clock, the real
sound stream (the default device: run under ``run-tests``' PulseAudio null
sink, or on a machine with a card), every timer's cues scheduled ahead. The
game is the tournament's with its timings scaled down (bench/cues.py: a
0.3 s speech) so that a run has hundreds of cues; the bench moves the game
on as a host would (the next speaker once time is up, votes and nights).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

from bench.cues import neighbours, scaled_rules
from bench.naive import ROLES, pct
from companion.config import Config, MicrophoneConfig, PathsConfig, SeatsConfig, VoiceConfig
from companion.console.app import ConsoleApp
from companion.core.events import GameSetUp, HostAdvanced
from companion.core.table_state import table_or_blank

#: seconds on the set-up screen before the game starts (a host takes longer)
SETUP_S = 4.0


async def _play(app: ConsoleApp, cues: int, give_up: float) -> None:
    app.start_game(GameSetUp(scaled_rules(), 10, ROLES), None)
    table = app.table
    assert table is not None
    checked = time.monotonic()
    moves = 0
    ready_since: float | None = None
    while time.monotonic() < give_up:
        await asyncio.sleep(0.04)  # the console draws meanwhile
        game = table.game
        if time.monotonic() - checked > 1.0:
            checked = time.monotonic()
            if len(table.timing().started) >= cues:
                return
        if game is None or game.phase == "ended":
            return
        if game.phase != "speeches" or table_or_blank(game).turn_over:
            # The host moves on: every other time at once (the input's cue
            # waits for the one still sounding), else once the voice is quiet.
            ready_since = ready_since or time.monotonic()
            if moves % 2 == 0 or time.monotonic() - ready_since > 1.2:
                table.submit(HostAdvanced())
                moves += 1
                ready_since = None
                await asyncio.sleep(0.1)  # the table's update comes back


def timing(cues: int, busy: int, latency: str = "normal", ears: bool = False) -> list[str]:
    """Lines of figures (or why there are none). ``ears``: the table listens
    to the default input (under the null sink, its monitor: the table's own
    voice and a table's recorded talk played into it) in its listening
    process, as ``[microphone] listen = true`` makes it."""
    with tempfile.TemporaryDirectory(prefix="companion-timing-") as folder:
        config = Config(
            seats=SeatsConfig(mode="simulated"),
            voice=VoiceConfig(latency=latency),
            microphone=MicrophoneConfig(listen=ears),
            paths=PathsConfig(
                Path(folder) / "journals", Path(folder) / "games", Path(folder) / "roster.toml"
            ),
        )
        app = ConsoleApp(config, now=datetime.now)
        procs = neighbours(busy)
        if ears:
            procs += [_table_talk(Path(folder))]
        try:
            lines = asyncio.run(_run(app, cues))
        finally:
            for proc in procs:
                proc.kill()
                proc.wait()
    listening = "; the ears listening to a live stream" if ears else ""
    return [
        f"with {busy} CPU-bound processes ({os.cpu_count()} cores) and the console drawing"
        f"{listening}; [voice] latency = {latency!r}:",
        *lines,
    ]


def _table_talk(folder: Path) -> subprocess.Popen[bytes]:
    """A table's talk over a club's room (bench/ears_corpus.py), played into
    the default output over and over: what the ears' live stream hears
    besides the table's own voice."""
    from bench.ears_corpus import make_corpus, save  # espeak-ng renders: only when listening

    wav, _ = save(make_corpus(7, 6.0, 10.0, "room"), folder / "talk.wav")
    return subprocess.Popen(["paplay", str(wav)])


async def _run(app: ConsoleApp, cues: int) -> list[str]:
    async with app.run_test(size=(150, 45)) as pilot:
        await pilot.pause()
        # The host looks at the set-up screen for a while: meanwhile the spare
        # table process imports its parts and starts the sound stream.
        await asyncio.sleep(SETUP_S)
        await _play(app, cues, time.monotonic() + 120 + cues * 0.5)
        table = app.table
        assert table is not None
        figures = table.timing()
        if not table.sound:
            return ["  no sound device (captions): no cue figures"]
        started = list(figures.started)
        lateness = list(figures.lateness)
        where = "its own process" if app.own_process else "the console's process"
        lines = [
            f"  the table in {where}; priority: audio {figures.audio_priority},"
            f" timer loop {figures.loop_priority}"
        ]
        for name, kind in (("timer cues", True), ("input cues", False)):
            group = [s for s in started if s.scheduled == kind]
            if not group:
                continue
            # A cue due while another still sounds waits for it (cues never cut
            # each other short): its latency counts from when the speaker was free.
            handed = [s.handed - s.free for s in group]
            audible = [s.audible - s.free for s in group]
            behind = sum(s.free > s.due for s in group)
            lines.append(
                f"  {name} ({len(group)}, {behind} behind a cue still sounding): deadline -> handed to the device p50 {pct(handed, 0.5):7.2f} ms"
                f"  p99 {pct(handed, 0.99):7.2f} ms; -> at the device's output clock p50"
                f" {pct(audible, 0.5):7.2f} ms  p99 {pct(audible, 0.99):7.2f} ms"
            )
            worst = sorted(group, key=lambda s: s.free - s.audible)[:3]
            lines.append(
                "    latest: "
                + "; ".join(
                    f"{(s.audible - s.free) * 1000:.0f} ms «{s.caption}» (cue {started.index(s) + 1})"
                    for s in worst
                )
            )
        lines.append(f"  underruns: {figures.underruns}")
        if app.config.microphone.listen and app.journal_path is not None:
            journal = app.journal_path.read_text(encoding="utf-8")
            heard = journal.count('"heard"')
            lines.append(f"  the ears: {heard} flags proposed to the host during the run")
        lines.append(
            f"  timer firing error ({len(lateness)} timers): p50 {pct(lateness, 0.5):6.3f} ms"
            f"   p99 {pct(lateness, 0.99):6.3f} ms"
        )
        await app.action_quit()
    return lines


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    latency = sys.argv[2] if len(sys.argv) > 2 else "normal"
    ears = len(sys.argv) > 3 and sys.argv[3] == "ears"
    print("\n".join(timing(count, os.cpu_count() or 2, latency, ears)))
