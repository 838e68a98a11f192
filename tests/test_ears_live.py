"""The ears live: real speech through the listening process's own code
(``Hearing``: the real detector), its messages through the table's end
(``EarsLink``: the watcher and the level gate) against the demo game's
states, and the listening process spawned as the table spawns it."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
import time
import wave
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import TOURNAMENT_ROLES

from companion.config.rulesets import load_ruleset
from companion.config.values import MicrophoneConfig
from companion.core.events import GameSetUp, SpeechFlagged
from companion.core.sports.state import current_turn
from companion.core.sports.state import table as table_state
from companion.core.state import Game
from companion.ears.capture import BLOCK, RATE, Block
from companion.ears.flags import OVERRUN_GRACE_S
from companion.ears.hearing import EarsSettings, Hearing
from companion.ears.link import ECHO_TAIL_S, EarsLink
from companion.ears.watch import FlagWatcher, LevelGate
from companion.ears.words import WordHit
from companion.live.assembly import LiveTable, Outputs, TableSpec
from companion.voice.settings import VoiceSettings
from testkit.corpus import render

LEVEL = 0.1  # the utterance's peak level in the fixtures


@pytest.fixture(scope="module")
def utterance() -> np.ndarray[Any, Any]:
    """About two seconds of Russian speech (espeak-ng)."""
    speech = render("Я мирный житель, голосую за третьего", "ru", 165)
    return (speech / np.abs(speech).max() * LEVEL).astype(np.float32)


def _hear(
    samples: np.ndarray[Any, Any], settings: EarsSettings | None = None
) -> list[tuple[float, tuple[Any, ...]]]:
    """Every message ``Hearing`` sends for the samples, with when (in the
    recording's seconds) it was sent: the end of the block that caused it."""
    messages: list[tuple[float, tuple[Any, ...]]] = []
    clock = [0.0]
    hearing = Hearing(settings or EarsSettings(), lambda m: messages.append((clock[0], m)))
    columns = samples if samples.ndim == 2 else samples[:, None]
    for first in range(0, len(samples), BLOCK):
        clock[0] = (first + BLOCK) / RATE
        hearing.block(Block(columns[first : first + BLOCK], first / RATE))
    hearing.finish()
    return messages


class _Table:
    """The table's side as EarsLink sees it: the game's state at each game
    second (the demo's timeline), a clock the test moves, flags submitted."""

    def __init__(self, timeline: list[tuple[float, Game]]) -> None:
        self.timeline = timeline
        self.now = 0.0
        self.flags: list[SpeechFlagged] = []

    def game(self) -> Game | None:
        state = None
        for at, game in self.timeline:
            if at > self.now:
                break
            state = game
        return state

    def link(self, settings: EarsSettings | None = None, **options: Any) -> EarsLink:
        # The recording's clock is the game's: monotonic == game seconds.
        return EarsLink(
            settings or EarsSettings(),
            lambda event: self.flags.append(event),  # type: ignore[arg-type]
            self.game,
            lambda: self.now,
            monotonic=lambda: self.now,
            **options,
        )

    def play(
        self, link: EarsLink, messages: list[tuple[float, tuple[Any, ...]]], at: float
    ) -> None:
        """The messages of a recording that starts at game second ``at``,
        with the link's ticks every 50 ms in between, as its thread runs."""
        shifted = [(t + at, _shift(m, at)) for t, m in messages]
        end = shifted[-1][0] + 1.0
        self.now = at
        while self.now < end:
            for t, message in shifted:
                if self.now - 0.05 < t <= self.now:
                    link.heard(message)
            link.tick()
            self.now = round(self.now + 0.05, 3)


def _shift(message: tuple[Any, ...], by: float) -> tuple[Any, ...]:
    if message[0] == "open":
        return (message[0], message[1] + by, *message[2:])
    if message[0] == "close":
        return (message[0], message[1] + by, message[2] + by, *message[3:])
    return message


def _moment(timeline: list[tuple[float, Game]], test: Callable[[Game], bool]) -> float:
    return next(at for at, game in timeline if at > 0 and test(game))


def test_hearing_sends_open_then_close_once_per_utterance(utterance: np.ndarray[Any, Any]) -> None:
    silence = np.zeros(RATE, dtype=np.float32)
    messages = _hear(np.concatenate([silence, utterance, silence, silence, utterance, silence]))
    kinds = [m[0] for _, m in messages]
    assert kinds == ["open", "close", "open", "close"]
    (sent, opened), (_, closed) = messages[0], messages[1]
    assert 0.9 <= opened[1] <= 1.2  # the utterance starts at 1 s
    assert sent - opened[1] <= 0.3  # decided within a few chunks
    assert closed[2] == pytest.approx(1 + len(utterance) / RATE, abs=0.5)
    assert opened[4] == closed[5] > -40  # the onset level, the same in both


def test_a_sound_too_short_to_be_speech_still_closes() -> None:
    messages = _hear(np.zeros(RATE * 2, dtype=np.float32))
    assert messages == []


def test_each_phase_rule_through_the_real_detector(
    timeline: list[tuple[float, Game]], utterance: np.ndarray[Any, Any]
) -> None:
    silence = np.zeros(RATE // 2, dtype=np.float32)
    messages = _hear(np.concatenate([silence, utterance, silence]))
    table = _Table(timeline)
    night = _moment(timeline, lambda g: g.phase == "night")
    vote = _moment(timeline, lambda g: g.phase == "voting")
    speech = _moment(
        timeline, lambda g: current_turn(g) is not None and not table_state(g).turn_over
    )
    over = _moment(timeline, lambda g: current_turn(g) is not None and table_state(g).turn_over and current_turn(g).kind != "last_word")  # fmt: skip
    cases = [
        (night + 1, "night"),
        (vote + 0.2, "vote"),
        (speech + 1, None),  # the speaker, in their time: one microphone cannot tell more
        (over - 1.0, "overrun"),  # talking on past the bell
    ]
    for at, expected in cases:
        table.flags.clear()
        table.play(table.link(), messages, at)
        assert [f.kind for f in table.flags] == ([expected] if expected else []), (at, expected)
    # The overrun is the speaker's.
    link = table.link()
    table.play(link, messages, over - 1.0)
    (flag,) = link.flags
    assert flag.kind == "overrun" and flag.seat != 0
    # Between speeches: the day's turns all given, nobody has the floor.
    speaking = next(g for _, g in timeline if current_turn(g) is not None)
    state = table_state(speaking)
    between = dataclasses.replace(
        speaking, procedure_state=dataclasses.replace(state, turn_at=len(state.turns))
    )
    assert current_turn(between) is None
    table = _Table([(0.0, between)])
    table.play(table.link(), messages, 1.0)
    assert [f.kind for f in table.flags] == ["between"]


def test_the_table_s_own_voice_is_not_flagged(
    timeline: list[tuple[float, Game]], utterance: np.ndarray[Any, Any]
) -> None:
    messages = _hear(np.concatenate([np.zeros(RATE // 2, np.float32), utterance]))
    table = _Table(timeline)
    night = _moment(timeline, lambda g: g.phase == "night") + 1
    start = night + messages[0][1][1]
    table.play(table.link(voice_until=lambda: start + 0.5), messages, night)  # the cue sounds
    assert table.flags == []
    table.play(table.link(voice_until=lambda: start - ECHO_TAIL_S - 0.1), messages, night)
    assert [f.kind for f in table.flags] == ["night"]


def test_the_level_gate_learns_the_speakers_and_holds_back_quieter_talk(
    timeline: list[tuple[float, Game]], utterance: np.ndarray[Any, Any]
) -> None:
    pause = np.zeros(RATE // 2, dtype=np.float32)
    loud = _hear(np.concatenate([pause, utterance, pause]))
    far = _hear(np.concatenate([pause, utterance * 0.1, pause]))  # 20 dB quieter
    table = _Table(timeline)
    link = table.link()
    speech = _moment(
        timeline, lambda g: current_turn(g) is not None and not table_state(g).turn_over
    )
    for n in range(link.gate.needs):  # the speaker's own utterances teach the gate
        table.play(link, loud, speech + 0.5 + n * 4)
    assert link.gate.reference is not None
    assert link.flags == []
    night = _moment(timeline, lambda g: g.phase == "night" and g.day > 0)
    table.play(link, far, night + 1)
    assert link.flags == []  # other tables' talk, far quieter than the table's speakers
    table.play(link, loud, night + 6)
    assert [f.kind for f in link.flags] == ["night"]


def test_level_gate_before_and_after_learning() -> None:
    gate = LevelGate(below_db=10, needs=2)
    assert gate.passes(-80)  # nothing learned: nothing held back
    gate.learn(-20)
    gate.learn(-24)
    assert gate.reference == -22
    assert gate.passes(-31) and not gate.passes(-33)


def test_watcher_gives_one_flag_per_utterance(timeline: list[tuple[float, Game]]) -> None:
    night = next(game for _, game in timeline if game.phase == "night")
    watcher = FlagWatcher()
    assert watcher.opened(10.0, 9.9, None, 0.9, night) is not None
    assert watcher.tick(10.5, night) is None
    watcher.closed()
    assert watcher.tick(11.0, night) is None
    assert watcher.opened(12.0, 11.9, 3, 0.8, night) is not None


def test_overrun_waits_for_the_grace(timeline: list[tuple[float, Game]]) -> None:
    over = next(g for _, g in timeline if current_turn(g) is not None and table_state(g).turn_over)
    before = next(
        g for _, g in timeline if current_turn(g) is not None and not table_state(g).turn_over
    )
    watcher = FlagWatcher()
    assert watcher.opened(0.0, 0.0, None, 0.9, before) is None
    assert watcher.tick(1.0, over) is None  # the bell: time ran out now
    assert watcher.tick(1.0 + OVERRUN_GRACE_S / 2, over) is None
    flag = watcher.tick(1.0 + OVERRUN_GRACE_S, over)
    assert flag is not None and flag.at == 1.0 + OVERRUN_GRACE_S


def test_a_layout_with_seats_flags_only_what_a_seat_claims(
    timeline: list[tuple[float, Game]],
) -> None:
    """A microphone per seat or the array: an utterance no seat claims is
    not the table's; once a seat claims it, it is flagged at its own start."""
    night = next(game for _, game in timeline if game.phase == "night")
    watcher = FlagWatcher(needs_seat=True)
    assert watcher.opened(10.0, 9.9, None, 0.9, night) is None  # nobody's yet
    assert watcher.tick(10.3, night) is None
    flag = watcher.attributed(10.4, 3, 0.8, night)
    assert flag is not None
    assert (flag.kind, flag.seat, flag.at, flag.confidence) == ("night", 3, 9.9, 0.8)
    assert watcher.tick(10.5, night) is None  # one flag
    assert watcher.attributed(10.6, 4, 0.9, night) is None
    watcher.closed()
    # Never claimed: never flagged, however long it goes on.
    assert watcher.opened(12.0, 11.9, None, 0.9, night) is None
    assert watcher.tick(20.0, night) is None
    assert watcher.attributed(20.1, None, 0.0, night) is None
    watcher.closed()
    # One microphone cannot tell: it flags what it hears, as before.
    single = FlagWatcher()
    flag = single.opened(12.0, 11.9, None, 0.9, night)
    assert flag is not None and (flag.kind, flag.seat, flag.at) == ("night", None, 11.9)


def test_a_seat_claiming_talk_in_another_s_minute_flags_it_from_its_start(
    timeline: list[tuple[float, Game]],
) -> None:
    speaking = next(
        g for _, g in timeline if current_turn(g) is not None and not table_state(g).turn_over
    )
    speaker = current_turn(speaking).seat
    other = speaker % 10 + 1
    watcher = FlagWatcher(needs_seat=True)
    assert watcher.opened(5.0, 4.8, None, 0.9, speaking) is None
    flag = watcher.attributed(5.3, other, 0.7, speaking)
    assert flag is not None and (flag.kind, flag.seat, flag.at) == ("out_of_turn", other, 4.8)
    watcher.closed()
    # The speaker's own words, claimed by their seat: nothing to flag.
    assert watcher.opened(6.0, 5.9, None, 0.9, speaking) is None
    assert watcher.attributed(6.2, speaker, 0.9, speaking) is None


def test_the_link_flags_once_the_seat_is_told_and_drops_words_no_seat_said(
    timeline: list[tuple[float, Game]],
) -> None:
    table = _Table(timeline)
    night = _moment(timeline, lambda g: g.phase == "night") + 1
    table.now = night
    link = table.link(EarsSettings(layout="array", channels=6))
    link.heard(("open", night - 0.2, None, 0.9, -20.0))
    link.tick()
    assert table.flags == []
    table.now += 0.1
    link.heard(("seat", 4, 0.8))
    assert table.flags == [SpeechFlagged("night", 4, 0.8)]
    link.heard(("close", night - 0.2, night + 0.5, 4, 0.9, -20.0))
    link.heard(("word", night - 0.2, None, "oath", "клянусь", 0.91))  # the next table's oath
    assert len(table.flags) == 1
    link.heard(("word", night - 0.2, 4, "oath", "клянусь", 0.91))
    assert table.flags[1] == SpeechFlagged("word", 4, 0.91, "oath", "клянусь")


def test_without_seats_after_all_the_link_listens_as_one_microphone(
    timeline: list[tuple[float, Game]],
) -> None:
    """The array's calibration is missing: the listening process says so and
    sends no seats; the table flags as with one microphone rather than never."""
    table = _Table(timeline)
    night = _moment(timeline, lambda g: g.phase == "night") + 1
    table.now = night
    notices: list[tuple[str, str]] = []
    link = table.link(
        EarsSettings(layout="array", channels=6), on_notice=lambda *n: notices.append(n)
    )
    link.heard(("status", "no_seats", "no calibration"))
    link.heard(("open", night - 0.2, None, 0.9, -20.0))
    assert [(f.kind, f.seat) for f in table.flags] == [("night", 0)]
    assert notices == [("no_seats", "no calibration")]


# --- the listening process, spawned -------------------------------------------------------
def _recording(path: Path, utterance: np.ndarray[Any, Any]) -> Path:
    silence = np.zeros(RATE // 2, dtype=np.float32)
    pcm = np.round(np.concatenate([silence, utterance, silence]) * 32767).astype("<i2")
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes(pcm.tobytes())
    return path


def test_the_listening_process_flags_speech_at_night(
    tmp_path: Path, timeline: list[tuple[float, Game]], utterance: np.ndarray[Any, Any]
) -> None:
    night = next(game for _, game in timeline if game.phase == "night")
    flagged = threading.Event()
    flags: list[SpeechFlagged] = []

    def submit(event: Any) -> None:
        flags.append(event)
        flagged.set()

    wav = _recording(tmp_path / "table.wav", utterance)
    link = EarsLink(EarsSettings(device=f"file:{wav}"), submit, lambda: night, time.monotonic)
    link.start()
    try:
        assert flagged.wait(60), "no flag from the listening process"
    finally:
        link.close()
    assert [f.kind for f in flags] == ["night"]
    assert link._process.poll() is not None


def test_a_microphone_that_cannot_open_is_told_once(tmp_path: Path) -> None:
    notices: list[tuple[str, str]] = []
    told = threading.Event()

    def notice(what: str, line: str) -> None:
        notices.append((what, line))
        told.set()

    link = EarsLink(
        EarsSettings(device=f"file:{tmp_path / 'missing.wav'}"),
        lambda event: None,
        lambda: None,
        time.monotonic,
        on_notice=notice,
    )
    link.start()
    try:
        assert told.wait(60)
    finally:
        link.close()
    (what, line), *_ = notices
    assert what == "failed" and "missing.wav" in line


def test_a_live_table_with_ears_journals_the_flag_and_proposes_it(
    tmp_path: Path, utterance: np.ndarray[Any, Any]
) -> None:
    """The table as the console builds it, listening to a recording played at
    its own pace: speech at night becomes a proposal in the host's queue and
    a ``heard`` line in the journal."""
    wav = _recording(tmp_path / "night.wav", utterance)
    journal = tmp_path / "game.jsonl"
    spec = TableSpec(
        voice=VoiceSettings(captions_only=True),
        seats="none",
        journal=journal,
        ears=EarsSettings(device=f"file:{wav}"),
    )
    rules = load_ruleset("tournament")
    table = LiveTable(spec, rules, 10, outputs=Outputs(None, None))
    table.submit(GameSetUp(rules, 10, TOURNAMENT_ROLES))
    table.start()
    try:
        give_up = time.monotonic() + 60
        while time.monotonic() < give_up:
            game = table.game
            if game is not None and game.proposals:
                break
            time.sleep(0.05)
    finally:
        table.close()
    assert game is not None and game.phase == "night"
    assert [p.reason for p in game.proposals] == ["heard_night"]
    assert '"heard"' in journal.read_text(encoding="utf-8")


async def test_the_console_listening_shows_the_flag_in_its_queue(
    tmp_path: Path, utterance: np.ndarray[Any, Any]
) -> None:
    """As a host starts it (``companion console --microphone file:REC.wav``):
    the table in its own process, the ears in theirs, the flag in the
    console's proposal queue."""
    from console_driver import config

    from companion.console.app import ConsoleApp

    wav = _recording(tmp_path / "night.wav", utterance)
    cfg = dataclasses.replace(
        config(tmp_path),
        microphone=MicrophoneConfig(listen=True, device=f"file:{wav}"),
    )
    app = ConsoleApp(cfg)
    assert app.own_process
    async with app.run_test(size=(150, 45)) as pilot:
        await pilot.pause()
        await pilot.press("f5", "enter")  # asked once, started: a dealt tournament game, night 0
        give_up = time.monotonic() + 90
        queue = ""
        while time.monotonic() < give_up:
            await asyncio.sleep(0.1)
            try:
                queue = str(app.screen.query_one("#proposals").render())
            except Exception:  # the table screen is not up yet
                continue
            if "микрофон" in queue:
                break
        assert "микрофон: речь ночью" in queue
        assert "Микрофон: слушает" in app.parts_line()
        await app.action_quit()


class _Spotter:
    """Stands in for vosk: counts what it hears, finds a phrase at the end
    of each utterance (the real recogniser: tests/test_ears_vosk.py)."""

    def __init__(self) -> None:
        self.heard = 0
        self.utterances = 0

    def feed(self, samples: np.ndarray[Any, Any]) -> list[Any]:
        self.heard += len(samples)
        return []

    def flush(self) -> list[Any]:
        self.utterances += 1
        return [WordHit("oath", "клянусь", 0.0, 0.5, 0.93)]


def test_the_recogniser_hears_each_utterance_with_its_lead_in_only(
    utterance: np.ndarray[Any, Any],
) -> None:
    spotter = _Spotter()
    messages: list[tuple[Any, ...]] = []
    hearing = Hearing(EarsSettings(), messages.append, spotter=spotter)
    silence = np.zeros(RATE * 3, dtype=np.float32)
    samples = np.concatenate([silence, utterance, silence])
    for first in range(0, len(samples), BLOCK):
        hearing.block(Block(samples[first : first + BLOCK, None], first / RATE))
    words = [m for m in messages if m[0] == "word"]
    assert words == [("word", messages[0][1], None, "oath", "клянусь", 0.93)]
    assert spotter.utterances == 1
    # The utterance and a lead-in, not the 6 s of silence around it.
    assert len(utterance) < spotter.heard < len(utterance) + RATE * 1.5


def test_a_word_flag_goes_to_the_table_with_the_phrase(timeline: list[tuple[float, Game]]) -> None:
    table = _Table(timeline)
    link = table.link()
    table.now = (
        _moment(timeline, lambda g: current_turn(g) is not None and not table_state(g).turn_over)
        + 1
    )
    link.heard(("word", table.now - 0.5, None, "oath", "клянусь", 0.91))
    assert table.flags == [SpeechFlagged("word", 0, 0.91, "oath", "клянусь")]


def test_a_word_flag_names_the_seat_it_was_heard_at(utterance: np.ndarray[Any, Any]) -> None:
    """A microphone per seat: the phrase is seat 2's, though the recogniser's
    final result comes after the utterance has ended; and a recording that
    ends mid-utterance still gives its words."""
    pause = np.zeros(RATE // 2, dtype=np.float32)
    near = 10 ** (-8 / 20)
    for tail in (pause, np.zeros(0, dtype=np.float32)):
        mono = np.concatenate([pause, utterance, tail])
        columns = np.stack([mono * near, mono, mono * near], axis=1)
        messages: list[tuple[Any, ...]] = []
        settings = EarsSettings(layout="channels", channels=3)
        hearing = Hearing(settings, messages.append, spotter=_Spotter())
        for first in range(0, len(columns), BLOCK):
            hearing.block(Block(columns[first : first + BLOCK], first / RATE))
        hearing.finish()
        words = [m for m in messages if m[0] == "word"]
        assert [(m[2], m[3]) for m in words] == [(2, "oath")], len(tail)


def test_without_the_model_the_ears_go_on_and_say_why(tmp_path: Path) -> None:
    messages: list[tuple[Any, ...]] = []
    settings = EarsSettings(
        words_model=str(tmp_path / "no-model"),
        phrases=load_ruleset("club").forbidden_words,
    )
    Hearing(settings, messages.append)
    ((kind, what, line),) = messages
    assert (kind, what) == ("status", "words_off") and "no-model" in line


def test_a_microphone_per_seat_names_the_seat_and_drops_what_no_seat_claims(
    timeline: list[tuple[float, Game]], utterance: np.ndarray[Any, Any]
) -> None:
    """Three seats' microphones: a player at seat 2 (8 dB quieter on the
    others) is flagged with their seat; the same voice equally loud on every
    microphone (the room, the next table) is nobody's and not flagged."""
    settings = EarsSettings(layout="channels", channels=3)
    pause = np.zeros(RATE // 2, dtype=np.float32)
    mono = np.concatenate([pause, utterance, pause])
    near = 10 ** (-8 / 20)
    player = np.stack([mono * near, mono, mono * near], axis=1)
    room = np.stack([mono, mono, mono], axis=1) * 0.5
    table = _Table(timeline)
    night = _moment(timeline, lambda g: g.phase == "night") + 1
    heard = _hear(player, settings)
    assert heard[0][1][0] == "open" and heard[0][1][2] == 2
    table.play(table.link(settings), heard, night)
    assert [(f.kind, f.seat) for f in table.flags] == [("night", 2)]
    table.flags.clear()
    table.play(table.link(settings), _hear(room, settings), night + 5)
    assert table.flags == []


def test_the_array_detector_hears_its_microphones_not_the_cards_playback(
    utterance: np.ndarray[Any, Any], tmp_path: Path
) -> None:
    """The ReSpeaker's card gives 8 channels: 6 microphones and 2 of what
    it plays. The table's own voice on those two is no utterance; the same
    sound on a microphone is one."""
    from companion.ears.calibration import Calibration, save

    calibration = tmp_path / "array.json"
    save(Calibration("respeaker-6mic", RATE, {1: (0.0,) * 15, 2: (1e-5,) * 15}), calibration)
    settings = EarsSettings(layout="array", channels=8, calibration=calibration)
    quiet = np.zeros(RATE, dtype=np.float32)
    sound = np.concatenate([quiet, utterance, quiet])

    played = np.zeros((len(sound), 8), dtype=np.float32)
    played[:, 6] = played[:, 7] = sound
    assert not [m for _, m in _hear(played, settings) if m[0] == "open"]

    heard = np.zeros((len(sound), 8), dtype=np.float32)
    heard[:, 2] = sound
    assert [m for _, m in _hear(heard, settings) if m[0] == "open"]


def test_a_forbidden_word_far_quieter_than_the_table_is_not_proposed(
    timeline: list[tuple[float, Game]],
) -> None:
    """Once the gate knows the table's speakers, an oath heard in an
    utterance 20 dB quieter (the next table's) is held back like its flag."""
    table = _Table(timeline)
    link = table.link()
    for _ in range(link.gate.needs):
        link.gate.learn(-20.0)
    night = _moment(timeline, lambda g: g.phase == "night") + 1
    table.now = night
    link.heard(("open", night - 2.0, None, 0.9, -40.0))
    link.heard(("close", night - 2.0, night - 1.0, None, 0.9, -40.0))
    link.heard(("word", night - 2.0, None, "oath", "клянусь", 0.91))
    assert table.flags == []
    link.heard(("open", night - 0.5, None, 0.9, -21.0))
    link.heard(("close", night - 0.5, night, None, 0.9, -21.0))
    link.heard(("word", night - 0.5, None, "oath", "клянусь", 0.91))
    assert table.flags == [
        SpeechFlagged("night", 0, 0.9),
        SpeechFlagged("word", 0, 0.91, "oath", "клянусь"),
    ]


def test_the_listening_process_opens_nothing_for_a_club_room_at_the_players_level() -> None:
    """The live path: the room's mix (the other tables' talk, chairs,
    knocks, hum) as loud as a player sends no utterance once the ears have
    heard the room a while; a player speaking over it does."""
    from testkit.corpus import make_corpus, room_only

    room = room_only(seed=31, minutes=0.6, noise="room", level_db=0.0)
    opened = [at for at, m in _hear(room.samples) if m[0] == "open" and at >= 10.0]
    assert opened == []
    table = make_corpus(seed=32, minutes=0.4, snr_db=10.0, noise="room")
    spoken = [u for u in table.truth if u.kind in ("normal", "loud") and u.end_s - u.start_s >= 0.5]
    starts = [m[1] for _, m in _hear(table.samples) if m[0] == "open"]
    assert spoken and all(any(abs(s - u.start_s) < 0.3 for s in starts) for u in spoken)
