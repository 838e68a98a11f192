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
from .voice.cue_args import check_cue_args, check_seats
from .voice.pack import VoicePack
from .voice.phrases import Catalogue
from .voice.speaker import CaptionSpeaker, Speaker, open_speaker
from .voice.tts import RENDER_TIMEOUT_S, TtsVoice, WavCache, check_text, list_voices


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
    """Speak one cue (for trying voices) and wait until it has been heard;
    returns its text. Arguments are held to what a game of the ruleset can
    say (``voice.cue_args``): a bad one is a ValueError naming it."""
    rules = load_ruleset(ruleset)
    catalogue = Catalogue.load(settings.lang)
    values = check_cue_args(cue, args, rules, catalogue)
    try:
        text = catalogue.text(cue, values, rules)
    except KeyError as error:  # UnknownCue, MissingArgument: their str() is the message
        raise ValueError(str(error)) from None
    check_text(text)  # a club's long phrase: refused here, not after a render attempt
    if settings.captions_only:  # nothing to render: the words are all there is
        CaptionSpeaker().play(None, text)
        return text
    pack = VoicePack(settings.pack) if settings.pack else None
    voice = Announcer(
        catalogue, rules, open_speaker(settings.device), WavCache(), settings.tts, pack
    )
    try:
        voice.say(Say(cue, tuple(values.items())))
        # Rendering (pyttsx3, then the command) and the speech itself, at a
        # generous 10 characters a second at 165 words a minute.
        wait = 2 * RENDER_TIMEOUT_S + 2.0 + len(text) / 10 * 165 / settings.tts.rate
        voice.drain(wait)  # False (logged): a stalled device; closed all the same
    finally:
        voice.close()
    return text


def voices_list(settings: VoiceSettings, ruleset: str, seats: int) -> list[str]:
    """The espeak-ng voices for the language, and the phrase keys a voice
    pack can record (one WAV file per key) for a table of ``seats`` seats
    (ValueError outside the ruleset's range)."""
    rules = load_ruleset(ruleset)
    check_seats(seats, rules)
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
    """Render every phrase ahead of time into the cache for a table of
    ``seats`` seats (ValueError outside the ruleset's range); how many
    there are."""
    rules = load_ruleset(ruleset)
    check_seats(seats, rules)
    texts = [text for _, _, text in Catalogue.load(settings.lang).variants(rules, seats)]
    return len(WavCache().render_all(texts, settings.tts))
