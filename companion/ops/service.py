"""The console as a systemd service on the table's Pi (docs/service.md):
what ``companion service install|uninstall`` do (the command: ops/service_command.py).

A plan first, then its commands: ``install_plan``/``uninstall_plan`` are
pure (the facts of the machine in, the unit file and the commands out), so
``--dry-run`` prints exactly what a real run would write and run, and the
tests check both. The commands run through a ``Runner``: the real one adds
``sudo`` when not root (as ``scripts/setup.sh`` does); a test gives its own.
"""

from __future__ import annotations

import dataclasses
import grp
import os
import pwd
import shlex
import shutil
import stat
import subprocess
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from .service_unit import (
    GETTY_MARK,
    STATE_DIR,
    UNIT_DIR,
    UNIT_NAME,
    WANTED_GROUPS,
    UnitSettings,
    unit_text,
)

#: systemd is the init here when this folder exists (sd_booted(3))
SYSTEMD_RUNNING = Path("/run/systemd/system")
HEREDOC = "UNIT"
#: Debian's first uid for people (login.defs UID_MIN); system users are below
FIRST_LOGIN_UID = 1000


class ServiceError(ValueError):
    """A one-line reason the service cannot be installed, removed or read."""


@dataclass(frozen=True, slots=True)
class Command:
    argv: tuple[str, ...]
    stdin: str | None = None  # fed to it: the unit file's text
    root: bool = True  # changes the machine: with sudo when not root
    required: bool = True  # a failure stops the rest

    def shell(self, sudo: bool) -> str:
        """As a shell line (the unit's text as a here-document)."""
        line = shlex.join((("sudo",) if sudo and self.root else ()) + self.argv)
        if self.stdin is None:
            return line
        return f"{line} <<'{HEREDOC}'\n{self.stdin.rstrip(chr(10))}\n{HEREDOC}"


@dataclass(frozen=True, slots=True)
class Ran:
    returncode: int
    stdout: str = ""
    stderr: str = ""


Runner = Callable[[Command], Ran]


class SystemRunner:
    """Runs commands on this machine, with ``sudo`` when not root."""

    def __init__(self, as_root: bool | None = None) -> None:
        self.as_root = os.geteuid() == 0 if as_root is None else as_root

    def __call__(self, command: Command) -> Ran:
        argv = (("sudo",) if command.root and not self.as_root else ()) + command.argv
        try:
            done = subprocess.run(
                argv, input=command.stdin, capture_output=True, text=True, check=False
            )
        except OSError as error:
            return Ran(127, "", f"{argv[0]}: {error.strerror}")
        return Ran(done.returncode, done.stdout, done.stderr)


@dataclass(frozen=True, slots=True)
class Machine:
    """What the plans need to know of the machine."""

    root: bool  # running as root: no sudo
    sudo: bool  # sudo is there
    systemd: bool  # systemd is the init (it is not in most containers)
    user_exists: bool
    user_groups: frozenset[str]  # the groups the user is in now
    groups: frozenset[str]  # which of WANTED_GROUPS this machine has
    getty_enabled: bool  # the login prompt on the console's tty starts at boot
    unit: str | None  # the installed unit file's text
    #: the user exists and is a person's (a uid from 1000 up, Debian's first
    #: login uid): their shared memory outlives the service (no RemoveIPC=)
    user_login: bool = False


@dataclass(frozen=True, slots=True)
class Plan:
    unit_path: Path
    unit: str | None  # the unit file's text install writes (None: uninstall)
    commands: tuple[Command, ...]
    notes: tuple[tuple[str, dict[str, str]], ...]  # (WORDS key, its arguments)
    problems: tuple[str, ...]  # why a real run refuses (a dry run shows them)


# --- the facts -----------------------------------------------------------------------


def read_machine(unit: UnitSettings, runner: Runner, unit_dir: Path = UNIT_DIR) -> Machine:
    try:
        member = pwd.getpwnam(unit.user)
        user_exists, login = True, member.pw_uid >= FIRST_LOGIN_UID
        primary = grp.getgrgid(member.pw_gid).gr_name
    except KeyError:
        user_exists, login, primary = False, False, unit.user
    user_groups = {primary} | {g.gr_name for g in grp.getgrall() if unit.user in g.gr_mem}
    groups = frozenset(name for name in WANTED_GROUPS if _group_exists(name))
    enabled = runner(Command(("systemctl", "is-enabled", unit.getty), root=False, required=False))
    path = unit_dir / UNIT_NAME
    try:
        text: str | None = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = None
    return Machine(
        root=os.geteuid() == 0,
        sudo=shutil.which("sudo") is not None,
        systemd=SYSTEMD_RUNNING.is_dir(),
        user_exists=user_exists,
        user_groups=frozenset(user_groups) if user_exists else frozenset(),
        groups=groups,
        getty_enabled=enabled.stdout.strip() == "enabled",
        unit=text,
        user_login=login,
    )


