"""Cues said outside a game: the seat self-test's prompts to the person
under the table («Место три, нажмите кнопку»).

Every prompt is a line on the screen (``» ...``, as the table's captions);
with a speaker it is spoken too, from a clip rendered before the test
begins (a recorded voice pack's, else espeak-ng's through the cache), so a
prompt sounds the moment its light goes on. A phrase that could not be
known ahead (the list of silent seats) is rendered when it is said.

No ruleset and no game: the words come from the phrase catalogue alone
(``core.vocabulary.SELFTEST_CUES``).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

from .phrases import Catalogue

if TYPE_CHECKING:  # the sound side (numpy, PortAudio) only when there is sound
    from .audio import Clip
    from .pack import VoicePack
    from .speaker import Speaker
    from .tts import TtsVoice, WavCache

log = logging.getLogger(__name__)

Args = Mapping[str, int | str]


@dataclass(frozen=True, slots=True)
class Said:
    """A prompt as said: the cue, its arguments and the words."""

    cue: str
    args: tuple[tuple[str, int | str], ...]
    text: str


class Prompter:
    """Shows and (with a speaker) speaks cues of the phrase catalogue."""

    def __init__(
        self,
        catalogue: Catalogue,
        speaker: Speaker | None = None,
        *,
        screen: TextIO | None = None,
        cache: WavCache | None = None,
        voice: TtsVoice | None = None,
        pack: VoicePack | None = None,
    ) -> None:
        """``speaker`` None: the lines alone (``--captions``, no sound
        device). ``cache`` and ``voice`` render what ``pack`` lacks;
        ``screen``: where the lines go (standard output by default)."""
        self.catalogue = catalogue
        self.speaker = speaker
        self.screen = screen
        self.cache = cache
        self.voice = voice
        self.pack = pack
        self.clips: dict[str, Clip] = {}  # phrase key -> sound, in memory
        self.said: list[Said] = []

    @property
    def sound(self) -> bool:
        return self.speaker is not None

    def prepare(self, cues: Iterable[tuple[str, Args]]) -> int:
        """Render (or load from the pack) the phrases of ``cues`` ahead, so
        that each is played from memory; how many are ready. Raises what
        rendering raises (no espeak-ng, a voice it lacks): the caller goes
        on without sound."""
        if self.speaker is None:
            return 0
        wanted = {self.catalogue.key(c, a): self.catalogue.text(c, a) for c, a in cues}
        for key in wanted:
            clip = self.pack.clip_for(key) if self.pack is not None else None
            if clip is not None:
                self.clips[key] = clip.without_lead_in()
        missing = [text for key, text in wanted.items() if key not in self.clips]
        if missing and self.cache is not None and self.voice is not None:
            rendered = self.cache.render_all(missing, self.voice)
            for key, text in wanted.items():
                if key not in self.clips and text in rendered:
                    self.clips[key] = rendered[text].without_lead_in()
        return len(self.clips)

    def say(self, cue: str, args: Args | None = None, *, urgent: bool = False) -> str:
        """Show the cue's words and speak them; returns the words.
        ``urgent``: cut in over the prompt still sounding (the voice keeps
        up with the lights when the buttons answer quickly)."""
        values = dict(args or {})
        text = self.catalogue.text(cue, values)
        self.said.append(Said(cue, tuple(values.items()), text))
        print(f"» {text}", file=self.screen or sys.stdout, flush=True)
        if self.speaker is not None:
            clip = self._clip(cue, values, text)
            if clip is not None:
                self.speaker.play(clip, text, urgent=urgent)
        return text

    def wait(self, timeout: float) -> bool:
        """Wait until what was said has been heard (a device that can tell);
        False when it had not been within ``timeout`` s."""
        wait_idle = getattr(self.speaker, "wait_idle", None)
        return True if wait_idle is None else bool(wait_idle(timeout))

    def close(self) -> None:
        if self.speaker is not None:
            self.speaker.close()

    def _clip(self, cue: str, args: Args, text: str) -> Clip | None:
        key = self.catalogue.key(cue, args)
        clip = self.clips.get(key)
        if clip is not None or self.cache is None or self.voice is None:
            return clip
        try:  # not known ahead (a list of seats): rendered now, ~15 ms with espeak-ng
            clip = self.clips[key] = self.cache.clip(text, self.voice).without_lead_in()
        except Exception as error:  # the words are on the screen: go on without the sound
            log.warning("could not render %r: %s", text, error)
            return None
        return clip
