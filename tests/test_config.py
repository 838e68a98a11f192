"""The club's config file (issue 9): defaults for every value, one-line
errors naming file, line and key, ``COMPANION_CONFIG``, the Pi check, and
``companion config path|show`` run as a user runs them."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

from companion.config.load import load_config, parse_config
from companion.config.show import config_toml
from companion.config.values import (
    ENV_VAR,
    SHIPPED_PIN_MAP,
    Config,
    ConfigError,
    SeatsConfig,
    VoiceConfig,
    config_path,
    is_raspberry_pi,
)
from companion.voice.settings import VoiceSettings


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private home: platformdirs' folders and ``~`` point into tmp_path."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "cfg"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.delenv(ENV_VAR, raising=False)
    return home


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def refusal(tmp_path: Path, text: str) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path, text))
    message = str(caught.value)
    assert len(message.splitlines()) == 1, message
    return message


# --- where the file is ------------------------------------------------------------


def test_the_file_is_in_the_platforms_config_folder(home: Path) -> None:
    assert config_path() == home / "cfg" / "companion" / "config.toml"


def test_the_environment_names_another_file(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, "~/club.toml")
    assert config_path() == home / "club.toml"


def test_a_missing_file_is_all_defaults(home: Path) -> None:
    config = load_config(home / "nothing-here.toml")
    assert config == Config()
    assert config.source is None and not config.from_file
    assert config.table.ruleset == "tournament" and config.table.seats == 10
    assert config.seats == SeatsConfig("auto", SHIPPED_PIN_MAP)
    assert config.paths.journals == home / "data" / "companion" / "journals"
    assert config.paths.roster == home / "data" / "companion" / "roster.toml"


def test_the_voice_mirrors_voice_settings() -> None:
    """The lead builds VoiceSettings from [voice]: same names, same defaults."""
    ours = {f.name: getattr(VoiceConfig(), f.name) for f in dataclasses.fields(VoiceConfig)}
    theirs = {f.name: getattr(VoiceSettings(), f.name) for f in dataclasses.fields(VoiceSettings)}
    assert ours == {name: value for name, value in theirs.items() if name != "lang"}
    assert Config().lang == VoiceSettings().lang
    voice = VoiceConfig("ru+f3", 200, Path("/pack"), "3", True)
    settings = VoiceSettings(lang="en", **dataclasses.asdict(voice))  # how the console builds it
    assert settings == VoiceSettings("en", "ru+f3", 200, Path("/pack"), "3", True)


# --- values -----------------------------------------------------------------------


def test_every_key_read(home: Path, tmp_path: Path) -> None:
    (tmp_path / "pack").mkdir()
    path = write(
        tmp_path,
        """lang = "en"
