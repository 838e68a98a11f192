"""The engine's output vocabulary (issue 11, "a procedure seam in the
core"): ``companion/core/vocabulary.py`` declares every cue, host message
and protocol record kind, and here whole games hold the engine to it.

Every example script, a few games of the bench's bot, a short script of
the host's corrections and forum games (tests/forum_scripts.py) are
replayed; every ``Say``, ``TellHost`` and protocol record they produce must
be declared, with exactly its declared arguments, each of its declared kind
(a forum announcement's and a private note's arguments are those of the cue
they carry), and every cue must be one its game's procedure says. The other
way round, every declared word must come up in those games or be listed in
:data:`NOT_EXERCISED` with the reason, so dead vocabulary shows. The shells
are checked against the declaration: the host log has words for every host
message and private note, the protocol a line for every record kind and
words for every forum announcement and note (the voice catalogues:
tests/test_phrases.py).
"""

from __future__ import annotations

import io
import json
import string
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import pytest

from companion.config.rulesets import available_rulesets, load_ruleset
from companion.core import vocabulary
from companion.core.effects import Effect, Say, TellHost
from companion.core.rules import Ruleset
from companion.core.state import Game, Record
from companion.core.vocabulary import (
    CUES,
    NOTES,
    OWN_CUES,
    RECORDS,
    TELLS,
    UNSHOWN_RECORDS,
    Args,
    names,
    procedure_cues,
)
from companion.core.vocabulary_check import check_record, check_said, check_told
from companion.protocol import forum_text, model, report
from companion.protocol.hostlog import HostLog
from companion.protocol.report import _TEMPLATES as PROTOCOL_WORDS
from companion.runner.replay import ScriptReplay
from companion.runner.script import ScriptLine, parse_lines, read_script
from companion.runner.session import GameSession
from companion.voice.phrases import KNOWN_RULESET_CUES
from testkit.bots import Bot, parsed
from tests import forum_scripts
from tests.helpers import EXAMPLES, TOURNAMENT_ROLES

#: bot games: seeds, each played to its end (odd seeds club, even tournament)
BOT_SEEDS = range(6)

#: Declared words no game here produces, each with the reason. Keep it
#: short: an entry is vocabulary nothing exercises (or a game to add).
NOT_EXERCISED: dict[str, str] = {}

#: The host's corrections, which neither the examples nor the bot make:
#: pause, resume, time added and taken, the microphone's flags (a forbidden
#: phrase, a kind the ruleset names no offence for), a proposal dismissed,
#: an offence cancelled, the game stopped.
CORRECTIONS: list[dict[str, Any]] = [
    {"at": 0, "input": "setup", "ruleset": "tournament", "roles": TOURNAMENT_ROLES},
    {"after": 1, "input": "pause"},
    {"after": 5, "input": "resume"},
    {"after": 1, "input": "adjust", "seconds": 10},
    {"after": 1, "input": "adjust", "seconds": -10},
    {"after": 1, "input": "heard", "kind": "night", "seat": 4, "confidence": 0.9},
    {"after": 1, "input": "dismiss", "index": 0},
    {"after": 1, "input": "heard", "kind": "last_word_overrun", "seat": 2, "confidence": 0.8},
    {
        "after": 1,
        "input": "heard",
        "kind": "word",
        "seat": 3,
        "confidence": 0.9,
        "phrase": "oath",
        "words": "зуб даю",
    },
    {"after": 1, "input": "dismiss", "index": 0},
    {"after": 1, "input": "offence", "seat": 1, "offence": "warning"},
    {"after": 1, "input": "cancel_offence", "seat": 1, "offence": "warning"},
    {"after": 1, "input": "stop", "reason": "пожарная тревога"},
]


# -- what the games produce ----------------------------------------------------


@dataclass
class Seen:
    """Every word the engine used, and what was wrong with any of them."""

    cues: set[str] = field(default_factory=set)
    tells: set[str] = field(default_factory=set)
    notes: set[str] = field(default_factory=set)  # the forum game's private notes
    records: set[str] = field(default_factory=set)
    problems: dict[str, str] = field(default_factory=dict)  # the first for each word

    def note(self, word: str, source: str, problem: str | None) -> None:
        if problem and word not in self.problems:
            self.problems[word] = f"{source}: {problem}"


