"""The doctor's check of the listening process while the service runs: is
it alive, how often was it started again, what ended it last.

The service's console keeps that and hands it to systemd as its status
text (ears/health.py); ``systemctl show`` gives it to any user. Outside the
service nobody watches a listening process the doctor could ask about: the
line says so. The probe (``ListeningProbes``) asks systemctl; tests give
fakes that play a service that is not there, one whose ears were killed and
came back, and one whose ears the table gave up on.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass

from ...config.values import Config
from ...ears.health import health_line, parse_status
from ..service_unit import STATE_DIR, UNIT_NAME
from .result import Result, Words, say

WORDS: Words = {
    "ru": {
        "off": "Слушание: не нужно, микрофон выключен ([microphone] listen = false)",
        "no_service": "Слушание: служба не запущена; процесс слушания сторожит консоль службы, пока идёт игра",
        "not_told": "Слушание: служба работает и о процессе слушания ещё не сообщала (игры не было)",
        "fix_restarted": "почему он завершался — в журнале: sudo tail -n 100 {log}",
        "fix_down": "следующая игра запустит его снова; почему он не работает — в журнале: sudo tail -n 100 {log}; микрофон проверит companion doctor от имени службы (docs/service.md)",
    },
    "en": {
        "off": "Listening: not needed, the microphone is off ([microphone] listen = false)",
        "no_service": "Listening: the service is not running; its console watches the listening process while a game runs",
        "not_told": "Listening: the service runs and has not told of a listening process yet (no game yet)",
        "fix_restarted": "why it ended is in the log: sudo tail -n 100 {log}",
        "fix_down": "the next game starts it again; why it is not running is in the log: sudo tail -n 100 {log}; companion doctor as the service's user checks the microphone (docs/service.md)",
    },
}
#: where the service's console and table log (docs/service.md)
SERVICE_LOG = STATE_DIR / "companion.log"


def _service_show() -> dict[str, str] | None:
    """The service's state and status text (None: no systemd, no unit)."""
    try:
        done = subprocess.run(
            ["systemctl", "show", UNIT_NAME, "--property=LoadState,ActiveState,StatusText"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    found = dict(line.partition("=")[::2] for line in done.stdout.splitlines() if "=" in line)
    return found if found.get("LoadState") == "loaded" else None


@dataclass(frozen=True, slots=True)
class ListeningProbes:
    service: Callable[[], dict[str, str] | None] = _service_show


def check_listening(config: Config, probes: ListeningProbes, lang: str) -> Result:
    """The service's listening process: alive, its restarts, its last error."""
    if not config.microphone.listen:
        return Result("listening", "ok", say(WORDS, lang, "off"))
    show = probes.service()
    if show is None or show.get("ActiveState") not in ("active", "reloading"):
        return Result("listening", "ok", say(WORDS, lang, "no_service"))
    health = parse_status(show.get("StatusText", ""))
    if health is None:
        return Result("listening", "ok", say(WORDS, lang, "not_told"))
    line = health_line(health, lang)
    if health.state == "down":
        return Result("listening", "failure", line, say(WORDS, lang, "fix_down", log=SERVICE_LOG))
    if health.restarts or health.state == "starting":
        fix = say(WORDS, lang, "fix_restarted", log=SERVICE_LOG)
        return Result("listening", "warning", line, fix)
    return Result("listening", "ok", line)
