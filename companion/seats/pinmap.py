"""Pin maps (``hardware/*.toml``): which GPIO each seat's button and LED use.

Pins are BCM numbers on the 40-pin header (GPIO 2-27, the same on a Pi 3,
4 and 5). The loader refuses a pin used twice, a pin the header does not
have, a seat without a button, gaps in the seat numbers, unknown keys, and
times outside their limits (``bounce_ms`` 0 to 1000, ``stuck_s`` 1 to 3600);
like every TOML file it must be UTF-8, at most 1 MiB and nested at most 16
deep. Every refusal is one line naming the file, the line and the key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..paths import PROJECT
from ..textfiles.toml_table import (
    MAX_FILE_BYTES,
    Context,
    DataFileError,
    TomlTable,
    decode_toml,
    parse_toml,
    show,
)

HEADER_GPIOS = range(2, 28)  # BCM 0 and 1 are the HAT EEPROM's; 28+ are not on the header
FIXED_PULL_UPS = (2, 3)  # I2C: 1.8 kOhm to 3.3 V on the board itself
MAX_SEATS = 12
HOST_BUTTONS = ("next", "pause", "offence")
LED_KINDS = ("pwm", "onoff")
#: Debounce: 0 is none; a second would swallow real presses.
MAX_BOUNCE_MS = 1000.0
#: A held button is reported after 1 s at the earliest (a vote press is
#: shorter) and an hour at the latest.
MIN_STUCK_S, MAX_STUCK_S = 1.0, 3600.0
_SEAT_KEY = re.compile(r"[1-9][0-9]?")
HARDWARE = PROJECT / "hardware"


class PinMapError(DataFileError):
    """A pin map that cannot be used; ``str()`` names the file, line and key."""


@dataclass(frozen=True, slots=True)
class ButtonPin:
    pin: int
    pull_up: bool  # True: the button closes to ground; False: to 3.3 V
    bounce_s: float


@dataclass(frozen=True, slots=True)
class SeatPins:
    seat: int
    button: ButtonPin
    led: int | None
    led_kind: str  # "pwm" or "onoff"


@dataclass(frozen=True, slots=True)
class PinMap:
    source: str
    seats: tuple[SeatPins, ...]
    host: dict[str, ButtonPin] = field(default_factory=dict)
    buzzer: int | None = None
    stuck_s: float = 30.0  # a button held longer is reported once and ignored

    def seat(self, number: int) -> SeatPins:
        return self.seats[number - 1]


_DEFAULTS = ("pull", "bounce_ms", "led", "stuck_s")
_SEAT = ("button", "led", "pull", "bounce_ms", "led_kind")
_HOST = ("pin", "pull", "bounce_ms")


def load_pinmap(path: Path | str) -> PinMap:
    """A pin map by file path, or by name in ``hardware/`` (``default``)."""
    file = Path(path)
    if file.suffix != ".toml" and not file.exists():
        file = HARDWARE / f"{path}.toml"
    try:
        with file.open("rb") as stream:  # no more than the limit, whatever the file's size
            data = stream.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        raise PinMapError(str(file), None, None, f"cannot be read ({error.strerror})") from None
    return parse_pinmap(decode_toml(data, str(file), PinMapError), str(file))


def parse_pinmap(text: str, source: str) -> PinMap:
    data = parse_toml(text, source, PinMapError)
    return _Reader(Context(source, text, PinMapError), data).pinmap()


class _Reader:
    def __init__(self, ctx: Context, data: dict[str, object]) -> None:
        self.ctx = ctx
        self.root = TomlTable(ctx, data, (), ("defaults", "seats", "host", "buzzer"))
        self.used: dict[int, str] = {}  # pin -> the key that took it

    def pinmap(self) -> PinMap:
        defaults = self.root.table("defaults", _DEFAULTS, required=False) or TomlTable(
            self.ctx, {}, ("defaults",), _DEFAULTS
        )
        pull = defaults.choice("pull", ("up", "down"), "up")
        bounce = defaults.float_("bounce_ms", 20.0, minimum=0, maximum=MAX_BOUNCE_MS, unit=" ms")
        led_kind = defaults.choice("led", LED_KINDS, "pwm")
        stuck = defaults.float_(
            "stuck_s", 30.0, minimum=MIN_STUCK_S, maximum=MAX_STUCK_S, unit=" s"
        )
        seats_table = self.root.table("seats", None, required=True)
        assert seats_table is not None
        seats = self._seats(seats_table, pull, bounce, led_kind)
        host: dict[str, ButtonPin] = {}
        host_table = self.root.table("host", HOST_BUTTONS, required=False)
        for name in HOST_BUTTONS if host_table is not None else ():
            assert host_table is not None
            value = host_table.raw(name, required=False)
            if value is None:
                continue
            if isinstance(value, int) and not isinstance(value, bool):
                body = TomlTable(self.ctx, {"pin": value}, (*host_table.path, name), _HOST)
            else:
                body = TomlTable(self.ctx, value, (*host_table.path, name), _HOST)
            host[name] = self._button(body, "pin", pull, bounce)
        buzzer_table = self.root.table("buzzer", ("pin",), required=False)
        buzzer = self._pin(buzzer_table, "pin") if buzzer_table is not None else None
        return PinMap(self.ctx.source, seats, host, buzzer, stuck)

    def _seats(
        self, table: TomlTable, pull: str, bounce: float, led_kind: str
    ) -> tuple[SeatPins, ...]:
        if not table.data:
            table.fail(None, "no seats defined")
        numbers: list[int] = []
        for key in table.data:
            # a pattern, not isdigit(): "²" is a digit to isdigit() and not to int()
            if not _SEAT_KEY.fullmatch(key) or int(key) > MAX_SEATS:
                table.fail(key, f"seats are numbered 1 to {MAX_SEATS}")
            numbers.append(int(key))
        missing = sorted(set(range(1, max(numbers) + 1)) - set(numbers))
        if missing:
            table.fail(None, f"seat {missing[0]} is missing (seats are numbered 1 to N, no gaps)")
        out = []
        for number in sorted(numbers):
            body = TomlTable(self.ctx, table.data[str(number)], (*table.path, str(number)), _SEAT)
            if "button" not in body.data:
                body.fail(None, "a seat needs a button")
            button = self._button(body, "button", pull, bounce)
            led = self._pin(body, "led") if "led" in body.data else None
            kind = body.choice("led_kind", LED_KINDS, led_kind)
            out.append(SeatPins(number, button, led, kind))
        return tuple(out)

    def _button(self, body: TomlTable, key: str, pull: str, bounce: float) -> ButtonPin:
        pin = self._pin(body, key)
        pull_up = body.choice("pull", ("up", "down"), pull) == "up"
        if pin in FIXED_PULL_UPS and not pull_up:
            body.fail(
                key,
                f"GPIO {pin} has a fixed pull-up on the board: wire its button to ground (pull = 'up')",
            )
        bounce_ms = body.float_("bounce_ms", bounce, minimum=0, maximum=MAX_BOUNCE_MS, unit=" ms")
        return ButtonPin(pin, pull_up, bounce_ms / 1000)

    def _pin(self, body: TomlTable, key: str) -> int:
        value = body.raw(key, required=True)
        if isinstance(value, int) and not isinstance(value, bool) and value not in HEADER_GPIOS:
            gpio = f"GPIO {value}" if abs(value) < 1 << 32 else show(value)
            body.fail(key, f"{gpio} is not on the 40-pin header (BCM 2 to 27)")
        pin = body.int_(key, minimum=HEADER_GPIOS.start, maximum=HEADER_GPIOS.stop - 1)
        where = ".".join(str(p) for p in (*body.path, key))
        if pin in self.used:
            body.fail(key, f"GPIO {pin} is already used by {self.used[pin]}")
        self.used[pin] = where
        return pin
