"""espeak-ng's voices: a voice as the companion asks for it (``TtsVoice``),
the voices and variants espeak-ng has here, and the check that it has the
one asked for (pyttsx3 swallows an unknown voice and keeps the previous
one, so it is checked against ``espeak-ng --voices`` first).
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True, slots=True)
class TtsVoice:
    """An espeak-ng voice and how it speaks: ``voice`` is a language voice
    with an optional variant (``"ru"``, ``"ru+f3"``, ``"en-us+m3"``), ``rate``
    is in words per minute, ``volume`` is 0..2 (1 is espeak's normal)."""

    voice: str = "ru"
    rate: int = 165
    volume: float = 1.0

    def __post_init__(self) -> None:
        if not self.voice or any(c.isspace() for c in self.voice):
            raise ValueError(f"espeak-ng voice {self.voice!r}: give a name like ru or ru+f3")
        if not 80 <= self.rate <= 450:
            raise ValueError(f"speech rate {self.rate}: espeak-ng speaks 80..450 words a minute")
        if not 0.0 <= self.volume <= 2.0:
            raise ValueError(f"volume {self.volume}: 0..2 (1 is normal)")

    @property
    def language(self) -> str:
        return self.voice.partition("+")[0]

    @property
    def variant(self) -> str:
        return self.voice.partition("+")[2]


@dataclass(frozen=True, slots=True)
class EspeakVoice:
    """A voice espeak-ng has: ``id`` is what ``-v`` (and :class:`TtsVoice`) takes."""

    id: str
    name: str
    language: str
    gender: str = ""


def espeak_binary() -> str | None:
    return shutil.which("espeak-ng") or shutil.which("espeak")


def _voices_table(kind: str) -> list[tuple[EspeakVoice, frozenset[str]]]:
    """Voices from ``espeak-ng --voices[=variant]``, each with the names
    ``-v`` accepts for it (language, other languages, file, voice name)."""
    binary = espeak_binary()
    if binary is None:
        return []
    option = "--voices" if kind == "language" else f"--voices={kind}"
    try:
        out = subprocess.run(
            [binary, option], capture_output=True, text=True, timeout=10, check=True
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    voices = []
    for line in out.splitlines()[1:]:
        # Pty Language Age/Gender VoiceName File (other-language priority)...
        parts = line.split()
        if len(parts) < 5:
            continue
        gender = {"M": "male", "F": "female"}.get(parts[2].rpartition("/")[2], "")
        name = parts[3].replace("_", " ")
        if kind == "variant":  # "!v/f3": used as the "+f3" of a voice
            voice = EspeakVoice(parts[4].removeprefix("!v/"), name, "", gender)
            aliases = {voice.id}
        else:
            voice = EspeakVoice(parts[1], name, parts[1], gender)
            others = [p.lstrip("(") for p in parts[5:] if p.startswith("(")]
            aliases = {parts[1], parts[3], parts[4], *others}
        voices.append((voice, frozenset(a.lower() for a in aliases)))
    return voices


@cache
def _language_table() -> tuple[tuple[EspeakVoice, frozenset[str]], ...]:
    return tuple(_voices_table("language"))


@cache
def list_voices() -> tuple[EspeakVoice, ...]:
    """The language voices espeak-ng has here (``ru``, ``en-gb``, ``en-us`` ...)."""
    return tuple(voice for voice, _ in _language_table())


@cache
def list_variants() -> tuple[EspeakVoice, ...]:
    """Voice variants (``f3``, ``m3``, ``klatt`` ...), said as ``ru+f3``."""
    return tuple(voice for voice, _ in _voices_table("variant"))


def check_voice(voice: TtsVoice) -> None:
    """Raise ValueError for a voice espeak-ng does not have (when it can tell)."""
    names = set().union(*(aliases for _, aliases in _language_table()))
    if names and voice.language.lower() not in names:
        raise ValueError(
            f"espeak-ng has no voice {voice.language!r} (see `espeak-ng --voices`;"
            " Russian is ru, English en)"
        )
    variants = {v.id.lower() for v in list_variants()}
    if voice.variant and variants and voice.variant.lower() not in variants:
        raise ValueError(
            f"espeak-ng has no variant {voice.variant!r} (see `espeak-ng --voices=variant`;"
            " e.g. ru+f3, ru+m3)"
        )
