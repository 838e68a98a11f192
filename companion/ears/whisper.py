"""The whisper channel and the room's floor per band (issue 26).

Silero and webrtcvad are trained on voiced speech: a whisper has no pitch,
and it sits near a noisy room's spectrum, so they miss most of it. What
does tell a whisper is where its energy goes: nearly all of it (80-95 %)
in 1-5 kHz, spread over the band, steady within a few milliseconds. A
chunk is heard as whispered (``Bands.hear``) where

- its 1-5 kHz power stands ``WHISPER_MIN_DB`` above that band's own floor
  (a floor per band: ``BANDS``, each the same percentile of the last
  seconds as the broadband ``detect.RoomFloor``);
- of the power it adds over the floors, below 1 kHz, in 1-5 kHz and above
  5 kHz, at least ``WHISPER_SHARE`` is in 1-5 kHz: voiced talk (the next
  tables) adds most of its power below 1 kHz, a knock or a chair's thud
  too, paper and clatter above 5 kHz;
- its 1-5 kHz power is steady over the chunk's four 8 ms quarters (their
  loudest at most ``STEADY_DB`` over their quietest) and from quarter to
  quarter over the last 96 ms (``JITTER_DB``): a click, a crackle of
  paper or a chair's stick-slip chatter is not.

The bands also judge how far voiced speech stands out of the room
(``speech_lift``, 250-5000 Hz): a brown or humming room fills the low
band a voice leaves alone, so a word that hardly rises over the
broadband level stands well out of the room where speech sounds.
All of it is a few small FFTs a chunk (bench/ears.py prints the CPU).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .capture import RATE
from .floor import RoomFloor

Floats = npt.NDArray[np.float64]
#: a chunk's quarters: 128 samples (8 ms), bins of 125 Hz
QUARTER = 128
#: the bands (Hz) whose floors are kept: below, in and above a whisper's,
#: and where voiced speech sounds
BANDS = {"low": (100, 1000), "mid": (1000, 5000), "high": (5000, 8000), "speech": (250, 5000)}
#: a whispered chunk's 1-5 kHz power over that band's floor (dB)
WHISPER_MIN_DB = 6.0
#: the share of a whispered chunk's added power that is in 1-5 kHz
WHISPER_SHARE = 0.55
#: a band's power counts as added by a sound from this far over its floor (dB)
ADDED_DB = 3.0
#: a whispered chunk's 1-5 kHz power: its loudest quarter over its quietest (dB)
STEADY_DB = 10.0
#: and from one 8 ms quarter to the next over the last ``JITTER_QUARTERS``,
#: its mean step (dB): a whisper's noise and its formants' glides move it
#: 2-4 dB, a chair's stick-slip chatter at 15-40 Hz 5-10 (testkit/hard_corpus.py's
#: tuning part: 83 % of whispered chunks pass at 3.5 dB, 3 % of the room's
#: transients that pass the rest)
JITTER_DB = 3.5
JITTER_QUARTERS = 12

_FREQS = np.fft.rfftfreq(QUARTER, 1 / RATE)
_MASKS = np.array([(lo <= _FREQS) & (hi > _FREQS) for lo, hi in BANDS.values()], dtype=float)
_WINDOW = np.hanning(QUARTER + 2)[1:-1]  # no zero ends: a click at a quarter's edge still counts
_LOW, _MID, _HIGH, _SPEECH = range(4)


def _windows(rows: int) -> npt.NDArray[np.intp]:
    """Row r: the ``JITTER_QUARTERS - 1`` steps from step r on."""
    return np.arange(rows)[:, None] + np.arange(JITTER_QUARTERS - 1)


#: enough rows for a group of ``detect.AHEAD`` chunks (a block's chunk k
#: takes row (k + 1) * quarters a chunk)
_WINDOWS = _windows(1024)


@dataclass(frozen=True, slots=True)
class Heard:
    """One chunk per channel: whispered or not, and how far its 1-5 kHz
    and its speech band stand above their floors (dB)."""

    whisper: npt.NDArray[np.bool_]
    mid_lift: Floats
    speech_lift: Floats
    #: the speech band's mean step from quarter to quarter (dB, as ``JITTER_DB``)
    speech_jitter: Floats
    #: the chunk's 1-5 kHz power (which seat a whisper is loudest at)
    mid_power: Floats


def band_powers(chunk: npt.NDArray[np.floating]) -> Floats:
    """(quarters, bands, channels): each quarter's power in each band."""
    frames = chunk.shape[0] - chunk.shape[0] % QUARTER
    quarters = chunk[:frames].reshape(-1, QUARTER, chunk.shape[1]).astype(np.float64)
    spectra = np.fft.rfft(quarters * _WINDOW[None, :, None], axis=1)
    power = spectra.real**2 + spectra.imag**2
    powers: Floats = np.einsum("bf,qfc->qbc", _MASKS, power) / QUARTER + 1e-12
    return powers


