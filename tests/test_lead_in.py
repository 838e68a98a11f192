"""Cues start with their sound, not with the quiet lead-in espeak-ng (or a
recording) puts before it (issue 3: a cue must sound the moment it is due)."""

from __future__ import annotations

import numpy as np

from companion.voice.audio import AudioFormat, Clip, tone


def quiet_then_tone(lead: float, rate: int = 22050) -> Clip:
    sound = tone(440, 0.2).samples
    hush = np.full(round(lead * rate), 40, dtype=np.int16)  # a hiss, below 1 % of full scale
    return Clip.mono(np.concatenate((hush, sound)), rate)


def first_loud(clip: Clip, threshold: int = 330) -> int:
    data = np.abs(clip.samples.reshape(clip.frames, -1).astype(np.int32))
    return int(np.flatnonzero((data > threshold).any(axis=1))[0])


def test_the_lead_in_is_cut_to_two_milliseconds() -> None:
    clip = quiet_then_tone(0.3)
    cut = clip.without_lead_in()
    assert first_loud(cut) == round(0.002 * 22050)
    assert cut.frames == clip.frames - (first_loud(clip) - first_loud(cut))
    assert np.array_equal(cut.samples[first_loud(cut) :], clip.samples[first_loud(clip) :])


def test_a_clip_that_starts_loud_or_is_silent_is_left_whole() -> None:
    loud = tone(440, 0.1)
    silent = Clip.mono(np.zeros(2205, dtype=np.int16))
    assert loud.without_lead_in() is loud
    assert silent.without_lead_in() is silent


def test_stereo_counts_a_sound_on_either_channel() -> None:
    mono = quiet_then_tone(0.1)
    left_only = np.column_stack((mono.samples, np.zeros(mono.frames, dtype=np.int16)))
    clip = Clip(left_only, AudioFormat(22050, 2, 2))
    cut = clip.without_lead_in()
    assert cut.format == clip.format
    assert first_loud(cut) == round(0.002 * 22050)
