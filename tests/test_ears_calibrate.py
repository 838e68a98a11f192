"""``companion calibrate`` and ``companion listen --layout array|channels``
as a host runs them, on recordings of the simulated club table
(testkit/room.py: a reverberant room, babble and noise, 10 seats, heads
that move between the calibration and the game). The recordings are made
here from a fixed seed (about 15 s: nothing is downloaded or committed).

A calibration prompt spoken at the table is heard by the array too: the
live path lets it go by (a fake card, no device needed)."""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from array_sound import SIX, plane_wave

from companion.ears import calibrate as calibrate_module
from companion.ears.array import ArraySeats
from companion.ears.calibrate import calibrate
from companion.ears.calibration import azimuth, calibration_of, default_path, load
from companion.ears.capture import Block

ROOT = Path(__file__).resolve().parent.parent
RATE = 16_000
SEED = 11

_voices = pytest.mark.skipif(
    shutil.which("espeak-ng") is None, reason="espeak-ng missing (the simulated players' voices)"
)


def needs_room(test: Callable[..., None]) -> Callable[..., None]:
    """A test on the simulated room's recordings (``table_wavs``: ~10 s of
    room simulation, then the real command on them): slow, so that
    ``./run-tests --fast`` leaves it out."""
    return pytest.mark.slow(_voices(test))


@pytest.fixture(scope="module")
def table_wavs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    pytest.importorskip("pyroomacoustics")
    from testkit.room import calibration_pass, game_pass, make_table, save_wav

    folder = tmp_path_factory.mktemp("table")
    table = make_table(SEED, seats=10)
    calibration = calibration_pass(table, SEED * 10 + 1, snr_db=20)
    # Normal and loud voices only: quiet and whispered ones are the bench's to count.
    game = game_pass(table, SEED * 10 + 2, 0.75, snr_db=15, levels=("normal", "loud"))
    truth = [[u.start_s, u.end_s, u.seat, u.kind, u.overlapped] for u in game.truth]
    (folder / "truth.json").write_text(json.dumps(truth))
    return {
        "calibration": save_wav(folder / "calibration.wav", calibration.array),
        "play": save_wav(folder / "play.wav", game.array),
        "channels": save_wav(folder / "channels.wav", game.channels),
        "truth": folder / "truth.json",
    }


