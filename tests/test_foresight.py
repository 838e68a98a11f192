"""Cues known ahead (issue 9): the live loop works out what the next timer
will say, the announcer hands those cues over early, and the speaker starts
them on the audio clock at the frame that sounds at the deadline; an input
that changes what the timer will say withdraws them. Fake clocks and a fake
stream only: no sleeps, no wall-clock time."""

from __future__ import annotations

import os
import threading
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from companion.config.rulesets import load_ruleset
from companion.core.effects import Effect, Say
from companion.core.events import GameSetUp, HostAdvanced
from companion.runner.clock import FakeClock
from companion.runner.loop import LiveLoop
from companion.voice.announcer import Announcer
from companion.voice.audio import AudioFormat
from companion.voice.catalogue_load import load_catalogue
from companion.voice.playback import Playback
from companion.voice.speaker import FakeSpeaker, SoundDeviceSpeaker
from companion.voice.tts import TtsVoice, WavCache
from tests.helpers import TOURNAMENT_ROLES
from tests.test_speaker import BLOCK, RATE, FakeStream, Ticks, constant, fake_speaker, runs

RULES = load_ruleset("tournament")
SETUP = GameSetUp(RULES, 10, tuple(TOURNAMENT_ROLES))


# --- the speaker: a cue at its frame ------------------------------------------


def test_a_scheduled_cue_starts_at_the_frame_that_sounds_at_its_moment() -> None:
    speaker, stream = fake_speaker(dac=0.02)
    start = stream.ticks.now
    due = start + 0.02 + 300 / RATE  # frame 300 from now, as heard
    speaker.play(constant(5, 100), "stop", at=due, ticket=1)
    audio = stream.pump(4)
    assert runs(audio) == [(0, 300), (5, 100), (0, 112)]
    (started,) = speaker.started
    assert started.audible == pytest.approx(due) and started.due == due
    assert started.scheduled and started.handed < due


def test_a_cue_whose_moment_has_passed_plays_at_once_and_is_measured_from_it() -> None:
    speaker, stream = fake_speaker(dac=0.02)
    late = stream.ticks.now - 0.5
    speaker.play(constant(5, 10), "late", at=late)
    assert runs(stream.pump(1)) == [(5, 10), (0, 118)]
    (started,) = speaker.started
    assert started.due == late and not started.scheduled


@pytest.mark.parametrize(
    ("urgent", "expected"),
    [
        (True, [(1, 200), (7, 50), (0, 134)]),  # cuts in at its frame
        (False, [(1, 300), (7, 50), (0, 34)]),  # waits for the cue playing then
    ],
)
def test_at_its_moment_a_scheduled_cue_behaves_as_if_queued_then(
    urgent: bool, expected: list[tuple[int, int]]
) -> None:
    speaker, stream = fake_speaker(dac=0.02)
    due = stream.ticks.now + 0.02 + 200 / RATE
    speaker.play(constant(1, 300), "speech")
    speaker.play(constant(7, 50), "stop", urgent=urgent, at=due, ticket=1)
    assert runs(stream.pump(3)) == expected
    assert speaker.playback.idle


def test_a_withdrawn_cue_never_plays_one_already_heard_plays_on() -> None:
    speaker, stream = fake_speaker(dac=0.02)
    now = stream.ticks.now + 0.02
    speaker.play(constant(3, 200), "soon", at=now + 10 / RATE, ticket="a")
    speaker.play(constant(4, 50), "later", at=now + 2, ticket="b")
    assert not speaker.playback.idle
    stream.pump(1)  # "soon" has started
    speaker.withdraw("a")
    speaker.withdraw("b")
    audio = stream.pump(1)
    assert runs(audio) == [(3, 200 - (BLOCK - 10)), (0, BLOCK - 200 + (BLOCK - 10))]
    assert [s.caption for s in speaker.started] == ["soon"]
    assert speaker.playback.idle  # the withdrawn one counts as done


def test_cues_of_one_moment_keep_their_order() -> None:
    playback = Playback(RATE, clock=lambda: 0.0)
    for value in (1, 2, 3):
        playback.add(constant(value, 20), f"c{value}", at=0.001, ticket=9)
    out = np.zeros(BLOCK, dtype=np.int16)
    playback.fill(out, now=0.0, delay=0.0)
    assert runs(out) == [(0, 22), (1, 20), (2, 20), (3, 20), (0, 46)]


