"""Live commands: a table script in real time with the voice, one cue spoken,
the voices listed and pre-rendered."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from .core.effects import Effect, Say
from .core.events import Event, GameSetUp
from .core.rules import Ruleset
from .core.state import Game
from .protocol.hostlog import HostLog
from .rulesets import load_ruleset
from .runner.clock import GameClock
from .runner.journal import Journal
from .runner.loop import LiveLoop
from .runner.script import ScriptError, ScriptLine
from .runner.session import EffectSink, GameSession
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


def announcer(settings: VoiceSettings, rules: Ruleset, seats: int, captions: TextIO) -> Announcer:
    """The voice for a game: every phrase it can need rendered and in memory.
    ``captions``: where cues are printed when there is no sound (the table's
    stream: nothing only the host may know is ever written to it)."""
    speaker: Speaker = (
        CaptionSpeaker(captions)
        if settings.captions_only
        else open_speaker(settings.device, captions)
    )
    pack = VoicePack(settings.pack) if settings.pack else None
    sound = not isinstance(speaker, CaptionSpeaker)  # captions alone render nothing
    voice = Announcer(
        Catalogue.load(settings.lang), rules, speaker, WavCache(), settings.tts, pack, sound=sound
    )
    voice.prepare(seats)
    return voice


@dataclass(frozen=True, slots=True)
class Outputs:
    """Where a live table writes, one stream each: what the table may hear
    and what only the host may read never share one."""

    captions: TextIO  # the table's: cues as text when they are not spoken
    host_log: TextIO | None  # the host's: roles, check answers, proposals (None: not kept)
    result: TextIO  # the host's too: the protocol or JSON at the end


def table_effects(voice: Announcer, log: HostLog | None) -> EffectSink:
    """Where a live table's effects go: what is said to the voice (which
    shows captions when it cannot speak), what only the host may know to the
    host log. Each takes only its own kinds of effect."""

    def effects(now: float, effects: tuple[Effect, ...]) -> None:
        voice(now, effects)
        if log is not None:
            log(now, effects)

    return effects


def replay_realtime(
    lines: list[ScriptLine],
    settings: VoiceSettings,
    outputs: Outputs,
    *,
    journal: Journal | None = None,
    session: GameSession | None = None,
    speed: float = 1.0,
    source: str = "script",
) -> Game | None:
    """Play a table script at its own pace (``speed`` times as fast) on the
    real clock, with the voice, journaling every accepted input.
    ``session``: a game rebuilt from its journal, which the script goes on.
    An input the engine refuses stops the run, as in a plain replay: a
    ScriptError names the line."""
    session = session or GameSession(journal=journal)
    if session.game is not None:
        rules, seats = session.game.rules, len(session.game.seats)
    else:
        setup = next((ln.event for ln in lines if isinstance(ln.event, GameSetUp)), None)
        if setup is None:
            return None
        rules, seats = setup.ruleset, setup.seats
    voice = announcer(settings, rules, seats, outputs.captions)
    log = HostLog(outputs.host_log, lang=settings.lang) if outputs.host_log else None
    effects = table_effects(voice, log)

    refused: list[ScriptError] = []
    by_number = {line.number: line for line in lines}
    finished = threading.Event()

    def rejected(event: Event, reason: str, number: int | None) -> None:
        line = by_number.get(number or 0)
        refused.append(
            ScriptError(source, line.number if line else 0, line.text if line else "", reason)
        )
        finished.set()
        runtime.stop()

    clock = GameClock(start_at=session.now, speed=speed)
    runtime = LiveLoop(clock, effects, on_rejected=rejected, realtime=True, session=session)

    def feed() -> None:  # a thread that only enqueues, each line at its time
        for line in lines:
            if finished.wait(max(0.0, clock.wall_time(line.at) - time.monotonic())):
                return
            if line.event is None:  # "wait": the loop's clock runs on by itself
                continue
            ruleset = line.fields.get("ruleset")
            runtime.submit(
                line.event,
                at=line.at,
                line=line.fields.get("line", line.number),
                ruleset=ruleset if isinstance(ruleset, str) else None,
            )
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
    if refused:
        raise refused[0]
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
