"""Cue latency and timer accuracy on the real clock.

Run ``python bench/cues.py`` (under ``run-tests``' PulseAudio null sink, or
any machine with a sound device, it plays through a real stream; without
one it drives the same Playback code path from a thread that stands in for
the audio callback). It prints its figures and asserts nothing.

- ours: a tournament game with its timings scaled down (a 0.3 s speech,
  warning 0.15 s before the end) runs in the real ``LiveLoop`` on the
  monotonic clock while another thread replays games through the engine
  without pause. Every cue is pre-rendered; the figures are timer firing
  error (deadline -> the loop steps the engine) and deadline -> the cue's
  first sample handed to the audio device (the stream callback), p50/p99.
- naive: ``pyttsx3.say(text); runAndWait()`` called at each deadline, the
  way a first version would do it. aplay gives no hook at the moment it
  hands its first sample over, so two figures stand in for it: the
  synthesis that must finish before aplay even starts (a lower bound, over
  as many cues as ours), and, side by side with ours, deadline -> first
  sound at the null sink's monitor (``bench/sink.py``, needs ``parec`` and
  aplay reaching PulseAudio: alsa-utils and libasound2-plugins).
- a busy core: a thread replaying games through the engine runs throughout.
- drift: three simulated hours of turns on a fake clock.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.naive import ROLES, busy_core, cue_variants, pct
from bench.sink import SinkMonitor
from companion.core.effects import Effect, Say
from companion.core.engine import new_game, step
from companion.core.events import GameSetUp, HostAdvanced, TimerExpired
from companion.core.rules import Ruleset
from companion.rulesets import load_ruleset
from companion.runner.clock import FakeClock, MonotonicClock, Timers
from companion.runner.loop import LiveLoop
from companion.voice.announcer import Announcer
from companion.voice.phrases import Catalogue
from companion.voice.speaker import Playback, SoundDeviceSpeaker
from companion.voice.tts import TtsVoice, WavCache


class CallbackThread:
    """Stands in for the audio callback when there is no device: fills
    blocks of ``blocksize`` on the callback's schedule, same Playback."""

    def __init__(self, rate: int = 22050, blocksize: int = 128) -> None:
        import numpy as np

        self.playback = Playback(rate)
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

    def play(self, clip: object, caption: str, *, urgent: bool = False) -> None:
        if clip is not None:
            self.playback.add(clip, caption, urgent)  # type: ignore[arg-type]

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


def open_output(device: str | None) -> tuple[object, str]:
    try:
        return SoundDeviceSpeaker(
            device, realtime=True
        ), f"a real output stream ({device or 'default device'})"
    except Exception as error:
        reason = str(error).splitlines()[0]
        return CallbackThread(), f"the callback code path on a thread (no sound device: {reason})"


def ours(cues: int, device: str | None) -> None:
    rules = scaled_rules()
    speaker, where = open_output(device)
    voice = Announcer(Catalogue.load("ru"), rules, speaker, WavCache(), TtsVoice("ru"))  # type: ignore[arg-type]
    voice.prepare(10)
    due: list[float] = []  # the deadline (or input time) of each cue played
    clock = MonotonicClock()
    runtime: LiveLoop
    catalogue = voice.catalogue

    def effects(at: float, effects: tuple[Effect, ...]) -> None:
        says = [e for e in effects if isinstance(e, Say)]
        if says:
            # The last cue of a batch, from memory as the Announcer plays it,
            # marked with its number: every cue cuts in (urgent) so that each
            # starts at the next callback, and a cue that never started (cut
            # in the same callback) is simply not counted.
            say = says[-1]
            clip = voice.clips.get(catalogue.key(say.cue, dict(say.args)))
            if clip is not None:
                due.append(at)
                speaker.play(clip, str(len(due) - 1), urgent=True)  # type: ignore[attr-defined]
        if any(isinstance(e, Say) and e.cue == "time_up" for e in effects):
            # The host moves on 40 ms later (a new cue must not land in the same callback).
            threading.Timer(0.04, runtime.submit, (HostAdvanced(),)).start()

    runtime = LiveLoop(clock, effects, realtime=True)  # as the live table runs it
    runtime.submit(GameSetUp(rules, 10, ROLES))
    loop = threading.Thread(target=runtime.run, daemon=True)
    loop.start()
    playback: Playback = speaker.playback  # type: ignore[attr-defined]
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
    time.sleep(0.2)
    speaker.close()  # type: ignore[attr-defined]
    latency = [s.at - due[int(s.caption)] for s in playback.started]
    lateness = runtime.stats.lateness
    print(f"ours: {len(latency)} cues through {where}")
    print(
        f"  deadline -> first sample handed to the device: p50 {pct(latency, 0.5):6.2f} ms   p99 {pct(latency, 0.99):6.2f} ms"
    )
    print(
        f"  timer firing error ({len(lateness)} timers): p50 {pct(lateness, 0.5):6.3f} ms   p99 {pct(lateness, 0.99):6.3f} ms"
    )


def ours_at_sink(cues: int, device: str | None) -> None:
    """Deadline -> first sound at the null sink's monitor, each cue after
    silence, through the Announcer as in a game (bench/naive.py measures
    the naive path the same way)."""
    try:
        monitor = SinkMonitor()
    except OSError as error:
        print(f"at the sink: not measured ({error})")
        return
    rules = load_ruleset("tournament")
    speaker, where = open_output(device)
    voice = Announcer(Catalogue.load("ru"), rules, speaker, WavCache(), TtsVoice("ru"))  # type: ignore[arg-type]
    voice.prepare(10)
    playback: Playback = speaker.playback  # type: ignore[attr-defined]
    heard_after: list[float] = []
    for cue, args, _ in cue_variants(cues):
        while not playback.idle:  # a phrase may pause between its sentences
            time.sleep(0.01)
        monitor.wait_quiet()
        deadline = time.monotonic()
        voice.say(Say(cue, tuple(args.items())))
        heard = monitor.onset(deadline)
        if heard is not None:
            heard_after.append(heard - deadline)
    voice.close()
    monitor.close()
    print("at the sink: deadline -> first sound at vsink.monitor, each cue after silence")
    print(
        f"  ours ({len(heard_after)} cues, pre-rendered, {where}): p50 {pct(heard_after, 0.5):6.1f} ms   p99 {pct(heard_after, 0.99):6.1f} ms"
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
        if game.turn_over:
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
        "--at-sink", type=int, default=50, help="cues for each path measured at the sink (0: skip)"
    )
    parser.add_argument("--device", default=None)
    args = parser.parse_args()
    print(f"Python {sys.version.split()[0]}")
    stop, counter = threading.Event(), [0]
    busy = threading.Thread(target=busy_core, args=(stop, counter), daemon=True)
    busy.start()  # the whole time, for every path
    ours(args.cues, args.device)
    if args.at_sink:
        ours_at_sink(args.at_sink, args.device)
    stop.set()
    print(f"(a busy core meanwhile: {counter[0]} engine steps on another thread)")
    sys.stdout.flush()
    # The naive path in a process of its own, with its own busy thread:
    # pyttsx3 keeps one espeak driver per process, and ours already uses it.
    naive = Path(__file__).with_name("naive.py")
    subprocess.run(
        [sys.executable, str(naive), f"--cues={args.naive}", f"--at-sink={args.at_sink}"],
        check=False,
    )
    drift()
    print("targets: cue p99 <= 10 ms, timer error p99 <= 2 ms, zero drift after 3 hours")


if __name__ == "__main__":
    main()