def ruleset_cues(rules: Ruleset) -> dict[str, Args]:
    """The cues `rules` names, with their declared arguments."""
    steps = (*rules.night0, *rules.night)
    night = [cue for step in steps for cue in (step.cue, step.end_cue) if cue]
    exempt = [offence.exempt_cue for offence in rules.offences if offence.exempt_cue]
    return vocabulary.ruleset_cues(night, exempt)


def watch(seen: Seen, source: str, lines: Iterable[ScriptLine]) -> None:
    """Replay `lines`, checking every effect and every record on the way.

    Records are read from each new state's log as it is made, not from the
    final game's: an undo drops the records it takes back from the log."""
    session = GameSession()
    checked: set[int] = set()  # ids of the records checked
    kept: list[Record] = []  # holds them, so that no id is reused

    def changed(before: Game | None, game: Game) -> None:
        entry = game.log
        while entry is not None and id(entry) not in checked:
            checked.add(id(entry))
            kept.append(entry)
            seen.records.add(entry.kind)
            if entry.kind == "private":
                seen.notes.add(str(dict(entry.data)["cue"]))
            problem = check_record(entry.kind, entry.data, len(game.seats))
            seen.note(f"record {entry.kind}", source, problem)
            entry = entry.prev

    def effects(at: float, done: tuple[Effect, ...]) -> None:
        game = session.game
        assert game is not None
        table = len(game.seats)
        for effect in done:
            if isinstance(effect, Say):
                seen.cues.add(effect.cue)
                said = procedure_cues(game.rules.procedure) | ruleset_cues(game.rules)
                problem = check_said(effect.cue, effect.args, ruleset_cues(game.rules), table)
                if problem is None and effect.cue not in said:
                    problem = f"cue {effect.cue!r}: not a cue of procedure {game.rules.procedure!r}"
                seen.note(f"cue {effect.cue}", source, problem)
            elif isinstance(effect, TellHost):
                seen.tells.add(effect.what)
                problem = check_told(effect.what, effect.args, table)
                seen.note(f"tell {effect.what}", source, problem)

    session.on_changed, session.on_effects = changed, effects
    ScriptReplay(session=session, source=source).run(lines)


@cache
def seen_in_games() -> Seen:
    seen = Seen()
    for script in sorted(EXAMPLES.glob("*.jsonl")):
        watch(seen, script.name, read_script(script, load_ruleset))
    for seed in BOT_SEEDS:
        bot = Bot(seed, "club" if seed % 2 else "tournament").play(until_inputs=5_000)
        watch(seen, f"bot game {seed}", parsed(bot))
    corrections = [json.dumps(line, ensure_ascii=False) for line in CORRECTIONS]
    watch(seen, "corrections", parse_lines(corrections, "corrections", load_ruleset))
    for name, play in forum_scripts.GAMES.items():
        watch(seen, name, forum_scripts.parsed(play().lines, name))
    return seen


def test_every_output_of_the_games_is_declared() -> None:
    problems = seen_in_games().problems
    assert not problems, "\n".join(problems.values())


def test_every_declared_word_comes_up_in_a_game() -> None:
    seen = seen_in_games()
    unused = {
        *(f"cue {c}" for c in set(CUES) - seen.cues),
        *(f"tell {t}" for t in set(TELLS) - seen.tells),
        *(f"note {n}" for n in set(NOTES) - seen.notes),
        *(f"record {r}" for r in set(RECORDS) - seen.records),
    }
    assert unused == set(NOT_EXERCISED), "update NOT_EXERCISED (with the reason) or add a game"


def test_the_corrections_run_to_their_end() -> None:
    """The corrections script is taken whole (a refused line fails the
    replay) and ends with the host's stop."""
    lines = parse_lines([json.dumps(x) for x in CORRECTIONS], "corrections", load_ruleset)
    game = ScriptReplay(source="corrections").run(lines)
    assert game is not None and game.phase == "ended"
    assert game.result is not None and game.result.reason == "stopped"


# -- the checker can fail ------------------------------------------------------------

