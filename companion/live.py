"""Live commands: a table script in real time with the voice, one cue spoken,
the voices listed and pre-rendered."""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from .clock import MonotonicClock
from .core.effects import Effect, Say
from .core.events import GameSetUp
from .core.rules import Ruleset
from .core.state import Game
from .hostlog import HostLog
from .rulesets import load_ruleset
from .runtime import Runtime
from .script import ScriptLine
from .voice.announcer import Announcer
from .voice.pack import VoicePack
from .voice.phrases import Catalogue
from .voice.speaker import CaptionSpeaker, Speaker, open_speaker
from .voice.tts import TtsVoice, WavCache, list_voices


@dataclass(frozen=True, slots=True)
class VoiceSettings:
    lang: str = "ru"
    voice: str | None = None  # espeak-ng voice; default: the language
    rate: int = 165
    pack: Path | None = None
    device: str | None = None
    captions_only: bool = False

    @property
    def tts(self) -> TtsVoice:
        return TtsVoice(self.voice or self.lang, self.rate)


def announcer(
    settings: VoiceSettings, rules: Ruleset, seats: int, captions: TextIO | None = None
) -> Announcer:
    """The voice for a game: every phrase it can need rendered and in memory.
    ``captions``: where cues are printed without sound (standard output)."""
    speaker: Speaker = (
        CaptionSpeaker(captions)
        if settings.captions_only
        else open_speaker(settings.device, captions)
    )
    pack = VoicePack(settings.pack) if settings.pack else None
    voice = Announcer(Catalogue.load(settings.lang), rules, speaker, WavCache(), settings.tts, pack)
    voice.prepare(seats)
    return voice


def replay_realtime(
    lines: list[ScriptLine], settings: VoiceSettings, captions: TextIO | None = None
) -> Game | None:
    """Play a table script at its own pace on the real clock, with the voice."""
    setup = next((line.event for line in lines if isinstance(line.event, GameSetUp)), None)
    if setup is None:
        return None
    voice = announcer(settings, setup.ruleset, setup.seats, captions)
    log = HostLog(captions, lang=settings.lang)

    def effects(now: float, effects: tuple[Effect, ...]) -> None:
        voice(now, effects)
        log(now - start, effects)

    clock = MonotonicClock()
    runtime = Runtime(
        clock,
        effects,
        on_rejected=lambda e, why: print(f"refused: {why}", file=sys.stderr),
        realtime=True,
    )
    start = clock.now()
    finished = threading.Event()

    def feed() -> None:  # a thread that only enqueues, each line at its time
        for line in lines:
            if finished.wait(max(0.0, start + line.at - clock.now())):
                return
            if line.event is not None:
                runtime.submit(line.event, line.fields)
        runtime.stop()

    feeder = threading.Thread(target=feed, name="script", daemon=True)
    feeder.start()
    # The loop in a thread of its own: it takes a real-time priority, which
    # the main thread (Ctrl-C, later the console) should not have.
    loop = threading.Thread(target=runtime.run, name="timer loop", daemon=True)
    loop.start()
    try:
        while loop.is_alive():
            loop.join(0.2)
    except KeyboardInterrupt:
        finished.set()
        runtime.stop()
        loop.join(2.0)
    finally:
        voice.close()
    return runtime.game


def say(cue: str, args: dict[str, int | str], ruleset: str, settings: VoiceSettings) -> str:
    """Speak one cue (for trying voices); returns its text."""
    rules = load_ruleset(ruleset)
    catalogue = Catalogue.load(settings.lang)
    text = catalogue.text(cue, args, rules)
    speaker: Speaker = CaptionSpeaker() if settings.captions_only else open_speaker(settings.device)
    pack = VoicePack(settings.pack) if settings.pack else None
    voice = Announcer(catalogue, rules, speaker, WavCache(), settings.tts, pack)
    voice.say(Say(cue, tuple(args.items())))
    voice.close()
    _drain(speaker)
    return text


def _drain(speaker: Speaker) -> None:
    """Let a sound card finish the last cue before the process ends."""
    playback = getattr(speaker, "playback", None)
    done = threading.Event()
    while playback is not None and not playback.idle and not done.wait(0.05):
        pass
    if playback is not None:
        done.wait(0.3)


def voices_list(settings: VoiceSettings, ruleset: str, seats: int) -> list[str]:
    """The espeak-ng voices for the language, and the phrase keys a voice
    pack can record (one WAV file per key)."""
    rules = load_ruleset(ruleset)
    catalogue = Catalogue.load(settings.lang)
    lines = [
        f"voice {v.id}: {v.name}" for v in list_voices() if v.language.startswith(settings.lang)
    ]
    lines += [
        f"{catalogue.key(cue, args)}.wav\t{text}"
        for cue, args, text in catalogue.variants(rules, seats)
    ]
    return lines


def voices_build(settings: VoiceSettings, ruleset: str, seats: int) -> int:
    """Render every phrase ahead of time into the cache; how many there are."""
    rules = load_ruleset(ruleset)
    texts = [text for _, _, text in Catalogue.load(settings.lang).variants(rules, seats)]
    return len(WavCache().render_all(texts, settings.tts))
