"""``companion say`` and ``companion voices`` with what a user can type
(issue 8): a cue's arguments are held to what a game of the ruleset can say,
a table size to the ruleset's range, and a text to what espeak-ng can take;
anything else is one line naming the argument and exit status 2, never a
traceback, a segfault or a run without end."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from cli_here import companion_here

from companion.config.rulesets import load_ruleset
from companion.core.effects import Say
from companion.voice import commands
from companion.voice.announcer import Announcer
from companion.voice.audio import tone
from companion.voice.catalogue_load import load_catalogue
from companion.voice.cue_args import MAX_DAYS, MAX_SECONDS, check_cue_args
from companion.voice.settings import VoiceSettings
from companion.voice.speaker import FakeSpeaker
from companion.voice.tts import MAX_TEXT_CHARS, TtsRenderer, TtsVoice, WavCache, check_text

ROOT = Path(__file__).resolve().parent.parent
TOURNAMENT, CLUB = load_ruleset("tournament"), load_ruleset("club")
RU = load_catalogue("ru")


def _environment(tmp_path: Path) -> dict[str, str]:
    """A voice cache of its own and no sound device (``PULSE_SERVER``
    pointing nowhere)."""
    return {
        **os.environ,
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "PULSE_SERVER": f"unix:{tmp_path}/no-pulse",
    }


def companion(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``companion ARGS`` run in the test's own process (tests/cli_here.py):
    for the arguments and their refusals."""
    return companion_here(*args, env=_environment(tmp_path), cwd=ROOT)