BAD_SAYS = [
    ("shout", (), "cue 'shout' is not in the vocabulary"),
    ("vote_question", (("seats", 3),), "no argument 'seats'"),
    ("vote_question", (), "seat missing"),
    ("vote_question", (("seat", "3"),), "seat='3' is not a seat number"),
    ("vote_question", (("seat", True),), "seat=True is not a seat number"),
    ("vote_question", (("seat", 0),), "seat=0 is not a seat number"),
    ("vote_question", (("seat", 11),), "seat=11 is not a seat number"),  # a table of 10
    ("vote_question", (("seat", 3), ("seat", 4)), "'seat' is given twice"),
    ("tie", (("seats", "3,3"),), "seats='3,3' is not seat numbers"),
    ("tie", (("seats", ""),), "seats='' is not seat numbers"),
    ("removed", (("seat", 3), ("reason", "two words")), "reason='two words' is not an id"),
    ("game_won", (("team", ""),), "team='' is not team ids"),
    ("thanks", (("seat", 1),), "no argument 'seat' (it has none)"),
    ("don_wakes", (), "cue 'don_wakes' is not in the vocabulary"),  # a ruleset's, none given
]


@pytest.mark.parametrize(("cue", "args", "problem"), BAD_SAYS)
def test_the_checker_rejects_a_bad_cue(
    cue: str, args: tuple[tuple[str, object], ...], problem: str
) -> None:
    found = check_said(cue, args, table=10)
    assert found is not None and problem in found


def test_the_checker_takes_the_cues_as_declared() -> None:
    tournament = ruleset_cues(load_ruleset("tournament"))
    assert check_said("vote_question", (("seat", 10),), table=10) is None
    assert check_said("tie", (("seats", "3,6"),)) is None
    assert check_said("time_added", (("seconds", -10),)) is None
    assert check_said("game_won", (("team", "civilians,maniac"),)) is None
    assert check_said("don_wakes", (), tournament) is None
    assert check_said("don_wakes", (("seat", 1),), tournament) is not None


BAD_RECORDS = [
    ("lunch", (), "record 'lunch' is not in the vocabulary"),
    ("votes", (("nominee", 3), ("votes", 2)), "voters missing"),
    ("votes", (("nominee", 3), ("votes", 2), ("voters", [1, 2]), ("rest", 1)), "rest=1 is not"),
    ("votes", (("nominee", 3), ("votes", 2), ("voters", "1,2")), "voters='1,2' is not a list"),
    ("tie", (("seats", [3, 3]),), "seats=[3, 3] is not a list"),
    ("time_added", (("seconds", float("nan")), ("left", 5.0)), "seconds=nan is not"),
    ("day", (("number", 2), ("night", 2)), "no field 'night'"),
    ("public", (("phase", "night"), ("cue", "shout")), "cue 'shout' is not in the vocabulary"),
    ("public", (("phase", "night"), ("cue", "forum_killed")), "seat missing"),
    ("public", (("phase", "vote"), ("cue", "vote_tally"), ("tally", "3:2,5:4")), "is not seat:"),
    ("public", (("phase", "vote"), ("cue", "vote_tally"), ("tally", "3:2,3:1")), "is not seat:"),
    ("public", (("phase", "vote"), ("cue", "vote_tally"), ("tally", "")), "is not seat:"),
    ("private", (("to", 3), ("cue", "your_role")), "role missing"),
    ("private", (("to", 3), ("cue", "cop_missed")), "cue 'cop_missed' is not in the vocabulary"),
    ("private", (("cue", "now_cop"),), "to missing"),
]


@pytest.mark.parametrize(("kind", "data", "problem"), BAD_RECORDS)
def test_the_checker_rejects_a_bad_record(
    kind: str, data: tuple[tuple[str, object], ...], problem: str
) -> None:
    found = check_record(kind, data)
    assert found is not None and problem in found


def test_the_checker_takes_the_forum_games_words() -> None:
    nobody = (("phase", "vote"), ("cue", "vote_tally"), ("tally", "-"))
    assert check_record("public", nobody) is None
    tally = (("phase", "vote"), ("cue", "vote_tally"), ("tally", "5:4,3:2,7:2"))
    assert check_record("public", tally, table=7) is None
    assert check_record("public", tally, table=6) is not None  # no seat 7 at a table of 6
    note = (("to", 4), ("cue", "team_members"), ("team", "mafia"), ("seats", "4,8"))
    assert check_record("private", note) is None
    assert check_told("private", note) is None
    found = check_told("private", (("to", 4), ("cue", "now_cop"), ("seat", 3)))
    assert found is not None and "no argument 'seat' (it has to, cue)" in found


