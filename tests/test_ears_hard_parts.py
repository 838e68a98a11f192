"""The split corpus of issue 26 (``testkit/hard_corpus.py``): fresh parts
(``test2``, ``test3``, then ``test4``) for the blind check once the one
before was spent, made the same way from material no other part uses."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from testkit.hard_corpus import PARTS, Part, speech_clip

ROOT = Path(__file__).resolve().parent.parent


def _voices(part: Part) -> set[str]:
    return {*part.voices, *part.whispers, *(f"{v} whispered" for v in part.own_whispers)}


@pytest.mark.parametrize("name", ["test2", "test3", "test4", "test5"])
def test_a_blind_part_is_fresh_material(name: str) -> None:
    blind = PARTS[name]
    for other in PARTS.values():
        if other is blind:
            continue
        # Seeds: a part's clips take seed + 10 * index + bed (+ 500 for rooms).
        assert abs(blind.seed - other.seed) >= 1000
        assert not set(blind.voices) & set(other.voices), other.name
        assert not set(blind.own_whispers) & set(other.own_whispers), other.name
        assert not set(blind.whispers) & set(other.whispers), other.name
        if other.name != "tuning2":  # a tuning part may share the tuning part's rates
            assert not set(blind.rates) & set(other.rates), other.name


@pytest.mark.parametrize("name", ["test2", "test3", "test4", "test5", "tuning2", "tuning3"])
def test_a_part_clip_is_made_as_the_others_from_its_own_voices(name: str) -> None:
    clip = speech_clip(PARTS[name], "pink", 0, 0.25)
    assert clip.truth, "15 s hold a few utterances"
    assert {said.voice for said in clip.truth} <= _voices(PARTS[name])
    assert {said.kind for said in clip.truth} <= {"line", "whisper", "word"}
    assert len(clip.samples) == 15 * clip.rate


def test_bench_takes_the_fresh_parts() -> None:
    done = subprocess.run(
        [sys.executable, "bench/ears.py", "--help"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    for part in ("test2", "test3", "test4", "test5", "tuning2", "tuning3"):
        assert part in done.stdout
