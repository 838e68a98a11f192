"""The text of ``companion.service``: what ``companion service install``
writes to ``/etc/systemd/system`` (docs/service.md says why each setting).

Pure: a ``UnitSettings`` in, the unit file's text out; nothing is read
from the machine here (``ops/service.py`` finds the facts: which groups exist,
where the interpreter is).
"""

from __future__ import annotations

import ipaddress
import re
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

UNIT_NAME = "companion.service"
UNIT_DIR = Path("/etc/systemd/system")
#: StateDirectory=companion: the service user's home, where the club's data lives
STATE_DIR = Path("/var/lib/companion")
#: CacheDirectory=companion: the rendered voice (``voice/tts.py``)
CACHE_DIR = Path("/var/cache/companion")
#: the FIFO priorities ``runner/priority.py`` asks for (audio 30, timer loop 20)
RT_PRIORITY = 30
#: the niceness ``runner/priority.favour_process`` asks for
NICE = -10
#: the groups the service would like, where the machine has them: ``gpio``
#: (/dev/gpiochip*, /dev/gpiomem on Raspberry Pi OS) and ``audio`` (/dev/snd).
#: Not ``video`` nor ``input``: the console draws on the terminal systemd
#: hands over and reads its keys from it, never from /dev/fb* or /dev/input.
WANTED_GROUPS = ("gpio", "audio")
#: written into the unit when install disabled the screen's login prompt, so
#: that uninstall knows to give it back
GETTY_MARK = "# companion: install disabled {getty} (it was enabled); uninstall enables it again"

#: the clock of every core of a Raspberry Pi 4 (one policy for all four)
CPU_POLICY = Path("/sys/devices/system/cpu/cpufreq/policy0")
#: the governor found there when the service started, put back when it stops
SAVED_GOVERNOR = Path("/run/companion.governor")

_TTY = re.compile(r"/dev/tty([1-9]|[1-5][0-9]|6[0-3])")
_PLAIN = re.compile(r"[A-Za-z0-9_@+=:,./%-]+")
_UNQUOTABLE = frozenset("$\"'\\")


@dataclass(frozen=True, slots=True)
class UnitSettings:
    """What the unit is made of."""

    python: Path  # the interpreter with the companion installed (a venv's bin/python)
    project: Path  # the companion's folder (its docs are linked from the unit)
    user: str = "companion"
    groups: tuple[str, ...] = ()  # supplementary groups, only those the machine has
    tty: str = "/dev/tty1"  # the attached screen's virtual console
    watchdog_s: int = 30
    restart_s: int = 2
    getty_disabled: bool = False  # install disabled the login prompt on the tty
    #: RemoveIPC=: the user is the service's own (a system user), whose shared
    #: memory and semaphores die with it; a person's login user (``--user pi``)
    #: keeps theirs, a desktop session's among them
    remove_ipc: bool = True
    #: networks the table may reach besides this machine (IPAddressAllow=):
    #: none yet; the hall's broker on the club's LAN will be one (issue 27)
    networks: tuple[str, ...] = ()
    #: the CPU at its full clock while the service runs (the ``performance``
    #: governor; ``--leave-clock``: as the machine has it)
    full_clock: bool = True

    def __post_init__(self) -> None:
        if not self.python.is_absolute():
            raise ValueError(f"{self.python}: the interpreter needs an absolute path")
        for path in (self.python, self.project):
            if any(c in _UNQUOTABLE or not c.isprintable() for c in str(path)):
                raise ValueError(
                    f"{path}: systemd cannot run a program whose path holds $, quotes, "
                    "backslashes or control characters: move the companion's folder"
                )
        if not _TTY.fullmatch(self.tty):
            raise ValueError(f"--tty {self.tty}: give a virtual console, /dev/tty1 to /dev/tty63")
        if not re.fullmatch(r"[a-z_][a-z0-9_-]{0,31}", self.user):
            raise ValueError(
                f"--user {self.user!r}: a user name is lower-case letters, digits, '_' and '-'"
            )
        for network in self.networks:
            try:
                ipaddress.ip_network(network, strict=False)
            except ValueError:
                raise ValueError(
                    f"{network!r}: a network is an address or an address/prefix "
                    "(192.168.1.0/24, fe80::/10)"
                ) from None

    @property
    def getty(self) -> str:
        """The login prompt on the console's tty (``getty@tty1.service``)."""
        return f"getty@{self.tty.removeprefix('/dev/')}.service"


