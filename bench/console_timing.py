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
from companion.config.values import Config, MicrophoneConfig, PathsConfig, SeatsConfig, VoiceConfig
from companion.console.app import ConsoleApp
from companion.core.events import GameSetUp, HostAdvanced
from companion.core.sports.state import table_or_blank

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


#: where the ears' live stream comes from (``talk``):
#: - "sink": the default input, under the null sink its monitor, with a
#:   table's recorded talk played into that same sink (paplay): the server
#:   mixes a second stream into the one the cues go to;
#: - "second-sink": a null sink of its own ("room") carries the talk, and
#:   the ears record its monitor: a capture stream apart from the cues', as
#:   a Pi's microphone is a capture device apart from its speaker;
#: - "file": the ears read the talk from a WAV file at its own pace
#:   (``file:``): no capture stream at all.
TALKS = ("sink", "second-sink", "file")


def timing(
    cues: int, busy: int, latency: str = "normal", ears: bool = False, talk: str = "sink"
) -> list[str]:
    """Lines of figures (or why there are none). ``ears``: the table listens
    in its listening process, as ``[microphone] listen = true`` makes it, to
    the stream ``talk`` names (``TALKS``)."""
    with tempfile.TemporaryDirectory(prefix="companion-timing-") as folder:
        procs = neighbours(busy)
        device, module = None, None
        if ears:
            talk_proc, device, module = _table_talk(Path(folder), talk)
            procs += [talk_proc] if talk_proc is not None else []
        config = Config(
            seats=SeatsConfig(mode="simulated"),
            voice=VoiceConfig(latency=latency),
            microphone=MicrophoneConfig(listen=ears, device=device),
            paths=PathsConfig(
                Path(folder) / "journals", Path(folder) / "games", Path(folder) / "roster.toml"
            ),
        )
        app = ConsoleApp(config, now=datetime.now)
        try:
            lines = asyncio.run(_run(app, cues))
        finally:
            for proc in procs:
                proc.kill()
                proc.wait()
            if module is not None:
                subprocess.run(["pactl", "unload-module", module], check=False)
                subprocess.run(["pactl", "set-default-source", "vsink.monitor"], check=False)
    listening = f"; the ears listening ({talk}: {device or 'the default input'})" if ears else ""
    # (second-sink: the default input is room.monitor while the bench runs)
    return [
        f"with {busy} CPU-bound processes ({os.cpu_count()} cores) and the console drawing"
        f"{listening}; [voice] latency = {latency!r}:",
        *lines,
    ]


def _table_talk(
    folder: Path, talk: str
) -> tuple[subprocess.Popen[bytes] | None, str | None, str | None]:
    """A table's talk over a club's room (testkit/corpus.py) where the
    ears hear it (``TALKS``): the player, if any, the ears' device, and the
    PulseAudio module loaded for it (to unload)."""
    from testkit.corpus import make_corpus, save  # espeak-ng renders: only when listening

    wav, _ = save(make_corpus(7, 6.0, 10.0, "room"), folder / "talk.wav")
    if talk == "file":
        return None, f"file:{wav}", None
    if talk == "second-sink":
        loaded = subprocess.run(
            ["pactl", "load-module", "module-null-sink", "sink_name=room", "rate=16000"],
            check=True,
            capture_output=True,
            text=True,
        )
        # The cues stay on vsink; the default input (PortAudio sees
        # PulseAudio's default source, not its sources by name) is the room's.
        subprocess.run(["pactl", "set-default-sink", "vsink"], check=True)
        subprocess.run(["pactl", "set-default-source", "room.monitor"], check=True)
        player = subprocess.Popen(["paplay", "--device=room", str(wav)])
        return player, None, loaded.stdout.strip()
    return subprocess.Popen(["paplay", str(wav)]), None, None


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
    talk = sys.argv[4] if len(sys.argv) > 4 else "sink"
    if talk not in TALKS:
        sys.exit(f"console_timing: talk {talk!r} is not one of {', '.join(TALKS)}")
    print("\n".join(timing(count, os.cpu_count() or 2, latency, ears, talk)))
