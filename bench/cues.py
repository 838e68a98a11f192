"""Cue latency and timer accuracy on the real clock.

Run ``python bench/cues.py`` (under ``run-tests``' PulseAudio null sink, or
any machine with a sound device, it plays through a real stream; without
one it drives the same Playback code path from a thread that stands in for
the audio callback). It prints its figures and asserts nothing.

- ours: a tournament game with its timings scaled down (a 0.3 s speech,
  warning 0.15 s before the end) runs in the real ``Runtime`` on the
  monotonic clock while another thread replays games through the engine
  without pause. Every cue is pre-rendered; the figures are timer firing
  error (deadline -> the loop steps the engine) and deadline -> the cue's
  first sample handed to the audio device (the stream callback), p50/p99.
- naive: ``pyttsx3.say(text); runAndWait()`` called at each deadline, the
  way a first version would do it; its start is estimated as the moment
  ``runAndWait`` returns minus the length of the audio it played (aplay
  gives no hook earlier than that).
- drift: three simulated hours of turns on a fake clock.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.clock import FakeClock, MonotonicClock, Timers
from companion.core.effects import Effect, Say
from companion.core.engine import new_game, step
from companion.core.events import GameSetUp, HostAdvanced, TimerExpired
from companion.rulesets import load_ruleset
from companion.runtime import Runtime
from companion.voice.announcer import Announcer
from companion.voice.phrases import Catalogue
from companion.voice.speaker import Playback, SoundDeviceSpeaker
from companion.voice.tts import TtsVoice, WavCache

ROLES = ("civilian", "civilian", "mafia", "civilian", "sheriff", "don", "civilian", "mafia", "civilian", "civilian")  # fmt: skip


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


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


def busy_core(stop: threading.Event, counter: list[int]) -> None:
    """Another thread keeping a core busy: replaying games through the engine."""
    rules = load_ruleset("tournament")
    while not stop.is_set():
        game, _ = new_game(GameSetUp(rules, 10, ROLES))
        for _ in range(200):
            game, _ = step(game, HostAdvanced())
            counter[0] += 1
            if game.phase == "ended":
                break


def ours(cues: int, device: str | None) -> None:
    tournament = load_ruleset("tournament")
    fast = replace(
        tournament.timings, speech_s=0.3, warning_s=0.15, last_word_s=0.3, tie_speech_s=0.3
    )
    night0 = tuple(replace(s, seconds=0.2) for s in tournament.night0)
    rules = replace(tournament, timings=fast, night0=night0)
    try:
        speaker: object = SoundDeviceSpeaker(device)
        where = f"a real output stream ({device or 'default device'})"
    except Exception as error:
        speaker = CallbackThread()
        where = (
            f"the callback code path on a thread (no sound device: {str(error).splitlines()[0]})"
        )
    voice = Announcer(Catalogue.load("ru"), rules, speaker, WavCache(), TtsVoice("ru"))  # type: ignore[arg-type]
    voice.prepare(10)
    due: list[float] = []  # the deadline (or input time) of each cue played

    clock = MonotonicClock()
    runtime: Runtime

    catalogue = voice.catalogue

    def effects(at: float, effects: tuple[Effect, ...]) -> None:
        says = [e for e in effects if isinstance(e, Say)]
        if says:
            # The last cue of a batch, from memory as the Announcer plays it,
            # marked with its number: every cue cuts in (urgent) so that each
            # starts at the next callback, and a cue that never started (cut
            # in the same callback) is simply not counted.
            say = says[-1]
            args = dict(say.args)
            clip = voice.clips.get(catalogue.key(say.cue, args))
            if clip is not None:
                due.append(at)
                speaker.play(clip, str(len(due) - 1), urgent=True)  # type: ignore[attr-defined]
        if any(isinstance(e, Say) and e.cue == "time_up" for e in effects):
            # The host moves on 40 ms later (a new cue must not land in the same callback).
            threading.Timer(0.04, runtime.submit, (HostAdvanced(),)).start()

    runtime = Runtime(clock, effects)
    stop, counter = threading.Event(), [0]
    worker = threading.Thread(target=busy_core, args=(stop, counter), daemon=True)
    worker.start()
    runtime.submit(GameSetUp(rules, 10, ROLES))
    loop = threading.Thread(target=runtime.run, daemon=True)
    loop.start()
    playback: Playback = speaker.playback  # type: ignore[attr-defined]
    give_up = time.monotonic() + 60 + cues * 0.2
    while len(playback.started) < cues and loop.is_alive() and time.monotonic() < give_up:
        time.sleep(0.05)
        if runtime.game is not None and runtime.game.phase != "speeches" and len(due) > 5:
            runtime.submit(HostAdvanced())  # votes and nights: keep the game moving
    runtime.stop()
    stop.set()
    time.sleep(0.2)
    speaker.close()  # type: ignore[attr-defined]
    latency = [s.at - due[int(s.caption)] for s in playback.started]
    n = len(latency)
    lateness = runtime.stats.lateness
    print(f"ours: {n} cues through {where}, busy core: {counter[0]} engine steps meanwhile")
    print(
        f"  deadline -> first sample to the device: p50 {pct(latency, 0.5):6.2f} ms   p99 {pct(latency, 0.99):6.2f} ms"
    )
    print(
        f"  timer firing error ({len(lateness)} timers): p50 {pct(lateness, 0.5):6.3f} ms   p99 {pct(lateness, 0.99):6.3f} ms"
    )


def naive(cues: int) -> None:
    """pyttsx3's say() synthesises, writes a temporary WAV and runs aplay;
    nothing can sound before that synthesis is done, so its time from the
    deadline is a lower bound on the naive cue's latency (aplay's start-up
    and the device's buffer come on top)."""
    import tempfile

    import pyttsx3
    import pyttsx3.drivers.espeak as espeak_driver

    espeak_driver.print = lambda *args, **kwargs: None
    engine = pyttsx3.init(driverName="espeak")
    engine.setProperty("voice", "zle/ru")
    catalogue = Catalogue.load("ru")
    rules = load_ruleset("tournament")
    texts = [text for _, _, text in catalogue.variants(rules, 10)][:cues]
    waits = []
    with tempfile.TemporaryDirectory() as folder:
        for i, text in enumerate(texts):
            deadline = time.monotonic()
            engine.save_to_file(text, f"{folder}/{i}.wav")  # what say() does first
            engine.runAndWait()
            waits.append(time.monotonic() - deadline)
    print(f"naive pyttsx3 on demand: {len(texts)} cues")
    print(
        f"  deadline -> speech synthesised, before aplay can start: p50 {pct(waits, 0.5):6.1f} ms   p99 {pct(waits, 0.99):6.1f} ms"
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
    parser.add_argument("--naive", type=int, default=40, help="cues for the naive path (slow)")
    parser.add_argument("--device", default=None)
    args = parser.parse_args()
    print(f"Python {sys.version.split()[0]}")
    ours(args.cues, args.device)
    naive(args.naive)
    drift()
    print("targets: cue p99 <= 10 ms, timer error p99 <= 2 ms, zero drift after 3 hours")


if __name__ == "__main__":
    main()
