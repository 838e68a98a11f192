"""``[hall]`` in the club's config (companion/config/load.py) and what a
table makes of it (companion/hall/settings.py)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from companion.config.load import load_config, parse_config
from companion.config.show import config_toml
from companion.config.values import ConfigError
from companion.hall.settings import OUTBOX, hall_settings

HALL = """
[hall]
host = "hall.local"
port = 8883
user = "table3"
password = "s3cret"
event = "cup-2026"
table = 3
"""


def test_no_hall_section_is_no_hall(tmp_path: Path) -> None:
    config = parse_config("lang = 'en'\n", "c.toml", tmp_path)
    assert not config.hall.enabled
    assert hall_settings(config) is None


def test_a_hall_section_read(tmp_path: Path) -> None:
    (tmp_path / "ca.crt").write_text("x")
    config = parse_config(HALL + 'tls_ca = "ca.crt"\n', "c.toml", tmp_path)
    hall = config.hall
    assert (hall.host, hall.port, hall.user, hall.password) == (
        "hall.local",
        8883,
        "table3",
        "s3cret",
    )
    assert (hall.event, hall.table, hall.tls_ca) == ("cup-2026", 3, tmp_path / "ca.crt")
    settings = hall_settings(config)
    assert settings is not None
    assert settings.broker.username == "table3" and settings.broker.tls_ca == tmp_path / "ca.crt"
    assert settings.outbox == config.paths.journals.parent / OUTBOX
    assert {f"hall.{k}" for k in ("host", "port", "event", "table")} <= config.from_file


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('[hall]\nhost = "h"\ntable = 1\n', "event"),
        ('[hall]\nhost = "h"\nevent = "cup/1"\ntable = 1\n', "event"),
        ('[hall]\nhost = "h"\nevent = "cup"\n', "table"),
        ('[hall]\nhost = "h"\nevent = "cup"\ntable = 0\n', "table"),
        ('[hall]\nevent = "cup"\ntable = 2\n', "host"),
        ('[hall]\nhost = "h"\nevent = "cup"\ntable = 2\nport = 70000\n', "port"),
        ('[hall]\nhost = "h"\nevent = "cup"\ntable = 2\ntls_ca = "none.crt"\n', "tls_ca"),
        ('[hall]\nhost = "h"\nevent = "cup"\ntable = 2\nprot = 1\n', "port"),
    ],
)
def test_a_bad_hall_section_is_one_line(tmp_path: Path, text: str, said: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert len(message.splitlines()) == 1 and "hall" in message and said in message, message


def test_config_show_reads_back(tmp_path: Path) -> None:
    config = parse_config(HALL, "c.toml", tmp_path)
    shown = config_toml(config, tmp_path / "c.toml")
    assert "[hall]" in shown
    again = parse_config(shown, "shown.toml", tmp_path)
    assert again.hall == dataclasses.replace(config.hall, password=None)


def test_config_show_hides_the_hall_password(tmp_path: Path) -> None:
    # printed on a screen or pasted to ask for help: the secret stays out
    config = parse_config(HALL, "c.toml", tmp_path)
    shown = config_toml(config, tmp_path / "c.toml")
    assert "s3cret" not in shown
    assert f"# password = ...  # file: set, not shown (it is in {tmp_path / 'c.toml'})" in shown
    assert 'user = "table3"  # file' in shown
