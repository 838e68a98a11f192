"""Carries out the engine's ``Say`` effects: the words from the phrase
catalogue, the sound from the voice pack or the TTS cache, out through the
speaker.

Every phrase the game can need is rendered and loaded into memory before
the game starts (``prepare``), so a cue plays from memory the instant it is
due, its quiet lead-in cut off (``Clip.without_lead_in``). A phrase that could not be known ahead (a list of several nominees) is
rendered on a worker thread and played when ready; it is never urgent.

What a timer will say when it runs out is known as soon as it is armed
(the engine is pure): the live loop hands those cues over ahead
(``plan``), the speaker starts them on the audio clock exactly at the
deadline, and when the timer fires they are not played again
(``carried_out``). An input that changes what the timer would say
withdraws them first (``withdraw``). docs/architecture.md, "Timing".

Captions alone (``sound=False``: no sound card, or ``--captions``) need no
sound at all: every cue is shown at once, in order, and nothing is rendered.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import logging
import time
from collections.abc import Callable, Hashable

from ..core.effects import Effect, Say
from ..core.rules import Ruleset
from .audio import Clip
from .pack import VoicePack
from .phrases import Catalogue
from .speaker import Speaker
from .tts import TtsVoice, WavCache

log = logging.getLogger(__name__)


class Announcer:
    def __init__(
        self,
        catalogue: Catalogue,
        rules: Ruleset,
        speaker: Speaker,
        cache: WavCache,
        voice: TtsVoice,
        pack: VoicePack | None = None,
        *,
        sound: bool = True,
        wall_time: Callable[[float], float] | None = None,
    ) -> None:
        """``wall_time``: the speaker's clock (``time.monotonic``) for a time
        on the runtime's clock, so that a cue played at once is measured
        from the input that caused it (``Started.due``); None: from when it
        is queued."""
        self.catalogue = catalogue
        self.wall_time = wall_time
        self.sound = sound
        self.rules = rules
        self.speaker = speaker
        self.cache = cache
        self.voice = voice
        self.pack = pack
        self.clips: dict[str, Clip] = {}  # phrase key -> sound, in memory
        self._late = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="late-cues")
        self._tickets = itertools.count(1)
        self._plans: dict[Hashable, tuple[Say, ...]] = {}  # ticket -> the cues handed over ahead
        self._carried: tuple[Hashable, tuple[Say, ...]] | None = None  # a plan coming due now

    def prepare(self, seats: int) -> int:
        """Render (or load) every phrase a game of ``seats`` seats can need."""
        if not self.sound:
            return 0
        wanted: dict[str, str] = {}
        for cue, args, text in self.catalogue.variants(self.rules, seats):
            wanted[self.catalogue.key(cue, args)] = text
        recorded = {key: self.pack.clip_for(key) for key in wanted} if self.pack else {}
        missing = [text for key, text in wanted.items() if recorded.get(key) is None]
        rendered = self.cache.render_all(missing, self.voice)
        for key, text in wanted.items():
            clip = recorded.get(key) or rendered.get(text)
            if clip is not None:
                self.clips[key] = clip.without_lead_in()
        return len(self.clips)

    def __call__(self, now: float, effects: tuple[Effect, ...]) -> None:
        says = tuple(e for e in effects if isinstance(e, Say))
        carried, self._carried = self._carried, None
        if carried is not None:
            ticket, planned = carried
            if says == planned and self._still_held(ticket):
                return  # already with the speaker, starting at this very moment
            # Not what was foreseen, or lost with its sound device: say what is.
            self.speaker_withdraw(ticket)
        at = self.wall_time(now) if self.wall_time is not None and says else None
        for say in says:
            self.say(say, at=at)

    # --- cues known ahead (the live loop's foresight) ---------------------------
    def plan(self, at: float, effects: tuple[Effect, ...]) -> Hashable | None:
        """Hand over ahead the cues of ``effects`` to start at ``at`` (the
        speaker's clock); returns their ticket, or None when nothing was
        handed over (no sound, a speaker that cannot schedule, a phrase not
        rendered yet: those are said when the timer fires)."""
        says = tuple(e for e in effects if isinstance(e, Say))
        if not says or not self.sound or not getattr(self.speaker, "schedules", False):
            return None
        cues: list[tuple[Clip, str, bool]] = []
        for say in says:
            args = dict(say.args)
            try:
                text = self.catalogue.text(say.cue, args, self.rules)
                clip = self.clips.get(self.catalogue.key(say.cue, args))
            except KeyError:
                return None
            if clip is None:
                return None
            cues.append((clip, text, say.urgent))
        ticket = next(self._tickets)
        self._plans[ticket] = says
        for clip, text, urgent in cues:
            self.speaker.play(clip, text, urgent=urgent, at=at, ticket=ticket)  # type: ignore[call-arg]
        return ticket

    def withdraw(self, ticket: Hashable) -> None:
        """The cues of ``ticket`` are no longer what the game will say."""
        if self._plans.pop(ticket, None) is not None:
            self.speaker_withdraw(ticket)

    def carried_out(self, ticket: Hashable) -> None:
        """The timer of ``ticket`` fires now: the next effects are its own,
        and its cues are already on their way."""
        planned = self._plans.pop(ticket, None)
        self._carried = None if planned is None else (ticket, planned)

    def _still_held(self, ticket: Hashable) -> bool:
        """The speaker still has the cues of ``ticket``: a sound device that
        went away took them with it (voice/recovery.py ``holds``)."""
        holds = getattr(self.speaker, "holds", None)
        return holds is None or bool(holds(ticket))

    def speaker_withdraw(self, ticket: Hashable) -> None:
        withdraw = getattr(self.speaker, "withdraw", None)
        if withdraw is not None:
            withdraw(ticket)

    def say(self, effect: Say, *, at: float | None = None) -> None:
        """Say one cue now; ``at``: when it was due (speaker's clock)."""
        args = dict(effect.args)
        try:
            text = self.catalogue.text(effect.cue, args, self.rules)
            key = self.catalogue.key(effect.cue, args)
        except KeyError as error:  # a cue the catalogue lacks: say so, go on
            log.warning("no phrase for %s: %s", effect.cue, error)
            self.speaker.play(None, effect.cue, urgent=effect.urgent)
            return
        if not self.sound:
            self.speaker.play(None, text, urgent=effect.urgent)
            return
        clip = self.clips.get(key)
        if clip is None and self.pack is not None:
            clip = self.pack.clip_for(key)
            if clip is not None:
                clip = self.clips[key] = clip.without_lead_in()
        if clip is not None:
            if at is None:
                self.speaker.play(clip, text, urgent=effect.urgent)
            else:  # a time past: played at once, measured from it
                self.speaker.play(clip, text, urgent=effect.urgent, at=at)  # type: ignore[call-arg]
            return
        self._late.submit(self._render_late, key, text, effect.urgent)

    def _render_late(self, key: str, text: str, urgent: bool) -> None:
        try:
            clip = self.cache.clip(text, self.voice)
        except Exception as error:  # the voice is not the game: show the words
            log.warning("could not render %r: %s", text, error)
            self.speaker.play(None, text, urgent=urgent)
            return
        clip = self.clips[key] = clip.without_lead_in()
        self.speaker.play(clip, text, urgent=urgent)

    def drain(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s until every cue said so far has been
        rendered and played to its end; False (and a warning) if it had not.
        For one-shot commands, which must not close the sound before it is
        heard."""
        deadline = time.monotonic() + timeout
        wait_idle = getattr(self.speaker, "wait_idle", None)
        try:  # the late worker runs in order: when this is done, so is every render before it
            self._late.submit(lambda: None).result(timeout)
            if wait_idle is None or wait_idle(max(0.0, deadline - time.monotonic())):
                return True
        except concurrent.futures.TimeoutError:
            pass
        log.warning("the voice did not finish within %.0f s", timeout)
        return False

    def close(self) -> None:
        self._late.shutdown(wait=True)
        self.speaker.close()