def companion_process(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m companion.cli ARGS`` as a user runs it: each command
    keeps one such run."""
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", *args],
        cwd=ROOT,
        env=_environment(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )


SEATS_600 = ",".join(map(str, range(1, 601)))


@pytest.mark.parametrize("captions", [["--captions"], []], ids=["captions", "sound"])
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["voting_begins", f"nominees={SEATS_600}"],
            "say voting_begins: nominees lists 600 seats;"
            " a table of ruleset 'tournament' has at most 12",
        ),
        (["vote_question", "seat=600"], "say vote_question: seat=600: give a seat 1..12"),
        (["vote_question", f"seat={10**30}"], "say vote_question: seat="),
        (["vote_question", f"seat={10**400}"], "say vote_question: seat="),
        (["vote_question", "seat=0"], "say vote_question: seat=0: give a seat 1..12"),
        (["vote_question", "seat=abc"], "say vote_question: seat='abc': give a seat 1..12"),
        (["vote_question", "seta=3"], "say vote_question: no argument 'seta' (it takes seat)"),
        (["vote_questoin", "seat=3"], "say: no cue 'vote_questoin' in voices/ru.toml (did you"),
        (["speech_start", "seat=3", "seconds=99999"], "seconds=99999: give seconds -3600..3600"),
        (["voting_begins", "nominees=3,13"], "nominees='3,13': give seats 1..12"),
        (["voting_begins", "nominees=3,3"], "nominees='3,3': seat 3 is listed twice"),
        (["votes_accepted", "votes=13"], "votes=13: give votes 0..12 (ruleset 'tournament')"),
        (["game_won", "team=red,pink"], "team='red,pink': give teams of ruleset 'tournament'"),
        (["vote_question"], "cue 'vote_question' needs argument 'seat'"),
    ],
)
def test_a_bad_cue_argument_is_one_line_naming_it(
    tmp_path: Path, args: list[str], message: str, captions: list[str]
) -> None:
    done = companion(tmp_path, "say", *args, *captions)
    assert (done.returncode, done.stdout) == (2, "")
    (line,) = done.stderr.splitlines()
    assert line.startswith("companion: ") and message in line
    assert len(line) < 200  # the 600 seats are not echoed back
    assert not (tmp_path / "cache").exists()  # nothing reached espeak-ng


def test_a_cue_is_said_as_captions(tmp_path: Path) -> None:
    done = companion_process(tmp_path, "say", "voting_begins", "nominees=12,3", "--captions")
    assert (done.returncode, done.stderr) == (0, "")
    text = "На голосование выставлены игроки номер двенадцать и три."
    assert done.stdout.splitlines() == [f"» {text}"]  # the caption is the output, once
    assert not (tmp_path / "cache").exists()  # captions render nothing


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["list", "--seats", "100000"], "voices: --seats 100000: ruleset 'tournament' plays"),
        (["build", "--seats", "100000"], "voices: --seats 100000: ruleset 'tournament' plays"),
        (["list", "--seats", "3"], "voices: --seats 3: ruleset 'tournament' plays with 4..12"),
        (["build", "--seats", "-1", "--ruleset", "club"], "--seats -1: ruleset 'club' plays"),
    ],
)
def test_a_table_size_outside_the_ruleset_is_one_line(
    tmp_path: Path, args: list[str], message: str
) -> None:
    done = companion(tmp_path, "voices", *args)
    assert (done.returncode, done.stdout) == (2, "")
    (line,) = done.stderr.splitlines()
    assert line.startswith("companion: ") and message in line


def test_voices_as_a_process_refuses_a_table_size_in_one_line(tmp_path: Path) -> None:
    done = companion_process(tmp_path, "voices", "list", "--seats", "3")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("companion: voices: --seats 3: ruleset 'tournament' plays")
    assert len(done.stderr.splitlines()) == 1


def test_voices_list_covers_the_largest_table_and_no_more() -> None:
    settings = VoiceSettings()
    keys = [line.split("\t")[0] for line in commands.voices_list(settings, "tournament", 12)]
    assert "vote_question-seat-12.wav" in keys
    assert "vote_question-seat-13.wav" not in keys
    with pytest.raises(ValueError, match=r"--seats 13: ruleset 'tournament' plays with 4\.\.12"):
        commands.voices_list(settings, "tournament", 13)
    with pytest.raises(ValueError, match=r"--seats 100000: ruleset 'club' plays with 4\.\.12"):
        commands.voices_build(settings, "club", 100000)


# --- the bounds, in process ---------------------------------------------------------


@pytest.mark.parametrize(
    ("cue", "args", "rules", "checked"),
    [
        ("vote_question", {"seat": 12}, TOURNAMENT, {"seat": 12}),
        ("vote_question", {"seat": "3"}, TOURNAMENT, {"seat": 3}),  # typed: a number
        ("vote_question", {"seat": " +3 "}, TOURNAMENT, {"seat": 3}),
        ("voting_begins", {"nominees": "12, 3"}, TOURNAMENT, {"nominees": "12,3"}),
        ("tie", {"seats": ",".join(map(str, range(12, 0, -1)))}, TOURNAMENT, None),
        ("votes_accepted", {"votes": 0}, TOURNAMENT, {"votes": 0}),
        ("votes_accepted", {"votes": 12}, TOURNAMENT, {"votes": 12}),
        ("time_added", {"seconds": -MAX_SECONDS}, TOURNAMENT, {"seconds": -3600}),
        ("city_wakes", {"day": MAX_DAYS}, TOURNAMENT, {"day": 99}),
        ("night_falls", {"night": 0}, TOURNAMENT, {"night": 0}),
        ("offence_counted", {"seat": 1, "count": 5, "unit": "remark"}, CLUB, None),
        ("game_won", {"team": "civilians,maniac"}, CLUB, None),
        ("maniac_left", {"seat": 4}, CLUB, {"seat": 4}),  # a ruleset's own cue
    ],
)
def test_arguments_a_game_can_say_pass(
    cue: str, args: dict[str, int | str], rules: Any, checked: dict[str, int | str] | None
) -> None:
    assert check_cue_args(cue, args, rules, RU) == (checked or args)
    RU.text(cue, check_cue_args(cue, args, rules, RU), rules)  # and can be said


@pytest.mark.parametrize(
    ("cue", "args", "rules", "message"),
    [
        ("vote_question", {"seat": 13}, TOURNAMENT, "seat=13: give a seat 1..12"),
        ("vote_question", {"seat": True}, TOURNAMENT, "seat=True: give a seat"),
        ("vote_question", {"seat": 10**5000}, TOURNAMENT, "seat=a number of 16610 bits"),
        ("vote_question", {"seat": "1" * 5000}, TOURNAMENT, "seat='1111111111111111111111111111"),
        ("tie", {"seats": ",".join(["1"] * 13)}, TOURNAMENT, "seats lists 13 seats"),
        ("tie", {"seats": "1,,2"}, TOURNAMENT, "seats='1,,2': give seats 1..12"),
        ("votes_accepted", {"votes": -1}, TOURNAMENT, "votes=-1: give votes 0..12"),
        ("time_added", {"seconds": MAX_SECONDS + 1}, TOURNAMENT, "give seconds -3600..3600"),
        ("city_wakes", {"day": 0}, TOURNAMENT, "day=0: give a day 1..99"),
        ("offence_counted", {"seat": 1, "count": 5, "unit": "foul"}, TOURNAMENT, "1..4"),
        ("game_won", {"team": "red,red"}, TOURNAMENT, "give teams of ruleset 'tournament'"),
        ("thanks", {"seat": 3}, TOURNAMENT, "no argument 'seat' (it takes no arguments)"),
        ("x" * 10**6, {}, TOURNAMENT, "say: no cue 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx..."),
    ],
)
def test_arguments_no_game_can_say_are_refused(
    cue: str, args: dict[str, int | str], rules: Any, message: str
) -> None:
    with pytest.raises(ValueError) as caught:
        check_cue_args(cue, args, rules, RU)
    assert message in str(caught.value) and len(str(caught.value)) < 200


def test_say_refuses_before_any_sound(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"seat=600: give a seat 1\.\.12"):
        commands.say("vote_question", {"seat": 600}, "tournament", VoiceSettings())


# --- what reaches espeak-ng ------------------------------------------------------


class RecordingHost:
    """Stands in for the pyttsx3 host: records what it was asked to render."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def wait_ready(self, timeout: float) -> bool:
        return True

    def render(self, job: Any) -> None:
        self.texts.append(job.text)
        raise RuntimeError("not rendering in this test")


def test_a_text_too_long_for_espeak_never_reaches_it(tmp_path: Path) -> None:
    """libespeak-ng crashed (SIGSEGV) inside pyttsx3 on ~28 kB of text here:
    the renderer refuses long texts before either backend sees them."""
    check_text("а" * MAX_TEXT_CHARS)
    host = RecordingHost()
    renderer = TtsRenderer(engine=host)
    try:
        with pytest.raises(
            ValueError, match=r"too long to speak: 30000 characters \(at most 1000\)"
        ):
            renderer.submit("а" * 30_000, TtsVoice("ru"), tmp_path / "long.wav")
        with pytest.raises(ValueError, match="too long to speak"):
            WavCache(tmp_path, renderer).clip("б" * (MAX_TEXT_CHARS + 1), TtsVoice("ru"))
    finally:
        renderer.close()
    assert host.texts == []
    assert list(tmp_path.iterdir()) == []


class BlockingCache:
    """A WavCache whose renders wait for ``release``."""

    def __init__(self) -> None:
        self.release = threading.Event()

    def clip(self, text: str, voice: TtsVoice) -> Any:
        self.release.wait()
        return tone(440, 0.5)


class IdleAfter(FakeSpeaker):
    """A speaker that reports idle once ``heard`` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.queued, self.heard = threading.Event(), threading.Event()

    def play(self, clip: Any, caption: str, *, urgent: bool = False) -> None:
        super().play(clip, caption, urgent=urgent)
        self.queued.set()

    def wait_idle(self, timeout: float) -> bool:
        return self.heard.wait(timeout)


def test_drain_waits_for_the_late_render_and_the_sound(caplog: pytest.LogCaptureFixture) -> None:
    """``say`` waits for the voice this way before it closes the sound (it
    used to close first and then wait for ever)."""
    cache, speaker = BlockingCache(), IdleAfter()
    voice = Announcer(RU, TOURNAMENT, speaker, cache, TtsVoice("ru"))
    try:
        voice.say(Say("voting_begins", (("nominees", "3,6"),)))  # not prepared: rendered late
        assert voice.drain(0.05) is False  # still rendering
        cache.release.set()
        assert speaker.queued.wait(5.0)
        assert voice.drain(0.05) is False  # rendered, queued, not heard yet
        assert [p.caption for p in speaker.played] == [
            "На голосование выставлены игроки номер три и шесть."
        ]
        speaker.heard.set()
        assert voice.drain(5.0) is True
    finally:
        cache.release.set()
        voice.close()
    assert [r.message for r in caplog.records] == ["the voice did not finish within 0 s"] * 2
