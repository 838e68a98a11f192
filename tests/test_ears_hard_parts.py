"""The split corpus of issue 26 (``testkit/hard_corpus.py``): fresh parts
(``test2`` ... ``test6``) for the blind check once the one before was
spent, made the same way from material no other part uses."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from testkit import festival, recorded
from testkit.corpus import RATE
from testkit.hard_corpus import PARTS, Part, speech_clip

ROOT = Path(__file__).resolve().parent.parent


def _espeak(part: Part) -> bool:
    return not any(festival.is_festival(v) or recorded.is_recorded(v) for v in part.voices)


def _voices(part: Part) -> set[str]:
    return {*part.voices, *part.whispers, *(f"{v} whispered" for v in part.own_whispers)}


@pytest.mark.parametrize("name", ["test2", "test3", "test4", "test5", "test6"])
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
        # A tuning part may share the tuning part's rates; a part of
        # recordings or Festival's units has no espeak-ng rate (100: unused).
        if other.name != "tuning2" and _espeak(blind) and _espeak(other):
            assert not set(blind.rates) & set(other.rates), other.name


@pytest.mark.parametrize(
    "name", ["test2", "test3", "test4", "test5", "test6", "tuning2", "tuning3"]
)
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
    for part in ("test2", "test3", "test4", "test5", "test6", "tuning2", "tuning3"):
        assert part in done.stdout


def test_the_recorded_part_speaks_her_own_words_at_their_lengths() -> None:
    """test6's interjections are her one-word prompts of 0.3-0.7 s at
    their speed, its lines her sentences; no tone is taken for speech."""
    said = dict(recorded.prompts())
    assert said["auth-thankyou"] == "Спасибо."
    assert "beep" not in said and "ascending-2tone" not in said
    rng = np.random.default_rng(1)
    for voice in PARTS["test6"].voices:
        word, line = recorded.word(voice, rng), recorded.line(voice, rng)
        assert 0.3 <= len(word) / RATE <= 0.7 + 0.02, voice  # trimmed after the speed
        assert len(line) / RATE >= 0.75, voice


def test_the_layouts_bench_seats_her_lines_and_whispers_round_the_table() -> None:
    """``bench/ears_layouts.py --speech recorded``: the room's talkers say
    test6's speaker's lines, normal or whispered by ``whispered``."""
    from bench.ears_layouts import her_line
    from testkit.room import game_pass, make_table

    rng = np.random.default_rng(5)
    kinds = {her_line(rng)[1] for _ in range(40)}
    assert kinds == {"normal", "whisper"}
    drawn: list[str] = []

    def pick(rng: np.random.Generator) -> tuple[np.ndarray, str]:
        speech, kind = her_line(rng)
        drawn.append(kind)
        return speech, kind

    table = make_table(3)
    game = game_pass(table, 31, 0.3, overlap=0.0, levels=("normal", "whisper"), pick=pick)
    assert game.truth and len(game.truth) <= len(drawn)
    assert {said.kind for said in game.truth} <= {"normal", "whisper"}
