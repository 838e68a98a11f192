"""A simulated club table for the ears' seat attribution (issue 10).

A room (6-8 x 4.5-5.5 x 2.7-3.2 m, RT60 0.4-0.7 s by inverse Sabine, drawn
from the seed) with an oval table and 10-12 seats round it, about 0.6 m of
table edge each. A seated player's mouth is 1.2 m high and 0.3-0.45 m back
from the edge; in each pass every player sits a little otherwise (leaning,
the chair moved: ``POSTURE_SD``) and the head moves between utterances
(``HEAD_SD``), so calibration and play are never at identical points.
Players face the table, up to 70 degrees either side, and a voice carries
best ahead. Two microphone set-ups hear the same sound:

- ``channels``: a microphone per seat, a short gooseneck at the table's
  edge leaning towards the seat, 0.3-0.45 m from the mouth, cardioid and
  aimed at it (``seat_mic="omni"``: the worst case for crosstalk);
- ``array``: a small array lying near the middle of the table, off centre
  and turned at random, as a host would put it down (``companion.ears.array``'s
  geometries: the ReSpeaker 6-mic circular kit by default).

``testkit/acoustics.py`` carries the sound through the room. Speech is
the corpus's (``testkit/corpus.py``: espeak-ng, several voices, rates and
levels); the room's noise too: babble from two other tables, ventilation
(pink) and the street (brown) from the ceiling, knocks and clatter on the
table, chairs scraping, each a source in the room, with mains hum and the
microphones' own hiss added per channel. ``snr_db`` is normal speech
against that noise as the array hears it (active levels, as in the corpus).
A pass gives both set-ups' 16 kHz float samples and the truth: each
utterance's start, end, seat and level. ``room_passes`` is the room alone,
nobody at the table speaking, at ``ROOM_LEVELS`` against normal speech at
the array (as bench/ears.py's room-only clips are against a player): what
the false flags are counted on.

Everything is drawn from ``numpy.random.default_rng(seed)``.
"""

from __future__ import annotations

import wave
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from companion.ears.array import GEOMETRIES
from testkit.acoustics import Acoustics, convolve
from testkit.corpus import LEVELS, SPEECH_RMS, active_rms, noise_track, pick_utterance, render
from testkit.corpus import PHRASES as _PHRASES

Audio = npt.NDArray[np.float32]
Floats = npt.NDArray[np.float64]
RATE = 16_000
MOUTH_HEIGHT = 1.2
TABLE_HEIGHT = 0.75
#: how far a player sits from their place in one pass (leaning, the chair
#: moved: standard deviation, metres), and how far the head moves between
#: one utterance and the next
POSTURE_SD = (0.05, 0.05, 0.02)
HEAD_SD = (0.03, 0.03, 0.015)
#: the seats' microphones: p of the same pattern (0.5: cardioid, 1: omni)
SEAT_MICS = {"cardioid": 0.5, "omni": 1.0}
#: the room alone against normal speech at the array (``room_passes``):
#: bench/ears.py's ROOM_LEVELS, as loud as a player and 10 and 20 dB quieter
ROOM_LEVELS = (0.0, -10.0, -20.0)


@dataclass(frozen=True, slots=True, eq=False)
class Table:
    """Where everything is, in metres (x, y, z) from a corner of the floor."""

    room: tuple[float, float, float]
    rt60: float
    mouths: Floats  # (seats, 3): seat n + 1 on row n, round the table in order
    seat_mics: Floats  # (seats, 3): the channels layout, in the same order
    array: Floats  # (mics, 3): the array layout
    geometry: str
    seat_pattern: float = 0.5  # the seats' microphones (SEAT_MICS), aimed at their mouths

    @property
    def seats(self) -> int:
        return len(self.mouths)


@dataclass(frozen=True, slots=True)
class Spoken:
    """One utterance of the truth: seconds from the start, its seat (1-based),
    its level's name, and whether another seat spoke over it."""

    start_s: float
    end_s: float
    seat: int
    kind: str
    overlapped: bool = False


@dataclass(frozen=True, slots=True, eq=False)
class Pass:
    """A stretch of the evening as both set-ups heard it (16 kHz float32)."""

    channels: Audio  # (frames, seats)
    array: Audio  # (frames, mics)
    truth: tuple[Spoken, ...]
    rate: int = RATE

    @property
    def seconds(self) -> float:
        return len(self.array) / self.rate


