"""Test audio for voice-activity detectors at a Mafia club table (issue 10).

``make_corpus`` lays short Russian table phrases (espeak-ng, several voices,
rates and levels, a whisper among them) on a timeline with gaps, over
synthesized room sounds at a chosen SNR, and returns the clip with its
ground truth: each foreground utterance's exact span. ``room_only`` is the
same room without a speaker, for counting false flags. ``save`` writes a
16 kHz mono WAV and the truth as JSON beside it; ``python -m bench.ears_corpus
--out DIR`` writes a small set. Tests of the ears and their benches use it.

Conventions (what a number in a result means):

- The SNR is the *normal* speaking level against the noise's *active* power
  (20 ms frames within 30 dB of its loudest frame), so a knock at 0 dB is as
  loud, while it sounds, as normal speech; loud, quiet and whispered
  utterances sit +6, -10 and -16 dB off that reference by design.
- Babble (other players, reversed speech, through a room's reverberation)
  is noise: never in the truth.
- Everything is drawn from one ``numpy.random.Generator`` seeded by ``seed``;
  espeak-ng renders the same text the same way, and each render is cached for
  the run.
"""

from __future__ import annotations

import json
import tempfile
import wave
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from companion.voice.audio import read_wav
from companion.voice.tts import TtsRenderer, TtsVoice
from testkit.acoustics import convolve

Audio = npt.NDArray[np.float32]
RATE = 16_000

PHRASES = (
    "Я мирный житель",
    "Голосую за третьего",
    "Клянусь, я не мафия",
    "Выставляю пятого",
    "Мой шериф проверил седьмого, он красный",
    "Спасибо, пас",
    "Девятый, ты врёшь",
    "Я дон? Нет, конечно",
    "Кладу первого и второго",
    "У меня всё",
    "Четвёртый, объясни свой голос",
    "Остаёмся на голосовании",
)
VOICES = ("ru", "ru+f3", "ru+m3")
WHISPERS = ("ru+whisper", "ru+whisperf")
RATES = (130, 165, 200)
#: Foreground levels in dB against the normal level, and how often each comes.
LEVELS: dict[str, tuple[float, float]] = {
    "normal": (0.0, 0.5),
    "loud": (6.0, 0.15),
    "quiet": (-10.0, 0.2),
    "whisper": (-16.0, 0.15),
}
#: The normal speaking level: active RMS of -23 dBFS leaves room for shouts and knocks.
SPEECH_RMS = 10 ** (-23 / 20)
NOISES = ("white", "pink", "brown", "hum", "knocks", "scrapes", "clatter", "babble", "room")
#: A speech span is where the render is louder than this share of its own peak (-40 dB).
TRIM = 0.01


@dataclass(frozen=True, slots=True)
class Utterance:
    """One foreground utterance: seconds from the clip's start, and its level's name."""

    start_s: float
    end_s: float
    kind: str


@dataclass(frozen=True, slots=True, eq=False)
class Clip:
    """16 kHz mono float32 samples in [-1, 1] and the utterances spoken in them."""

    samples: Audio
    rate: int
    truth: tuple[Utterance, ...]

    @property
    def seconds(self) -> float:
        return len(self.samples) / self.rate


# --- speech ----------------------------------------------------------------------------