def test_underruns_are_counted(caplog: pytest.LogCaptureFixture) -> None:
    class Status:
        output_underflow = True

        def __bool__(self) -> bool:
            return True

        def __str__(self) -> str:
            return "output underflow"

    speaker, _ = fake_speaker()
    for _ in range(3):
        speaker._callback(np.zeros((BLOCK, 1), np.int16), BLOCK, None, Status())
    assert speaker.underruns == 3


def test_a_realtime_stream_is_opened_from_a_real_time_thread() -> None:
    """The threads the sound stack makes for the stream (PortAudio's
    callback thread, PulseAudio's client thread) inherit their creator's
    scheduling: it must be real-time; the caller's stays as it was."""
    ticks = Ticks()
    seen: list[tuple[int, int]] = []

    def factory(device: Any, fmt: AudioFormat, blocksize: int, callback: Any) -> FakeStream:
        seen.append((threading.get_native_id(), os.sched_getscheduler(0)))
        return FakeStream(callback, ticks, 1, 0.02)

    speaker = SoundDeviceSpeaker(None, stream_factory=factory, clock=ticks, realtime=True)
    speaker.close()
    (opener, policy) = seen[0]
    assert opener != threading.get_native_id()
    assert os.sched_getscheduler(0) == os.SCHED_OTHER
    if speaker.priority.startswith("fifo"):
        assert policy == os.SCHED_FIFO
    else:
        assert policy == os.SCHED_OTHER and speaker.priority in ("nice -10", "normal")


# --- the loop: what the next timer will say, ahead -----------------------------


class FakeForesight:
    def __init__(self) -> None:
        self.plans: dict[Hashable, tuple[float, tuple[str, ...]]] = {}
        self.log: list[tuple[str, Any]] = []
        self._next = 0

    def plan(self, at: float, effects: tuple[Effect, ...]) -> Hashable | None:
        self._next += 1
        cues = tuple(e.cue for e in effects if isinstance(e, Say))
        self.plans[self._next] = (at, cues)
        self.log.append(("plan", (at, cues)))
        return self._next

    def withdraw(self, ticket: Hashable) -> None:
        self.log.append(("withdraw", self.plans[ticket]))

    def carried_out(self, ticket: Hashable) -> None:
        self.log.append(("carried out", self.plans[ticket]))


def loop_with(foresight: Any, clock: Any = None) -> tuple[LiveLoop, FakeClock, list[Any]]:
    clock = clock or FakeClock()
    said: list[Any] = []
    runtime = LiveLoop(
        clock,
        lambda now, effects: said.extend((now, e.cue) for e in effects if isinstance(e, Say)),
        foresight=foresight,
    )
    runtime.submit(SETUP)
    runtime.run_pending()
    return runtime, clock, said


def test_the_next_timers_cues_are_planned_when_it_is_armed_and_carried_out_when_it_fires() -> None:
    ahead = FakeForesight()
    runtime, clock, said = loop_with(ahead)
    assert ahead.log == [
        ("plan", (60.0, ("mafia_agree_ends", "free_seating")))
    ]  # night 0: agreement, 60 s
    clock.set(60.001)
    runtime.run_pending()
    assert ahead.log[1] == ("carried out", (60.0, ("mafia_agree_ends", "free_seating")))
    assert (60.0, "free_seating") in said  # the effects still reach the shells
    assert ahead.log[2] == ("plan", (80.0, ("free_seating_ends", "city_wakes", "speech_start")))


def test_an_input_that_changes_what_the_timer_will_say_withdraws_its_cues() -> None:
    ahead = FakeForesight()
    runtime, clock, _ = loop_with(ahead)
    clock.set(30)
    runtime.submit(HostAdvanced())  # the host ends the agreement early
    runtime.run_pending()
    assert ahead.log[1:] == [
        ("withdraw", (60.0, ("mafia_agree_ends", "free_seating"))),
        (
            "plan",
            (50.0, ("free_seating_ends", "city_wakes", "speech_start")),
        ),  # free seating: 20 s from 30
    ]


def test_an_input_that_changes_nothing_for_the_timer_keeps_its_plan() -> None:
    ahead = FakeForesight()
    runtime, clock, _ = loop_with(ahead)
    clock.set(10)
    runtime.submit(HostAdvanced(), at=10)
    runtime.submit(HostAdvanced(), at=10.5)
    runtime.run_pending()
    clock.set(35)
    runtime.run_pending()
    plans = [entry for entry in ahead.log if entry[0] == "plan"]
    withdrawn = [entry for entry in ahead.log if entry[0] == "withdraw"]
    assert len(plans) == len(withdrawn) + 1  # each plan withdrawn once at most, never twice


