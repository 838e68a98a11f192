"""The club's configuration: one TOML file, every value with a default.

The file is ``config.toml`` in the platform's config folder (on Linux
``~/.config/companion/config.toml``, or under ``$XDG_CONFIG_HOME``); the
environment variable ``COMPANION_CONFIG`` names another file (tests and the
service use it). A missing file means all defaults. Reading it
(``load.load_config``) refuses unknown keys,
wrong types and values out of range, each in one line naming the file, the
line and the key. docs/config.md lists every key.

This module holds the values and where they live; it imports nothing heavy
(the console and the command line read it before anything else).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import platformdirs

from ..paths import PROJECT
from ..textfiles.toml_table import DataFileError

APP = "companion"
ENV_VAR = "COMPANION_CONFIG"
#: The pin map the seats use unless the config names another.
SHIPPED_PIN_MAP = PROJECT / "hardware" / "default.toml"
#: Where the board names itself (the device tree; absent on a PC).
MODEL_FILE = Path("/proc/device-tree/model")

Lang = Literal["ru", "en"]
SeatsMode = Literal["auto", "gpio", "simulated"]


class ConfigError(DataFileError):
    """A config file that cannot be used; ``str()`` is one line naming the
    file, the line and the key."""


def _data_dir() -> Path:
    # appauthor=False: no vendor folder on Windows; roaming is irrelevant on a Pi
    return platformdirs.user_data_path(APP, appauthor=False)


@dataclass(frozen=True, slots=True)
class TableConfig:
    ruleset: str = "tournament"  # a name in rulesets/ or a path to a .toml file
    seats: int = 10


@dataclass(frozen=True, slots=True)
class SeatsConfig:
    mode: SeatsMode = "auto"  # auto: gpio on a Raspberry Pi, simulated elsewhere
    pin_map: Path = SHIPPED_PIN_MAP

    def effective_mode(self, model_file: Path = MODEL_FILE) -> Literal["gpio", "simulated"]:
        """``gpio`` or ``simulated``: what ``auto`` means on this machine."""
        if self.mode != "auto":
            return self.mode
        return "gpio" if is_raspberry_pi(model_file) else "simulated"


@dataclass(frozen=True, slots=True)
class VoiceConfig:
    """The same names and defaults as ``voice.settings.VoiceSettings`` (its
    ``lang`` is the config's top-level ``lang``); a test holds them equal."""

    voice: str | None = None  # espeak-ng voice; default: the language
    rate: int = 165
    pack: Path | None = None
    device: str | None = None  # a PortAudio device index or part of its name
    captions_only: bool = False
    latency: str = "normal"  # the sound device's buffer: "normal" (~0.1 s) or "low" (~23 ms)
    #: a second, small-buffered stream for the answers to inputs (docs/voice.md, "Two lanes")
    quick: bool = True


@dataclass(frozen=True, slots=True)
class MicrophoneConfig:
    """The ears (docs/listening.md): off unless ``listen``."""

    listen: bool = False
    device: str | None = None  # a PortAudio index or part of its name; None: the default
    layout: str = "single"  # single | channels | array
    channels: int = 1  # the card's input channels (channels: one per seat; array: its mics)
    detector: str = "silero-whisper"  # ears.detect.DETECTORS (docs/config.md)
    calibration: Path | None = None  # the array's seat calibration (companion calibrate)
    words_model: str | None = None  # a vosk model for forbidden words (companion models fetch)
    words_threshold: float = 0.8  # the recogniser's confidence a forbidden word needs
    above_room_db: float = 11.0  # how far a voice must stand above the room (detect.LIFT_DB)


@dataclass(frozen=True, slots=True)
class PathsConfig:
    journals: Path = field(default_factory=lambda: _data_dir() / "journals")
    games: Path = field(default_factory=lambda: _data_dir() / "games")
    roster: Path = field(default_factory=lambda: _data_dir() / "roster.toml")


@dataclass(frozen=True, slots=True)
class HallConfig:
    """The tournament hall's broker (docs/hall.md): off unless ``host`` is
    set. ``companion hall add-table N`` prints these lines for table N."""

    host: str | None = None  # the hall's broker; None: this table is no hall's
    port: int = 1883
    user: str | None = None
    password: str | None = None
    event: str | None = None  # the event's topic name (``mafia/<event>/...``)
    table: int | None = None  # this table's number in the hall
    tls_ca: Path | None = None  # the hall's CA certificate: TLS to the broker

    @property
    def enabled(self) -> bool:
        return self.host is not None


@dataclass(frozen=True, slots=True)
class Config:
    """The effective configuration. ``source``: the file it was read from
    (None: defaults only); ``from_file``: the dotted keys the file set."""

    lang: Lang = "ru"
    table: TableConfig = field(default_factory=TableConfig)
    seats: SeatsConfig = field(default_factory=SeatsConfig)
    voice: VoiceConfig = field(default_factory=VoiceConfig)
    microphone: MicrophoneConfig = field(default_factory=MicrophoneConfig)
    paths: PathsConfig = field(default_factory=PathsConfig)
    hall: HallConfig = field(default_factory=HallConfig)
    source: Path | None = None
    from_file: frozenset[str] = frozenset()


def config_path() -> Path:
    """The config file: ``$COMPANION_CONFIG`` if set, else ``config.toml``
    in the platform's config folder. It need not exist."""
    override = os.environ.get(ENV_VAR)
    if override:
        return Path(override).expanduser()
    return platformdirs.user_config_path(APP, appauthor=False) / "config.toml"


def is_raspberry_pi(model_file: Path = MODEL_FILE) -> bool:
    """True on a Raspberry Pi: its device tree names the model ("Raspberry Pi
    5 Model B Rev 1.0"). Any failure to read it means "not a Pi"."""
    try:
        with model_file.open("rb") as stream:
            model = stream.read(256)
    except (OSError, ValueError):
        return False
    return model.rstrip(b"\0\n").startswith(b"Raspberry Pi")
