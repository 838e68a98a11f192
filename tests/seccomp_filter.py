"""A unit's system-call filter, applied here as systemd applies it.

``SystemCallFilter=`` lines are read off the unit's text: the first sets
the kind (an allow list, with ``@default`` always in it, as systemd adds
it), later ``~`` lines take calls out; ``SystemCallErrorNumber=`` is what a
refused call returns. The groups (``@system-service`` ...) are expanded by
the installed ``systemd-analyze syscall-filter``, systemd's own table, and
the filter is loaded with libseccomp (systemd's library), for this
machine's native architecture only (``SystemCallArchitectures=native``).
Loaded with no-new-privileges, as systemd does for a unit with ``User=``;
inherited by every child, spawned or forked.

``python tests/seccomp_filter.py UNIT_FILE -- COMMAND ...`` runs COMMAND
under the filter of UNIT_FILE (tests/test_service_syscalls.py).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import shutil
import subprocess
import sys

#: the calls systemd allows under any allow list (systemd.exec(5),
#: SystemCallFilter=): also in @default, listed for a table that lacks one
ALWAYS = ("execve", "exit", "exit_group", "getrlimit", "rt_sigreturn", "sigreturn")
_ALLOW = 0x7FFF0000  # SCMP_ACT_ALLOW
_ERRNO = 0x00050000  # SCMP_ACT_ERRNO(x): | x


def available() -> str | None:
    """Why the filter cannot be applied here (None: it can)."""
    if not sys.platform.startswith("linux"):
        return "not Linux"
    if shutil.which("systemd-analyze") is None:
        return "systemd-analyze is not installed (Debian package systemd)"
    if ctypes.util.find_library("seccomp") is None:
        return "libseccomp is not installed (Debian package libseccomp2)"
    return None


def groups() -> dict[str, list[str]]:
    """``@group`` -> its entries (calls and groups), as systemd knows them."""
    done = subprocess.run(
        ["systemd-analyze", "syscall-filter", "--no-pager"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in done.stdout.splitlines():
        word = line.strip()
        if not word or word.startswith("#"):
            continue
        if line.startswith("@"):
            current = found.setdefault(word, [])
        elif current is not None:
            current.append(word)
    return found


def expand(names: list[str], table: dict[str, list[str]]) -> set[str]:
    calls: set[str] = set()
    for name in names:
        calls |= expand(table[name], table) if name.startswith("@") else {name}
    return calls


def allowed_calls(unit_text: str) -> tuple[set[str], int]:
    """The calls the unit allows, and the errno a refused one gets."""
    table = groups()
    allowed: set[str] | None = None
    error = errno.EPERM
    for line in unit_text.splitlines():
        key, _, value = line.strip().partition("=")
        if key == "SystemCallErrorNumber":
            error = getattr(errno, value)
        if key != "SystemCallFilter":
            continue
        deny = value.startswith("~")
        calls = expand(value.lstrip("~").split(), table)
        if allowed is None:
            if deny:
                raise ValueError("a deny list first: not what the companion's unit holds")
            allowed = expand(["@default"], table) | set(ALWAYS)
        allowed = allowed - calls if deny else allowed | calls
    if allowed is None:
        raise ValueError("the unit has no SystemCallFilter=")
    return allowed, error


def load(allowed: set[str], error: int) -> None:
    """Load the filter into this process (and so into all it starts)."""
    lib = ctypes.CDLL(ctypes.util.find_library("seccomp"), use_errno=True)
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint]
    lib.seccomp_load.argtypes = [ctypes.c_void_p]
    context = lib.seccomp_init(_ERRNO | error)
    if not context:
        raise OSError("seccomp_init failed")
    for name in sorted(allowed):
        number = lib.seccomp_syscall_resolve_name(name.encode())
        if number < 0:  # not a call of this architecture (socketcall on x86-64 ...)
            continue
        lib.seccomp_rule_add(context, _ALLOW, number, 0)
    if lib.seccomp_load(context) != 0:
        raise OSError("seccomp_load failed")


def main(argv: list[str]) -> None:
    unit, separator, *command = argv
    assert separator == "--" and command, "usage: seccomp_filter.py UNIT_FILE -- COMMAND ..."
    with open(unit, encoding="utf-8") as file:
        load(*allowed_calls(file.read()))
    os.execvp(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