def test_the_checker_rejects_a_bad_host_message() -> None:
    assert check_told("gossip", ()) == "host message 'gossip' is not in the vocabulary"
    found = check_told("role", (("seat", 1), ("team", "mafia")))
    assert found is not None and "no argument 'team'" in found
    assert check_told("speech_flagged", (("kind", "night"), ("seat", 0))) is None  # not known
    assert check_told("role", (("seat", 0), ("role", "mafia"))) is not None


def test_a_record_may_leave_out_its_optional_fields() -> None:
    assert check_record("out", (("seat", 3), ("how", "killed"))) is None
    assert check_record("out", (("seat", 3), ("how", "voted"), ("last_word_s", 60))) is None
    assert check_record("no_vote", (("reason", "no_nominees"),)) is None


# -- the shells know every word ------------------------------------------------------


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


@pytest.mark.parametrize("lang", sorted(PROTOCOL_WORDS))
def test_every_record_kind_has_a_protocol_line(lang: str) -> None:
    words = PROTOCOL_WORDS[lang]
    assert set(UNSHOWN_RECORDS) <= set(RECORDS)
    for kind, fields in RECORDS.items():
        if kind in UNSHOWN_RECORDS:
            continue
        assert kind in words, f"protocol/report.py ({lang}) has no line for record {kind!r}"
        # a line may use only the fields every record of the kind has
        assert _fields(words[kind]) <= set(names(fields.required)), (lang, kind)
    # the all-leave vote is a "votes" record shown by a line of its own
    assert _fields(words["all_leave_votes"]) <= set(names(RECORDS["votes"].required))


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_every_host_message_has_words_in_the_host_log(lang: str) -> None:
    """The host log (protocol/hostlog.py; the console shows its lines too)
    words every host message, with only the message's arguments."""
    words = HostLog(io.StringIO(), lang).words
    for what, args in TELLS.items():
        assert what in words, f"protocol/hostlog.py ({lang}) has no words for {what!r}"
        assert _fields(words[what]) <= set(names(args)), (lang, what)


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_every_private_note_has_words_in_the_host_log(lang: str) -> None:
    """A private note is a host message (``private``) that the host log and
    the protocol word by its cue (protocol/forum_text.py), with only the
    note's arguments; so is every forum announcement in the protocol."""
    for table, declared in ((forum_text.NOTES, NOTES), (forum_text.PUBLIC, CUES)):
        words = table[lang]
        wanted = set(declared) if declared is NOTES else set(OWN_CUES["forum"])
        assert wanted == set(words), (lang, wanted ^ set(words))
        for cue, template in words.items():
            assert _fields(template) <= set(names(declared[cue])), (lang, cue)
    note = TellHost("private", (("to", 4), ("cue", "found_cop"), ("seat", 3)))
    expected = {
        "ru": "Лично игроку 4: Коп — игрок 3",
        "en": "Privately to seat 4: the Cop is seat 3",
    }
    assert HostLog(io.StringIO(), lang).line(note) == expected[lang]


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_the_protocol_words_every_record_of_the_forum_games(lang: str) -> None:
    """No forum record falls back to its raw fields in the protocol, and no
    announcement or note to its cue's id and arguments (the words for every
    cue: test_every_private_note_has_words_in_the_host_log)."""
    for play in forum_scripts.GAMES.values():
        game = play().game
        lines = report.protocol(game, lang)
        for record in report.records(game):
            text = model.describe(game, record, lang)
            assert "{'" not in text, text
            if record.kind in ("public", "private"):
                assert f"{dict(record.data)['cue']} (" not in text, text
        assert not [line for line in lines if "{'" in line]


def test_each_cue_is_said_by_a_procedure() -> None:
    """Every procedure's cues are the engine's, and no cue is two
    procedures' own."""
    owned = [cue for own in OWN_CUES.values() for cue in own]
    assert set(owned) <= set(CUES)
    assert len(owned) == len(set(owned))
    assert set(procedure_cues("forum")) & set(OWN_CUES["sports_table"]) == set()


def test_the_voice_knows_the_cues_of_the_shipped_rulesets() -> None:
    """``KNOWN_RULESET_CUES`` (the voice checks their phrases without
    loading a ruleset) is exactly what the shipped rulesets name."""
    named: dict[str, tuple[str, ...]] = {}
    for name in available_rulesets():
        named |= {cue: names(args) for cue, args in ruleset_cues(load_ruleset(name)).items()}
    assert named == KNOWN_RULESET_CUES
    assert not set(named) & set(CUES), "a ruleset's cue takes the name of an engine cue"
