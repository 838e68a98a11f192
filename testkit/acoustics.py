"""Sound through the simulated club room (``testkit/room.py``'s).

``Acoustics`` gives the impulse responses from any point of the room to
every microphone: pyroomacoustics' image sources for the early reflections
(to order ``ISM_ORDER``), then a diffuse tail that decays at the room's
RT60 with Sabine's level, made of plane waves from many directions so that
it is as coherent between two microphones 5 cm apart as a real reverberant
field (pyroomacoustics' own ray-traced tail is independent noise at each
microphone, which flatters an array). Talkers radiate ahead more than
behind; the seats' microphones may be cardioid, aimed at their seat.
``convolve`` plays minutes of sound through them in seconds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from testkit.room import Table

Floats = npt.NDArray[np.float64]
RATE = 16_000
SOUND_SPEED = 343.0
#: image sources up to this order; the diffuse tail takes over after them
ISM_ORDER = 8
#: plane waves summed for the diffuse tail
TAIL_WAVES = 48
#: a talker's voice carries best ahead: p + (1 - p) cos(angle), -3 dB to
#: the side, -8 dB behind (a broadband stand-in for the head's shadow)
VOICE_P = 0.7
#: the share of an omnidirectional talker's power such a voice radiates
VOICE_POWER = VOICE_P**2 + (1 - VOICE_P) ** 2 / 3


class Acoustics:
    """The table's room: impulse responses from any point to every microphone
    (the seats' first, then the array's)."""

    def __init__(self, table: Table, rng: np.random.Generator) -> None:
        import pyroomacoustics as pra  # a dev dependency: only the benches and tests load it

        self.table, self.rng = table, rng
        self.mics = np.vstack([table.seat_mics, table.array])
        self._absorption, _ = pra.inverse_sabine(table.rt60, list(table.room))
        self._delay = pra.constants.get("frac_delay_length") // 2
        volume = float(np.prod(table.room))
        self._area = 0.161 * volume / table.rt60  # Sabine's equivalent absorption area
        # The image sources are complete up to about one more bounce between
        # the closest walls than the order; the tail starts there.
        self._t0 = int(((ISM_ORDER + 1) * min(table.room) / SOUND_SPEED) * RATE) + self._delay
        self._length = self._t0 + int(0.8 * table.rt60 * RATE)
        directions = _sphere(TAIL_WAVES)
        n_fft = _fft_size(self._length)
        freqs = np.fft.rfftfreq(n_fft, 1 / RATE)
        lags = self.mics @ directions.T / SOUND_SPEED  # (mics, waves): ``directions`` travel
        # Each wave through each microphone's pattern (the array's: omni).
        self._aims = _aims(table)
        p = np.array([table.seat_pattern] * table.seats + [1.0] * len(table.array))
        gains = p[:, None] + (1 - p[:, None]) * (self._aims @ -directions.T)
        steer = np.exp(-2j * np.pi * freqs[:, None, None] * lags[None]) * gains[None]
        self._steer = steer.astype(np.complex64)

    def responses(self, points: Floats, facing: Floats | None = None) -> list[Floats]:
        """For each point: its (length, mics) impulse responses; ``facing``:
        each talker's azimuth in degrees (None: sources that sound alike all
        round)."""
        import pyroomacoustics as pra
        from pyroomacoustics.directivities import CardioidFamily, DirectionVector

        table = self.table
        room = pra.ShoeBox(
            list(table.room),
            fs=RATE,
            materials=pra.Material(self._absorption),
            max_order=ISM_ORDER,
            air_absorption=False,
        )
        patterns = [
            CardioidFamily(orientation=_direction(aim), p=table.seat_pattern)
            for aim in self._aims[: table.seats]
        ] + [
            CardioidFamily(orientation=_direction(aim), p=1.0) for aim in self._aims[table.seats :]
        ]
        room.add_microphone_array(self.mics.T, directivity=patterns)
        for i, point in enumerate(points):
            voice = None
            if facing is not None:
                ahead = DirectionVector(azimuth=float(facing[i]), colatitude=95.0, degrees=True)
                voice = CardioidFamily(orientation=ahead, p=VOICE_P)
            room.add_source(list(point), directivity=voice)
        room.compute_rir()
        out = []
        for s in range(len(points)):
            early = np.zeros((self._length, len(self.mics)))
            for m in range(len(self.mics)):
                rir = np.asarray(room.rir[m][s])[: self._length]
                early[: len(rir), m] = rir
            out.append(self._with_tail(early))
        return out

    def _with_tail(self, early: Floats) -> Floats:
        """The image sources faded out at t0 and a diffuse tail faded in:
        Sabine's reverberant energy decaying at the RT60. pyroomacoustics'
        direct sound is 1/r (no 4 pi), so the reverberant field, 16 pi r^2 / A
        times the direct energy at r, sums to 16 pi / A."""
        n, fade = self._length, int(0.01 * RATE)
        t = (np.arange(n) - self._delay) / RATE
        g0 = np.sqrt(VOICE_POWER * 16 * np.pi * 13.8 / (self._area * self.table.rt60 * RATE))
        envelope = g0 * np.exp(-6.9 * np.clip(t, 0, None) / self.table.rt60)
        ramp = np.clip((np.arange(n) - self._t0) / fade + 0.5, 0.0, 1.0)
        waves = self.rng.standard_normal((n, TAIL_WAVES)) * (envelope * ramp)[:, None]
        spectra = np.fft.rfft(waves, self._steer.shape[0] * 2 - 2, axis=0).astype(np.complex64)
        tail = np.fft.irfft(np.einsum("fk,fmk->fm", spectra, self._steer), axis=0)[:n]
        out: Floats = early * (1.0 - ramp)[:, None] + tail / np.sqrt(TAIL_WAVES)
        return out


def _aims(table: Table) -> Floats:
    """Unit vectors: each seat's microphone towards its seat's mouth, the
    array's up (omnidirectional: only a placeholder)."""
    towards = table.mouths - table.seat_mics
    up = np.tile([0.0, 0.0, 1.0], (len(table.array), 1))
    return np.vstack([towards / np.linalg.norm(towards, axis=1, keepdims=True), up])


