"""Cue latency and timer accuracy on the real clock.

Run ``python bench/cues.py`` (under ``run-tests``' PulseAudio null sink, or
any machine with a sound device, it plays through a real stream; without
one it drives the same Playback code path from a thread that stands in for
the audio callback). It prints its figures and asserts nothing.

- ours: a tournament game with its timings scaled down (a 0.3 s speech,
  warning 0.15 s before the end) runs in the real ``LiveLoop`` on the
  monotonic clock, through the real ``Announcer`` with the loop's foresight
  (timer cues scheduled ahead; ``--no-foresight``: every cue played when
  its input is taken). Every cue is pre-rendered. Figures, for timer cues
  and for input cues (the host's "next", which nobody can foresee)
  separately: deadline (or input time) -> first sample handed to the
  device (the stream callback) and -> the time that sample plays at the
  device's own output clock (PortAudio's ``outputBufferDacTime``), p50/p99;
  underruns PortAudio reported; timer firing error (deadline -> the loop
  steps the engine) p50/p99; the priority each thread was granted.
- a busy machine: ``--neighbours`` CPU-bound processes (one per core by
  default) that the bench starts and stops, and a thread replaying games
  through the engine in the bench's own process (``--no-busy-thread``: none).
- at the sink (``bench/cues_sink.py``): a game through the speaker as the
  live table opens it (the main stream and the quick lane for inputs'
  answers; ``--single-stream``: the main stream alone, as before issue
  23), heard at the null sink's monitor (``bench/sink.py``, needs
  ``parec``): the answer to a host key (press -> first sound) and the timer
  cues (deadline -> first sound), p50/p99, and the underruns of each
  stream meanwhile.
- naive: ``pyttsx3.say(text); runAndWait()`` called at each deadline, the
  way a first version would do it, in a process of its own
  (``bench/naive.py``): deadline -> first sound at the same monitor (aplay
  must reach PulseAudio: alsa-utils and libasound2-plugins), each cue after
  silence, and the synthesis that must finish before aplay even starts.
  The last lines set ours against it.
- drift: three simulated hours of turns on a fake clock.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Hashable
from dataclasses import replace
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.cues_sink import ours_at_sink, report
from bench.naive import ROLES, busy_core, pct
from companion.config.rulesets import load_ruleset
from companion.core.effects import Effect, Say
from companion.core.engine import new_game, step
from companion.core.events import GameSetUp, HostAdvanced, TimerExpired
from companion.core.rules import Ruleset
from companion.core.sports.state import table
from companion.runner.clock import FakeClock, MonotonicClock, Timers
from companion.runner.loop import LiveLoop
from companion.voice.announcer import Announcer
from companion.voice.catalogue_load import load_catalogue
from companion.voice.speaker import OUTPUT_LATENCY, Playback, SoundDeviceSpeaker
from companion.voice.tts import TtsVoice, WavCache


class CallbackThread:
    """Stands in for the audio callback when there is no device: fills
    blocks of ``blocksize`` on the callback's schedule, same Playback."""

    schedules = True

    def __init__(self, rate: int = 22050, blocksize: int = 128) -> None:
        import numpy as np

        self.playback = Playback(rate)
        self.underruns = 0
        self.priority = "not asked"
        self._block = np.zeros(blocksize, dtype=np.int16)
        self._period = blocksize / rate
        self._stop = threading.Event()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        next_at = time.monotonic()
        while not self._stop.is_set():
            self.playback.fill(self._block)
            next_at += self._period
            time.sleep(max(0.0, next_at - time.monotonic()))

    def play(
        self,
        clip: object,
        caption: str,
        *,
        urgent: bool = False,
        at: float | None = None,
        ticket: Hashable | None = None,
    ) -> None:
        if clip is not None:
            self.playback.add(clip, caption, urgent, at=at, ticket=ticket)  # type: ignore[arg-type]

    def withdraw(self, ticket: Hashable) -> None:
        self.playback.withdraw(ticket)

    def close(self) -> None:
        self._stop.set()


