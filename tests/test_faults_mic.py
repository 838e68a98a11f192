"""The microphone lost and back at a live table (issue 12, docs/faults.md):
the flags stop with one notice, however many tries it takes, the card is
tried again after 1, 2, 4 ... s, and when it is back, one notice and the
flags again; an utterance the loss cut off never turns into an overrun.
A fake microphone plays WAV files as the card would and goes away where
the test says; the listening process's own code (``hear``: capture,
detector, retries) feeds the table's end of it (``EarsLink``) in this
process, on the table's fake clock."""

from __future__ import annotations

import queue
import threading
import time
import wave
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from helpers import TOURNAMENT_ROLES

from companion.config.rulesets import load_ruleset
from companion.core.events import GameSetUp
from companion.core.sports.state import current_turn, table_or_blank
from companion.core.state import Game
from companion.ears import capture
from companion.ears.capture import RATE, Block, OnBlock, SoundDeviceListener, read_wav
from companion.ears.flags import OVERRUN_GRACE_S
from companion.ears.hearing import EarsSettings, hear
from companion.live.assembly import LiveTable, TableSpec
from companion.runner.clock import FakeClock
from companion.voice.settings import VoiceSettings
from companion.voice.speaker import CaptionSpeaker
from testkit.corpus import render

RULES = load_ruleset("tournament")
BLOCK = 480
#: a step of the fake microphone: a WAV file played, the card gone while it
#: runs, the card failing to open, or something the test does at that point
Step = tuple[str, Any]


def _wav(path: Path, samples: np.ndarray[Any, Any]) -> Path:
    pcm = np.round(samples * 32767).astype("<i2")
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes(pcm.tobytes())
    return path