def make_table(
    seed: int,
    seats: int | None = None,
    geometry: str = "respeaker-6mic",
    seat_mic: str = "cardioid",
) -> Table:
    """A room and a table drawn from ``seed`` (10-12 seats unless given).
    ``seat_mic``: the channels layout's microphones, "cardioid" goosenecks
    (what a club would fit) or "omni" (the worst case for crosstalk)."""
    rng = np.random.default_rng(seed)
    room = (rng.uniform(6.0, 8.0), rng.uniform(4.5, 5.5), rng.uniform(2.7, 3.2))
    count = seats if seats is not None else int(rng.integers(10, 13))
    # The table's edge: an ellipse with room for each seat (~0.6 m of edge a seat).
    semi_b = rng.uniform(0.55, 0.7)
    semi_a = max(semi_b + 0.3, count * 0.6 / (2 * np.pi) * 2 - semi_b)
    centre = np.array([room[0] / 2, room[1] / 2]) + rng.uniform(-0.4, 0.4, 2)
    edge, normal = _ellipse_points(semi_a, semi_b, count, rng.uniform(0, 2 * np.pi))
    back = rng.uniform(0.3, 0.45, count)[:, None]
    mouths = np.column_stack([centre + edge + normal * back, np.full(count, MOUTH_HEIGHT)])
    # A short gooseneck at the edge leaning out towards the seat: 0.3-0.45 m from the mouth.
    seat_mics = np.column_stack([centre + edge + normal * 0.05, np.full(count, TABLE_HEIGHT + 0.3)])
    shape = GEOMETRIES[geometry]
    turn = rng.uniform(0, 2 * np.pi)
    rotation = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
    where = centre + rng.uniform(-0.12, 0.12, 2)
    flat = np.asarray(shape.positions)[:, :2] @ rotation.T + where
    array = np.column_stack([flat, np.full(len(flat), TABLE_HEIGHT + 0.02)])
    rt60 = float(rng.uniform(0.4, 0.7))
    return Table(room, rt60, mouths, seat_mics, array, geometry, SEAT_MICS[seat_mic])


def _ellipse_points(a: float, b: float, count: int, phase: float) -> tuple[Floats, Floats]:
    """``count`` points evenly spaced by arc length round an ellipse, and the
    outward unit normals there."""
    t = np.linspace(0, 2 * np.pi, 4096, endpoint=False)
    step = np.hypot(a * np.sin(t), b * np.cos(t))
    arc = np.concatenate([[0.0], np.cumsum(step)[:-1]]) / step.sum()
    at = np.interp((np.arange(count) / count + phase / (2 * np.pi)) % 1.0, arc, t)
    points = np.column_stack([a * np.cos(at), b * np.sin(at)])
    normal = np.column_stack([b * np.cos(at), a * np.sin(at)])
    return points, normal / np.linalg.norm(normal, axis=1, keepdims=True)


# --- passes ----------------------------------------------------------------------------

Line = tuple[
    float, int, npt.NDArray[np.float32], str, bool
]  # (start s, seat, speech, kind, overlapped)


def calibration_pass(table: Table, seed: int, snr_db: float = 20.0) -> Pass:
    """Each seat in turn says a few words (two phrases, 1.5-4 s, at the
    normal level) with 1.5-2.5 s between seats, as ``companion calibrate``
    asks them to."""
    rng = np.random.default_rng(seed)
    lines: list[Line] = []
    at = rng.uniform(0.8, 1.5)
    for seat in range(1, table.seats + 1):
        words = [_normal_phrase(rng) for _ in range(2)]
        gap = np.zeros(int(0.2 * RATE), dtype=np.float32)
        speech = np.concatenate([words[0], gap, words[1]])
        lines.append((at, seat, speech, "normal", False))
        at += len(speech) / RATE + rng.uniform(1.5, 2.5)
    return _render(table, rng, lines, at + 1.0, snr_db)


def game_pass(
    table: Table,
    seed: int,
    minutes: float,
    snr_db: float = 15.0,
    overlap: float = 0.1,
    levels: tuple[str, ...] = tuple(LEVELS),
    pick: Callable[[np.random.Generator], tuple[Audio, str]] = pick_utterance,
) -> Pass:
    """``minutes`` of play: phrases at the corpus's levels (those of
    ``levels`` only) from seats at random (a speaker often goes on for a few
    phrases), 0.6-2.5 s apart; a share ``overlap`` of them cut into the
    phrase before from another seat. ``pick``: draws a phrase and its
    level (the corpus's espeak-ng talkers unless another is given)."""
    rng = np.random.default_rng(seed)
    lines: list[Line] = []
    end = minutes * 60
    at, seat = rng.uniform(0.5, 1.5), int(rng.integers(1, table.seats + 1))
    while True:
        speech, kind = pick(rng)
        while kind not in levels:
            speech, kind = pick(rng)
        seconds = len(speech) / RATE
        cuts_in = bool(lines) and rng.random() < overlap
        if cuts_in:
            start, before, words, level, _ = lines[-1]
            lines[-1] = (start, before, words, level, True)
            seat = _other_seat(rng, table.seats, before)
            at = start + rng.uniform(0.2, 0.7) * len(words) / RATE
            finish = max(at + seconds, start + len(words) / RATE)
        else:
            if rng.random() < 0.5:
                seat = _other_seat(rng, table.seats, seat)
            finish = at + seconds
        if finish > end:
            break
        lines.append((at, seat, speech, kind, cuts_in))
        at = finish + rng.uniform(0.6, 2.5)
    return _render(table, rng, lines, end, snr_db)