[table]
ruleset = "club"
seats = 12
[seats]
mode = "gpio"
pin_map = "twelve"
[voice]
voice = "en+f3"
rate = 200
pack = "pack"
device = 3
captions_only = true
[microphone]
device = "USB Audio"
above_room_db = 8.5
[paths]
journals = "~/journals"
games = "/srv/games"
roster = "club/roster.toml"
""",
    )
    config = load_config(path)
    assert config.lang == "en"
    assert (config.table.ruleset, config.table.seats) == ("club", 12)
    assert config.seats == SeatsConfig("gpio", ROOT / "hardware" / "twelve.toml")
    assert config.voice == VoiceConfig("en+f3", 200, tmp_path / "pack", "3", True)
    assert config.microphone.device == "USB Audio"
    assert config.microphone.above_room_db == 8.5
    assert config.paths.journals == home / "journals"  # ~ is the home
    assert config.paths.games == Path("/srv/games")
    assert config.paths.roster == tmp_path / "club" / "roster.toml"  # beside the file
    assert config.source == path
    assert "table.seats" in config.from_file and "table.ruleset" in config.from_file
    assert "lang" in config.from_file


def test_a_ruleset_and_a_pin_map_by_path(tmp_path: Path) -> None:
    config = load_config(
        write(
            tmp_path,
            f'[table]\nruleset = "{ROOT}/rulesets/club.toml"\n'
            f'[seats]\npin_map = "{ROOT}/hardware/default.toml"\n',
        )
    )
    assert config.table.ruleset == str(ROOT / "rulesets" / "club.toml")
    assert config.seats.pin_map == SHIPPED_PIN_MAP


#: (what, the file, bits the one line must hold: the line and the key first)
BAD = [
    ("unknown top key", 'lang = "ru"\nlanguage = "en"\n', ["config.toml:2", "language", "lang,"]),
    ("unknown key", "[voice]\n\nrte = 3\n", ["config.toml:3", "voice.rte", "did you mean 'rate'"]),
    ("allowed listed", "[paths]\nlogs = '/x'\n", ["paths.logs", "journals, games, roster"]),
    ("unknown section", "[sound]\nx = 1\n", [":1", "sound", "table, seats"]),
    ("section as value", 'voice = "ru"\n', [":1", "voice", "expected a table [voice]"]),
    ("wrong type", '[table]\nseats = "ten"\n', [":2", "table.seats", "expected an integer"]),
    ("bool for int", "[table]\nseats = true\n", ["table.seats", "expected an integer"]),
    ("too few seats", "[table]\nseats = 1\n", ["table.seats", "at least 2"]),
    ("too many seats", "[table]\nseats = 99\n", ["table.seats", "at most 40"]),
    ("huge number", f"[table]\nseats = {10**30}\n", ["table.seats", "at most 40"]),
    ("float seats", "[table]\nseats = 10.0\n", ["table.seats", "expected an integer"]),
    ("bad lang", 'lang = "de"\n', [":1", "lang", "ru, en"]),
    ("bad mode", '[seats]\nmode = "gpi"\n', [":2", "seats.mode", "auto, gpio, simulated"]),
    ("slow rate", "[voice]\nrate = 20\n", ["voice.rate", "at least 80"]),
    ("fast rate", "[voice]\nrate = 1000\n", ["voice.rate", "at most 450"]),
    ("voice with space", '[voice]\nvoice = "ru f3"\n', ["voice.voice", "like ru or ru+f3"]),
    ("empty voice", '[voice]\nvoice = ""\n', ["voice.voice", "leave the key out"]),
    ("caption text", '[voice]\ncaptions_only = "yes"\n', ["voice.captions_only", "true or false"]),
    ("device index", "[voice]\ndevice = -1\n", ["voice.device", "0 to 1024"]),
    ("latency", '[voice]\nlatency = "fast"\n', ["voice.latency", "normal", "low"]),
    ("device float", "[microphone]\ndevice = 1.5\n", ["microphone.device", "name or index"]),
    (
        "room lift",
        "[microphone]\nabove_room_db = 45\n",
        ["microphone.above_room_db", "from 0 to 30"],
    ),
    ("no ruleset", '[table]\nruleset = "street"\n', ["table.ruleset", "known: club"]),
    ("no ruleset file", '[table]\nruleset = "x/y.toml"\n', ["table.ruleset", "no such ruleset"]),
    ("no pin map", '[seats]\npin_map = "thirteen"\n', ["seats.pin_map", "no such pin map"]),
    ("no pack", '[voice]\npack = "nowhere"\n', ["voice.pack", "no such voice pack folder"]),
    ("control char", '[paths]\ngames = "a\\u0000b"\n', ["paths.games", "control character"]),
    ("no such user", '[paths]\ngames = "~nobody-xyz/g"\n', ["paths.games", "home folder"]),
    ("long path", f'[paths]\ngames = "{"a" * 5000}"\n', ["paths.games", "at most 4096"]),
    ("syntax", "[table\nseats = 3\n", ["config.toml:1", "invalid TOML"]),
    ("duplicate", "[table]\nseats = 3\nseats = 4\n", ["config.toml:3", "invalid TOML"]),
]


@pytest.mark.parametrize(("text", "bits"), [case[1:] for case in BAD], ids=[c[0] for c in BAD])
def test_bad_values_are_one_line(tmp_path: Path, text: str, bits: list[str]) -> None:
    message = refusal(tmp_path, text)
    for bit in bits:
        assert bit in message, message


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b'lang = "\xff"\n')
    with pytest.raises(ConfigError, match=r"config.toml:1: not UTF-8"):
        load_config(path)


def test_a_folder_or_an_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="is a folder"):
        load_config(tmp_path)
    path = write(tmp_path, 'lang = "ru"\n')
    path.chmod(0)
    if os.access(path, os.R_OK):  # root reads anything
        pytest.skip("running as root: every file is readable")
    with pytest.raises(ConfigError, match="cannot be read"):
        load_config(path)


# --- Raspberry Pi or not ------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "pi"),
    [
        (b"Raspberry Pi 5 Model B Rev 1.0\0", True),
        (b"Raspberry Pi 4 Model B Rev 1.4\0", True),
        (b"Raspberry Pi Compute Module 4", True),
        (b"Pine64 RockPro64\0", False),
        (b"", False),
        (b"\xff\xfe", False),
    ],
)
def test_is_raspberry_pi(tmp_path: Path, model: bytes, pi: bool) -> None:
    path = tmp_path / "model"
    path.write_bytes(model)
    assert is_raspberry_pi(path) is pi
    assert SeatsConfig("auto").effective_mode(path) == ("gpio" if pi else "simulated")
    assert SeatsConfig("simulated").effective_mode(path) == "simulated"
    assert SeatsConfig("gpio").effective_mode(path) == "gpio"


def test_no_device_tree_is_not_a_pi(tmp_path: Path) -> None:
    assert not is_raspberry_pi(tmp_path / "missing")
    assert not is_raspberry_pi(tmp_path)  # a folder


# --- show ---------------------------------------------------------------------------


def test_show_reads_back_as_the_same_config(home: Path, tmp_path: Path) -> None:
    path = write(tmp_path, '[table]\nseats = 12\n[voice]\ndevice = "pulse"\n')
    config = load_config(path)
    text = config_toml(config, path, model_file=tmp_path / "no-model")
    again = parse_config(text, "shown", tmp_path)
    assert dataclasses.replace(again, from_file=frozenset()) == dataclasses.replace(
        config, source=None, from_file=frozenset()
    )
    assert "seats = 12  # file" in text
    assert 'ruleset = "tournament"  # default' in text
    assert 'mode = "auto"  # default; simulated here (not a Raspberry Pi)' in text
    assert "# pack = ...  # default: not set" in text


# --- the command line, as a user runs it ---------------------------------------------


def companion(
    home: Path, *args: str, config: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != ENV_VAR and not k.startswith("XDG_")}
    env |= {"HOME": str(home), "XDG_CONFIG_HOME": str(home / "cfg")}
    env["XDG_DATA_HOME"] = str(home / "data")
    if config is not None:
        env[ENV_VAR] = str(config)
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=60,
    )


def test_cli_path(tmp_path: Path) -> None:
    run = companion(tmp_path, "config", "path")
    assert (run.returncode, run.stderr) == (0, "")
    assert run.stdout == f"{tmp_path / 'cfg' / 'companion' / 'config.toml'}\n"
    run = companion(tmp_path, "config", "path", config=tmp_path / "club.toml")
    assert run.stdout == f"{tmp_path / 'club.toml'}\n"


def test_cli_show_defaults_and_file(tmp_path: Path) -> None:
    run = companion(tmp_path, "config", "show")
    assert run.returncode == 0, run.stderr
    assert "not found: every value below is a default" in run.stdout
    assert f'journals = "{tmp_path / "data" / "companion" / "journals"}"  # default' in run.stdout
    config = tmp_path / "club.toml"
    config.write_text('lang = "en"\n[voice]\nrate = 180\n', encoding="utf-8")
    run = companion(tmp_path, "config", "show", config=config)
    assert run.returncode == 0, run.stderr
    assert 'lang = "en"  # file' in run.stdout and "rate = 180  # file" in run.stdout
    assert "seats = 10  # default" in run.stdout


def test_cli_show_bad_file(tmp_path: Path) -> None:
    config = tmp_path / "club.toml"
    config.write_text("[voice]\nrate = 1000\n", encoding="utf-8")
    run = companion(tmp_path, "config", "show", config=config)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == f"companion: {config}:2: voice.rate: must be at most 450, got 1000\n"
