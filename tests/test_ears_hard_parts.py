"""The split corpus of issue 26 (``testkit/hard_corpus.py``): a third,
fresh part (``test2``) for the blind check once ``test`` was spent, made
the same way from material no other part uses."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from testkit.hard_corpus import PARTS, Part, speech_clip

ROOT = Path(__file__).resolve().parent.parent


def _voices(part: Part) -> set[str]:
    return {*part.voices, *part.whispers, *(f"{v} whispered" for v in part.own_whispers)}


def test_test2_is_fresh_material() -> None:
    test2 = PARTS["test2"]
    for name in ("tuning", "test"):
        other = PARTS[name]
        # Seeds: a part's clips take seed + 10 * index + bed (+ 500 for rooms).
        assert abs(test2.seed - other.seed) >= 1000
        assert not set(test2.voices) & set(other.voices)
        assert not set(test2.own_whispers) & set(other.own_whispers)
        assert not set(test2.whispers) & set(other.whispers)
        assert not set(test2.rates) & set(other.rates)


def test_test2_clip_is_made_as_the_others_from_its_own_voices() -> None:
    clip = speech_clip(PARTS["test2"], "pink", 0, 0.25)
    assert clip.truth, "15 s hold a few utterances"
    assert {said.voice for said in clip.truth} <= _voices(PARTS["test2"])
    assert {said.kind for said in clip.truth} <= {"line", "whisper", "word"}
    assert len(clip.samples) == 15 * clip.rate


def test_bench_takes_the_test2_part() -> None:
    done = subprocess.run(
        [sys.executable, "bench/ears.py", "--help"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "test2" in done.stdout