def resample(x: npt.NDArray[np.floating], rate_in: int, rate_out: int) -> Audio:
    """Band-limited resampling by cutting the spectrum (numpy only; scipy is not
    installed). Fine for short renders whose ends are silent, so the implied
    wrap-around has nothing to smear."""
    n_out = round(len(x) * rate_out / rate_in)
    if rate_in == rate_out or len(x) == 0:
        return np.asarray(x, dtype=np.float32)
    spectrum = np.fft.rfft(x)
    keep = min(len(spectrum), n_out // 2 + 1)
    out = np.fft.irfft(spectrum[:keep], n_out) * (n_out / len(x))
    return out.astype(np.float32)


_renderer: TtsRenderer | None = None


@cache
def render(text: str, voice: str, rate: int) -> Audio:
    """``text`` spoken by espeak-ng at 16 kHz, trimmed to where it is louder than
    ``TRIM`` of its peak, scaled to unit active RMS. Cached: espeak-ng and the
    resampler dominate the run time otherwise."""
    global _renderer
    if _renderer is None:
        # The command, not pyttsx3: no process-wide engine thread to leave behind.
        _renderer = TtsRenderer(prefer="espeak-ng")
    with tempfile.TemporaryDirectory(prefix="ears-corpus-") as folder:
        path = _renderer.render(text, TtsVoice(voice, rate), Path(folder) / "phrase.wav")
        clip = read_wav(path)
    raw = clip.samples.reshape(clip.frames, -1).mean(axis=1) / 32768.0
    x = trimmed(
        resample(raw, clip.rate, RATE), f"espeak-ng rendered silence for {text!r} ({voice})"
    )
    return (x / active_rms(x)).astype(np.float32)


def trimmed(x: npt.NDArray[np.floating], silent: str) -> Audio:
    """``x`` from its first to its last sample louder than ``TRIM`` of its
    peak (every corpus's speech is cut so); ``silent``: the error where
    nothing is."""
    loud = np.flatnonzero(np.abs(x) > TRIM * float(np.abs(x).max(initial=0.0)))
    if len(loud) == 0:
        raise ValueError(silent)
    cut: Audio = x[loud[0] : loud[-1] + 1]
    return cut


def active_rms(x: npt.NDArray[np.floating], frame: int = RATE // 50) -> float:
    """RMS over the 20 ms frames within 30 dB of the loudest: the level of a
    sound while it sounds, whether it is a steady hiss or a knock a minute."""
    usable = len(x) - len(x) % frame
    if usable == 0:
        return float(np.sqrt(np.mean(np.square(x)))) or 1.0
    power = np.mean(np.square(x[:usable].astype(np.float64)).reshape(-1, frame), axis=1)
    active = power[power >= power.max() / 1000.0]
    return float(np.sqrt(active.mean())) or 1.0


def pick_utterance(rng: np.random.Generator) -> tuple[Audio, str]:
    """One foreground phrase drawn as the corpus draws them (a level by
    ``LEVELS``' weights, a voice for it, a phrase, a rate), at unit active RMS,
    and its level's name; testkit/room.py draws its talkers with it."""
    kinds = list(LEVELS)
    weights = np.array([LEVELS[k][1] for k in kinds])
    kind = kinds[int(rng.choice(len(kinds), p=weights / weights.sum()))]
    voices = WHISPERS if kind == "whisper" else VOICES
    voice = voices[int(rng.integers(len(voices)))]
    text = PHRASES[int(rng.integers(len(PHRASES)))]
    return render(text, voice, RATES[int(rng.integers(len(RATES)))]), kind


def _speech_track(rng: np.random.Generator, n: int) -> tuple[Audio, tuple[Utterance, ...]]:
    """Utterances one after another with 0.4-3 s gaps (a table's turn-taking)."""
    track = np.zeros(n, dtype=np.float32)
    truth: list[Utterance] = []
    at = int(rng.uniform(0.3, 1.5) * RATE)
    while True:
        speech, kind = pick_utterance(rng)
        if at + len(speech) > n:
            break
        gain = SPEECH_RMS * 10 ** (LEVELS[kind][0] / 20)
        track[at : at + len(speech)] = speech * gain
        truth.append(Utterance(at / RATE, (at + len(speech)) / RATE, kind))
        at += len(speech) + int(rng.uniform(0.4, 3.0) * RATE)
    return track, tuple(truth)


# --- room sounds (each returned at unit active RMS by noise_track) --------------------------


def shaped(rng: np.random.Generator, n: int, exponent: float) -> Audio:
    """White noise with its power falling as 1/f**exponent (1: pink, 2: brown),
    shaped in one FFT; below 20 Hz is cut so brown noise does not wander off."""
    spectrum = np.fft.rfft(rng.standard_normal(n))
    freqs = np.fft.rfftfreq(n, 1 / RATE)
    gain = np.zeros_like(freqs)
    audible = freqs >= 20.0
    gain[audible] = freqs[audible] ** (-exponent / 2)
    return np.fft.irfft(spectrum * gain, n).astype(np.float32)


def hum(rng: np.random.Generator, n: int) -> Audio:
    """50 Hz mains with odd harmonics strongest (transformers, fluorescent
    ballasts) and a slow wobble, as a cheap amplifier picks it up."""
    t = np.arange(n) / RATE
    out = np.zeros(n)
    for k, amp in ((1, 1.0), (2, 0.3), (3, 0.6), (4, 0.15), (5, 0.35), (7, 0.2), (9, 0.1)):
        out += amp * np.sin(2 * np.pi * 50 * k * t + rng.uniform(0, 2 * np.pi))
    return (out * (1 + 0.1 * np.sin(2 * np.pi * rng.uniform(0.1, 0.5) * t))).astype(np.float32)


def _events(rng: np.random.Generator, n: int, per_s: float) -> npt.NDArray[np.int64]:
    """Event onsets as a Poisson process (sample indices)."""
    count = int(rng.poisson(per_s * n / RATE))
    return np.sort(rng.integers(0, max(1, n), count))


def add(out: Audio, at: int, sound: npt.NDArray[np.floating]) -> None:
    end = min(len(out), at + len(sound))
    if end > at:  # a sound that would start past the end is left out
        out[at:end] += sound[: end - at].astype(np.float32)


def knocks(rng: np.random.Generator, n: int) -> Audio:
    """Knuckles and cups on a wooden table: a click and a decaying resonance."""
    out = np.zeros(n, dtype=np.float32)
    for at in _events(rng, n, 0.4):
        t = np.arange(int(0.25 * RATE)) / RATE
        decay = np.exp(-t / rng.uniform(0.01, 0.05))
        body = sum(
            np.sin(2 * np.pi * rng.uniform(120, 900) * t) * rng.uniform(0.3, 1) for _ in range(3)
        )
        click = rng.standard_normal(len(t)) * np.exp(-t / 0.002)
        add(out, int(at), (body + click) * decay * rng.uniform(0.3, 1.0))
    return out


def scrapes(rng: np.random.Generator, n: int) -> Audio:
    """Chair legs on a floor: noise through a band that sweeps (short-time FFT
    masks, overlap-added), chopped by stick-slip pulses at 15-40 Hz."""
    out = np.zeros(n, dtype=np.float32)
    size, hop = 512, 256
    window = np.hanning(size)
    freqs = np.fft.rfftfreq(size, 1 / RATE)
    for at in _events(rng, n, 0.12):
        length = int(rng.uniform(0.3, 1.2) * RATE)
        frames = max(1, (length - size) // hop + 1)
        centres = np.geomspace(rng.uniform(300, 1200), rng.uniform(800, 3500), frames)
        width = rng.uniform(0.15, 0.4) * centres
        noise = rng.standard_normal((frames, size)) * window
        masks = np.exp(-0.5 * ((freqs[None, :] - centres[:, None]) / width[:, None]) ** 2)
        pieces = np.fft.irfft(np.fft.rfft(noise, axis=1) * masks, size, axis=1) * window
        burst = np.zeros((frames - 1) * hop + size)
        for i, piece in enumerate(pieces):
            burst[i * hop : i * hop + size] += piece
        t = np.arange(len(burst)) / RATE
        stick = 0.6 + 0.4 * np.sign(np.sin(2 * np.pi * rng.uniform(15, 40) * t))
        add(out, int(at), burst * stick * np.hanning(len(burst)))
    return out


def clatter(rng: np.random.Generator, n: int) -> Audio:
    """Chips, cards and cutlery: trains of 3-12 millisecond clicks, fading."""
    out = np.zeros(n, dtype=np.float32)
    t = np.arange(int(0.004 * RATE)) / RATE
    for at in _events(rng, n, 0.2):
        pos = int(at)
        for k in range(int(rng.integers(3, 13))):
            click = np.diff(rng.standard_normal(len(t) + 1)) * np.exp(-t / rng.uniform(3e-4, 1e-3))
            add(out, pos, click * rng.uniform(0.4, 1.0) * 0.85**k)
            pos += int(rng.uniform(0.02, 0.12) * RATE)
    return out


def through_room(rng: np.random.Generator, x: Audio) -> Audio:
    """``x`` as a microphone hears it from a few metres off in a café: the
    direct sound and the room's reverberation (decaying noise, RT60
    0.4-0.9 s), the reverberation 3-9 dB louder than the direct sound."""
    rt60 = rng.uniform(0.4, 0.9)
    t = np.arange(int(rt60 * RATE)) / RATE
    tail = rng.standard_normal(len(t)) * 10 ** (-3 * t / rt60)  # -60 dB at rt60
    tail[: int(0.005 * RATE)] = 0.0  # the first reflections come after the direct sound
    drr_db = -rng.uniform(3.0, 9.0)
    tail *= 10 ** (-drr_db / 20) / np.sqrt(np.sum(np.square(tail)))
    response = np.concatenate([[1.0], tail[1:]])
    return convolve(x, response[:, None])[: len(x), 0].astype(np.float32)


def _talkers(rng: np.random.Generator, n: int) -> list[Audio]:
    """Three to six players at the other tables, each talking on, reversed
    so that no word is foreground speech (it is noise in the truth, and
    spectrally speech): a track each, dry."""
    tracks = []
    for _ in range(int(rng.integers(3, 7))):
        talker = np.zeros(n, dtype=np.float32)
        at = int(rng.uniform(0, 1.0) * RATE)
        level = rng.uniform(0.5, 1.0)
        while at < n:
            voice = VOICES[int(rng.integers(len(VOICES)))]
            speech = render(PHRASES[int(rng.integers(len(PHRASES)))], voice, int(rng.choice(RATES)))
            add(talker, at, speech[::-1] * level)
            at += len(speech) + int(rng.uniform(0.05, 0.8) * RATE)
        tracks.append(talker)
    return tracks


def _babble(rng: np.random.Generator, n: int) -> Audio:
    """The other tables talking over each other, each talker through the
    room from where they sit (``through_room``: talk from beyond the table
    never reaches the microphone dry)."""
    out = np.zeros(n, dtype=np.float32)
    for talker in _talkers(rng, n):
        out += through_room(rng, talker)
    return out


def _dry_babble(rng: np.random.Generator, n: int) -> Audio:
    """The same talkers with no room: for testkit/room.py, whose
    simulated room adds its own reverberation."""
    out = np.zeros(n, dtype=np.float32)
    for talker in _talkers(rng, n):
        out += talker
    return out


def _room(rng: np.random.Generator, n: int) -> Audio:
    """A club evening: a bed of pink noise and hum, babble, and the table's clatter."""
    parts: list[tuple[Callable[[np.random.Generator, int], Audio], float]] = [
        (lambda r, k: shaped(r, k, 1.0), 0.5),
        (hum, 0.15),
        (_babble, 0.6),
        (knocks, 1.0),
        (scrapes, 0.5),
        (clatter, 0.7),
    ]
    out = np.zeros(n, dtype=np.float32)
    for make, weight in parts:
        part = make(rng, n)
        out += part * (weight / active_rms(part))
    return out


_MAKERS: dict[str, Callable[[np.random.Generator, int], Audio]] = {
    "white": lambda r, n: r.standard_normal(n).astype(np.float32),
    "pink": lambda r, n: shaped(r, n, 1.0),
    "brown": lambda r, n: shaped(r, n, 2.0),
    "hum": hum,
    "knocks": knocks,
    "scrapes": scrapes,
    "clatter": clatter,
    "babble": _babble,
    "room": _room,
    "dry-babble": _dry_babble,  # not in NOISES: testkit/room.py's
}


def noise_track(rng: np.random.Generator, n: int, noise: str, rms: float) -> Audio:
    if noise not in _MAKERS:
        raise ValueError(f"unknown noise {noise!r}: one of {', '.join(NOISES)}")
    x = _MAKERS[noise](rng, n)
    return (x * (rms / active_rms(x))).astype(np.float32)


# --- clips -----------------------------------------------------------------------------


def _finish(mix: Audio) -> Audio:
    """Scale the whole mix down if it would clip: the SNR stays as asked."""
    peak = float(np.abs(mix).max(initial=0.0))
    return (mix * (0.99 / peak) if peak > 0.99 else mix).astype(np.float32)


def make_corpus(seed: int, minutes: float, snr_db: float, noise: str) -> Clip:
    """``minutes`` of table phrases over ``noise`` (one of :data:`NOISES`) at
    ``snr_db`` (normal speech against the noise's active level)."""
    rng = np.random.default_rng(seed)
    n = round(minutes * 60 * RATE)
    speech, truth = _speech_track(rng, n)
    bed = noise_track(rng, n, noise, SPEECH_RMS * 10 ** (-snr_db / 20))
    # Where the mix was scaled down, the truth's times stand: only levels change.
    return Clip(_finish(speech + bed), RATE, truth)


def room_only(seed: int, minutes: float, noise: str, level_db: float = 0.0) -> Clip:
    """``minutes`` of ``noise`` and no foreground speech, ``level_db`` against the
    normal speaking level (0: as loud as a player, a hard case for a detector)."""
    rng = np.random.default_rng(seed)
    n = round(minutes * 60 * RATE)
    sound = noise_track(rng, n, noise, SPEECH_RMS * 10 ** (level_db / 20))
    # Clipped, not scaled down as a mix with speech is (``_finish``): the
    # room's knocks would pull a 0 dB room ~5 dB down, and a card clips.
    return Clip(np.clip(sound, -1.0, 1.0).astype(np.float32), RATE, ())


def save(clip: Clip, path: Path) -> tuple[Path, Path]:
    """The clip as 16-bit mono WAV at ``path`` and its truth as JSON beside it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    pcm = np.clip(np.round(clip.samples * 32767), -32768, 32767).astype("<i2")
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(clip.rate)
        out.writeframes(pcm.tobytes())
    truth = {
        "rate": clip.rate,
        "seconds": clip.seconds,
        "truth": [{"start_s": u.start_s, "end_s": u.end_s, "kind": u.kind} for u in clip.truth],
    }
    side = path.with_suffix(".json")
    side.write_text(json.dumps(truth, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return path, side
