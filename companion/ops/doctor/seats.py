"""The doctor's checks of the seats: GPIO access and the pin factory, and
the pin map (read by the seats' own loader, then opened on the pins).

The probes (``GpioProbes``) read the machine; tests give fakes that play
a Pi without lgpio, a chip the user may not open, a busy pin.
"""

from __future__ import annotations

import getpass
import grp
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ...config.values import Config
from ...seats.pinmap import PinMap, PinMapError, load_pinmap
from .result import Result, Words, say

WORDS: Words = {
    "ru": {
        "not_needed": "GPIO не нужен: места в консоли ({why}); фабрика выводов: {factory}",
        "why_config": "так в настройках",
        "why_not_pi": "это не Raspberry Pi",
        "no_factory": "нет",
        "ok": "GPIO: {factory}, {chips}; {user}",
        "chips": "{first} доступен на чтение и запись",
        "chips_more": "{first} и ещё {more} доступны на чтение и запись",
        "no_chips": "устройств /dev/gpiochip* нет",
        "root": "пользователь root",
        "member": "пользователь {user} в группе gpio",
        "not_member": "пользователь {user} не в группе gpio",
        "unavailable": "GPIO недоступен: {why}",
        "fix_group": "sudo usermod -aG gpio {user}, затем выйдите и войдите снова (служба: её пользователь в группе gpio)",
        "fix_access": "нет доступа к {chip}: дайте его группе gpio (правило udev Raspberry Pi OS) и добавьте пользователя в группу",
        "fix_no_chips": 'это не Raspberry Pi или ядро без GPIO: на другой машине задайте [seats] mode = "simulated"',
        "fix_lgpio": "установите lgpio (./run ставит его на 64-битном Pi; вручную: .venv/bin/pip install lgpio) и задайте GPIOZERO_PIN_FACTORY=lgpio",
        "mock": "GPIO: выводы-имитация ({factory}): кнопки мест никто не нажмёт",
        "fix_mock": "уберите GPIOZERO_PIN_FACTORY из окружения (и из службы)",
        "map_ok": "Карта выводов: {source}, мест {seats}, выводов {pins}, ни один не занят дважды{opened}",
        "map_opened": "; все открываются",
        "map_bad": "Карта выводов не читается: {error}",
        "fix_map": "исправьте названную строку (docs/wiring.md); companion selftest --pins ФАЙЛ проверит карту",
        "map_short": "Карта выводов: {source}: мест в ней {wired}, а за столом {table}",
        "fix_short": '[seats] pin_map = "twelve" (12 мест) или добавьте места в карту; или [table] seats = {wired}',
        "map_busy": "Карта выводов: {source}: выводы не открываются: {error}",
        "fix_busy": "их держит другая программа? Остановите службу (sudo systemctl stop companion) и проверьте снова",
    },
    "en": {
        "not_needed": "GPIO not needed: the seats are on the console ({why}); pin factory: {factory}",
        "why_config": "as the config says",
        "why_not_pi": "not a Raspberry Pi",
        "no_factory": "none",
        "ok": "GPIO: {factory}, {chips}; {user}",
        "chips": "{first} readable and writable",
        "chips_more": "{first} and {more} more readable and writable",
        "no_chips": "no /dev/gpiochip* devices",
        "root": "user root",
        "member": "user {user} is in group gpio",
        "not_member": "user {user} is not in group gpio",
        "unavailable": "GPIO unavailable: {why}",
        "fix_group": "sudo usermod -aG gpio {user}, then log out and in again (the service: its user must be in group gpio)",
        "fix_access": "{chip} cannot be opened: give it to group gpio (Raspberry Pi OS's udev rule) and add the user to that group",
        "fix_no_chips": 'not a Raspberry Pi, or a kernel without GPIO: on another machine set [seats] mode = "simulated"',
        "fix_lgpio": "install lgpio (./run does on a 64-bit Pi; by hand: .venv/bin/pip install lgpio) and set GPIOZERO_PIN_FACTORY=lgpio",
        "mock": "GPIO: simulated pins ({factory}): nobody can press the seats' buttons",
        "fix_mock": "remove GPIOZERO_PIN_FACTORY from the environment (and from the service)",
        "map_ok": "Pin map: {source}, {seats} seats, {pins} pins, none used twice{opened}",
        "map_opened": "; all of them open",
        "map_bad": "Pin map cannot be used: {error}",
        "fix_map": "correct the line it names (docs/wiring.md); companion selftest --pins FILE checks a map",
        "map_short": "Pin map: {source}: it wires {wired} seats, the table has {table}",
        "fix_short": '[seats] pin_map = "twelve" (12 seats) or add seats to the map; or [table] seats = {wired}',
        "map_busy": "Pin map: {source}: the pins cannot be opened: {error}",
        "fix_busy": "another program holding them? Stop the service (sudo systemctl stop companion) and check again",
    },
}


@dataclass(frozen=True, slots=True)
class ChipAccess:
    path: str
    usable: bool  # this user may read and write it


@dataclass(frozen=True, slots=True)
class GroupInfo:
    user: str
    root: bool
    member: bool  # in group gpio (False where there is no such group)


def _real_pin_factory() -> Any:
    from ...seats.gpio import pin_factory

    return pin_factory()


def _gpio_chips() -> list[ChipAccess]:
    chips = sorted(Path("/dev").glob("gpiochip*"))
    return [ChipAccess(str(c), os.access(c, os.R_OK | os.W_OK)) for c in chips]


def _group_info() -> GroupInfo:
    user = getpass.getuser()
    try:
        member = grp.getgrnam("gpio").gr_gid in {os.getgid(), *os.getgroups()}
    except KeyError:  # no gpio group: not Raspberry Pi OS
        member = False
    return GroupInfo(user, os.geteuid() == 0, member)