def _normal_phrase(rng: np.random.Generator) -> npt.NDArray[np.float32]:
    voice = ("ru", "ru+f3", "ru+m3")[int(rng.integers(3))]
    return render(_PHRASES[int(rng.integers(len(_PHRASES)))], voice, int(rng.choice((130, 165))))


def _other_seat(rng: np.random.Generator, seats: int, seat: int) -> int:
    return int((seat + rng.integers(1, seats) - 1) % seats + 1)


def _render(
    table: Table, rng: np.random.Generator, lines: list[Line], seconds: float, snr_db: float
) -> Pass:
    acoustics = Acoustics(table, rng)
    n = int(seconds * RATE)
    speech = np.zeros((n, len(acoustics.mics)))
    normal: list[float] = []  # active RMS of each normal utterance at the array
    seats = table.seats
    voices = _voices(table, acoustics, rng, lines)
    for (start, _, _, kind, _), wet in zip(lines, voices, strict=True):
        first = int(start * RATE)
        end = min(n, first + len(wet))
        speech[first:end] += wet[: end - first]
        if kind == "normal":
            normal.append(active_rms(wet[:, seats:].mean(axis=1)))
    level = float(np.mean(normal)) if normal else 1.0
    noise = _room_noise(table, acoustics, rng, n)
    noise *= (level * 10 ** (-snr_db / 20)) / active_rms(noise[:, seats:].mean(axis=1))
    mix = speech + noise
    electric = _electric(rng, n, len(acoustics.mics)) * level
    mix = (mix + electric) * (SPEECH_RMS / level)
    truth = tuple(
        Spoken(round(start, 4), round(start + len(w) / RATE, 4), s, kind, over)
        for start, s, w, kind, over in sorted(lines, key=lambda line: line[0])
    )
    return Pass(_finish(mix[:, :seats]), _finish(mix[:, seats:]), truth)


def _voices(
    table: Table, acoustics: Acoustics, rng: np.random.Generator, lines: list[Line]
) -> Iterator[Floats]:
    """Each line as every microphone hears it (seats' first, then the
    array's), one at a time: the player sits a little otherwise this pass,
    moves their head between lines and faces the table or whom they talk to."""
    posture = rng.normal(0, POSTURE_SD, (table.seats, 3))
    heads = np.array(
        [table.mouths[s - 1] + posture[s - 1] + rng.normal(0, HEAD_SD) for _, s, _, _, _ in lines]
    )
    # Players face the table, and whom they talk to: up to 70 degrees either side.
    middle = table.mouths[:, :2].mean(axis=0)
    inward = np.degrees(np.arctan2(*(middle - heads[:, :2]).T[::-1]))
    facing = inward + rng.uniform(-70, 70, len(heads))
    for (_, _, words, kind, _), rirs in zip(lines, acoustics.responses(heads, facing), strict=True):
        yield convolve(words * 10 ** (LEVELS[kind][0] / 20), rirs)


def room_passes(
    table: Table, seed: int, minutes: float, levels: tuple[float, ...] = ROOM_LEVELS
) -> dict[float, Pass]:
    """``minutes`` of the room with nobody at the table speaking (the other
    tables' babble, ventilation, knocks, chairs, hum: ``_room_noise`` and
    ``_electric``, rendered whole, not looped), at each of ``levels`` dB
    against normal speech at the array, as bench/ears.py's room-only clips
    are against a player: the same sound at each level, no truth. Normal
    speech's level is ``_render``'s, from a normal phrase of each seat
    rendered through the room and not mixed in. Peaks beyond full scale
    are clipped, not the whole pass scaled down (bench/ears.py's ``room``
    clip at 0 dB is scaled down by its ``_finish``, to about -5 dB)."""
    rng = np.random.default_rng(seed)
    acoustics = Acoustics(table, rng)
    n = int(minutes * 60 * RATE)
    seats = table.seats
    lines: list[Line] = [
        (0.0, seat, _normal_phrase(rng), "normal", False) for seat in range(1, seats + 1)
    ]
    voices = _voices(table, acoustics, rng, lines)
    level = float(np.mean([active_rms(wet[:, seats:].mean(axis=1)) for wet in voices]))
    noise = _room_noise(table, acoustics, rng, n, loop_s=None)
    noise *= level / active_rms(noise[:, seats:].mean(axis=1))
    electric = _electric(rng, n, len(acoustics.mics)) * level
    passes = {}
    for db in levels:
        # Clipped as a card clips (a knock's peak at 0 dB), not scaled down as
        # ``_finish`` would: the level stays the one asked for.
        mix = np.clip((noise * 10 ** (db / 20) + electric) * (SPEECH_RMS / level), -1.0, 1.0)
        passes[db] = Pass(mix[:, :seats].astype(np.float32), mix[:, seats:].astype(np.float32), ())
    return passes