class Bands:
    """The room's floor per band and channel, and each chunk's verdict.
    Fed every chunk, speech or not."""

    def __init__(self, channels: int = 1) -> None:
        self._floor = RoomFloor(len(BANDS) * channels)
        self._channels = channels
        self._quarters: Floats | None = None  # the last quarters' 1-5 kHz and speech levels (dB)

    def hear(self, chunk: npt.NDArray[np.floating]) -> Heard:
        """``chunk``: (frames,) or (frames, channels)."""
        frames = chunk[:, None] if chunk.ndim == 1 else chunk
        return self.hear_block(frames[None])[0]

    def hear_block(self, chunks: npt.NDArray[np.floating]) -> list[Heard]:
        """``chunks``: (chunks, frames, channels), heard in order: each
        one's verdict, as ``hear`` a chunk at a time gives it to the bit
        (the floor is reckoned chunk by chunk; the rest is the same
        arithmetic on every chunk at once)."""
        # (numpy is called per block, not per chunk: on a Pi's core a call
        # costs more than its arithmetic on a chunk; ``sum / n`` is how
        # ``mean`` reckons, and ``a[1:] - a[:-1]`` is ``np.diff``.)
        count, frames, channels = chunks.shape
        quarters = band_powers(chunks.reshape(count * frames, channels))
        per = quarters.shape[0] // count
        # (chunks, quarters, bands, channels)
        quarters = quarters.reshape(count, per, *quarters.shape[1:])
        power = quarters.sum(axis=1) / per  # (chunks, bands, channels)
        levels = 10.0 * np.log10(power)
        floor_db = self._floor.feed_block(levels.reshape(count, -1)).reshape(levels.shape)
        lift = levels - floor_db
        # What a chunk adds to each band, counted from ``ADDED_DB`` over its
        # floor: a bed's own swell (mains hum wobbles) is not a sound.
        added = np.maximum(power - 10.0 ** ((floor_db + ADDED_DB) / 10.0), 0.0)
        spread = added[:, _LOW] + added[:, _MID] + added[:, _HIGH] + 1e-12
        mid = quarters[:, :, _MID]  # (chunks, quarters, channels)
        steady = 10.0 * np.log10(mid.max(axis=1) / mid.min(axis=1))
        heard = 10.0 * np.log10(quarters[:, :, [_MID, _SPEECH]])  # (chunks, quarters, 2, ch)
        heard = heard.reshape(-1, *heard.shape[2:])  # (chunks * quarters, 2, channels)
        if self._quarters is None:
            self._quarters = np.repeat(heard[:1], JITTER_QUARTERS, axis=0)
        every = np.concatenate([self._quarters, heard])
        self._quarters = every[-JITTER_QUARTERS:]
        # Each chunk's last ``JITTER_QUARTERS`` quarters: their steps.
        steps = np.abs(every[1:] - every[:-1])
        rows = (count + 1) * per
        table = _WINDOWS if rows <= len(_WINDOWS) else _windows(rows)
        windows = steps[table[per:rows:per]]  # chunk k's: from quarter (k + 1) * per on
        jitter = windows.sum(axis=1) / (JITTER_QUARTERS - 1)  # (chunks, 2, channels)
        whisper = (
            (lift[:, _MID] >= WHISPER_MIN_DB)
            & (added[:, _MID] >= WHISPER_SHARE * spread)
            & (steady <= STEADY_DB)
            & (jitter[:, 0] <= JITTER_DB)
        )
        return list(
            map(Heard, whisper, lift[:, _MID], lift[:, _SPEECH], jitter[:, 1], power[:, _MID])
        )
