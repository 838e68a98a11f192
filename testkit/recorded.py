"""Russian speech recorded from a real speaker, not synthesized: the
Russian prompts of the Asterisk telephone exchange (Debian's
``asterisk-core-sounds-ru-g722``, recorded by ivrvoice.ru, CC BY 3.0),
for the ears' blind corpus part ``test6`` (testkit/hard_corpus.py).

Every part before ``test6`` spoke through a synthesizer: espeak-ng's
formants, then Festival's units cut from a speaker's recordings and
joined. These are whole recordings of one woman reading: a human voice's
breath, onsets, co-articulation and prosody, as no synthesizer gives
them. Wideband (G.722: 50-7000 Hz at 16 kHz), decoded by the ``g722``
package (libg722, the reference codec).

The prompts bring their own words: some 190 of 0.3-0.7 s (numbers,
«Спасибо.», «нет», days and months, the phonetic alphabet) are the
one-word interjections, and some 280 of 0.8-4.5 s (an exchange's
sentences) are the lines. Tones (``[beep]``, ``<beep ascending>``),
prompts not in Russian and those without a transcript are left out of
``recorded_prompts.tsv``. One speaker, so a voice here
is her recording played faster or slower (``recorded@F``: every
frequency and the tempo times ``F``), as testkit/festival.py does.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np

from testkit.corpus import RATE, Audio, active_rms, resample, trimmed

PREFIX = "recorded@"
SOUNDS = Path("/usr/share/asterisk/sounds/ru_RU_f_IvrvoiceRU")
#: the spoken prompts and their words, from the transcripts of Debian's
#: ``asterisk-core-sounds-ru`` (kept here: a Debian image may leave
#: /usr/share/doc out)
PROMPTS = Path(__file__).with_name("recorded_prompts.tsv")
#: an interjection's length and a line's, in seconds once played at its speed
WORD_S = (0.3, 0.7)
LINE_S = (0.8, 4.5)


def is_recorded(voice: str) -> bool:
    return voice.startswith(PREFIX)


def voice_name(factor: float) -> str:
    return f"{PREFIX}{factor:.2f}"


def word(voice: str, rng: np.random.Generator) -> Audio:
    """A one-word prompt of 0.3-0.7 s at ``voice``'s speed."""
    return _pick(voice, rng, WORD_S, single=True)


def line(voice: str, rng: np.random.Generator) -> Audio:
    """A sentence of 0.8-4.5 s at ``voice``'s speed."""
    return _pick(voice, rng, LINE_S, single=False)


def _pick(voice: str, rng: np.random.Generator, span: tuple[float, float], single: bool) -> Audio:
    factor = _factor(voice)
    fits = [
        name
        for name, text in prompts()
        if (len(text.split()) == 1) == single and span[0] <= _seconds(name) / factor <= span[1]
    ]
    return render(fits[int(rng.integers(len(fits)))], voice)


@cache
def render(name: str, voice: str) -> Audio:
    """Prompt ``name`` played ``voice``'s factor faster, at 16 kHz, trimmed
    as testkit/corpus.py trims and at unit active RMS."""
    x = _trimmed(resample(_decoded(name), round(RATE * _factor(voice)), RATE), name)
    return (x / active_rms(x)).astype(np.float32)


@cache
def prompts() -> tuple[tuple[str, str], ...]:
    """Each spoken prompt's name (its path under ``SOUNDS``, no suffix) and words."""
    if not SOUNDS.is_dir():
        raise RuntimeError(f"{SOUNDS} not found: Debian's asterisk-core-sounds-ru-g722 makes test6")
    said: list[tuple[str, str]] = []
    for number, entry in enumerate(PROMPTS.read_text(encoding="utf-8").splitlines(), 1):
        if not entry or entry.startswith("#"):
            continue
        name, tab, text = entry.partition("\t")
        if not tab or not text.strip():
            raise ValueError(f"{PROMPTS}:{number}: not a prompt's name, a tab and its words")
        if not (SOUNDS / f"{name}.g722").is_file():
            raise RuntimeError(f"{SOUNDS / name}.g722 not found ({PROMPTS}:{number})")
        said.append((name, text.strip()))
    return tuple(said)


@cache
def _decoded(name: str) -> Audio:
    """The prompt decoded, the silence around it kept (resampling wants
    quiet ends)."""
    import G722  # the g722 package: a dev dependency, for this part only

    pcm = G722.G722(RATE, 64000).decode((SOUNDS / f"{name}.g722").read_bytes())
    return np.asarray(pcm, dtype=np.float32) / 32768.0


def _trimmed(x: Audio, name: str) -> Audio:
    return trimmed(x, f"{SOUNDS / name}.g722 decodes to silence")


@cache
def _seconds(name: str) -> float:
    """The prompt's length as recorded, trimmed."""
    return len(_trimmed(_decoded(name), name)) / RATE


def _factor(voice: str) -> float:
    return float(voice.removeprefix(PREFIX))
