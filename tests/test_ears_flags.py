"""Flags from the game's state (the demo game's journal, replayed) and
``companion listen`` as a host runs it on a recording of the table."""

from __future__ import annotations

import json
import subprocess
import sys
import wave
from pathlib import Path

import numpy as np
import pytest

from companion.core.sports.state import current_turn
from companion.core.sports.state import table as table_state
from companion.core.state import Game
from companion.ears.detect import Segment
from companion.ears.flags import OVERRUN_GRACE_S, flags_for
from testkit.corpus import render

ROOT = Path(__file__).resolve().parent.parent


def _speech_over(timeline: list[tuple[float, Game]]) -> tuple[float, int]:
    """The demo's first speech whose time ran out: when, and whose."""
    for at, game in timeline:
        if (
            game.phase == "speeches"
            and table_state(game).turn_over
            and current_turn(game) is not None
        ):
            return at, current_turn(game).seat
    raise AssertionError("the demo has no overrun")


def _first(timeline: list[tuple[float, Game]], phase: str) -> float:
    return next(at for at, game in timeline if game.phase == phase and at > 0)


def test_each_phase_rule(timeline: list[tuple[float, Game]]) -> None:
    over_at, speaker = _speech_over(timeline)
    vote = _first(timeline, "voting")
    first_speech = _first(timeline, "speeches")
    cases = [
        (Segment(5.0, 7.0, 0.9), ("night", None, 5.0)),  # night 0
        (Segment(first_speech + 5, first_speech + 9, 0.9), None),  # the speaker, one mic
        (
            Segment(first_speech + 5, first_speech + 9, 0.9, seat=4),
            ("out_of_turn", 4, first_speech + 5),
        ),
        (Segment(over_at - 2, over_at + 1.5, 0.8), ("overrun", speaker, over_at + OVERRUN_GRACE_S)),
        (
            Segment(over_at - 2, over_at + OVERRUN_GRACE_S / 2, 0.8),
            None,
        ),  # the last word after the bell
        (Segment(vote + 0.5, vote + 1.5, 0.7), ("vote", None, vote + 0.5)),
    ]
    for segment, expected in cases:
        flags = flags_for([segment], timeline)
        if expected is None:
            assert flags == [], segment
        else:
            (flag,) = flags
            assert (flag.kind, flag.seat, flag.at) == (
                expected[0],
                expected[1],
                pytest.approx(expected[2]),
            )
            assert flag.confidence == segment.confidence


def test_one_utterance_one_flag(timeline: list[tuple[float, Game]]) -> None:
    """A speech at night that goes on into the day is one flag, at its onset."""
    day = _first(timeline, "speeches")
    (flag,) = flags_for([Segment(day - 3, day + 10, 0.9)], timeline)
    assert (flag.kind, flag.at) == ("night", day - 3)


def test_a_layout_with_seats_flags_no_segment_nobody_claims(
    timeline: list[tuple[float, Game]],
) -> None:
    """A microphone per seat or the array: a segment without a seat is sound
    from beyond the table (the next table, the room): no flag. One
    microphone flags it as before."""
    nobody, seat_3 = Segment(5.0, 7.0, 0.9), Segment(8.0, 9.0, 0.8, seat=3)
    (flag,) = flags_for([nobody, seat_3], timeline, needs_seat=True)
    assert (flag.kind, flag.seat, flag.at) == ("night", 3, 8.0)
    assert [f.seat for f in flags_for([nobody, seat_3], timeline)] == [None, 3]


def test_companion_listen_with_the_array_flags_only_what_a_seat_claims(
    tmp_path: Path, demo_journal: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``review`` passes the layout on: the array's segments that no seat
    claims give no flag (the segments stand as heard)."""
    from companion.config.rulesets import load_ruleset
    from companion.ears import review
    from companion.ears.array import Calibration
    from companion.ears.calibration import save

    calibration = tmp_path / "array.json"
    save(Calibration("respeaker-6mic", 16_000, {1: (0.0,) * 15, 2: (1e-5,) * 15}), calibration)
    audio = tmp_path / "array.wav"
    with wave.open(str(audio), "wb") as out:
        out.setnchannels(6)
        out.setsampwidth(2)
        out.setframerate(16_000)
        out.writeframes(bytes(16_000 * 6 * 2 * 10))
    heard = [Segment(3.0, 4.0, 0.9), Segment(5.0, 6.0, 0.8, seat=2)]

    class Heard:
        def feed(self, block: np.ndarray) -> list[Segment]:
            return []

        def flush(self) -> list[Segment]:
            return heard

    monkeypatch.setattr(review, "segmenter", lambda *args: (lambda block: block, Heard()))
    out = review.review(
        audio, layout="array", journal=demo_journal, load_ruleset=load_ruleset,
        calibration=calibration,
    )  # fmt: skip
    assert [s["seat"] for s in out["segments"]] == [None, 2]
    assert [(f["kind"], f["seat"], f["at"]) for f in out["flags"]] == [("night", 2, 5.0)]


def _wav(path: Path, samples: np.ndarray) -> None:
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16_000)
        out.writeframes((np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes())


def test_companion_listen_on_a_recording(tmp_path: Path, demo_journal: Path) -> None:
    """Speech at 3 s into a recording that starts with the game: night 0."""
    rng = np.random.default_rng(5)
    track = rng.standard_normal(16_000 * 10).astype(np.float32) * 0.003  # a quiet room
    speech = render("Я мирный житель, голосую за третьего.", "ru", 165)
    track[48_000 : 48_000 + len(speech)] += speech * 0.3
    audio = tmp_path / "table.wav"
    _wav(audio, track)
    run = subprocess.run(
        [sys.executable, "-m", "companion.cli", "listen", str(audio), "--journal", str(demo_journal), "--json"],
        capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    (segment,) = result["segments"]
    assert abs(segment["start"] - 3.0) < 0.3 and segment["seat"] is None
    assert 0 < segment["confidence"] <= 1
    (flag,) = result["flags"]
    assert (
        flag["kind"] == "night"
        and flag["seat"] is None
        and abs(flag["at"] - segment["start"]) < 1e-6
    )
    alone = subprocess.run(
        [sys.executable, "-m", "companion.cli", "listen", str(audio), "--json"],
        capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    assert json.loads(alone.stdout) == {"segments": result["segments"]}
