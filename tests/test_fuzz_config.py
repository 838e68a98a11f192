"""Fuzzing the config file and the roster (issue 9), as tests/test_fuzz_files.py
fuzzes rulesets: random bytes, random TOML documents with the config's own
keys and edge values (huge integers, nan, control characters, ``~``, long
strings, nested tables), mutated ``config show`` output, and brackets nested
thousands deep.

A config ends as a valid :class:`Config` (within its bounds, and ``config
show`` of it reads back as the same config) or as a ConfigError whose
``str()`` is one line naming the file; never a traceback. A roster ends as a
Roster, with at most one warning line. Derandomized: the same cases each run.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from pathlib import Path

import pytest
from helpers import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.club.roster import MAX_NAME_CHARS, Roster, load_roster
from companion.config.load import MAX_RATE, MIN_RATE, SECTIONS, load_config, parse_config
from companion.config.show import config_toml
from companion.config.values import Config, ConfigError
from companion.core.ruleset_load import MAX_SEATS, MIN_SEATS

LONGEST_ERROR = 700
FUZZ = settings(
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz-config")


def check_config(data: bytes, folder: Path) -> Config | None:
    path = folder / "config.toml"
    path.write_bytes(data)
    try:
        config = load_config(path)
    except ConfigError as error:
        message = str(error)
        assert len(message.splitlines()) == 1, message[:LONGEST_ERROR]
        assert "config.toml" in message and len(message) <= LONGEST_ERROR, message
        return None
    assert MIN_SEATS <= config.table.seats <= MAX_SEATS
    assert MIN_RATE <= config.voice.rate <= MAX_RATE
    assert config.lang in ("ru", "en")
    assert all(p.is_absolute() for p in dataclasses.astuple(config.paths))
    shown = config_toml(config, path, model_file=folder / "no-model")
    again = parse_config(shown, "shown", folder)
    assert dataclasses.replace(again, from_file=frozenset()) == dataclasses.replace(
        config, source=None, from_file=frozenset()
    )
    return config


def check_roster(data: bytes, folder: Path) -> None:
    path = folder / "roster.toml"
    path.write_bytes(data)
    said: list[str] = []
    roster = load_roster(path, said.append)
    assert isinstance(roster, Roster)
    assert len(said) <= 1 and all(len(line.splitlines()) == 1 for line in said)
    assert all(0 < len(p.name) <= MAX_NAME_CHARS for p in roster.players)


# --- random TOML ------------------------------------------------------------------

_BARE = re.compile(r"[A-Za-z0-9_-]+\Z")
KEYS = sorted({*SECTIONS, *(k for keys in SECTIONS.values() if keys for k in keys), "players"})
EDGE = [0, -1, 1, 2, 10, 40, 41, 79, 80, 450, 451, 1024, 1025, 2**63, 10**400]
WORDS = ["ru", "en", "auto", "gpio", "simulated", "tournament", "club", "default", "twelve"]
WORDS += ["~", "~/x", "~nobody/x", "", " ", "a\u0000b", "a\nb", "x" * 100_000, "/", "."]
WORDS += ["../rulesets/club.toml", "ru+f3", "pulse", "Анна", "\u200b"]
texts = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=30)
scalars = st.one_of(
    st.sampled_from(EDGE),
    st.integers(),
    st.sampled_from([0.0, 1.5, 1e308, math.nan, math.inf, -math.inf]),
    st.floats(),
    st.booleans(),
    st.sampled_from(WORDS),
    texts,
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(KEYS), texts), inner, max_size=4),
    ),
    max_leaves=12,
)


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
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    assert isinstance(value, dict)
    return "{ " + ", ".join(f"{key(k)} = {toml_value(v)}" for k, v in value.items()) + " }"


def key(name: str) -> str:
    return name if _BARE.match(name) else toml_value(name)


@st.composite
def documents(draw: st.DrawFn) -> bytes:
    """Mostly the config's own sections and keys, so the checks past the
    first are reached; sometimes anything."""
    lines: list[str] = []
    if draw(st.booleans()):
        lines.append(f"lang = {toml_value(draw(st.one_of(st.sampled_from(WORDS), scalars)))}")
    for section in draw(st.lists(st.sampled_from(KEYS), max_size=4, unique=True)):
        lines.append(f"[{key(section)}]")
        own = SECTIONS.get(section) or tuple(KEYS)
        names = st.one_of(st.sampled_from(own), st.sampled_from(own), texts)
        for name in draw(st.lists(names, max_size=4, unique=True)):
            lines.append(f"{key(name)} = {toml_value(draw(values))}")
    return ("\n".join(lines) + "\n").encode()


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """The shown default config, with a value, a line or some bytes changed."""
    lines = config_toml(Config(), Path("x")).encode().split(b"\n")
    at = draw(st.integers(0, len(lines) - 1))
    operation = draw(st.sampled_from(["value", "value", "delete", "duplicate", "flip", "deep"]))
    if operation in ("value", "deep"):
        head = lines[at].partition(b" = ")[0]
        depth = draw(st.sampled_from([15, 17, 300, 5000]))
        new = b"[" * depth + b"]" * depth if operation == "deep" else toml_value(draw(values))
        lines[at] = head.lstrip(b"# ") + b" = " + (new if isinstance(new, bytes) else new.encode())
    elif operation == "delete":
        del lines[at]
    elif operation == "duplicate":
        lines.insert(at, lines[at])
    else:
        data = bytearray(b"\n".join(lines))
        for _ in range(draw(st.integers(1, 4))):
            data[draw(st.integers(0, len(data) - 1))] ^= draw(st.integers(1, 255))
        return bytes(data)
    return b"\n".join(lines)


# --- the tests ----------------------------------------------------------------------


@FUZZ
@given(data=st.binary(max_size=400))
def test_random_bytes(folder: Path, data: bytes) -> None:
    check_config(data, folder)
    check_roster(data, folder)


@settings(FUZZ, max_examples=examples(300))
@given(data=documents())
def test_random_documents(folder: Path, data: bytes) -> None:
    check_config(data, folder)


@settings(FUZZ, max_examples=examples(200))
@given(data=mutated())
def test_mutated_shown_config(folder: Path, data: bytes) -> None:
    check_config(data, folder)


@FUZZ
@given(players=st.lists(st.dictionaries(st.sampled_from(["name", "games", "last"]), values)))
def test_random_rosters(folder: Path, players: list[dict[str, object]]) -> None:
    check_roster(f"players = {toml_value(players)}\n".encode(), folder)


def test_some_documents_load(folder: Path) -> None:
    """The fuzzing reaches past the first check: a valid document loads."""
    assert check_config(b'lang = "en"\n[table]\nseats = 12\n', folder) is not None
    assert check_config(config_toml(Config(), Path("x")).encode(), folder) == Config(
        source=folder / "config.toml",
        from_file=frozenset({"lang", *(f"{s}.{k}" for s, ks in SECTIONS.items() if ks for k in ks)})
        - {"voice.voice", "voice.pack", "voice.device", "microphone.device"}
        - {"microphone.calibration", "microphone.words_model"}  # unset: shown commented out
        - {f"hall.{k}" for k in SECTIONS["hall"] or ()},  # no hall: [hall] commented out
    )


@pytest.mark.parametrize(
    "text",
    [
        b"lang = " + b"[" * 5000 + b"]" * 5000,
        b"[table]\nseats = " + b"{a = " * 5000 + b"1" + b" }" * 5000,
        b"a." * 5000 + b"b = 1",
        b"[table]\nseats = " + b"9" * 5000,
        b"[voice]\nrate = 0x" + b"f" * 5000,
        b"\xff\xfe",
        b"x" * (1 << 21),
        b"[paths]\ngames = '" + b"x" * 1_000_000 + b"'",
    ],
    ids=["arrays", "inline-tables", "dotted-keys", "digits", "hex", "bytes", "big", "string"],
)
def test_known_troublemakers(folder: Path, text: bytes) -> None:
    assert check_config(text, folder) is None
    check_roster(text, folder)