def scaled_rules() -> Ruleset:
    """The tournament rules with a 0.3 s speech (warning 0.15 s before its end)."""
    tournament = load_ruleset("tournament")
    fast = replace(
        tournament.timings, speech_s=0.3, warning_s=0.15, last_word_s=0.3, tie_speech_s=0.3
    )
    night0 = tuple(replace(s, seconds=0.2) for s in tournament.night0)
    return replace(tournament, timings=fast, night0=night0)


def open_output(
    device: str | None,
    latency: float | str | None = None,
    blocksize: int | None = None,
    quick: bool = True,
) -> tuple[Any, str]:
    """The speaker as the live table opens it (real-time, the quick lane
    with ``quick``), or the callback's code path on a thread."""
    options: dict[str, Any] = {} if blocksize is None else {"blocksize": blocksize}
    try:
        speaker = SoundDeviceSpeaker(device, realtime=True, latency=latency, quick=quick, **options)
    except Exception as error:
        reason = str(error).splitlines()[0]
        return CallbackThread(), f"the callback code path on a thread (no sound device: {reason})"
    lanes = ", ".join(
        f"{lane.name} {lane.latency * 1000:.0f} ms in {lane.block_s * lane.format.rate:.0f}-frame blocks"
        for lane in speaker.lanes
    )
    return (
        speaker,
        f"{len(speaker.lanes)} output stream(s) on {device or 'the default device'} ({lanes})",
    )


def urgent(effects: tuple[Effect, ...]) -> tuple[Effect, ...]:
    """Every cue cuts in, so that each starts at its own moment rather than
    after the one before (a real phrase is longer than the bench's 0.15 s
    between cues); a cue cut before it started is simply not counted."""
    return tuple(replace(e, urgent=True) if isinstance(e, Say) else e for e in effects)


class BenchVoice:
    """The Announcer as the live table runs it, every cue made urgent."""

    def __init__(self, voice: Announcer, foresee: bool) -> None:
        self.voice = voice
        self.foresee = foresee

    def __call__(self, now: float, effects: tuple[Effect, ...]) -> None:
        self.voice(now, urgent(effects))

    def plan(self, at: float, effects: tuple[Effect, ...]) -> Hashable | None:
        return self.voice.plan(at, urgent(effects)) if self.foresee else None

    def withdraw(self, ticket: Hashable) -> None:
        self.voice.withdraw(ticket)

    def carried_out(self, ticket: Hashable) -> None:
        self.voice.carried_out(ticket)


