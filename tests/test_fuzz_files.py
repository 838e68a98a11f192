"""Fuzzing the TOML files the companion reads (issue 8, "Must show"):
rulesets, pin maps and phrase catalogues.

Each case writes a file and loads it with the real loader, from its bytes:

* random bytes;
* random TOML documents built from random values (strings, huge integers,
  floats with nan and inf, booleans, arrays, nested tables), with the keys
  the shipped files use so that the checks past the first one are reached;
* the shipped files (``rulesets/club.toml``, ``rulesets/tournament.toml``,
  ``hardware/default.toml``, ``voices/ru.toml``, ``voices/en.toml``)
  mutated: a value replaced by a random one, a line deleted or duplicated,
  bytes flipped, brackets nested thousands deep;
* rulesets put together from random parts within the limits.

Every case ends in a successful load or in the loader's own error whose
``str()`` is a single line of readable length naming the file. A ruleset
that loads is then played: a table of its seats is set up and given at most
300 inputs, mostly host steps and the expiries of its running timers, some
presses, nominations, night choices and offences; nothing but a refused
input may be raised, and every timer the engine asks for runs more than 0 s
and at most a day. A catalogue that loads says every phrase of a club game.
The examples are derandomized: CI runs the same cases every time (``pytest
--hypothesis-show-statistics`` shows how many loaded and how far they played).
"""

from __future__ import annotations

import itertools
import json
import math
import random
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import event as hypothesis_event
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context

from companion.config.rulesets import DataFileError, load_ruleset
from companion.core.effects import CancelTimer, Effect, StartTimer
from companion.core.engine import apply
from companion.core.events import (
    Event,
    GameSetUp,
    HostAdvanced,
    NightChoiceMade,
    Nominated,
    OffenceGiven,
    SeatPressed,
    SeatReleased,
    TimerExpired,
)
from companion.core.rules import Ruleset
from companion.core.ruleset_load import MAX_TIMER_S
from companion.core.step import IllegalInput
from companion.seats.pinmap import PinMap, PinMapError, load_pinmap
from companion.voice.catalogue_load import load_catalogue
from companion.voice.phrases import Catalogue, CatalogueError, MissingArgument, UnknownCue

ROOT = Path(__file__).resolve().parent.parent
CLUB = load_ruleset("club")
#: Inputs given to a ruleset that loads.
PLAY_STEPS = 300
#: What a one-line error may be at most (the loaders cut what they show).
LONGEST_ERROR = 700


@dataclass(frozen=True)
class Kind:
    """One kind of file: its name on disk, its loader and its error class."""

    name: str
    file: str
    load: Callable[[Path], object]
    error: type[Exception]


KINDS = {
    "ruleset": Kind("ruleset", "fuzz.toml", load_ruleset, DataFileError),
    "pinmap": Kind("pinmap", "pins.toml", load_pinmap, PinMapError),
    "catalogue": Kind(
        "catalogue", "ru.toml", lambda path: load_catalogue(path.stem, path.parent), CatalogueError
    ),
}
#: shipped file -> its kind; a mutated copy keeps the file's name (a
#: ruleset's name must equal its file's, a catalogue's language its stem).
SHIPPED = {
    "rulesets/club.toml": "ruleset",
    "rulesets/tournament.toml": "ruleset",
    "hardware/default.toml": "pinmap",
    "voices/ru.toml": "catalogue",
    "voices/en.toml": "catalogue",
}
TEXTS = {path: (ROOT / path).read_bytes() for path in SHIPPED}