def _companion(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    env |= {
        "COMPANION_CONFIG": str(home / "no-config.toml"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CACHE_HOME": str(home / "cache"),
    }
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", *args],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=300,
    )  # fmt: skip


def _share_right(segments: list[dict], truth_file: Path) -> tuple[int, int]:
    """Segments over one utterance nobody talked over: how many carry its
    seat, of how many."""
    truth = json.loads(truth_file.read_text())
    right = total = 0
    for s in segments:
        held = [u for u in truth if min(s["end"], u[1]) - max(s["start"], u[0]) >= 0.25]
        if len(held) == 1 and not held[0][4]:
            total += 1
            right += s["seat"] == held[0][2]
    return right, total


@needs_room
def test_calibrate_then_listen_as_a_host_does(table_wavs: dict[str, Path], tmp_path: Path) -> None:
    saved = tmp_path / "cal.json"
    run = _companion(
        "calibrate", "--from-wav", str(table_wavs["calibration"]), "--seats", "10",
        "--out", str(saved), home=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "Место 1: скажите несколько слов"
    assert (
        sum(line.startswith(f"Место {n}: услышано") for n in range(1, 11) for line in lines) == 10
    )
    assert lines[-1] == f"Калибровка сохранена: {saved} (мест: 10 из 10)"
    calibration = load(saved)
    assert sorted(calibration.seats) == list(range(1, 11))
    # The seats go round the table in order, seen from the array.
    angles = [azimuth(calibration.seats[s], calibration.shape) for s in range(1, 11)]
    steps = np.diff(np.unwrap(np.radians(angles + angles[:1])))
    assert np.all(steps > 0) or np.all(steps < 0)

    listen = _companion(
        "listen", str(table_wavs["play"]), "--layout", "array", "--calibration", str(saved),
        "--json", home=tmp_path,
    )  # fmt: skip
    assert listen.returncode == 0, listen.stderr
    result = json.loads(listen.stdout)
    assert list(result) == ["segments"]
    assert all(list(s) == ["start", "end", "seat", "confidence"] for s in result["segments"])
    right, total = _share_right(result["segments"], table_wavs["truth"])
    assert total >= 8 and right / total >= 0.85, (right, total)


@needs_room
def test_a_seat_never_heard_is_said_and_the_rest_saved(
    table_wavs: dict[str, Path], tmp_path: Path
) -> None:
    """Twelve seats asked of a ten-seat recording, in English, saved to the
    club's data folder where listen finds it by itself."""
    run = _companion(
        "calibrate", "--from-wav", str(table_wavs["calibration"]), "--seats", "12",
        "--lang", "en", home=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "Seat 11: not heard" in run.stdout and "Seat 12: not heard" in run.stdout
    path = tmp_path / "data" / "companion" / "array-calibration.json"
    assert f"Calibration saved: {path} (10 of 12 seats)" in run.stdout
    assert run.stdout.rstrip().endswith("Calibrate again when the seats not heard are ready")
    listen = _companion("listen", str(table_wavs["play"]), "--layout", "array", "--json", home=tmp_path)  # fmt: skip
    assert listen.returncode == 0, listen.stderr
    assert any(s["seat"] for s in json.loads(listen.stdout)["segments"])


@needs_room
def test_listen_with_a_microphone_per_seat(table_wavs: dict[str, Path], tmp_path: Path) -> None:
    listen = _companion("listen", str(table_wavs["channels"]), "--layout", "channels", "--json", home=tmp_path)  # fmt: skip
    assert listen.returncode == 0, listen.stderr
    right, total = _share_right(json.loads(listen.stdout)["segments"], table_wavs["truth"])
    assert total >= 8 and right / total >= 0.95, (right, total)


@needs_room
def test_a_recording_from_another_card_is_refused_in_one_line(
    table_wavs: dict[str, Path], tmp_path: Path
) -> None:
    run = _companion("calibrate", "--from-wav", str(table_wavs["channels"]), home=tmp_path)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == (
        f"companion: {table_wavs['channels']}: 10 channel(s); the respeaker-6mic array gives 6"
        " (or 8 from its card)\n"
    )


def test_listen_with_a_bad_calibration_says_which_file(tmp_path: Path) -> None:
    bad = tmp_path / "cal.json"
    bad.write_text('{"companion": "array-calibration", "version": 1, "geometry": "respeaker-6mic"')
    audio = tmp_path / "x.wav"
    audio.write_bytes(b"")  # never read: the calibration is checked first
    run = _companion("listen", str(audio), "--layout", "array", "--calibration", str(bad), "--json", home=tmp_path)  # fmt: skip
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.startswith(f"companion: {bad}: not a calibration file (bad JSON at line 1")
    assert run.stderr.count("\n") == 1
    missing = _companion("listen", str(audio), "--layout", "array", "--json", home=tmp_path)
    assert missing.returncode == 2
    assert "array-calibration.json: cannot be read" in missing.stderr


def test_the_default_calibration_lives_in_the_clubs_data_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_path() == tmp_path / "companion" / "array-calibration.json"


# --- the live path: a fake card that hears the prompt too ----------------------------


class TableCard:
    """A fake array card: asked for seat n (``prompted``), it first hears
    the prompt itself from the speaker at 0 degrees, then the seat at its
    own angle. The prompt's sound reaches the queue before ``ask`` returns,
    as a card's would while the voice speaks; the seat's comes once the
    calibration waits for sound (``listening``), as a real card's comes in
    real time after the prompt: a fake that ran ahead of the calibration
    would have the seat's words taken for the prompt's on a busy machine."""

    rate, channels = RATE, 6

    def __init__(
        self, angles: dict[int, float], make: Callable[[float, float], np.ndarray]
    ) -> None:
        self.angles, self._make = angles, make
        self._on_block: Callable[[Block], None] | None = None
        self._asked: list[int] = []
        self._wake = threading.Condition()
        self._at = 0.0
        self.listening = threading.Event()

    def queue_factory(self) -> Any:
        """What the calibration's ``queue`` module is in a test: its queue
        says when the calibration first waits on it after a prompt."""
        card = self

        class Watched(queue.SimpleQueue):  # type: ignore[type-arg]
            def get(self, block: bool = True, timeout: float | None = None) -> Any:
                card.listening.set()
                return super().get(block, timeout)

        return SimpleNamespace(SimpleQueue=Watched, Empty=queue.Empty)

    def run(self, on_block: Callable[[Block], None], stopping: threading.Event) -> None:
        with self._wake:
            self._on_block = on_block
            self._wake.notify_all()
        done = 0
        while not stopping.is_set() and done < len(self.angles):
            with self._wake:
                self._wake.wait_for(lambda n=done: len(self._asked) > n or stopping.is_set())
            if stopping.is_set():
                return
            seat = self._asked[done]
            done += 1
            self.listening.wait()
            self._play(np.zeros((int(0.3 * RATE), 6), np.float32))
            self._play(self._make(self.angles[seat], 1.5))
            # A card goes on giving sound: enough of the room's quiet to end the seat's turn.
            self._play(np.zeros((int(2.0 * RATE), 6), np.float32))

    def prompted(self, seat: int) -> None:
        with self._wake:
            self._wake.wait_for(lambda: self._on_block is not None)
        self.listening.clear()
        self._play(self._make(0.0, 1.2))  # the voice's «Место N» through the array
        with self._wake:
            self._asked.append(seat)
            self._wake.notify_all()

    def _play(self, sound: np.ndarray) -> None:
        assert self._on_block is not None
        for first in range(0, len(sound), 480):
            self._on_block(Block(sound[first : first + 480], self._at))
            self._at += 480 / RATE


def test_a_spoken_prompt_is_not_taken_for_the_seat(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(8)
    angles = {1: 60.0, 2: 150.0, 3: 240.0}
    card = TableCard(angles, lambda degrees, seconds: plane_wave(rng, seconds, degrees))
    monkeypatch.setattr(calibrate_module, "queue", card.queue_factory())

    def loud(chunk: np.ndarray) -> float:  # a detector for made-up sound: loud is speech
        return 0.9 if float(np.mean(chunk**2)) > 0.1 else 0.0

    told: list[str] = []
    heard = calibrate(
        card, SIX, 3, loud, wait_s=10.0, ask=card.prompted, told=told.append, lang="en", live=True
    )
    assert sorted(heard) == [1, 2, 3], told
    calibration = calibration_of(heard, SIX)
    for seat, angle in angles.items():
        assert azimuth(calibration.seats[seat], SIX) == pytest.approx(angle, abs=3.0)
    tracker = ArraySeats(calibration)
    tracker.feed(plane_wave(rng, 1.0, 150.0))
    assert tracker.verdict()[0] == 2
