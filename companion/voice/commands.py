"""The voice's own commands: one cue spoken (``companion say``), the voices
listed and every phrase pre-rendered (``companion voices list|build``)."""

from __future__ import annotations

from ..config.rulesets import load_ruleset
from ..core.effects import Say
from .announcer import Announcer
from .catalogue_load import load_catalogue
from .cue_args import check_cue_args, check_seats
from .espeak_voices import list_voices
from .pack import VoicePack
from .settings import VoiceSettings
from .speaker import CaptionSpeaker, open_speaker
from .tts import RENDER_TIMEOUT_S, WavCache, check_text


def say(cue: str, args: dict[str, int | str], ruleset: str, settings: VoiceSettings) -> str:
    """Speak one cue (for trying voices) and wait until it has been heard;
    returns its text. Arguments are held to what a game of the ruleset can
    say (``voice.cue_args``): a bad one is a ValueError naming it."""
    rules = load_ruleset(ruleset)
    catalogue = load_catalogue(settings.lang)
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
    catalogue = load_catalogue(settings.lang)
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
    texts = [text for _, _, text in load_catalogue(settings.lang).variants(rules, seats)]
    return len(WavCache().render_all(texts, settings.tts))