def _clock_lines() -> list[str]:
    start, stop = clock_commands()
    return [
        "# The CPU at its full clock while the table runs: Raspberry Pi OS's ondemand",
        "# governor keeps a lightly loaded Pi at 600 MHz, where the listening process",
        "# takes 2.5 times as long (docs/listening.md, 'The cost'). '+': as root,",
        "# outside the hardening below; the governor found is put back at the stop.",
        f"ExecStartPre=+/bin/sh -c '{start}'",
        f"ExecStopPost=+/bin/sh -c '{stop}'",
    ]


def exec_word(word: str) -> str:
    """One word of a command line in a unit file: ``%`` doubled (a
    specifier), in double quotes when it holds anything but plain path
    characters (systemd.syntax(7), "Quoting"). Words with ``$``, quotes or
    backslashes are refused by ``UnitSettings``: systemd leaves ``$$``
    undoubled in a program's path and then refuses the path."""
    word = word.replace("%", "%%")
    return word if _PLAIN.fullmatch(word) else f'"{word}"'


def _value(text: str) -> str:
    """A setting's value: only ``%`` is special (a specifier)."""
    return text.replace("%", "%%")


def clock_commands(policy: Path = CPU_POLICY, saved: Path = SAVED_GOVERNOR) -> tuple[str, str]:
    """The shell commands (``sh -c``) that set the ``performance`` governor,
    keeping the one before in ``saved``, and that put it back. Both end
    well where there is no such clock (a virtual machine): the table runs
    the same, only slower where the clock is low."""
    start = (
        f"cd {policy} 2>/dev/null && {{ test -f {saved} || cat scaling_governor > {saved};"
        " echo performance > scaling_governor; }; exit 0"
    )
    stop = (
        f"cd {policy} 2>/dev/null && test -f {saved} && cat {saved} > scaling_governor"
        f" && rm -f {saved}; exit 0"
    )
    return start, stop


