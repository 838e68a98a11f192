"""The listening process's health as the console knows it, and as systemd
carries it to ``companion service status`` and ``companion doctor``.

The table's end of the ears (``EarsLink``) tells the console when the
listening process listens (``ears_started``, its pid), when one that died
was started again (``ears_restarted``, how it ended), when the table gave
up on it (``ears_gave_up``) or it could not listen (``failed``), and when
it stopped with the game (``ears_stopped``). The console keeps an
``EarsHealth`` and sends it to systemd as the service's status text
(``sd_notify`` ``STATUS=``, runner/sd_notify.py); ``systemctl show
--property=StatusText`` hands it to any user, so the status and the doctor
read it without the service's data folder.

Pure: the standard library only (the status command and the doctor import
it without numpy).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal

State = Literal["none", "alive", "starting", "down", "stopped"]
#: the notices that change the health (the console's table_news.py)
HEALTH_NOTICES = frozenset({"ears_started", "ears_restarted", "ears_gave_up", "failed",
                            "ears_stopped"})  # fmt: skip
#: of those, the ones the host is not shown (nothing went wrong)
QUIET_NOTICES = frozenset({"ears_started", "ears_stopped"})

_STATUS = re.compile(
    r"ears: (?P<state>none|alive|starting|down|stopped)(?:, pid (?P<pid>\d+))?; "
    r"restarts: (?P<restarts>\d+)(?:; last error \((?P<at>[^)]*)\): (?P<error>.*))?"
)


@dataclass(frozen=True, slots=True)
class EarsHealth:
    """``none``: no listening process yet (not listening, or no game since
    the start); ``alive``: one listens (``pid``); ``starting``: one died
    and the next is starting; ``down``: none, and none will start until
    the next game; ``stopped``: it ended with its game."""

    state: State = "none"
    pid: int | None = None
    restarts: int = 0  # since the console started
    last_error: str = ""  # how the last one that died ended, or why it could not listen
    error_at: str = ""  # when (HH:MM:SS)

    def after(self, what: str, line: str, now: datetime) -> EarsHealth:
        """The health after the notice ``what`` (its ``line``) at ``now``."""
        error = " ".join(line.split())
        at = f"{now:%H:%M:%S}"
        if what == "ears_started":
            return replace(self, state="alive", pid=int(line) if line.isdigit() else None)
        if what == "ears_restarted":
            restarts = self.restarts + 1
            return replace(self, state="starting", pid=None, restarts=restarts,
                           last_error=error, error_at=at)  # fmt: skip
        if what in ("ears_gave_up", "failed"):
            return replace(self, state="down", pid=None, last_error=error, error_at=at)
        if what == "ears_stopped":
            return replace(self, state="stopped", pid=None)
        return self


def status_text(health: EarsHealth) -> str:
    """One line for systemd's status (``STATUS=``), read back by :func:`parse_status`."""
    text = f"ears: {health.state}"
    if health.pid is not None:
        text += f", pid {health.pid}"
    text += f"; restarts: {health.restarts}"
    if health.last_error:
        text += f"; last error ({health.error_at}): {health.last_error}"
    return text


def parse_status(text: str) -> EarsHealth | None:
    """The health in a service's status text (None: it holds none)."""
    found = _STATUS.search(text)
    if found is None:
        return None
    pid = found["pid"]
    return EarsHealth(
        found["state"],  # type: ignore[arg-type]
        int(pid) if pid else None,
        int(found["restarts"]),
        found["error"] or "",
        found["at"] or "",
    )


WORDS = {
    "ru": {
        "line": "Слушание: {state}; перезапусков: {restarts}; последняя ошибка: {error}",
        "none": "процесс слушания ещё не запускался (микрофон выключен или игры не было)",
        "alive": "процесс слушания работает (pid {pid})",
        "starting": "процесс слушания перезапускается",
        "down": "процесс слушания не работает, до следующей игры",
        "stopped": "процесс слушания остановлен вместе с игрой",
        "no_error": "не было",
        "error": "{error} ({at})",
    },
    "en": {
        "line": "Listening: {state}; restarts: {restarts}; last error: {error}",
        "none": "the listening process has not started yet (microphone off, or no game yet)",
        "alive": "the listening process runs (pid {pid})",
        "starting": "the listening process is starting again",
        "down": "the listening process is not running, until the next game",
        "stopped": "the listening process stopped with its game",
        "no_error": "none",
        "error": "{error} ({at})",
    },
}


def health_line(health: EarsHealth, lang: str) -> str:
    """The health in the host's words, one line."""
    words = WORDS.get(lang, WORDS["ru"])
    state = words[health.state].format(pid=health.pid if health.pid is not None else "?")
    error = (
        words["error"].format(error=health.last_error, at=health.error_at)
        if health.last_error
        else words["no_error"]
    )
    return words["line"].format(state=state, restarts=health.restarts, error=error)