def _seats_mode(config: Config) -> Literal["gpio", "simulated"]:
    return config.seats.effective_mode()


def _open_pins(pinmap: PinMap, factory: Any) -> None:
    """Claim every pin of the map as the table would, then let go."""
    from ...seats.gpio import GpioSeats

    GpioSeats(pinmap, pin_factory=factory, ticker=False).close()


@dataclass(frozen=True, slots=True)
class GpioProbes:
    """What the seats' checks read off the machine."""

    pin_factory: Callable[[], Any] = _real_pin_factory  # raises OSError (GpioUnavailable)
    chips: Callable[[], list[ChipAccess]] = _gpio_chips
    group: Callable[[], GroupInfo] = _group_info
    seats_mode: Callable[[Config], Literal["gpio", "simulated"]] = _seats_mode
    load_pinmap: Callable[[Path], PinMap] = load_pinmap
    open_pins: Callable[[PinMap, Any], None] = _open_pins


def factory_name(factory: Any) -> str:
    from ...seats.gpio import describe_factory

    return describe_factory(factory)


def _simulated(factory: Any) -> bool:
    return type(factory).__name__.startswith("Mock")  # gpiozero's MockFactory and kin


def check_gpio(config: Config, probes: GpioProbes, lang: str) -> Result:
    """GPIO access and the pin factory in use, as the seats' mode needs them."""
    mode = probes.seats_mode(config)
    try:
        factory: Any = probes.pin_factory()
        error = ""
    except OSError as failure:
        factory, error = None, str(failure)
    if mode == "simulated":
        why = say(WORDS, lang, "why_config" if config.seats.mode == "simulated" else "why_not_pi")
        name = factory_name(factory) if factory is not None else say(WORDS, lang, "no_factory")
        return Result("gpio", "ok", say(WORDS, lang, "not_needed", why=why, factory=name))
    chips, group = probes.chips(), probes.group()
    if factory is None:
        blocked = [c for c in chips if not c.usable]
        if not chips:
            fix = say(WORDS, lang, "fix_no_chips")
        elif blocked and not group.member and not group.root:
            fix = say(WORDS, lang, "fix_group", user=group.user)
        elif blocked:
            fix = say(WORDS, lang, "fix_access", chip=blocked[0].path)
        else:
            fix = say(WORDS, lang, "fix_lgpio")
        return Result("gpio", "failure", say(WORDS, lang, "unavailable", why=error), fix)
    name = factory_name(factory)
    if _simulated(factory):
        return Result(
            "gpio", "warning", say(WORDS, lang, "mock", factory=name), say(WORDS, lang, "fix_mock")
        )
    user = (
        say(WORDS, lang, "root")
        if group.root
        else say(WORDS, lang, "member" if group.member else "not_member", user=group.user)
    )
    usable = [c for c in chips if c.usable]
    if not usable:
        chip_text = say(WORDS, lang, "no_chips")
    elif len(usable) == 1:
        chip_text = say(WORDS, lang, "chips", first=usable[0].path)
    else:
        chip_text = say(WORDS, lang, "chips_more", first=usable[0].path, more=len(usable) - 1)
    line = say(WORDS, lang, "ok", factory=name, chips=chip_text, user=user)
    if not group.root and not group.member and any(not c.usable for c in chips):
        return Result("gpio", "warning", line, say(WORDS, lang, "fix_group", user=group.user))
    return Result("gpio", "ok", line)


def check_pinmap(config: Config, probes: GpioProbes, lang: str) -> Result:
    """The config's pin map: read by the seats' loader (no pin twice, all
    on the header), wide enough for the table, and, on GPIO, opened."""
    try:
        pinmap = probes.load_pinmap(config.seats.pin_map)
    except PinMapError as error:
        return Result(
            "pinmap",
            "failure",
            say(WORDS, lang, "map_bad", error=error),
            say(WORDS, lang, "fix_map"),
        )
    source = _short(pinmap.source)
    wired, table = len(pinmap.seats), config.table.seats
    if wired < table:
        return Result(
            "pinmap",
            "warning",
            say(WORDS, lang, "map_short", source=source, wired=wired, table=table),
            say(WORDS, lang, "fix_short", wired=wired),
        )
    opened = ""
    if probes.seats_mode(config) == "gpio":
        try:
            factory = probes.pin_factory()
        except OSError:
            factory = None  # the GPIO check says why; the map itself is fine
        if factory is not None:
            try:
                probes.open_pins(pinmap, factory)
            except Exception as error:  # gpiozero or lgpio refusing a pin: "GPIO busy"
                reason = (str(error).splitlines() or [""])[0] or type(error).__name__
                return Result(
                    "pinmap",
                    "failure",
                    say(WORDS, lang, "map_busy", source=source, error=reason),
                    say(WORDS, lang, "fix_busy"),
                )
            opened = say(WORDS, lang, "map_opened")
    line = say(
        WORDS, lang, "map_ok", source=source, seats=wired, pins=len(pins_of(pinmap)), opened=opened
    )
    return Result("pinmap", "ok", line)


def pins_of(pinmap: PinMap) -> list[int]:
    """Every GPIO the map uses (the loader has refused any used twice)."""
    pins = [s.button.pin for s in pinmap.seats]
    pins += [s.led for s in pinmap.seats if s.led is not None]
    pins += [b.pin for b in pinmap.host.values()]
    return pins + ([pinmap.buzzer] if pinmap.buzzer is not None else [])


def _short(source: str) -> str:
    """A shipped map as ``hardware/default.toml``; the club's own in full."""
    from ...seats.pinmap import HARDWARE

    path = Path(source)
    return f"hardware/{path.name}" if path.parent == HARDWARE else source
