"""The naive path, as a first version would speak a cue: ``pyttsx3.say(text);
runAndWait()`` at each deadline, while another thread keeps a core busy.

Run by ``bench/cues.py`` in a process of its own (pyttsx3 keeps one espeak
driver per process); ``python bench/naive.py`` alone works too. aplay gives
no hook at the moment it hands its first sample over, so two figures stand
in for that: the synthesis that must finish before aplay even starts (a
lower bound), and deadline -> first sound at the null sink's monitor, the
same measure ``bench/cues.py`` takes of ours. It also holds what both
scripts share.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.sink import SinkMonitor
from companion.config.rulesets import load_ruleset
from companion.core.engine import new_game, step
from companion.core.events import GameSetUp, HostAdvanced
from companion.voice.catalogue_load import load_catalogue

ROLES = ("civilian", "civilian", "mafia", "civilian", "sheriff", "don", "civilian", "mafia", "civilian", "civilian")  # fmt: skip


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile of seconds, in milliseconds (nan for none)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


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


def cue_variants(count: int) -> list[tuple[str, dict[str, Any], str]]:
    """``count`` (cue, args, text): a 10-seat tournament game's phrase
    variants in the catalogue's order, over and over."""
    variants = list(load_catalogue("ru").variants(load_ruleset("tournament"), 10))
    return [variants[i % len(variants)] for i in range(count)]


def naive_engine() -> Any:
    import pyttsx3

    engine = pyttsx3.init(driverName="espeak")
    engine.setProperty("voice", "zle/ru")
    return engine


def naive_at_sink(cues: int) -> list[float]:
    """Deadline -> first sound at the sink for ``cues`` cues, each after silence."""
    try:
        monitor = SinkMonitor()
    except OSError as error:
        print(f"  naive at the sink: not measured ({error})")
        return []
    engine = naive_engine()
    engine.say("Начинаем")  # pyttsx3's first say() after init returns at once: not counted
    engine.runAndWait()
    heard_after: list[float] = []
    for _, _, text in cue_variants(cues):
        monitor.wait_quiet()
        deadline = time.monotonic()
        engine.say(text)
        engine.runAndWait()
        heard = monitor.onset(deadline, timeout=2.0)
        if heard is not None:
            heard_after.append(heard - deadline)
    monitor.close()
    missing = cues - len(heard_after)
    print(
        f"  naive say()+runAndWait() via aplay ({len(heard_after)} cues): p50 {pct(heard_after, 0.5):6.1f} ms   p99 {pct(heard_after, 0.99):6.1f} ms"
        + (f"   ({missing} never heard: is aplay installed?)" if missing else "")
    )
    return heard_after


def naive_synthesis(cues: int) -> None:
    """What say() does before aplay starts: synthesise and write the WAV."""
    import pyttsx3.drivers.espeak as espeak_driver

    espeak_driver.print = lambda *args, **kwargs: None  # "Audio saved to ..."
    engine = naive_engine()
    waits = []
    with tempfile.TemporaryDirectory() as folder:
        for i, (_, _, text) in enumerate(cue_variants(cues)):
            deadline = time.monotonic()
            engine.save_to_file(text, f"{folder}/{i % 50}.wav")
            engine.runAndWait()
            waits.append(time.monotonic() - deadline)
    print(
        f"  deadline -> speech synthesised, before aplay can start ({len(waits)} cues): p50 {pct(waits, 0.5):6.1f} ms   p99 {pct(waits, 0.99):6.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cues", type=int, default=1000, help="cues for the synthesis figure")
    parser.add_argument("--at-sink", type=int, default=50, help="cues heard at the sink (0: skip)")
    parser.add_argument("--no-busy-thread", action="store_true", help="no thread replaying games")
    parser.add_argument("--figures", type=Path, help="write what was heard at the sink here (JSON)")
    args = parser.parse_args()
    stop, counter = threading.Event(), [0]
    if not args.no_busy_thread:
        threading.Thread(target=busy_core, args=(stop, counter), daemon=True).start()
    print(
        "naive pyttsx3 on demand, in a process of its own"
        + ("" if args.no_busy_thread else " with a thread replaying games")
        + ":"
    )
    heard: list[float] = []
    if args.at_sink:  # first: after save_to_file, pyttsx3's say() keeps writing to that file
        heard = naive_at_sink(args.at_sink)
    sys.stdout.flush()
    if args.figures is not None:
        args.figures.write_text(json.dumps({"at_sink": heard}), encoding="utf-8")
    if args.cues:
        naive_synthesis(args.cues)
    stop.set()


if __name__ == "__main__":
    main()
