"""Reading the config file: TOML -> :class:`~companion.config.values.Config`.

Every refusal is a :class:`~companion.config.values.ConfigError`, one line naming
the file, the line and the key: bytes that are not UTF-8 TOML, an unknown
key (with the keys allowed there), a wrong type, a value out of range, a
ruleset, pin map or voice pack that does not exist. Relative paths are taken
from the config file's folder (a service's working folder is anyone's
guess); ``~`` is the user's home.
"""

from __future__ import annotations

import re
import stat
from collections.abc import Collection
from difflib import get_close_matches
from pathlib import Path
from typing import cast

from ..core.ruleset_load import MAX_SEATS, MIN_SEATS
from ..textfiles.toml_table import MAX_FILE_BYTES, Context, TomlTable, decode_toml, parse_toml, show
from .rulesets import available_rulesets
from .values import (
    SHIPPED_PIN_MAP,
    Config,
    ConfigError,
    HallConfig,
    Lang,
    MicrophoneConfig,
    PathsConfig,
    SeatsConfig,
    SeatsMode,
    TableConfig,
    VoiceConfig,
    config_path,
)

#: section -> its keys; None: a value at the top, not a table.
SECTIONS: dict[str, tuple[str, ...] | None] = {
    "lang": None,
    "table": ("ruleset", "seats"),
    "seats": ("mode", "pin_map"),
    "voice": ("voice", "rate", "pack", "device", "captions_only", "latency", "quick"),
    "microphone": (
        "listen",
        "device",
        "layout",
        "channels",
        "detector",
        "calibration",
        "words_model",
        "words_threshold",
        "above_room_db",
    ),
    "paths": ("journals", "games", "roster"),
    "hall": ("host", "port", "user", "password", "event", "table", "tls_ca"),
}
LANGS: tuple[Lang, ...] = ("ru", "en")
MODES: tuple[SeatsMode, ...] = ("auto", "gpio", "simulated")
LATENCIES = ("normal", "low")
MIC_LAYOUTS = ("single", "channels", "array")
# ears.detect's (the config sits below)
DETECTORS = ("webrtc", "silero", "both", "silero-whisper", "silero-whisper-strict")
MAX_CHANNELS = 32
#: espeak-ng's range, as ``voice.tts.TtsVoice`` checks it.
MIN_RATE, MAX_RATE = 80, 450
#: Longer than any real path or device name; keeps messages and files sane.
MAX_PATH_CHARS = 4096
MAX_NAME_CHARS = 200
MAX_DEVICE_INDEX = 1024
#: A shipped pin map or ruleset by name: hardware/NAME.toml, rulesets/NAME.toml.
_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}\Z")
_HARDWARE = SHIPPED_PIN_MAP.parent
#: an event's name as a topic level: no MQTT wildcard, no separator
_TOPIC_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}\Z")
MAX_TABLES = 999


def read_config(path: Path) -> Config:
    """The config in `path`; every default when there is no such file."""
    source = str(path)
    try:
        mode = path.stat().st_mode
        if stat.S_ISDIR(mode):
            raise ConfigError(source, None, None, "is a folder, not a config file")
        if not stat.S_ISREG(mode):  # a pipe would block the start-up
            raise ConfigError(source, None, None, "not a regular file")
        with path.open("rb") as stream:  # no more than the limit, whatever the file's size
            data = stream.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        return Config()
    except ConfigError:
        raise
    except OSError as error:
        raise ConfigError(source, None, None, f"cannot be read ({error.strerror})") from None
    except ValueError:  # a NUL in the name ($COMPANION_CONFIG)
        raise ConfigError(source, None, None, "not a usable file name") from None
    text = decode_toml(data, source, ConfigError)
    return parse_config(text, source, path.parent, path)


def parse_config(text: str, source: str, base: Path, path: Path | None = None) -> Config:
    """Config from TOML `text`; relative paths are taken from `base`."""
    data = parse_toml(text, source, ConfigError)
    return _Reader(Context(source, text, ConfigError), data, base).config(path)