def test_deadlines_go_to_the_foresight_on_the_wall_clock() -> None:
    class Scaled(FakeClock):
        def wall_time(self, at: float) -> float:
            return 1000.0 + at / 2  # a game clock at twice the speed

    ahead = FakeForesight()
    loop_with(ahead, Scaled())
    assert ahead.log == [("plan", (1030.0, ("mafia_agree_ends", "free_seating")))]


# --- the announcer: ahead, once ----------------------------------------------


def announcer(speaker: Any) -> Announcer:
    voice = Announcer(
        load_catalogue("ru"), RULES, speaker, WavCache(Path("/nonexistent")), TtsVoice("ru")
    )
    for key in ("time_up", "thanks"):
        voice.clips[key] = constant(1, 10)
    return voice


STOP = (Say("time_up", (("seat", 3),), urgent=True),)


def test_the_announcer_schedules_ahead_and_does_not_say_it_again_when_the_timer_fires() -> None:
    speaker = FakeSpeaker(schedules=True)
    voice = announcer(speaker)
    ticket = voice.plan(140.0, STOP)
    assert ticket is not None
    assert [(s.caption, s.urgent, s.at) for s in speaker.scheduled] == [("Стоп.", True, 140.0)]
    voice.carried_out(ticket)
    voice(140.0, STOP)
    assert speaker.played == []  # already on its way
    voice(141.0, STOP)  # the next time it is said, it is said
    assert [p.caption for p in speaker.played] == ["Стоп."]


def test_when_the_timer_says_something_else_the_plan_is_withdrawn_and_the_truth_said() -> None:
    speaker = FakeSpeaker(schedules=True)
    voice = announcer(speaker)
    ticket = voice.plan(140.0, STOP)
    assert ticket is not None
    voice.carried_out(ticket)
    voice(140.0, (Say("thanks"),))
    assert speaker.withdrawn == [ticket]
    assert [p.caption for p in speaker.played] == ["Спасибо."]


@pytest.mark.parametrize(
    ("schedules", "effects"),
    [
        (False, STOP),  # captions, a speaker that cannot schedule
        (True, (Say("voting_begins", (("nominees", "3,6"),)),)),  # not rendered yet
        (True, ()),  # nothing to say
    ],
)
def test_nothing_is_planned_that_cannot_be_played_on_time(
    schedules: bool, effects: tuple[Effect, ...]
) -> None:
    speaker = FakeSpeaker(schedules=schedules)
    assert announcer(speaker).plan(140.0, effects) is None
    assert speaker.scheduled == []


# --- all together: «Стоп» heard at its deadline ----------------------------------


def test_stop_is_heard_at_the_deadline_however_late_the_loop_runs() -> None:
    ticks = Ticks()
    ticks.now = 0.0

    class Clock:
        def now(self) -> float:
            return ticks.now

    speaker, stream = _speaker(ticks, dac=0.1)  # a deep buffer: 100 ms
    voice = announcer(speaker)
    for cue, args, _ in voice.catalogue.variants(RULES, 10):
        voice.clips.setdefault(voice.catalogue.key(cue, args), constant(3, 10))
    runtime = LiveLoop(Clock(), voice, foresight=voice)
    runtime.submit(SETUP, at=0.0)
    runtime.run_pending()
    while ticks.now < 145:
        stream.pump(1)
        if int(ticks.now * 1000) % 200 < 47:  # the loop looks only now and then
            runtime.run_pending()
    stop = [s for s in speaker.started if s.caption == "Стоп."]
    assert stop and stop[0].scheduled
    assert stop[0].audible == pytest.approx(140.0, abs=1 / RATE)


def _speaker(ticks: Ticks, dac: float) -> tuple[SoundDeviceSpeaker, FakeStream]:
    streams: list[FakeStream] = []

    def factory(device: Any, fmt: AudioFormat, blocksize: int, callback: Any) -> FakeStream:
        streams.append(FakeStream(callback, ticks, 1, dac))
        return streams[0]

    return SoundDeviceSpeaker(None, stream_factory=factory, clock=ticks), streams[0]


def test_a_resumed_games_running_timer_is_planned_when_the_loop_starts() -> None:
    first, clock, _ = loop_with(None)
    ahead = FakeForesight()
    resumed = LiveLoop(clock, lambda now, effects: None, session=first.session, foresight=ahead)
    resumed.stop()
    resumed.run()
    assert ahead.log == [("plan", (60.0, ("mafia_agree_ends", "free_seating")))]