FUZZ = settings(
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


# --- loading and playing ------------------------------------------------------


def event(what: str) -> None:
    """Count an outcome in hypothesis' statistics (--hypothesis-show-statistics)."""
    if currently_in_test_context():
        hypothesis_event(what)


def load(
    kind: Kind, data: bytes, folder: Path, name: str | None = None, seed: int = 0
) -> object | None:
    """Load `data` as a file of `kind`: the value, or None after checking
    that the refusal is one line naming the file."""
    path = folder / (name or kind.file)
    path.write_bytes(data)
    try:
        value = kind.load(path)
    except kind.error as error:
        check_one_line(str(error), path.name)
        event("refused")
        return None
    event("loaded")
    if isinstance(value, Ruleset):
        play(value, seed)
    elif isinstance(value, Catalogue):
        say_everything(value)
    else:
        assert isinstance(value, PinMap)
    return value


def check_one_line(message: str, file: str) -> None:
    assert len(message.splitlines()) == 1, message[:LONGEST_ERROR]
    assert file in message, message[:LONGEST_ERROR]
    assert len(message) <= LONGEST_ERROR, message[:LONGEST_ERROR]


def play(rules: Ruleset, seed: int) -> None:
    """A table at the ruleset's smallest size (its deal, else every third seat
    from the other teams, the rest from the first team with roles), and at its
    first deal's size when that differs."""
    seats = rules.min_seats
    roles = None
    if rules.deal_for(seats) is None:
        by_team = [[r.id for r in rules.roles if r.team == t.id] for t in rules.teams]
        first, *others = [team for team in by_team if team] or [[]]
        rest = [role for layer in itertools.zip_longest(*others) for role in layer if role]
        rest = rest or first
        roles = tuple(
            rest[n // 3 % len(rest)] if n % 3 == 1 else first[n % len(first)] for n in range(seats)
        )
    run_table(GameSetUp(rules, seats, roles, seed=seed), random.Random(seed))
    if rules.deals and rules.deals[0][0] != seats:
        run_table(GameSetUp(rules, rules.deals[0][0], seed=seed), random.Random(seed))


def run_table(setup: GameSetUp, rng: random.Random) -> None:
    """At most PLAY_STEPS inputs: mostly host steps and the expiries of the
    running timers, some presses, nominations, night choices and offences
    (random seats). A refused input is fine; any other exception fails."""
    timers: dict[str, tuple[float, int]] = {}  # name -> (deadline, generation)
    now = 0.0
    game, effects = apply(None, setup)
    follow(effects, timers, now)
    offences = [offence.id for offence in setup.ruleset.offences]
    accepted = 0
    for _ in range(PLAY_STEPS):
        if game.result is not None:
            event(f"played to the end, {bucket(accepted)} inputs accepted")
            return
        seat, other = rng.randint(1, setup.seats), rng.randint(1, setup.seats)
        inputs: list[Event] = [HostAdvanced(), SeatPressed(seat), SeatReleased(seat)]
        inputs += [Nominated(seat, other), NightChoiceMade(seat, other)]
        given = rng.choice(inputs) if rng.random() < 0.7 else HostAdvanced()
        if rng.random() < 0.03:
            given = OffenceGiven(seat, rng.choice(offences))
        if timers and rng.random() < 0.4:
            name = min(timers, key=lambda n: timers[n][0])
            now, generation = max(now, timers[name][0]), timers.pop(name)[1]
            given = TimerExpired(name, generation)
        try:
            game, effects = apply(game, given)
        except IllegalInput:
            continue
        follow(effects, timers, now)
        accepted += 1
    event(f"played all inputs, {bucket(accepted)} accepted")


def bucket(count: int) -> str:
    return "0" if count == 0 else "1-49" if count < 50 else "50+"


def follow(effects: tuple[Effect, ...], timers: dict[str, tuple[float, int]], now: float) -> None:
    """Keep the running timers as the driver would; every timer the engine
    asks for lies within the ruleset limits (never 0 s, never endless)."""
    for effect in effects:
        if isinstance(effect, StartTimer):
            assert 0 < effect.seconds <= MAX_TIMER_S, effect
            timers[effect.name] = (now + effect.seconds, effect.generation)
        elif isinstance(effect, CancelTimer):
            timers.pop(effect.name, None)


def say_everything(catalogue: Catalogue) -> None:
    """Every phrase of a ten-seat club game: said, or refused in one line."""
    try:
        for _ in catalogue.variants(CLUB, 10):
            pass
    except CatalogueError as error:
        check_one_line(str(error), catalogue.source.rsplit("/", 1)[-1])
    except (UnknownCue, MissingArgument) as error:
        assert len(str(error).splitlines()) == 1


# --- random TOML --------------------------------------------------------------

_BARE = re.compile(r"[A-Za-z0-9_-]+\Z")
#: Numbers at and around every limit, and beyond any.
EDGE_INTS = [0, -1, 1, 2, 3, 4, 12, 20, 21, 27, 28, 100, 101, 1000, 86_400, 86_401, 2**63, 10**400]
EDGE_FLOATS = [0.0, -0.0, 0.05, 0.1, 1.5, 1e308, -1e308, 5e-324, math.nan, math.inf, -math.inf]


def toml_key(key: str) -> str:
    return key if _BARE.match(key) else json.dumps(key, ensure_ascii=False)


def toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return ("-inf" if value < 0 else "inf") if math.isinf(value) else repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    assert isinstance(value, dict)
    inner = ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items())
    return "{ " + inner + " }"


def toml_document(data: dict[str, object]) -> str:
    """Scalars and arrays first, then each table under its own header."""
    lines = [f"{toml_key(k)} = {toml_value(v)}" for k, v in data.items() if not isinstance(v, dict)]
    for key, table in data.items():
        if isinstance(table, dict):
            lines.append(f"[{toml_key(key)}]")
            lines += [f"{toml_key(k)} = {toml_value(v)}" for k, v in table.items()]
    return "\n".join(lines) + "\n"


def _walk(value: object, keys: set[str], words: set[str]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            keys.add(key)
            _walk(item, keys, words)
    elif isinstance(value, list):
        for item in value:
            _walk(item, keys, words)
    elif isinstance(value, str) and len(value) < 60:
        words.add(value)


def vocabulary() -> tuple[list[str], list[str]]:
    """Every key and every short string of the shipped files."""
    keys: set[str] = set()
    words: set[str] = set()
    for data in TEXTS.values():
        _walk(tomllib.loads(data.decode()), keys, words)
    return sorted(keys), sorted(words)


KEYS, WORDS = vocabulary()
texts = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=30)
keys = st.one_of(st.sampled_from(KEYS), texts)
scalars = st.one_of(
    st.sampled_from(EDGE_INTS),
    st.integers(),
    st.sampled_from(EDGE_FLOATS),
    st.floats(),
    st.booleans(),
    st.sampled_from(WORDS),
    texts,
    st.sampled_from(["", "x" * 100_000, "{seat", "{seat:ordinal:n:f}", "{nosuch}", "a\nb\u2028c"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)),
    max_leaves=12,
)
documents = st.dictionaries(keys, values, max_size=8)


# --- rulesets put together from their parts -------------------------------------

ACTIONS = ["none", "shoot", "kill", "check", "heal", "block"]
COSTS = ["warning", "count", "removal", "removal_at_morning", "team_loss"]
TIMINGS = [
    "speech_s", "warning_s", "last_word_s", "multi_leave_last_word_s", "tie_speech_s",
    "silenced_tie_speech_s", "vote_window_s", "count_s", "night_step_s",
]  # fmt: skip
seconds = st.one_of(
    st.sampled_from([0, 0.1, 1, 2, 30, 60, 86_400]), st.floats(0.1, 120), st.integers(1, 90)
)


@st.composite
def rulesets(draw: st.DrawFn) -> dict[str, object]:
    """A ruleset within the limits, of random teams, roles, night steps,
    offences, ladder and timings: most load, and then must play."""
    ids = [f"t{n}" for n in range(draw(st.integers(1, 4)))]
    teams = {
        team: {"name": team, "color": draw(st.sampled_from(["red", "black", "grey"])),
               "win": draw(st.sampled_from(["eliminate", "parity"]))}
        for team in ids
    }  # fmt: skip
    role_ids = [f"r{n}" for n in range(draw(st.integers(1, 6)))]
    roles = {role: {"name": role, "team": draw(st.sampled_from(ids))} for role in role_ids}
    low = draw(st.integers(2, 8))
    high = draw(st.integers(low, 20))
    some_roles = st.lists(st.sampled_from(role_ids), min_size=1, max_size=3, unique=True)
    night = []
    for n in range(draw(st.integers(1, 4))):
        action = draw(st.sampled_from(ACTIONS))
        step: dict[str, object] = {"id": f"s{n}", "cue": f"c{n}", "action": action}
        step["roles"] = draw(some_roles)
        step["seconds"] = draw(st.one_of(st.floats(0.1, 60), st.just(0.1)))
        step["from_night"] = draw(st.integers(1, 3))
        if action == "check":
            colors = sorted({str(t["color"]) for t in teams.values()})
            step["reveals"] = draw(
                st.sampled_from([f"role:{r}" for r in role_ids] + [f"color:{c}" for c in colors])
            )
        night.append(step)
    offences = {}
    for n in range(draw(st.integers(1, 4))):
        cost = draw(st.sampled_from(COSTS))
        offence: dict[str, object] = {"clause": f"{n}", "text": "x", "cost": cost}
        if cost == "team_loss" and draw(st.booleans()):
            offence["teams_lose"] = draw(st.lists(st.sampled_from(ids), min_size=1, unique=True))
        if draw(st.booleans()):
            offence["exempt_roles"] = draw(some_roles)
        offence["while_out"] = draw(st.booleans())
        if draw(st.booleans()):
            offence["team_loss_when_alive"] = draw(st.integers(1, high))
        offences[f"o{n}"] = offence
    ats = sorted(draw(st.lists(st.integers(1, 20), min_size=1, max_size=4, unique=True)))
    steps = [
        {"at": at, "clause": "l", "removal": draw(st.booleans()),
         "loses": draw(st.lists(st.sampled_from(["speech", "nomination", "vote"]), unique=True)),
         "bites": draw(st.sampled_from(["next_day", "this_round_or_next"]))}
        for at in ats
    ]  # fmt: skip
    ruleset: dict[str, object] = {
        "name": "parts", "title": "Parts", "source": "fuzz",
        "seats": {"min": low, "max": high},
        "best_move": draw(st.booleans()), "draw_when_empty": draw(st.booleans()),
        "timings": {key: draw(seconds) for key in TIMINGS if draw(st.booleans())},
        "voting": {
            "removed_nominee_stays": draw(st.booleans()),
            "day1_single_nominee_no_vote": draw(st.booleans()),
            "self_vote_offence": draw(st.sampled_from(sorted(offences))),
        },
        "ladder": {"unit": "foul", "reset_after_night": draw(st.booleans()), "steps": steps},
        "teams": teams, "roles": roles, "night": night, "offences": offences,
    }  # fmt: skip
    if draw(st.booleans()):
        ruleset["night0"] = [{"id": "zero", "cue": "z", "roles": [], "action": "none"}]
    if draw(st.booleans()):
        ruleset["miss_rule"] = {
            "alive": draw(st.integers(1, high)), "nights": draw(st.integers(1, 3)),
            "winner": draw(st.sampled_from(ids)), "clause": "m",
        }  # fmt: skip
    if draw(st.booleans()):
        counts = draw(st.lists(st.sampled_from(role_ids), min_size=low, max_size=low))
        ruleset["deals"] = {str(low): {role: counts.count(role) for role in set(counts)}}
    return ruleset


# --- mutations of the shipped files ---------------------------------------------

_KEY_LINE = re.compile(rb"^(\s*[A-Za-z0-9_.\"'-]+\s*=\s*)(.*)$")
_TOKEN = re.compile(rb'-?[0-9][0-9_.eE+-]*|"[^"\n]*"|true|false')
#: A value like the one it replaces, so that more mutants load and play.
numbers = st.one_of(st.sampled_from(EDGE_INTS), st.sampled_from(EDGE_FLOATS), st.integers(-2, 120))
words = st.one_of(st.sampled_from(WORDS), st.sampled_from(KEYS))


def similar(token: bytes) -> st.SearchStrategy[object]:
    if token[:1] == b'"':
        like: st.SearchStrategy[object] = words
    elif token in (b"true", b"false"):
        like = st.booleans()
    else:
        like = numbers
    return st.one_of(like, like, like, scalars)


@st.composite
def deep(draw: st.DrawFn) -> bytes:
    depth = draw(st.sampled_from([15, 16, 17, 40, 300, 600, 5000]))
    if draw(st.booleans()):
        return b"[" * depth + b"]" * depth
    return b"{a = " * depth + b"1" + b" }" * depth


@st.composite
def mutated(draw: st.DrawFn, original: bytes) -> bytes:
    lines = original.split(b"\n")
    for _ in range(draw(st.integers(1, 3))):
        operation = draw(
            st.sampled_from(
                ["value", "token", "token", "token", "delete", "duplicate", "flip", "deep"]
            )
        )
        at = draw(st.integers(0, len(lines) - 1))
        if operation in ("value", "deep"):
            candidates = [n for n, line in enumerate(lines) if _KEY_LINE.match(line)]
            at = candidates[draw(st.integers(0, len(candidates) - 1))]
            head = _KEY_LINE.match(lines[at])
            assert head is not None
            new = draw(deep()) if operation == "deep" else toml_value(draw(values)).encode()
            lines[at] = head.group(1) + new
        elif operation == "token":
            tokens = list(_TOKEN.finditer(lines[at]))
            if tokens:
                token = tokens[draw(st.integers(0, len(tokens) - 1))]
                new = toml_value(draw(similar(token.group()))).encode()
                lines[at] = lines[at][: token.start()] + new + lines[at][token.end() :]
        elif operation == "delete":
            del lines[at]
        elif operation == "duplicate":
            lines.insert(at, lines[at])
        else:
            data = bytearray(b"\n".join(lines))
            for _ in range(draw(st.integers(1, 4))):
                where = draw(st.integers(0, len(data) - 1))
                data[where] ^= draw(st.integers(1, 255))
            lines = bytes(data).split(b"\n")
    return b"\n".join(lines)


# --- the tests ------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(KINDS))
@FUZZ
@given(data=st.binary(max_size=400))
def test_random_bytes(folder: Path, kind: str, data: bytes) -> None:
    load(KINDS[kind], data, folder)


@pytest.mark.parametrize("kind", sorted(KINDS))
@FUZZ
@given(document=documents)
def test_random_documents(folder: Path, kind: str, document: dict[str, object]) -> None:
    load(KINDS[kind], toml_document(document).encode(), folder)


@settings(FUZZ, max_examples=examples(150))
@given(ruleset=rulesets(), seed=st.integers(0, 2**32))
def test_rulesets_from_parts(folder: Path, ruleset: dict[str, object], seed: int) -> None:
    load(KINDS["ruleset"], toml_document(ruleset).encode(), folder, "parts.toml", seed)


@pytest.mark.parametrize("path", sorted(SHIPPED))
@settings(FUZZ, max_examples=examples(150))
@given(data=st.data())
def test_mutated_shipped_files(folder: Path, path: str, data: st.DataObject) -> None:
    text = data.draw(mutated(TEXTS[path]), label="file")
    seed = data.draw(st.integers(0, 2**32), label="seed")
    load(KINDS[SHIPPED[path]], text, folder, Path(path).name, seed)


@pytest.mark.parametrize("path", sorted(SHIPPED))
def test_the_shipped_files_load_and_play(folder: Path, path: str) -> None:
    assert load(KINDS[SHIPPED[path]], TEXTS[path], folder, Path(path).name) is not None


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize(
    "text",
    [
        b"a = " + b"[" * 5000 + b"]" * 5000,
        b"a = " + b"{b = " * 5000 + b"1" + b" }" * 5000,
        b"a." * 5000 + b"b = 1",
        b"[" + b"a." * 5000 + b"b]",
        b"a = " + b"9" * 5000,
        b"a = 0x" + b"f" * 5000,
        b"\xff\xfe",
        b"x" * (1 << 21),
        b"a = '" + b"x" * 1_000_000 + b"'",
    ],
    ids=[
        "arrays",
        "inline-tables",
        "dotted-keys",
        "header",
        "digits",
        "hex",
        "bytes",
        "big",
        "string",
    ],
)
def test_known_troublemakers(folder: Path, kind: str, text: bytes) -> None:
    assert load(KINDS[kind], text, folder) is None