@pytest.fixture(scope="module")
def recordings(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """About two seconds of Russian speech between quiet, whole and cut in
    the middle, and quiet alone."""
    speech = render("Я мирный житель, голосую за третьего", "ru", 165)
    speech = (speech / np.abs(speech).max() * 0.1).astype(np.float32)
    quiet = np.zeros(RATE // 2, np.float32)
    folder = tmp_path_factory.mktemp("mic")
    return {
        "speech": _wav(folder / "speech.wav", np.concatenate([quiet, speech, quiet])),
        "cut": _wav(folder / "cut.wav", np.concatenate([quiet, speech[: len(speech) // 2]])),
        "quiet": _wav(folder / "quiet.wav", quiet),
    }


class FakeMicrophone:
    """A card as ``hear`` sees it (the ``Listener`` port), following
    ``steps``: ("wav", path) plays the file, block by block, stamped with
    the monotonic clock as a card's callback is; ("gone", reason) ends the
    run as an unplugged card does; ("fails", reason) is an opening that
    fails; ("do", action) runs the test's action there."""

    rate = RATE
    channels = 1

    def __init__(self, steps: list[Step]) -> None:
        self.steps = list(steps)
        self.opened = 0

    def run(self, on_block: OnBlock, stopping: threading.Event) -> None:
        self.opened += 1
        while self.steps:
            kind, what = self.steps.pop(0)
            if kind in ("gone", "fails"):
                raise OSError(f"input device USB: {what}")
            if kind == "do":
                what()
                continue
            samples, _ = read_wav(what)
            for first in range(0, len(samples), BLOCK):
                on_block(Block(samples[first : first + BLOCK], time.monotonic()))


class Table:
    """A live table with ears, as the console builds it, the listening
    process's code run here, on the test's thread."""

    def __init__(self) -> None:
        self.clock = FakeClock(0.0)
        self.notices: list[tuple[str, str]] = []
        self.table = LiveTable(
            TableSpec(
                voice=VoiceSettings(captions_only=True),
                seats="none",
                threaded=False,
                ears=EarsSettings(device="USB"),
            ),
            RULES,
            10,
            clock=self.clock,
            speaker=CaptionSpeaker(open("/dev/null", "w")),  # noqa: SIM115
            on_notice=lambda what, line: self.notices.append((what, line)),
        )
        # Not started: the listening process is ``listen`` below, in this one.
        self.table.submit(GameSetUp(RULES, 10, tuple(TOURNAMENT_ROLES)))
        self.pauses: list[float] = []

    @property
    def game(self) -> Game:
        assert self.table.game is not None
        return self.table.game

    def listen(self, steps: list[Step]) -> FakeMicrophone:
        microphone = FakeMicrophone(steps)

        def pause(seconds: float) -> bool:  # the retry's wait, on the fake clock
            self.pauses.append(seconds)
            self.clock.advance(seconds)
            return False

        ears = self.table.ears
        hear(ears.settings, ears.heard, threading.Event(), microphone, pause=pause)
        return microphone

    def flags(self) -> list[str]:
        return [p.reason for p in self.game.proposals]

    def until(self, test: Callable[[Game], bool]) -> None:
        for _ in range(600):
            if test(self.game):
                return
            self.table.advance(1)
        raise AssertionError("the game never got there")


def test_flags_stop_with_one_notice_and_come_back_with_one(
    recordings: dict[str, Path],
) -> None:
    table = Table()
    seen: dict[str, list[str]] = {}

    def note(when: str) -> Callable[[], None]:
        def keep() -> None:
            seen[when] = table.flags()

        return keep

    microphone = table.listen(
        [
            ("wav", recordings["speech"]),  # at night: flagged
            ("do", note("before")),
            ("gone", "the stream stopped"),
            ("fails", "Device unavailable"),
            ("fails", "Device unavailable"),
            ("fails", "Device unavailable"),
            ("do", note("while gone")),
            ("wav", recordings["speech"]),  # back, still night: flagged again
        ]
    )
    assert seen["before"] == ["heard_night"]
    assert seen["while gone"] == ["heard_night"]
    assert table.flags() == ["heard_night", "heard_night"]
    assert [flag.kind for flag in table.table.ears.flags] == ["night", "night"]
    assert table.notices == [
        ("lost", "input device USB: the stream stopped; no flags until it is back"),
        ("back", "the microphone is back"),
    ]
    assert table.pauses == [1.0, 2.0, 4.0, 8.0] and microphone.opened == 5


def test_an_utterance_cut_off_by_the_loss_is_no_overrun(recordings: dict[str, Path]) -> None:
    table = Table()

    def speech_running(game: Game) -> bool:
        turn = current_turn(game)
        return turn is not None and turn.seat == 1 and not table_or_blank(game).turn_over

    table.until(speech_running)

    def time_runs_out() -> None:
        # The speaker's minute ends while the card is away; the table's end
        # looks at what it heard every 50 ms.
        table.until(lambda game: table_or_blank(game).turn_over)
        for _ in range(int(3 * OVERRUN_GRACE_S / 0.05)):
            table.clock.advance(0.05)
            table.table.ears.tick()

    table.listen(
        [
            ("wav", recordings["cut"]),  # seat 1 speaks; the card goes mid-word
            ("gone", "the stream stopped"),
            ("do", time_runs_out),
            ("wav", recordings["quiet"]),
        ]
    )
    assert table.table.ears.flags == []  # no overrun for speech nobody heard
    assert [what for what, _ in table.notices] == ["lost", "back"]


def test_a_silent_card_is_a_lost_card(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stream that says it runs but gives nothing for five seconds (of
    the test's clock: each look at the card's queue waits its timeout
    there, not on the real clock)."""

    class Silent:
        active = True

        def __init__(self, *args: Any) -> None:
            pass

        def __enter__(self) -> Silent:
            return self

        def __exit__(self, *exc: object) -> None:
            pass

    now = [0.0]

    class Idle:
        """The audio thread's queue, on the test's clock."""

        def __init__(self) -> None:
            self.items: list[Any] = []

        def put(self, item: Any) -> None:
            self.items.append(item)

        def get(self, timeout: float) -> Any:
            if self.items:
                return self.items.pop(0)
            now[0] += timeout
            assert now[0] < 60, "a silent card never taken for lost"
            raise queue.Empty

    monkeypatch.setattr(capture, "queue", SimpleNamespace(SimpleQueue=Idle, Empty=queue.Empty))

    def clock() -> float:
        return now[0]

    refreshed: list[int] = []
    listener = SoundDeviceListener(
        "USB", stream_factory=Silent, clock=clock, refresh=lambda: refreshed.append(1)
    )
    stopping = threading.Event()
    with pytest.raises(OSError, match="input device USB: no sound for 5 s"):
        listener.run(lambda block: None, stopping)
    assert refreshed == []  # the first opening: PortAudio as it started
    with pytest.raises(OSError):
        listener.run(lambda block: None, stopping)
    assert refreshed == [1]  # every later one: started afresh, to find a card plugged in again