def _group_exists(name: str) -> bool:
    try:
        grp.getgrnam(name)
    except KeyError:
        return False
    return True


def unreachable(path: Path, gids: Iterable[int], uid: int | None = None) -> Path | None:
    """The first folder on the way to ``path`` (or ``path`` itself, which
    must be readable and executable: a program, a folder) that a user
    ``uid`` in groups ``gids`` may not pass (``None``: all clear). Read off
    the mode bits: right for that user whoever runs the check (root, for
    whom ``os.access`` says yes to everything)."""
    groups = set(gids)

    def allows(st: os.stat_result, bits: int) -> bool:  # bits: the "other" bits wanted
        if uid is not None and st.st_uid == uid:
            return st.st_mode & (bits << 6) == bits << 6
        if st.st_gid in groups:
            return st.st_mode & (bits << 3) == bits << 3
        return st.st_mode & bits == bits

    for folder in reversed(path.parents):
        if not allows(folder.stat(), stat.S_IXOTH):
            return folder
    return None if allows(path.stat(), stat.S_IROTH | stat.S_IXOTH) else path


def reach_problems(unit: UnitSettings, groups: Iterable[str]) -> list[str]:
    """Whether the service's user can run the interpreter and read the
    companion: a home folder of mode 0700 (Debian 12's default) or a
    Python under /root stops it before its first line."""
    try:
        member = pwd.getpwnam(unit.user)
        uid: int | None = member.pw_uid
        gids = {member.pw_gid}
    except KeyError:
        uid, gids = None, set()
    gids |= {grp.getgrnam(name).gr_gid for name in groups if _group_exists(name)}
    problems = []
    for path in (unit.python, Path(os.path.realpath(unit.python)), unit.project / "companion"):
        try:
            blocked = unreachable(path, gids, uid)
        except OSError as error:
            problems.append(f"{path}: {error.strerror}")
            continue
        if blocked is not None:
            mode = stat.S_IMODE(blocked.stat().st_mode)
            problems.append(
                f"{blocked} (mode {mode:04o}) keeps user {unit.user!r} from {path}: put the "
                f"companion in a folder others may read (e.g. /opt/companion, with its .venv "
                f"made there) or 'chmod o+rx {blocked}'"
            )
    return problems


# --- the plans -------------------------------------------------------------------------


def install_plan(
    base: UnitSettings,
    machine: Machine,
    *,
    start: bool = True,
    unit_dir: Path = UNIT_DIR,
    problems: Iterable[str] = (),
) -> Plan:
    """The unit (only the groups the machine has) and the commands that set
    it up: the user, its data folder, the unit file, enabled at boot, the
    screen's login prompt off, started now unless ``start`` is False."""
    groups = tuple(name for name in WANTED_GROUPS if name in machine.groups)
    was_disabled = machine.unit is not None and GETTY_MARK.format(getty=base.getty) in machine.unit
    unit = dataclasses.replace(
        base,
        groups=groups,
        getty_disabled=machine.getty_enabled or was_disabled,
        remove_ipc=not machine.user_login,
    )
    path, text = unit_dir / UNIT_NAME, unit_text(unit)
    commands: list[Command] = []
    if not machine.user_exists:
        commands.append(Command((
            "useradd", "--system", "--user-group", "--home-dir", str(STATE_DIR),
            "--no-create-home", "--shell", "/usr/sbin/nologin",
            "--comment", "companion (Mafia table)",
            *(("--groups", ",".join(groups)) if groups else ()),
            unit.user,
        )))  # fmt: skip
    elif missing := [name for name in groups if name not in machine.user_groups]:
        commands.append(Command(("usermod", "--append", "--groups", ",".join(missing), unit.user)))
    commands += [
        # Made now (systemd would at the first start) so that a club's config
        # can be put there before the service ever runs.
        Command(("install", "-d", "-o", unit.user, "-m", "0700", str(STATE_DIR))),
        Command(("install", "-m", "0644", "/dev/stdin", str(path)), stdin=text),
        Command(("systemctl", "daemon-reload")),
        *([Command(("systemctl", "disable", unit.getty))] if machine.getty_enabled else []),
        Command(("systemctl", "enable", UNIT_NAME)),
        *([Command(("systemctl", "restart", UNIT_NAME))] if start else []),
    ]
    notes: list[tuple[str, dict[str, str]]] = [
        ("no_group", {"group": name}) for name in WANTED_GROUPS if name not in groups
    ]
    notes.append(("data", {"dir": str(STATE_DIR), "user": unit.user}))
    if not start:
        notes.append(("start_later", {"unit": UNIT_NAME}))
    return Plan(path, text, tuple(commands), tuple(notes), _common(machine, problems))


