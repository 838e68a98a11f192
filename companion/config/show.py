"""The effective config as TOML (``companion config show``): every value,
defaults included, each marked with where it came from. The text reads back
as the same config, so it can be saved as a starting file, but for a
secret (the hall's password): shown on a screen or pasted into a message it
would be out, so only a comment says it is set and where to find it."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

from .load import SECTIONS
from .values import Config, is_raspberry_pi

#: What an unset (None) value means, shown beside the commented-out key.
_UNSET = {
    "voice.voice": "the language's espeak-ng voice",
    "voice.pack": "no recorded voice pack: the synthetic voice",
    "voice.device": "the system's sound output",
    "microphone.device": "the system's microphone",
    "microphone.words_model": "no model: forbidden words are not listened for",
    "microphone.calibration": "array-calibration.json in the club's data folder, as companion calibrate saves it",
}
#: never printed: a comment says the value is set (the file holds it)
SECRETS = frozenset({"hall.password"})


def toml_string(text: str) -> str:
    """A TOML basic string. JSON's escapes are TOML's; DEL is the one
    control character JSON leaves raw and TOML does not allow."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return toml_string(str(value))  # strings and paths


def config_toml(config: Config, path: Path, model_file: Path | None = None) -> str:
    """`config` as TOML, with a header naming `path` and whether it exists."""
    exists = config.source is not None
    state = "read" if exists else "not found: every value below is a default"
    lines = [
        f"# companion config: {path} ({state})",
        '# "file": the file set the value; "default": it did not.',
    ]

    def entry(key: str, value: object, note: str = "") -> None:
        origin = "file" if key in config.from_file else "default"
        name = key.rpartition(".")[2]
        extra = f"; {note}" if note else ""
        if value is None:
            lines.append(f"# {name} = ...  # {origin}: not set ({_UNSET.get(key, 'none')})")
        elif key in SECRETS:
            lines.append(f"# {name} = ...  # {origin}: set, not shown (it is in {path})")
        else:
            lines.append(f"{name} = {_value(value)}  # {origin}{extra}")

    entry("lang", config.lang)
    for section, keys in SECTIONS.items():
        if keys is None:
            continue
        if section == "hall" and not config.hall.enabled:  # all or nothing: no host, no hall
            lines += ["", "# [hall]  # default: not set (no tournament hall; docs/hall.md)"]
            continue
        lines += ["", f"[{section}]"]
        values = getattr(config, section)
        assert [f.name for f in fields(values)] == list(keys), section
        for key in keys:
            note = ""
            if section == "seats" and key == "mode" and values.mode == "auto":
                pi = is_raspberry_pi() if model_file is None else is_raspberry_pi(model_file)
                note = "gpio here (a Raspberry Pi)" if pi else "simulated here (not a Raspberry Pi)"
            entry(f"{section}.{key}", getattr(values, key), note)
    return "\n".join(lines) + "\n"


def config_command(action: str) -> None:
    """``companion config path|show``. A bad file raises ConfigError (the
    command line prints its one line and exits with status 2)."""
    from .load import load_config
    from .values import config_path

    path = config_path()
    if action == "path":
        print(path)  # whether or not it exists: where to write one
    else:
        print(config_toml(load_config(path), path), end="")
