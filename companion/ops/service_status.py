"""``companion service status``: one line each — installed, started at
boot, running, restarts and why the last run ended — from ``systemctl
show``, and from the journal for a reason that an automatic restart has
since cleared (a running unit's ``Result`` is ``success`` again). For a
running service, the listening process too (alive, its restarts, its last
error), as the console last told systemd (``StatusText``: ears/health.py).
"""

from __future__ import annotations

import json
import signal
from dataclasses import dataclass
from datetime import datetime
from typing import TextIO

from ..ears.health import EarsHealth, health_line, parse_status
from .service import Command, Runner, ServiceError
from .service_unit import STATE_DIR, UNIT_NAME

PROPERTIES = (
    "LoadState",
    "FragmentPath",
    "UnitFileState",
    "ActiveState",
    "SubState",
    "ActiveEnterTimestamp",
    "Result",
    "NRestarts",
    "ExecMainCode",
    "ExecMainStatus",
    "ExecMainExitTimestamp",
    "StatusText",
)
#: ExecMainCode: how the main process ended (siginfo's CLD_EXITED, _KILLED, _DUMPED)
EXIT_CODES = {"1": "exited", "2": "killed", "3": "dumped"}


@dataclass(frozen=True, slots=True)
class Ending:
    """How a run of the service ended: systemd's result (``watchdog``,
    ``exit-code`` ...), the main process's end (``exited``/``killed``/
    ``dumped`` and its status or signal), and when."""

    result: str
    code: str = ""
    status: int = 0
    at: str = ""


WORDS = {
    "ru": {
        "installed": "Служба: установлена ({path})",
        "broken": "Служба: установлена, но systemd её не принял ({state}): {path}",
        "absent": "Служба: не установлена (companion service install)",
        "enabled": "Запуск при включении: да",
        "disabled": "Запуск при включении: нет ({state})",
        "active": "Работает: да ({sub}, с {since})",
        "starting": "Работает: запускается ({sub})",
        "inactive": "Работает: нет ({state}/{sub})",
        "last": "Перезапусков: {restarts}; последний выход: {reason}",
        "at": "{reason} ({at})",
        "none": "не было",
        "unknown": "неизвестно (journalctl -u companion.service)",
        "data": "Данные клуба: {dir}",
        "watchdog": "сторожевой таймер: консоль или стол зависли",
        "exit-code": "вышла с кодом {status}",
        "signal": "убита сигналом {signal}",
        "core-dump": "упала ({signal}, дамп памяти)",
        "timeout": "не уложилась во время запуска или остановки",
        "start-limit-hit": "слишком много неудачных запусков подряд; снова: "
        "sudo systemctl reset-failed companion && sudo systemctl start companion",
        "oom-kill": "не хватило памяти",
        "resources": "systemd не смог её запустить (пользователь, группа, папка, терминал?)",
        "protocol": "не сказала systemd, что готова (READY=1)",
        "success": "остановлена штатно",
    },
    "en": {
        "installed": "Service: installed ({path})",
        "broken": "Service: installed, but systemd refused it ({state}): {path}",
        "absent": "Service: not installed (companion service install)",
        "enabled": "Starts at boot: yes",
        "disabled": "Starts at boot: no ({state})",
        "active": "Running: yes ({sub}, since {since})",
        "starting": "Running: starting ({sub})",
        "inactive": "Running: no ({state}/{sub})",
        "last": "Restarts: {restarts}; last exit: {reason}",
        "at": "{reason} ({at})",
        "none": "none",
        "unknown": "unknown (journalctl -u companion.service)",
        "data": "The club's data: {dir}",
        "watchdog": "the watchdog: the console or the table hung",
        "exit-code": "exited with status {status}",
        "signal": "killed by {signal}",
        "core-dump": "crashed ({signal}, core dumped)",
        "timeout": "took too long to start or stop",
        "start-limit-hit": "too many failed starts in a row; again: "
        "sudo systemctl reset-failed companion && sudo systemctl start companion",
        "oom-kill": "out of memory",
        "resources": "systemd could not start it (the user, a group, a folder, the terminal?)",
        "protocol": "never told systemd it was ready (READY=1)",
        "success": "stopped normally",
    },
}


def read_show(runner: Runner) -> dict[str, str]:
    """The unit's properties as ``systemctl show`` gives them."""
    argv = ("systemctl", "show", UNIT_NAME, "--property=" + ",".join(PROPERTIES))
    ran = runner(Command(argv, root=False))
    if ran.returncode != 0:
        lines = [line.strip() for line in ran.stderr.splitlines() if line.strip()]
        raise ServiceError(
            f"systemctl show {UNIT_NAME}: {lines[0] if lines else f'exit status {ran.returncode}'}"
        )
    found: dict[str, str] = {}
    for line in ran.stdout.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            found[key] = value
    return found


