"""How a table's voice is set up (language, espeak-ng voice, rate, a
recorded pack, the sound device, captions only) and the announcer for a game."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from ..core.rules import Ruleset
from .announcer import Announcer
from .catalogue_load import load_catalogue
from .pack import VoicePack
from .speaker import CaptionSpeaker, SoundDeviceSpeaker, Speaker, open_speaker
from .tts import TtsVoice, WavCache


@dataclass(frozen=True, slots=True)
class VoiceSettings:
    lang: str = "ru"
    voice: str | None = None  # espeak-ng voice; default: the language
    rate: int = 165
    pack: Path | None = None
    device: str | None = None
    captions_only: bool = False
    #: the main stream's buffer: "normal" (OUTPUT_LATENCY, ~0.1 s: no
    #: underruns on a busy machine) or "low" (~23 ms)
    latency: str = "normal"
    #: a second, small-buffered stream for the answers to inputs (the quick
    #: lane: ~15 ms after a press instead of ~0.1 s), where one can be opened
    quick: bool = True

    @property
    def tts(self) -> TtsVoice:
        return TtsVoice(self.voice or self.lang, self.rate)


def speaker_for(settings: VoiceSettings, captions: TextIO | None) -> Speaker:
    """The sound device the settings name (captions when they say so, or
    when no device works), watched: if it goes away during the game, cues
    are captions until it is opened again (``recovery.RecoveringSpeaker``)."""
    if settings.captions_only:
        return CaptionSpeaker(captions)
    latency = "low" if settings.latency == "low" else None
    speaker = open_speaker(settings.device, captions, latency=latency, quick=settings.quick)
    if not isinstance(speaker, SoundDeviceSpeaker):
        return speaker  # no device at the start: captions, as said once
    from .recovery import RecoveringSpeaker, device_opener

    return RecoveringSpeaker(
        speaker,
        device_opener(settings.device, latency, settings.quick),
        CaptionSpeaker(captions),
        name=settings.device or "default",
    )


def open_announcer(
    settings: VoiceSettings,
    rules: Ruleset,
    seats: int,
    captions: TextIO | None,
    wall_time: Callable[[float], float] | None = None,
    speaker: Speaker | None = None,
) -> Announcer:
    """The voice for a game: every phrase it can need rendered and in memory.
    ``captions``: where cues are printed when there is no sound (the table's
    stream: nothing only the host may know is ever written to it).
    ``wall_time``: the game clock's time on the speaker's (``GameClock.wall_time``).
    ``speaker``: one already open (a test's, or one opened ahead of the game);
    default: ``speaker_for(settings, captions)``."""
    if speaker is None:
        speaker = speaker_for(settings, captions)
    pack = VoicePack(settings.pack) if settings.pack else None
    sound = not isinstance(speaker, CaptionSpeaker)  # captions alone render nothing
    voice = Announcer(
        load_catalogue(settings.lang),
        rules,
        speaker,
        WavCache(),
        settings.tts,
        pack,
        sound=sound,
        wall_time=wall_time,
    )
    voice.prepare(seats)
    return voice