#: (noises, their weights at the array, where): what sounds from one place
_NOISES: tuple[tuple[tuple[str, ...], tuple[float, ...], str], ...] = (
    (("dry-babble",), (0.6,), "far"),  # two other tables (the room adds the reverberation)
    (("dry-babble",), (0.6,), "far"),
    (("pink", "brown"), (0.5, 0.3), "ceiling"),  # ventilation, and the street's rumble
    (("knocks", "clatter"), (1.0, 0.7), "table"),
    (("scrapes",), (0.5,), "floor"),
)
#: noise longer than this is rendered through the room once and repeated
#: (a bench of minutes would otherwise spend them convolving noise)
NOISE_LOOP_S = 40.0


def _room_noise(
    table: Table,
    acoustics: Acoustics,
    rng: np.random.Generator,
    n: int,
    loop_s: float | None = NOISE_LOOP_S,
) -> Floats:
    """The room's sources (``_NOISES``), each from a place of its own, at
    their weights' active level at the array; rendered for ``loop_s`` and
    repeated (None: rendered whole)."""
    places: dict[str, Callable[[], Floats]] = {
        "far": lambda: _far_point(table, rng),
        "ceiling": lambda: np.array(
            [*rng.uniform(0.25, 0.75, 2) * table.room[:2], table.room[2] - 0.2]
        ),
        "table": lambda: _near_seat(table, rng, TABLE_HEIGHT + 0.01, inward=0.25),
        "floor": lambda: _near_seat(table, rng, 0.05, inward=-0.2),
    }
    points = np.array([places[where]() for _, _, where in _NOISES])
    loop = n if loop_s is None else min(n, int(loop_s * RATE))
    out = np.zeros((n, len(acoustics.mics)))
    for (names, weights, _), rirs in zip(_NOISES, acoustics.responses(points), strict=True):
        dry = sum(noise_track(rng, loop, name, w) for name, w in zip(names, weights, strict=True))
        wet = convolve(np.asarray(dry), rirs)
        # the tail of the last round rings on into the next one
        ring = len(wet) - loop
        wet[:ring] += wet[loop:]
        wet = wet[:loop] * (sum(weights) / active_rms(wet[:loop, table.seats :].mean(axis=1)))
        out += np.tile(wet, (n // loop + 1, 1))[:n]
    return out


def _far_point(table: Table, rng: np.random.Generator) -> Floats:
    """Another table's talkers: at least 2.5 m from this table's middle."""
    middle = table.mouths[:, :2].mean(axis=0)
    while True:
        point = rng.uniform([0.4, 0.4], [table.room[0] - 0.4, table.room[1] - 0.4])
        if np.linalg.norm(point - middle) >= 2.5 or rng.random() < 0.01:
            return np.array([*point, MOUTH_HEIGHT])


def _near_seat(table: Table, rng: np.random.Generator, height: float, inward: float) -> Floats:
    seat = int(rng.integers(table.seats))
    middle = table.mouths[:, :2].mean(axis=0)
    mouth = table.mouths[seat, :2]
    direction = (middle - mouth) / np.linalg.norm(middle - mouth)
    return np.array([*(mouth + direction * (0.35 + inward)), height])


def _electric(rng: np.random.Generator, n: int, mics: int) -> Floats:
    """Mains hum picked up alike on every channel (35 dB under normal speech)
    and each microphone's own hiss (50 dB under)."""
    hum = noise_track(rng, n, "hum", 10 ** (-35 / 20))
    gains = rng.uniform(0.7, 1.3, mics)
    hiss = rng.standard_normal((n, mics)) * 10 ** (-50 / 20)
    return hum[:, None] * gains[None, :] + hiss


def _finish(mix: Floats) -> Audio:
    """Scaled down if it would clip (the levels between channels stand)."""
    peak = float(np.abs(mix).max(initial=0.0))
    return (mix * (0.99 / peak) if peak > 0.99 else mix).astype(np.float32)


def save_wav(path: Path, samples: Audio, rate: int = RATE) -> Path:
    """``samples`` (frames, channels) as a 16-bit WAV, as a sound card records it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    pcm = np.clip(np.round(samples * 32767), -32768, 32767).astype("<i2")
    with wave.open(str(path), "wb") as out:
        out.setnchannels(samples.shape[1])
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(pcm.tobytes())
    return path