def neighbours(count: int) -> list[subprocess.Popen[bytes]]:
    """CPU-bound processes, one per core by default: the machine is busy."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def ours(
    cues: int,
    device: str | None,
    latency: float | str | None,
    blocksize: int | None,
    foresee: bool,
    quick: bool,
) -> None:
    rules = scaled_rules()
    speaker, where = open_output(device, latency, blocksize, quick)
    voice = Announcer(
        load_catalogue("ru"),
        rules,
        speaker,
        WavCache(),
        TtsVoice("ru"),
        wall_time=lambda at: at,  # the loop runs on the monotonic clock itself
    )
    voice.prepare(10)
    clock = MonotonicClock()
    runtime: LiveLoop
    bench_voice = BenchVoice(voice, foresee)

    def effects(at: float, effects: tuple[Effect, ...]) -> None:
        bench_voice(at, effects)
        if any(isinstance(e, Say) and e.cue == "time_up" for e in effects):
            # The host moves on 40 ms later (a new cue must not land in the same callback).
            threading.Timer(0.04, runtime.submit, (HostAdvanced(),)).start()

    runtime = LiveLoop(clock, effects, realtime=True, foresight=bench_voice)
    runtime.submit(GameSetUp(rules, 10, ROLES))
    loop = threading.Thread(target=runtime.run, daemon=True)
    loop.start()
    playback: Playback = speaker.playback
    give_up = time.monotonic() + 60 + cues * 0.5
    while len(playback.started) < cues and loop.is_alive() and time.monotonic() < give_up:
        time.sleep(0.05)
        game = runtime.game
        if game is not None and game.phase == "ended":
            print("the game ended before every cue was played", file=sys.stderr)
            break
        if game is not None and game.phase != "speeches":
            runtime.submit(HostAdvanced())  # votes and nights: keep the game moving
    runtime.stop()
    time.sleep(0.3)
    speaker.close()
    started = list(playback.started)
    lateness = runtime.stats.lateness
    print(
        f"ours: {len(started)} cues through {where},"
        f" {'foreseen timer cues scheduled on the audio clock' if foresee else 'every cue played when its input is taken'}"
    )
    print(f"  priority: audio {speaker.priority}, timer loop {runtime.priority}")
    for name, kind in (("timer cues", True), ("input cues", False)):
        group = [s for s in started if s.scheduled == kind]
        if not group:
            continue
        handed = [s.handed - s.due for s in group]
        audible = [s.audible - s.due for s in group]
        lanes = {
            lane: sum(s.lane == lane for s in group) for lane in sorted({s.lane for s in group})
        }
        print(
            f"  {name} ({len(group)}, by lane {lanes}): deadline -> handed to the device p50 {pct(handed, 0.5):7.2f} ms  p99 {pct(handed, 0.99):7.2f} ms;"
            f"  -> at the device's output clock p50 {pct(audible, 0.5):7.2f} ms  p99 {pct(audible, 0.99):7.2f} ms"
        )
        behind = [s for s in group if s.free > s.due + 0.001]
        if behind:
            free = [s.audible - s.free for s in group]
            print(
                f"    {len(behind)} due while another cue was still sounding (they wait for it, or"
                f" cut in where the main stream's buffer ends); from when the speaker was free:"
                f" p50 {pct(free, 0.5):7.2f} ms  p99 {pct(free, 0.99):7.2f} ms"
            )
        late = [s for s in group if s.audible - s.due > 0.01]
        if late:
            notice = [s.due - s.queued for s in late]
            print(
                f"    {len(late)} heard over 10 ms late; they were handed over {pct(notice, 0.5):.0f} ms (p50)"
                f" and at most {max(notice) * 1000:.0f} ms before they were due"
            )
    by_lane = {
        lane.name: f"{lane.underruns} ({lane.underruns_in_cue} during a cue)"
        for lane in getattr(speaker, "lanes", [])
    }
    print(f"  underruns: {speaker.underruns} {by_lane}")
    print(
        f"  timer firing error ({len(lateness)} timers): p50 {pct(lateness, 0.5):6.3f} ms   p99 {pct(lateness, 0.99):6.3f} ms"
    )


def drift() -> None:
    rules = load_ruleset("tournament")
    clock, timers = FakeClock(), Timers()
    game, effects = new_game(GameSetUp(rules, 10, ROLES))
    timers.carry_out(effects, 0.0)
    ideal, fired = 0.0, 0
    while clock.now() < 3 * 3600:
        due = timers.earliest()
        if due is None or (game.phase != "speeches" and game.phase != "night"):
            break
        name, deadline, generation = due
        clock.set(max(clock.now(), deadline + 0.004))  # the loop is always 4 ms late
        game, effects = step(game, TimerExpired(name, generation))
        timers.expired(name)
        timers.carry_out(effects, deadline)
        if table(game).turn_over:
            game, effects = step(game, HostAdvanced())
            timers.carry_out(effects, deadline)
        ideal, fired = deadline, fired + 1
        if game.phase == "voting":  # a new game: the same table again
            game, effects = new_game(GameSetUp(rules, 10, ROLES))
            timers = Timers()
            timers.carry_out(effects, deadline)
    off = abs(ideal - round(ideal))
    print(
        f"drift: {fired} timers over {ideal / 3600:.2f} simulated hours, each fired 4 ms late: deadlines off the whole-second grid by {off * 1000:.3f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cues", type=int, default=1000)
    parser.add_argument("--naive", type=int, default=1000, help="cues for naive synthesis")  # fmt: skip
    parser.add_argument(
        "--at-sink",
        type=int,
        default=50,
        help="host keys (and naive cues) heard at the sink (0: skip)",
    )
    parser.add_argument("--device", default=None)
    parser.add_argument(
        "--neighbours",
        type=int,
        default=os.cpu_count() or 1,
        help="CPU-bound processes the bench starts and stops (default: one per core)",
    )
    parser.add_argument(
        "--latency",
        default=str(OUTPUT_LATENCY),
        help="the main stream's buffer: seconds, or low/high (PortAudio's)",
    )
    parser.add_argument(
        "--no-foresight",
        action="store_true",
        help="play every cue when the loop takes its input (before issue 9)",
    )
    parser.add_argument(
        "--single-stream",
        action="store_true",
        help="no quick lane: inputs' answers on the main stream too (before issue 23)",
    )
    parser.add_argument("--blocksize", type=int, default=None, help="frames per callback")
    parser.add_argument(
        "--no-busy-thread",
        action="store_true",
        help="no thread replaying games in the bench's process, nor in the naive one (it holds the interpreter)",
    )
    args = parser.parse_args()
    latency: float | str = args.latency if args.latency in ("low", "high") else float(args.latency)
    quick = not args.single_stream
    print(
        f"Python {sys.version.split()[0]}, {args.neighbours} CPU-bound neighbour process(es),"
        f" {'no' if args.no_busy_thread else 'a'} busy thread in each measured process;"
        f" load average {_load()} at the start"
    )
    busy_processes = neighbours(args.neighbours)
    stop, counter = threading.Event(), [0]
    busy = threading.Thread(target=busy_core, args=(stop, counter), daemon=True)
    if not args.no_busy_thread:
        busy.start()  # the whole time, for every path
    naive_heard: dict[str, list[float]] | None = None
    at_sink: Any = "not asked for (--at-sink 0)"
    try:
        if args.cues:
            ours(args.cues, args.device, latency, args.blocksize, not args.no_foresight, quick)
        if args.at_sink:
            speaker, where = open_output(args.device, latency, args.blocksize, quick)
            at_sink = (
                ours_at_sink(args.at_sink, speaker, where)
                if isinstance(speaker, SoundDeviceSpeaker)
                else "not measured (no sound device)"
            )
        stop.set()
        print(f"(a busy core meanwhile: {counter[0]} engine steps on another thread)")
        sys.stdout.flush()
        if args.naive or args.at_sink:
            naive_heard = run_naive(args.naive, args.at_sink, args.no_busy_thread)
    finally:
        for process in busy_processes:
            process.kill()
            process.wait()
    drift()
    print("\n".join(report(at_sink, naive_heard)))
    print(f"load average {_load()} at the end")
    print(
        "targets: cue p99 <= 10 ms, timer error p99 <= 2 ms, zero drift after 3 hours;"
        " a host key's answer at the sink below naive at p50 and p99, goal p99 <= 20 ms"
    )


def run_naive(cues: int, at_sink: int, no_busy_thread: bool) -> dict[str, list[float]] | None:
    """The naive path in a process of its own (pyttsx3 keeps one espeak
    driver per process, and ours already uses it), with its own busy thread
    unless ``no_busy_thread``; what it heard at the sink."""
    naive = Path(__file__).with_name("naive.py")
    with tempfile.TemporaryDirectory(prefix="companion-naive-") as folder:
        figures = Path(folder) / "naive.json"
        command = [sys.executable, str(naive), f"--cues={cues}", f"--at-sink={at_sink}"]
        command += [f"--figures={figures}"] + (["--no-busy-thread"] if no_busy_thread else [])
        subprocess.run(command, check=False)
        if not figures.exists():
            return None
        heard: dict[str, list[float]] = json.loads(figures.read_text(encoding="utf-8"))
        return heard


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


if __name__ == "__main__":
    main()
