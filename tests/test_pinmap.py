"""Pin maps (issue 4): the shipped maps load; a bad map is refused in one
line naming the file, the line and the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.seats.pinmap import PinMapError, load_pinmap, parse_pinmap

SEATS = "\n".join(f"{n} = {{ button = {b}, led = {led} }}" for n, b, led in [(1, 4, 17), (2, 27, 22), (3, 5, 6)])  # fmt: skip


def parse(text: str) -> object:
    return parse_pinmap(text, "hw.toml")


def test_the_default_map_has_ten_seats_host_buttons_and_a_buzzer() -> None:
    pins = load_pinmap("default")
    assert [s.seat for s in pins.seats] == list(range(1, 11))
    assert pins.seat(1).button.pin == 4 and pins.seat(1).led == 17
    assert pins.seat(1).button.pull_up and pins.seat(1).button.bounce_s == 0.02
    assert {s.led_kind for s in pins.seats} == {"pwm"}
    assert sorted(pins.host) == ["next", "offence", "pause"]
    assert pins.buzzer == 18 and pins.stuck_s == 30
    used = [p for s in pins.seats for p in (s.button.pin, s.led)]
    used += [b.pin for b in pins.host.values()] + [pins.buzzer]
    assert len(used) == len(set(used)) == 24
    assert 14 not in used and 15 not in used  # the serial console stays free


def test_the_twelve_seat_map() -> None:
    pins = load_pinmap("twelve")
    assert len(pins.seats) == 12 and pins.host == {} and pins.buzzer is None


def test_per_seat_settings_and_host_buttons_in_both_forms() -> None:
    pins = parse_pinmap(
        "[defaults]\nled = 'onoff'\nbounce_ms = 5\n[seats]\n"
        + SEATS.replace("led = 6 }", "led = 6, led_kind = 'pwm', pull = 'down', bounce_ms = 50 }")
        + "\n[host]\nnext = 23\npause = { pin = 24, bounce_ms = 40 }\n",
        "hw.toml",
    )
    assert [s.led_kind for s in pins.seats] == ["onoff", "onoff", "pwm"]
    assert pins.seat(3).button.pull_up is False and pins.seat(3).button.bounce_s == 0.05
    assert pins.seat(1).button.bounce_s == 0.005
    assert pins.host["next"].pin == 23 and pins.host["pause"].bounce_s == 0.04


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "[seats]\n1 = { button = 4, led = 17 }\n2 = { button = 17, led = 22 }\n",
            r"^hw\.toml:3: seats\.2\.button: GPIO 17 is already used by seats\.1\.led$",
        ),
        (
            "[seats]\n1 = { button = 4, led = 31 }\n",
            r"^hw\.toml:2: seats\.1\.led: GPIO 31 is not on the 40-pin header \(BCM 2 to 27\)$",
        ),
        (
            "[seats]\n1 = { button = 1 }\n",
            r"^hw\.toml:2: seats\.1\.button: GPIO 1 is not on the 40-pin header",
        ),
        ("[seats]\n1 = { led = 17 }\n", r"^hw\.toml:2: seats\.1: a seat needs a button$"),
        (
            "[seats]\n1 = { button = 4 }\n3 = { button = 5 }\n",
            r"^hw\.toml:1: seats: seat 2 is missing \(seats are numbered 1 to N, no gaps\)$",
        ),
        ("[seats]\n13 = { button = 4 }\n", r"^hw\.toml:2: seats\.13: seats are numbered 1 to 12$"),
        (
            "[seats]\n1 = { button = 4, lde = 17 }\n",
            r"^hw\.toml:2: seats\.1\.lde: unknown key; did you mean 'led'\?$",
        ),
        (
            "[seats]\n1 = { button = 2, pull = 'down' }\n",
            r"^hw\.toml:2: seats\.1\.button: GPIO 2 has a fixed pull-up on the board",
        ),
        (
            "[defaults]\nled = 'rgb'\n[seats]\n1 = { button = 4 }\n",
            r"^hw\.toml:2: defaults\.led: 'rgb' is not one of pwm, onoff$",
        ),
        ("[seats]\n1 = { button = 4 \n", r"^hw\.toml:2: invalid TOML: "),
        ("[defaults]\n", r"^hw\.toml: seats: required key is missing$"),
        (
            "[seats]\n1 = { button = 4 }\n[host]\nnext = 4\n",
            r"^hw\.toml:4: host\.next\.pin: GPIO 4 is already used by seats\.1\.button$",
        ),
        (
            "[seats]\n1 = { button = 4 }\n[buzzer]\npin = 'x'\n",
            r"^hw\.toml:4: buzzer\.pin: expected an integer, got 'x'$",
        ),
        # limits: times, huge and odd numbers, seat keys int() would misread
        (
            "[defaults]\nbounce_ms = nan\n[seats]\n1 = { button = 4 }\n",
            r"^hw\.toml:2: defaults\.bounce_ms: must be from 0 to 1000 ms, got nan$",
        ),
        (
            "[seats]\n1 = { button = 4, bounce_ms = -inf }\n",
            r"^hw\.toml:2: seats\.1\.bounce_ms: must be from 0 to 1000 ms, got -inf$",
        ),
        (
            "[defaults]\nstuck_s = 0\n[seats]\n1 = { button = 4 }\n",
            r"^hw\.toml:2: defaults\.stuck_s: must be from 1 to 3600 s, got 0$",
        ),
        (
            f"[seats]\n1 = {{ button = 4, led = {10**30} }}\n",
            r"^hw\.toml:2: seats\.1\.led: an integer of 31 digits is not on the 40-pin header",
        ),
        (
            "[seats]\n1 = { button = -4 }\n",
            r"^hw\.toml:2: seats\.1\.button: GPIO -4 is not on the 40-pin header",
        ),
        (
            "[seats]\n1 = { button = 4.0 }\n",
            r"^hw\.toml:2: seats\.1\.button: expected an integer, got 4\.0$",
        ),
        ("[seats]\n01 = { button = 4 }\n", r"^hw\.toml:2: seats\.01: seats are numbered 1 to 12$"),
        (
            '[seats]\n"\u00b2" = { button = 4 }\n',
            r'^hw\.toml:2: seats\."²": seats are numbered 1 to 12$',
        ),
        (
            "[seats]\n1 = { button = " + "[" * 40 + "]" * 40 + " }\n",
            r"^hw\.toml:2: seats\.1\.button(\[0\])+: tables and arrays nested more than 16 deep$",
        ),
        (
            "[seats]\n1 = { button = " + "[" * 2000 + "]" * 2000 + " }\n",
            r"^hw\.toml:2: tables and arrays nested more than 16 deep$",
        ),
        (
            f"[seats]\n1 = {{ button = {'9' * 5000} }}\n",
            r"^hw\.toml:2: invalid TOML: an integer of more",
        ),
    ],
)
def test_a_bad_map_is_one_line_naming_file_line_and_key(text: str, message: str) -> None:
    with pytest.raises(PinMapError, match=message):
        parse(text)


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(PinMapError, match=r"nowhere\.toml: cannot be read"):
        load_pinmap(tmp_path / "nowhere.toml")


def test_a_file_that_is_not_utf8_or_too_large_is_named(tmp_path: Path) -> None:
    path = tmp_path / "pins.toml"
    path.write_bytes(b"[seats]\n1 = { button = 4 } # \xff\n")
    with pytest.raises(PinMapError, match=r"pins\.toml:2: not UTF-8 text: byte 0xff at byte 22 "):
        load_pinmap(path)
    path.write_bytes(b"[seats]\n1 = { button = 4 }\n" + b"#" * (1 << 20))
    with pytest.raises(PinMapError, match=r"pins\.toml: the file is larger than 1048576 bytes"):
        load_pinmap(path)
