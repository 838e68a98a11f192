"""The doctor's checks of the machine: free space and write access for the
journals and the games, real-time priority for the threads that keep time,
and whether the clock is set by NTP.

The probes (``SystemProbes``) read the machine; tests give fakes that play
a nearly full card, a folder of another user, a user without CAP_SYS_NICE,
a clock nobody sets.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import getpass
import os
import resource
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ...config.values import Config
from ...runner.priority import FIFO_PRIORITY, PROCESS_NICE
from .result import Result, Words, say, size_text

_MB = 1024 * 1024
#: Free space below which the doctor warns. A game's journal is tens of
#: kilobytes and its protocols a few hundred, so 500 MB is years of club
#: nights; below it the card is nearly full for the system itself (its
#: logs, its updates), which fills it faster than the games do.
WARN_FREE_BYTES = 500 * _MB
#: Free space below which the doctor fails: a night's games still fit, but
#: the system's own writes may take the rest during the game, and a journal
#: line that cannot be written refuses the input (docs/journal.md).
FAIL_FREE_BYTES = 50 * _MB
#: the rtprio a user needs for the audio thread's SCHED_FIFO (the highest asked)
NEEDED_RTPRIO = max(FIFO_PRIORITY.values())
_CAP_SYS_NICE = 23  # linux/capability.h

WORDS: Words = {
    "ru": {
        "journals": "журналов",
        "games": "игр",
        "space_ok": "Место: журналы {journals}, игры {games}: {free}; запись разрешена{later}",
        "free_one": "свободно {free}",
        "free_two": "свободно {first} и {second}",
        "later": " (папки появятся с первой игрой)",
        "not_writable": "Место: в папку {what} {path} писать нельзя ({reason})",
        "fix_writable": "sudo chown -R {user} {path}, или задайте [paths] {key} = папка пользователя",
        "low": "Место: у папки {what} {path} свободно {free}, меньше {limit}",
        "fix_low": "освободите место (sudo apt clean; старые журналы и протоколы — на флешку) или задайте [paths] {key} на другом диске",
        "rt_ok": "Приоритет: реального времени даётся (SCHED_FIFO {audio} звуку, {loop} таймерам; {why})",
        "rt_no": "Приоритет: реального времени нет ({reason}); {nice}: под нагрузкой таймеры и голос могут опаздывать",
        "nice_ok": "nice {nice} даётся",
        "nice_no": "и nice {nice} тоже нет",
        "fix_rt": "запускайте как службу (./run service install задаёт ей LimitRTPRIO и LimitNICE) или разрешите пользователю: строки «{user} - rtprio {rtprio}» и «{user} - nice {nice}» в /etc/security/limits.d/companion.conf, затем войдите снова",
        "clock_ok": "Часы: {now}, синхронизированы по NTP ({source})",
        "clock_no": "Часы: {now}, не синхронизированы по NTP ({source}): по ним идут сроки форумной игры",
        "clock_unknown": "Часы: {now}; синхронизированы ли, не узнать (нет ни timedatectl, ни adjtimex)",
        "fix_clock": "подключите сеть и включите NTP: sudo timedatectl set-ntp true; без сети поставьте время вручную: sudo date -s 'ГГГГ-ММ-ДД ЧЧ:ММ'",
    },
    "en": {
        "journals": "journals",
        "games": "games",
        "space_ok": "Space: journals {journals}, games {games}: {free}; writable{later}",
        "free_one": "{free} free",
        "free_two": "{first} and {second} free",
        "later": " (the folders are made at the first game)",
        "not_writable": "Space: the {what} folder {path} is not writable ({reason})",
        "fix_writable": "sudo chown -R {user} {path}, or set [paths] {key} to a folder of the user's",
        "low": "Space: the {what} folder {path} has {free} free, less than {limit}",
        "fix_low": "free some space (sudo apt clean; old journals and protocols to a USB stick) or set [paths] {key} on another disk",
        "rt_ok": "Priority: real-time granted (SCHED_FIFO {audio} for the sound, {loop} for the timers; {why})",
        "rt_no": "Priority: no real-time ({reason}); {nice}: under load the timers and the voice may be late",
        "nice_ok": "nice {nice} granted",
        "nice_no": "nor nice {nice}",
        "fix_rt": "run it as the service (./run service install sets its LimitRTPRIO and LimitNICE) or allow the user: lines «{user} - rtprio {rtprio}» and «{user} - nice {nice}» in /etc/security/limits.d/companion.conf, then log in again",
        "clock_ok": "Clock: {now}, synchronized by NTP ({source})",
        "clock_no": "Clock: {now}, not synchronized by NTP ({source}): the forum game's deadlines run on it",
        "clock_unknown": "Clock: {now}; whether it is synchronized cannot be told (neither timedatectl nor adjtimex)",
        "fix_clock": "connect the network and turn NTP on: sudo timedatectl set-ntp true; without a network set the time by hand: sudo date -s 'YYYY-MM-DD HH:MM'",
    },
}


@dataclass(frozen=True, slots=True)
class FolderState:
    """A configured folder: where its disk is and whether the user may write."""

    exists: bool
    free: int  # bytes free for this user on its file system
    device: int  # st_dev of the file system
    problem: str = ""  # why a file cannot be made there ("" : it can)


def _folder_state(path: Path) -> FolderState:
    """The folder, or (it is made at the first game) its nearest existing
    parent: a file is made there and removed, as honest as a write gets."""
    here = path
    while not here.exists() and here != here.parent:
        here = here.parent
    problem = ""
    try:
        with tempfile.NamedTemporaryFile(dir=here, prefix=".companion-doctor-"):
            pass
    except OSError as error:
        problem = error.strerror or str(error)
    return FolderState(here == path, shutil.disk_usage(here).free, here.stat().st_dev, problem)


@dataclass(frozen=True, slots=True)
class Privileges:
    root: bool
    cap_sys_nice: bool
    rtprio: int  # RLIMIT_RTPRIO's soft limit (what SCHED_FIFO a user may take)


def _privileges() -> Privileges:
    try:
        status = Path("/proc/self/status").read_text()
        effective = next(
            int(x.split()[1], 16) for x in status.splitlines() if x.startswith("CapEff:")
        )
    except (OSError, StopIteration, ValueError):
        effective = 0
    soft, _ = resource.getrlimit(resource.RLIMIT_RTPRIO)
    rtprio = NEEDED_RTPRIO if soft == resource.RLIM_INFINITY else soft
    return Privileges(os.geteuid() == 0, bool(effective >> _CAP_SYS_NICE & 1), rtprio)


def _in_a_thread(ask: Callable[[int], None]) -> str | None:
    """Run ``ask(tid)`` on a short-lived thread (what it is given dies with
    it); None when it was allowed, else why not."""
    answer: list[str | None] = []

    def run() -> None:
        try:
            ask(threading.get_native_id())
            answer.append(None)
        except (AttributeError, OSError) as error:  # AttributeError: not Linux
            answer.append(getattr(error, "strerror", None) or str(error))

    thread = threading.Thread(target=run, name="doctor priority")
    thread.start()
    thread.join()
    return answer[0]


def _try_fifo(priority: int) -> str | None:
    return _in_a_thread(
        lambda tid: os.sched_setscheduler(tid, os.SCHED_FIFO, os.sched_param(priority))
    )


def _try_nice(nice: int) -> str | None:
    return _in_a_thread(lambda tid: os.setpriority(os.PRIO_PROCESS, tid, nice))


def _timedatectl() -> bool | None:
    """systemd's word on NTP; None where there is no systemd (a container)."""
    try:
        done = subprocess.run(
            ["timedatectl", "show", "-p", "NTPSynchronized", "--value"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    answer = done.stdout.strip()
    return {"yes": True, "no": False}.get(answer) if done.returncode == 0 else None


class _Timeval(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_usec", ctypes.c_long)]


class _Timex(ctypes.Structure):
    """Linux's ``struct timex`` (sys/timex.h), read-only use (modes 0)."""

    _fields_ = [
        ("modes", ctypes.c_uint),
        *((name, ctypes.c_long) for name in ("offset", "freq", "maxerror", "esterror")),
        ("status", ctypes.c_int),
        *((name, ctypes.c_long) for name in ("constant", "precision", "tolerance")),
        ("time", _Timeval),
        *((name, ctypes.c_long) for name in ("tick", "ppsfreq", "jitter")),
        ("shift", ctypes.c_int),
        *((name, ctypes.c_long) for name in ("stabil", "jitcnt", "calcnt", "errcnt", "stbcnt")),
        ("tai", ctypes.c_int),
        ("_reserved", ctypes.c_int * 16),  # the kernel's padding, and then some
    ]


_TIME_ERROR = 5  # adjtimex's answer when the clock is not synchronized
_STA_UNSYNC = 0x0040


def _adjtimex() -> bool | None:
    """The kernel's own word (``adjtimex(2)``, read-only): an NTP daemon
    that keeps the clock clears STA_UNSYNC; None where it cannot be asked."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name, use_errno=True)
        timex = _Timex()
        state = libc.adjtimex(ctypes.byref(timex))
    except (OSError, AttributeError):
        return None
    if state < 0:
        return None
    return state != _TIME_ERROR and not timex.status & _STA_UNSYNC


def _now() -> str:
    return datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")


@dataclass(frozen=True, slots=True)
class SystemProbes:
    folder: Callable[[Path], FolderState] = _folder_state
    user: Callable[[], str] = getpass.getuser
    privileges: Callable[[], Privileges] = _privileges
    try_fifo: Callable[[int], str | None] = _try_fifo
    try_nice: Callable[[int], str | None] = _try_nice
    timedatectl: Callable[[], bool | None] = _timedatectl
    adjtimex: Callable[[], bool | None] = _adjtimex
    now: Callable[[], str] = _now


def check_space(config: Config, probes: SystemProbes, lang: str) -> Result:
    """Free space and write access where the journals and the games go."""
    folders = {"journals": config.paths.journals, "games": config.paths.games}
    states = {key: probes.folder(path) for key, path in folders.items()}
    for key, state in states.items():
        if state.problem:
            what, path = say(WORDS, lang, key), folders[key]
            line = say(WORDS, lang, "not_writable", what=what, path=path, reason=state.problem)
            fix = say(WORDS, lang, "fix_writable", user=probes.user(), path=path, key=key)
            return Result("space", "failure", line, fix)
    for limit, status in ((FAIL_FREE_BYTES, "failure"), (WARN_FREE_BYTES, "warning")):
        for key, state in states.items():
            if state.free < limit:
                line = say(
                    WORDS,
                    lang,
                    "low",
                    what=say(WORDS, lang, key),
                    path=folders[key],
                    free=size_text(state.free, lang),
                    limit=size_text(limit, lang),
                )
                return Result("space", status, line, say(WORDS, lang, "fix_low", key=key))  # type: ignore[arg-type]
    journals, games = states["journals"], states["games"]
    if journals.device == games.device:
        free = say(WORDS, lang, "free_one", free=size_text(journals.free, lang))
    else:
        free = say(
            WORDS,
            lang,
            "free_two",
            first=size_text(journals.free, lang),
            second=size_text(games.free, lang),
        )
    later = "" if journals.exists and games.exists else say(WORDS, lang, "later")
    line = say(
        WORDS,
        lang,
        "space_ok",
        journals=folders["journals"],
        games=folders["games"],
        free=free,
        later=later,
    )
    return Result("space", "ok", line)


def check_priority(config: Config, probes: SystemProbes, lang: str) -> Result:
    """Whether the threads that keep time get what runner/priority.py asks
    for: SCHED_FIFO for the sound and the timer loop, nice for the process.
    It is asked for on a thread of its own, which then ends."""
    audio, loop = FIFO_PRIORITY["audio"], FIFO_PRIORITY["timer loop"]
    refused = probes.try_fifo(audio)
    if refused is None:
        have = probes.privileges()
        why = (
            "root"
            if have.root
            else "CAP_SYS_NICE"
            if have.cap_sys_nice
            else f"RLIMIT_RTPRIO {have.rtprio}"
        )
        return Result("priority", "ok", say(WORDS, lang, "rt_ok", audio=audio, loop=loop, why=why))
    nice_refused = probes.try_nice(PROCESS_NICE)
    nice = say(WORDS, lang, "nice_no" if nice_refused else "nice_ok", nice=PROCESS_NICE)
    line = say(WORDS, lang, "rt_no", reason=refused, nice=nice)
    fix = say(WORDS, lang, "fix_rt", user=probes.user(), rtprio=NEEDED_RTPRIO, nice=PROCESS_NICE)
    return Result("priority", "warning", line, fix)


def check_clock(config: Config, probes: SystemProbes, lang: str) -> Result:
    """NTP synchronization: systemd's answer, else the kernel's (adjtimex)."""
    source, synced = "timedatectl", probes.timedatectl()
    if synced is None:
        source, synced = "adjtimex", probes.adjtimex()
    now = probes.now()
    if synced is None:
        return Result(
            "clock",
            "warning",
            say(WORDS, lang, "clock_unknown", now=now),
            say(WORDS, lang, "fix_clock"),
        )
    if synced:
        return Result("clock", "ok", say(WORDS, lang, "clock_ok", now=now, source=source))
    return Result(
        "clock",
        "warning",
        say(WORDS, lang, "clock_no", now=now, source=source),
        say(WORDS, lang, "fix_clock"),
    )