def _direction(aim: Floats) -> object:
    from pyroomacoustics.directivities import DirectionVector

    azimuth = float(np.degrees(np.arctan2(aim[1], aim[0])))
    colatitude = float(np.degrees(np.arccos(np.clip(aim[2], -1, 1))))
    return DirectionVector(azimuth=azimuth, colatitude=colatitude, degrees=True)


def _sphere(count: int) -> Floats:
    """``count`` directions spread evenly over the sphere (a Fibonacci lattice)."""
    i = np.arange(count) + 0.5
    z = 1 - 2 * i / count
    angle = np.pi * (1 + 5**0.5) * i
    r = np.sqrt(1 - z**2)
    return np.column_stack([r * np.cos(angle), r * np.sin(angle), z])


def _fft_size(n: int) -> int:
    return 1 << (max(1, n) - 1).bit_length()


def convolve(signal: npt.NDArray[np.floating], rirs: Floats) -> Floats:
    """``signal`` through each column of ``rirs``: (len(signal) + taps - 1, mics),
    by FFT in blocks (overlap-add), so minutes of noise cost seconds. The
    work runs along rows (mics, time): numpy's FFT is several times faster
    over contiguous rows than down columns."""
    taps, mics = rirs.shape
    size = max(_fft_size(4 * taps), 1 << 15)
    block = size - taps + 1
    kernel = np.fft.rfft(rirs.T, size, axis=1)
    out = np.zeros((mics, len(signal) + taps - 1))
    for first in range(0, len(signal), block):
        piece = np.fft.rfft(signal[first : first + block], size)
        wet = np.fft.irfft(piece[None, :] * kernel, size, axis=1)
        end = min(out.shape[1], first + size)
        out[:, first:end] += wet[:, : end - first]
    return out.T