def ending_shown(show: dict[str, str]) -> Ending | None:
    """How the last run ended, when ``show`` still says (a stopped or
    failed unit); None for a unit whose main process has not ended."""
    code = EXIT_CODES.get(show.get("ExecMainCode", "0"), "")
    result = show.get("Result", "success")
    if not code and result == "success":
        return None
    status = show.get("ExecMainStatus", "0")
    return Ending(result, code, int(status) if status.isdigit() else 0,
                  show.get("ExecMainExitTimestamp", ""))  # fmt: skip


def ending_journaled(journal_json: str) -> Ending | None:
    """The last failure the journal holds (``journalctl -o json``): the
    entry with ``UNIT_RESULT`` and the main process's exit before it."""
    exit_code, exit_status, last = "", 0, None
    for line in journal_json.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if not isinstance(entry, dict):
            continue
        if "EXIT_CODE" in entry:
            exit_code = str(entry["EXIT_CODE"])
            status = str(entry.get("EXIT_STATUS", "0"))
            exit_status = int(status) if status.isdigit() else 0
        if "UNIT_RESULT" in entry:
            stamp = str(entry.get("__REALTIME_TIMESTAMP", ""))
            at = (
                f"{datetime.fromtimestamp(int(stamp) / 1e6):%Y-%m-%d %H:%M:%S}"
                if stamp.isdigit()
                else ""
            )
            last = Ending(str(entry["UNIT_RESULT"]), exit_code, exit_status, at)
    return last


def reason(ending: Ending, words: dict[str, str]) -> str:
    """An ending in words: systemd's result, with the exit status or signal."""
    try:
        name = signal.Signals(ending.status).name
    except ValueError:
        name = f"signal {ending.status}"
    result = ending.result
    if result == "success" and ending.code in ("killed", "dumped"):
        result = "signal"
    template = words.get(result)
    text = template.format(status=ending.status, signal=name) if template else result
    return words["at"].format(reason=text, at=ending.at) if ending.at else text


def status_lines(show: dict[str, str], journaled: Ending | str | None, lang: str) -> list[str]:
    """The status in words; ``journaled``: the journal's last failure, or
    ``"unreadable"`` when the journal could not be read."""
    words = WORDS.get(lang, WORDS["ru"])
    load = show.get("LoadState", "")
    data = words["data"].format(dir=STATE_DIR)
    if load in ("", "not-found"):
        return [words["absent"], data]
    path = show.get("FragmentPath", "") or "?"
    lines = [words["installed" if load == "loaded" else "broken"].format(path=path, state=load)]
    file_state = show.get("UnitFileState", "")
    lines.append(words["enabled" if file_state == "enabled" else "disabled"].format(
        state=file_state or "?"))  # fmt: skip
    active, sub = show.get("ActiveState", "?"), show.get("SubState", "?")
    key = {"active": "active", "activating": "starting", "reloading": "active"}.get(active)
    since = show.get("ActiveEnterTimestamp", "") or "?"
    lines.append(words[key or "inactive"].format(state=active, sub=sub, since=since))
    ending = ending_shown(show)
    if ending is not None:
        said = reason(ending, words)
    elif journaled == "unreadable":
        said = words["unknown"]
    elif isinstance(journaled, Ending):
        said = reason(journaled, words)
    else:
        said = words["none"]
    lines.append(words["last"].format(restarts=show.get("NRestarts", "0") or "0", reason=said))
    if key is not None:  # running: its listening process, as the console last said
        health = parse_status(show.get("StatusText", "")) or EarsHealth()
        lines.append(health_line(health, lang))
    lines.append(data)
    return lines


def status_command(runner: Runner, lang: str, out: TextIO) -> int:
    show = read_show(runner)
    journaled: Ending | str | None = None
    if show.get("LoadState") not in ("", "not-found") and ending_shown(show) is None:
        argv = ("journalctl", f"--unit={UNIT_NAME}", "--output=json", "--lines=2000",
                "--no-pager", "--quiet")  # fmt: skip
        ran = runner(Command(argv, root=False, required=False))
        # A user outside the adm and systemd-journal groups reads no system journal.
        readable = ran.returncode == 0 and bool(ran.stdout.strip())
        journaled = ending_journaled(ran.stdout) if readable else "unreadable"
    for line in status_lines(show, journaled, lang):
        print(line, file=out)
    return 0