def unit_text(s: UnitSettings) -> str:
    """The unit file. Comments say why; docs/service.md says more."""
    command = " ".join(
        exec_word(w) for w in (str(s.python), "-m", "companion.cli", "console", "--service")
    )
    docs = "file://" + urllib.parse.quote(str(s.project / "docs" / "service.md"))
    groups = " ".join(s.groups)
    families = ("AF_UNIX", "AF_NETLINK", *(("AF_INET", "AF_INET6") if s.networks else ()))
    lines = [
        f"# {UNIT_NAME}: written by 'companion service install' (docs/service.md).",
        "# Run the install again to change it; 'systemctl edit companion' for a club's",
        "# own additions (they survive a new install).",
        *([GETTY_MARK.format(getty=s.getty)] if s.getty_disabled else []),
        "",
        "[Unit]",
        "Description=companion: the Mafia table's console, timers and voice",
        f"Documentation={_value(docs)}",
        "# The console takes the screen's terminal: its login prompt gives way.",
        f"Conflicts={s.getty}",
        f"After={s.getty} systemd-user-sessions.service plymouth-quit-wait.service sound.target",
        "# A start that fails at once ten times in two minutes is given up",
        "# ('companion service status' says so) rather than retried for ever.",
        "StartLimitIntervalSec=120",
        "StartLimitBurst=10",
        "",
        "[Service]",
        "# READY=1 once the console's first screen is up; WATCHDOG=1 from the",
        "# console only, and only while the table's loop turns (runner/sd_notify.py):",
        "# a hang of either stops the pings and the service is restarted.",
        "Type=notify",
        "NotifyAccess=main",
        f"WatchdogSec={s.watchdog_s}",
        "# --service: an unfinished game is resumed from its journal at once.",
        f"ExecStart={command}",
        *(_clock_lines() if s.full_clock else []),
        "Restart=always",
        f"RestartSec={s.restart_s}",
        "TimeoutStopSec=20",
        "",
        f"User={s.user}",
        *([f"SupplementaryGroups={groups}"] if groups else []),
        "# The club's config, journals, games and roster (data, kept by uninstall).",
        "StateDirectory=companion",
        "StateDirectoryMode=0700",
        "CacheDirectory=companion",
        "# Writable: lgpio makes its notification pipes in the working folder.",
        f"WorkingDirectory={STATE_DIR}",
        f"Environment=HOME={STATE_DIR}",
        f"Environment=COMPANION_CONFIG={STATE_DIR}/config.toml",
        "# platformdirs puts the data in $XDG_DATA_HOME/companion: /var/lib/companion.",
        "Environment=XDG_DATA_HOME=/var/lib",
        "Environment=XDG_CACHE_HOME=/var/cache",
        "Environment=LANG=C.UTF-8",
        "Environment=TERM=linux",
        "UMask=0077",
        "",
        "# The console on the attached screen, keys from its keyboard. Textual draws",
        "# through standard error, so that goes to the screen too.",
        f"TTYPath={s.tty}",
        "StandardInput=tty",
        "StandardOutput=tty",
        "StandardError=tty",
        "TTYReset=yes",
        "TTYVHangup=yes",
        "TTYVTDisallocate=yes",
        "",
        "# Real-time priority for the timer loop (FIFO 20) and the audio thread",
        "# (FIFO 30), nice -10 for the table's process (runner/priority.py): as",
        "# resource limits, not a capability. No RestrictRealtime=.",
        f"LimitRTPRIO={RT_PRIORITY}",
        f"LimitNICE={NICE}",
        "",
        "# Hardening that leaves /dev alone (GPIO, sound, the terminal): no",
        "# PrivateDevices=, DeviceAllow= or ProtectClock= (which implies a device",
        "# allow-list in systemd 252); no MemoryDenyWriteExecute= (cffi's callbacks).",
        "# Not ProtectSystem=strict nor PrivateTmp=: a journal that has to move off",
        "# a full card goes to a USB stick under /media or to /var/tmp, and must",
        "# still be there after a restart (runner/fallback.py).",
        "NoNewPrivileges=yes",
        "CapabilityBoundingSet=",
        "ProtectSystem=full",
        "ProtectHome=read-only",
        "ProtectKernelTunables=yes",
        "ProtectKernelModules=yes",
        "ProtectKernelLogs=yes",
        "ProtectControlGroups=yes",
        "ProtectHostname=yes",
        "# Other users' processes unseen; the service's own mounts its own (a USB",
        "# stick the host mounts under /media still shows).",
        "ProtectProc=invisible",
        "PrivateMounts=yes",
        "RestrictNamespaces=yes",
        "RestrictSUIDSGID=yes",
        "LockPersonality=yes",
        *(["RemoveIPC=yes"] if s.remove_ipc else []),
        "# The system calls of an ordinary service, @resources among them (the",
        "# real-time priority and nice of the timers, the audio thread and the",
        "# table), ioctl (GPIO, sound, terminal) and mknod (lgpio's FIFOs); never",
        "# @privileged. A refused call fails with EPERM, it does not kill the game",
        "# (tests/test_service_syscalls.py runs the table's parts under this filter).",
        "SystemCallArchitectures=native",
        "SystemCallFilter=@system-service",
        "SystemCallFilter=~@privileged",
        "SystemCallErrorNumber=EPERM",
        "# Internet sockets only with networks to reach (a hall's broker on the",
        "# club's LAN), and IP to this machine and those networks alone.",
        f"RestrictAddressFamilies={' '.join(families)}",
        "IPAddressDeny=any",
        f"IPAddressAllow={' '.join(('localhost', *s.networks))}",
        "",
        "[Install]",
        "WantedBy=multi-user.target",
        "",
    ]
    return "\n".join(lines)
