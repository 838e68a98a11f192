"""Russian speech from another synthesizer than espeak-ng: Festival with
its Russian voice (Debian's ``festvox-ru``, ``msu_ru_nsh_clunits``).

Every part of testkit/hard_corpus.py before ``test5`` spoke through
espeak-ng, a formant synthesizer: its voices differ in pitch and timbre
but share one way of making a vowel. Festival's Russian voice joins
units cut from recordings of a real speaker (clunits: unit selection),
so its words carry a human voice's breath, onsets and micro-prosody,
which no espeak-ng variant has. One speaker, so a voice here is that
speaker played faster or slower (``festival@F``: every frequency, pitch
and formants alike, times ``F``, as a shorter or longer vocal tract
would give). Its tempo follows: unit selection keeps the recorded
units' durations (Festival's ``Duration_Stretch`` leaves a clunits voice
as it was), so a slower voice here is also a deeper one.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path

import numpy as np

from companion.voice.audio import read_wav
from testkit.corpus import RATE, Audio, active_rms, resample, trimmed

PREFIX = "festival@"
VOICE = "msu_ru_nsh_clunits"


def is_festival(voice: str) -> bool:
    return voice.startswith(PREFIX)


def voice_name(factor: float) -> str:
    return f"{PREFIX}{factor:.2f}"


@cache
def render(text: str, voice: str) -> Audio:
    """``text`` said by Festival's Russian speaker, played ``voice``'s
    factor faster, at 16 kHz, trimmed as testkit/corpus.py trims
    (``TRIM``) and at unit active RMS."""
    factor = float(voice.removeprefix(PREFIX))
    tool = shutil.which("text2wave")
    if tool is None:
        raise RuntimeError("text2wave not found: Debian's festival and festvox-ru make test5")
    with tempfile.TemporaryDirectory(prefix="ears-festival-") as folder:
        said, wav = Path(folder) / "said.txt", Path(folder) / "said.wav"
        said.write_text(text + "\n", encoding="utf-8")
        done = subprocess.run(
            [tool, "-eval", f"(voice_{VOICE})", str(said), "-o", str(wav)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        if done.returncode != 0 or not wav.exists():
            raise RuntimeError(f"text2wave failed on {text!r}: {done.stderr.strip()[:200]}")
        clip = read_wav(wav)
    raw = clip.samples.reshape(clip.frames, -1).mean(axis=1) / 32768.0
    # Played ``factor`` times faster: read at ``clip.rate * factor``, resampled to ``RATE``.
    x = resample(raw, round(clip.rate * factor), RATE)
    x = trimmed(x, f"Festival rendered silence for {text!r} ({voice})")
    return (x / active_rms(x)).astype(np.float32)
