"""Ours at the sink (part of ``bench/cues.py``): a game played through the
real ``LiveLoop``, ``Announcer`` and speaker as the live table opens them
(``open_speaker``: the main stream and the quick lane, real-time), heard at
the null sink's monitor (``bench/sink.py``).

- *The answer to a host key*: once the speaker's time is up («Стоп») and
  the sink has been quiet for a moment, the bench presses "next"
  (``HostAdvanced``); from that moment to the first loud sample of the
  answer (the next speaker's cue) at the sink.
- *Timer cues*: the warning and «Стоп» of each speech, handed to the
  speaker ahead and started on the audio clock; from the deadline to the
  first loud sample at the sink, for those that follow silence.

The speech is long enough (``SPEECH_S``) that every cue follows silence.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any

from bench.naive import ROLES, pct
from bench.sink import SinkMonitor
from companion.config.rulesets import load_ruleset
from companion.core.events import GameSetUp, HostAdvanced
from companion.core.rules import Ruleset
from companion.core.sports.state import table
from companion.runner.clock import MonotonicClock
from companion.runner.loop import LiveLoop
from companion.voice.announcer import Announcer
from companion.voice.catalogue_load import load_catalogue
from companion.voice.tts import TtsVoice, WavCache

#: a speech's length and its warning before the end (s): «Слово
#: предоставляется игроку номер три. Шесть секунд.» takes ~3.7 s, «Одна
#: секунда.» ~0.8 s, so each timer cue follows silence
SPEECH_S, WARNING_S = 6.5, 1.5
#: silence wanted before a measured cue (s)
QUIET_S = 0.2
#: the monitor has a sample a few ms before PortAudio's estimate of when
#: the device plays it (the null sink's own latency, which a card would
#: spend in its DMA buffer): a timer cue may be heard there that early
EARLY_S = 0.01


def sink_rules() -> Ruleset:
    tournament = load_ruleset("tournament")
    timings = replace(
        tournament.timings,
        speech_s=SPEECH_S,
        warning_s=WARNING_S,
        last_word_s=SPEECH_S,
        tie_speech_s=SPEECH_S,
    )
    night0 = tuple(replace(s, seconds=0.5) for s in tournament.night0)
    return replace(tournament, timings=timings, night0=night0)


@dataclass
class AtSink:
    """What the run heard (seconds)."""

    answers: list[float] = field(default_factory=list)  # host key -> first sound
    unheard: int = 0  # presses whose answer never sounded
    timer: list[float] = field(default_factory=list)  # deadline -> first sound
    timer_skipped: int = 0  # timer cues not after silence (not measured)
    lanes: dict[str, int] = field(default_factory=dict)  # answers' cues by lane
    handed: list[float] = field(default_factory=list)  # host key -> handed to the device
    underruns: dict[str, str] = field(default_factory=dict)
    where: str = ""


def ours_at_sink(presses: int, speaker: Any, where: str) -> AtSink | str:
    """``presses`` answers to "next" and the timer cues meanwhile, through
    ``speaker`` (opened by the caller); a line saying why, if not measured."""
    try:
        monitor = SinkMonitor()
    except OSError as error:
        return f"not measured ({error})"
    rules = sink_rules()
    voice = Announcer(
        load_catalogue("ru"), rules, speaker, WavCache(), TtsVoice("ru"), wall_time=lambda at: at
    )
    voice.prepare(10)
    runtime = LiveLoop(MonotonicClock(), voice, realtime=True, foresight=voice)
    loop = threading.Thread(target=runtime.run, daemon=True)
    loop.start()
    runtime.submit(GameSetUp(rules, 10, ROLES))
    result = AtSink(where=where)
    pressed: list[float] = []
    give_up = time.monotonic() + 120 + presses * 15
    pause = threading.Event()
    try:
        while len(result.answers) + result.unheard < presses and time.monotonic() < give_up:
            pause.wait(0.02)
            game = runtime.game
            if game is None or not speaker.playback.idle:
                continue
            if game.phase == "ended":
                runtime.submit(GameSetUp(rules, 10, ROLES))
                continue
            if game.phase == "speeches" and not table(game).turn_over:
                continue  # the speaker's time runs: its warning and «Стоп» are coming
            monitor.wait_quiet(QUIET_S)
            if game.phase != "speeches":  # votes and nights: keep the game moving
                runtime.submit(HostAdvanced())
                pause.wait(0.3)
                continue
            at = time.monotonic()
            runtime.submit(HostAdvanced(), at=at)
            heard = monitor.onset(at, timeout=2.0)
            if heard is None:
                result.unheard += 1
            else:
                result.answers.append(heard - at)
                pressed.append(at)
        pause.wait(1.0)  # the last cue's sound reaches the recording
    finally:
        runtime.stop()
        loop.join(5)
    started = list(speaker.started)
    for at in pressed:  # the lane of the answer's first cue
        # (the loop keeps an input's time to the microsecond)
        answer = next((s for s in started if not s.scheduled and abs(s.due - at) < 1e-3), None)
        lane = "?" if answer is None else answer.lane
        result.lanes[lane] = result.lanes.get(lane, 0) + 1
        if answer is not None:
            result.handed.append(answer.handed - at)
    for cue in started:
        if not cue.scheduled:
            continue
        # Silence before it, up to EARLY_S before.
        before = monitor.quiet(cue.due - QUIET_S, cue.due - EARLY_S)
        heard = monitor.onset(cue.due - EARLY_S, timeout=0.0)
        if heard is None or heard - cue.due > 0.5 or not before:
            result.timer_skipped += 1
        else:
            result.timer.append(heard - cue.due)
    result.underruns = {
        lane.name: f"{lane.underruns} ({lane.underruns_in_cue} during a cue)"
        for lane in getattr(speaker, "lanes", [])
    }
    voice.close()
    monitor.close()
    return result


def report(ours: AtSink | str, naive: dict[str, list[float]] | None) -> list[str]:
    """The lines ``bench/cues.py`` prints for the sink."""
    if isinstance(ours, str):
        return [f"at the sink: {ours}"]
    lines = [
        f"at the sink (vsink.monitor), a game through {ours.where}:",
        f"  ours, the answer to a host key ({len(ours.answers)} presses, each after silence;"
        f" lanes {ours.lanes}): p50 {pct(ours.answers, 0.5):6.1f} ms   p99 {pct(ours.answers, 0.99):6.1f} ms"
        f"   max {max(ours.answers, default=float('nan')) * 1000:6.1f} ms"
        + (f"   ({ours.unheard} never heard)" if ours.unheard else ""),
        f"    of which host key -> its first sample handed to the device (the callback):"
        f" p50 {pct(ours.handed, 0.5):6.1f} ms   p99 {pct(ours.handed, 0.99):6.1f} ms",
        f"  ours, timer cues, deadline -> first sound ({len(ours.timer)} after silence,"
        f" {ours.timer_skipped} not measured): p50 {pct(ours.timer, 0.5):6.1f} ms"
        f"   p99 {pct(ours.timer, 0.99):6.1f} ms"
        f"   |error| max {max((abs(x) for x in ours.timer), default=float('nan')) * 1000:6.1f} ms",
        f"  underruns meanwhile: {ours.underruns}",
    ]
    heard = (naive or {}).get("at_sink") or []
    if not heard:
        lines.append("  naive: not measured at the sink")
        return lines
    ours50, ours99 = pct(ours.answers, 0.5), pct(ours.answers, 0.99)
    naive50, naive99 = pct(heard, 0.5), pct(heard, 0.99)
    verdict = "below" if ours50 < naive50 and ours99 < naive99 else "NOT below"
    lines.append(
        f"  ours {ours50:.1f} / {ours99:.1f} ms against naive {naive50:.1f} / {naive99:.1f} ms"
        f" (p50 / p99): {verdict} naive; goal p99 <= 20 ms: {'met' if ours99 <= 20 else 'missed'}"
    )
    return lines