def uninstall_plan(base: UnitSettings, machine: Machine, *, unit_dir: Path = UNIT_DIR) -> Plan:
    """Stop, disable and remove the unit; the login prompt back if install
    took it; the user and the club's data stay."""
    path = unit_dir / UNIT_NAME
    notes: list[tuple[str, dict[str, str]]] = [("kept", {"dir": str(STATE_DIR), "user": base.user})]
    if machine.unit is None:
        return Plan(path, None, (), (("not_installed", {"path": str(path)}), *notes), ())
    commands = [
        Command(("systemctl", "disable", "--now", UNIT_NAME)),
        Command(("rm", "-f", str(path))),
        Command(("systemctl", "daemon-reload")),
        # Forget a failed state, if any ("not loaded" otherwise: no matter).
        Command(("systemctl", "reset-failed", UNIT_NAME), required=False),
    ]
    if GETTY_MARK.format(getty=base.getty) in machine.unit:
        commands.append(Command(("systemctl", "enable", "--now", base.getty)))
    return Plan(path, None, tuple(commands), tuple(notes), _common(machine, ()))


def _common(machine: Machine, problems: Iterable[str]) -> tuple[str, ...]:
    found = list(problems)
    if not machine.systemd:
        found.insert(0, f"systemd is not running on this machine (no {SYSTEMD_RUNNING}): "
                     "a service needs it (a Raspberry Pi OS does; most containers do not)")  # fmt: skip
    if not machine.root and not machine.sudo:
        found.append("not root and no sudo here: run it as root")
    return tuple(found)


# --- carrying a plan out ---------------------------------------------------------------


def show_plan(plan: Plan, action: str, sudo: bool, words: dict[str, str], out: TextIO) -> None:
    """``--dry-run``: what would be written and run, as a shell script."""
    print(words["dry_run"].format(action=action), file=out)
    if plan.unit is not None:
        print(words["would_write"].format(path=plan.unit_path), file=out)
    for command in plan.commands:
        print(command.shell(sudo), file=out)
    _print_notes(plan, words, out)
    for problem in plan.problems:
        print(f"# {words['would_refuse']}: {problem}", file=out)


def carry_out(plan: Plan, runner: Runner, sudo: bool, words: dict[str, str], out: TextIO) -> None:
    """Run the plan's commands in order, each shown first; the first
    required one that fails stops the rest with its one-line reason."""
    if plan.problems:
        raise ServiceError(plan.problems[0])
    for command in plan.commands:
        shown = command.shell(sudo).split("\n")[0]
        print(f"+ {shown}", file=out, flush=True)
        ran = runner(command)
        if ran.returncode != 0 and command.required:
            reason = _last_line(ran.stderr) or f"exit status {ran.returncode}"
            raise ServiceError(f"{shown.removesuffix(f' <<{HEREDOC!r}')}: {reason}")
    _print_notes(plan, words, out)


def _print_notes(plan: Plan, words: dict[str, str], out: TextIO) -> None:
    for key, args in plan.notes:
        print(f"# {words[key].format(**args)}", file=out)


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


# --- the command line ------------------------------------------------------------------

WORDS = {
    "ru": {
        "dry_run": "# companion service {action} --dry-run: ничего не выполнено. Выполнилось бы:",
        "would_write": "# файл службы {path}:",
        "would_refuse": "без --dry-run отказ",
        "no_group": "группы {group} на этой машине нет: служба обойдётся без неё "
        "(gpio есть в Raspberry Pi OS)",
        "data": "данные клуба (config.toml, журналы, партии, список игроков): {dir}, "
        "владелец {user}; свой конфиг: sudo install -o {user} -m 0600 config.toml {dir}/",
        "start_later": "служба включена, но не запущена: sudo systemctl start {unit}",
        "kept": "данные клуба остались в {dir}, пользователь {user} тоже; удалить их: "
        "sudo userdel {user} && sudo rm -r {dir} /var/cache/companion",
        "not_installed": "служба не установлена ({path} нет): удалять нечего",
        "done_install": "Служба установлена: companion service status — её состояние.",
        "done_uninstall": "Служба удалена.",
    },
    "en": {
        "dry_run": "# companion service {action} --dry-run: nothing was run. It would run:",
        "would_write": "# the unit file {path}:",
        "would_refuse": "without --dry-run it refuses",
        "no_group": "this machine has no group {group}: the service goes without it "
        "(Raspberry Pi OS has gpio)",
        "data": "the club's data (config.toml, journals, games, roster): {dir}, owned by "
        "{user}; a config of your own: sudo install -o {user} -m 0600 config.toml {dir}/",
        "start_later": "the service is enabled but not started: sudo systemctl start {unit}",
        "kept": "the club's data stays in {dir}, and the user {user}; to remove them: "
        "sudo userdel {user} && sudo rm -r {dir} /var/cache/companion",
        "not_installed": "the service is not installed (no {path}): nothing to remove",
        "done_install": "The service is installed: companion service status shows its state.",
        "done_uninstall": "The service is removed.",
    },
}