class _Reader:
    def __init__(self, ctx: Context, data: dict[str, object], base: Path) -> None:
        self.ctx, self.base = ctx, base
        self.root = self._known(TomlTable(ctx, data, (), None), SECTIONS)

    def config(self, path: Path | None) -> Config:
        lang = cast(Lang, self.root.choice("lang", LANGS, "ru"))
        table = self._section("table")
        seats = self._section("seats")
        voice = self._section("voice")
        mic = self._section("microphone")
        paths = self._section("paths")
        hall = self._section("hall")
        defaults = PathsConfig()
        from_file = {key for key in self.root.data if SECTIONS[key] is None}
        for name in SECTIONS:
            if SECTIONS[name] is not None:
                from_file |= {f"{name}.{key}" for key in self._section(name).data}
        return Config(
            lang=lang,
            table=TableConfig(
                ruleset=self._ruleset(table),
                seats=table.int_("seats", 10, minimum=MIN_SEATS, maximum=MAX_SEATS),
            ),
            seats=SeatsConfig(
                mode=cast(SeatsMode, seats.choice("mode", MODES, "auto")),
                pin_map=self._pin_map(seats),
            ),
            voice=VoiceConfig(
                voice=self._voice(voice),
                rate=voice.int_("rate", 165, minimum=MIN_RATE, maximum=MAX_RATE),
                pack=self._folder(voice, "pack", "voice pack"),
                device=self._device(voice),
                captions_only=voice.bool_("captions_only", False),
                latency=voice.choice("latency", LATENCIES, "normal"),
                quick=voice.bool_("quick", True),
            ),
            microphone=MicrophoneConfig(
                listen=mic.bool_("listen", False),
                device=self._device(mic),
                layout=mic.choice("layout", MIC_LAYOUTS, "single"),
                channels=mic.int_("channels", 1, minimum=1, maximum=MAX_CHANNELS),
                detector=mic.choice("detector", DETECTORS, "silero-whisper"),
                calibration=self._path(mic, "calibration"),
                words_model=self._text(mic, "words_model", MAX_PATH_CHARS),
                words_threshold=mic.float_("words_threshold", 0.8, minimum=0.0, maximum=1.0),
                above_room_db=mic.float_("above_room_db", 11.0, minimum=0.0, maximum=30.0),
            ),
            paths=PathsConfig(
                journals=self._path(paths, "journals") or defaults.journals,
                games=self._path(paths, "games") or defaults.games,
                roster=self._path(paths, "roster") or defaults.roster,
            ),
            hall=self._hall(hall),
            source=path,
            from_file=frozenset(from_file),
        )

    # -- tables and keys ---------------------------------------------------------

    def _known(self, table: TomlTable, allowed: Collection[str]) -> TomlTable:
        """Refuse a key not in `allowed`, naming the ones that are."""
        for key in table.data:
            if key not in allowed:
                hint = get_close_matches(key, list(allowed), n=1) if len(key) <= 64 else []
                guess = f"did you mean '{hint[0]}'? " if hint else ""
                where = f"[{'.'.join(map(str, table.path))}]" if table.path else "the top"
                table.fail(key, f"unknown key; {guess}{where} takes {', '.join(allowed)}")
        return table

    def _section(self, name: str) -> TomlTable:
        allowed = SECTIONS[name]
        assert allowed is not None
        value = self.root.data.get(name, {})
        if not isinstance(value, dict):
            self.root.fail(name, f"expected a table [{name}], got {show(value)}")
        return self._known(TomlTable(self.ctx, value, (name,), None), allowed)

    # -- values ------------------------------------------------------------------

    def _text(self, table: TomlTable, key: str, limit: int) -> str | None:
        """A string that may be shown and used as a name: printable, not
        blank, at most `limit` characters."""
        value = table.opt_str(key)
        if value is None:
            return None
        if not value.strip():
            table.fail(key, "is empty: leave the key out for the default")
        if len(value) > limit:
            table.fail(key, f"at most {limit} characters, got {len(value)}")
        if not value.isprintable():
            table.fail(key, f"{show(value)} holds a control character")
        return value

    def _path(self, table: TomlTable, key: str) -> Path | None:
        text = self._text(table, key, MAX_PATH_CHARS)
        if text is None:
            return None
        try:
            path = Path(text).expanduser()
        except RuntimeError:  # "~nobody/x": no such user, or no home at all
            table.fail(key, f"{show(text)}: cannot tell which home folder '~' means")
        return path if path.is_absolute() else self.base / path

    def _folder(self, table: TomlTable, key: str, what: str) -> Path | None:
        path = self._path(table, key)
        if path is not None and not path.is_dir():
            table.fail(key, f"no such {what} folder: {show(str(path))}")
        return path

    def _hall(self, table: TomlTable) -> HallConfig:
        """[hall]: a host, then the event and the table's number are needed."""
        host = self._text(table, "host", 253)
        if host is None:
            if table.data:
                table.fail(next(iter(table.data)), "[hall] needs host (the hall's broker)")
            return HallConfig()
        event = self._text(table, "event", 64)
        if event is None or not _TOPIC_NAME.match(event):
            table.fail("event", "the event's name: letters, digits, - and _ (required)")
        ca = self._path(table, "tls_ca")
        if ca is not None and not ca.is_file():
            table.fail("tls_ca", f"no such CA certificate file: {show(str(ca))}")
        return HallConfig(
            host=host,
            port=table.int_("port", 1883, minimum=1, maximum=65535),
            user=self._text(table, "user", MAX_NAME_CHARS),
            password=self._text(table, "password", MAX_NAME_CHARS),
            event=event,
            table=table.int_("table", None, minimum=1, maximum=MAX_TABLES),
            tls_ca=ca,
        )

    def _ruleset(self, table: TomlTable) -> str:
        text = self._text(table, "ruleset", MAX_PATH_CHARS)
        if text is None:
            return "tournament"
        if _NAME.match(text):
            known = available_rulesets()
            if text not in known:
                table.fail("ruleset", f"no ruleset named {show(text)} (known: {', '.join(known)})")
            return text
        path = self._path(table, "ruleset")
        assert path is not None
        if path.suffix != ".toml" or not path.is_file():
            table.fail("ruleset", f"no such ruleset file: {show(str(path))}")
        return str(path)

    def _pin_map(self, table: TomlTable) -> Path:
        text = self._text(table, "pin_map", MAX_PATH_CHARS)
        if text is None:
            return SHIPPED_PIN_MAP
        if _NAME.match(text):  # a shipped map by name, as `companion selftest --pins`
            path = _HARDWARE / f"{text}.toml"
        else:
            path = self._path(table, "pin_map") or SHIPPED_PIN_MAP
        if not path.is_file():
            table.fail("pin_map", f"no such pin map file: {show(str(path))}")
        return path

    def _voice(self, table: TomlTable) -> str | None:
        voice = self._text(table, "voice", 64)
        if voice is not None and any(ch.isspace() for ch in voice):
            table.fail("voice", f"{show(voice)}: give an espeak-ng voice like ru or ru+f3")
        return voice

    def _device(self, table: TomlTable) -> str | None:
        """A sound device: an index (an integer, kept as its digits, as
        ``open_speaker`` takes it) or part of its name."""
        value = table.raw("device", required=False)
        if isinstance(value, int) and not isinstance(value, bool):
            if not 0 <= value <= MAX_DEVICE_INDEX:
                table.fail(
                    "device", f"a device index is 0 to {MAX_DEVICE_INDEX}, got {show(value)}"
                )
            return str(value)
        if value is not None and not isinstance(value, str):
            table.fail("device", f"expected a device name or index, got {show(value)}")
        return self._text(table, "device", MAX_NAME_CHARS)


def load_config(path: Path | None = None) -> Config:
    """The configuration from `path` (default: :func:`config_path`); all
    defaults when the file does not exist. A bad file raises ConfigError."""
    return read_config(config_path() if path is None else path)
