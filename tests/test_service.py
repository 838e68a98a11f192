"""``companion service install|status|uninstall`` (docs/service.md).

The unit file is checked by systemd's own parser (``systemd-analyze
verify``, which reads a unit file without a running systemd); the install
and uninstall plans are checked for exactly what they would write and run
on a machine of given facts, and run the way a user runs them (a
subprocess, ``--dry-run``). Nothing here changes the machine: a real
install is only tried where systemd is not running, which it refuses.
"""

from __future__ import annotations

import dataclasses
import io
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.ops.service import (
    SYSTEMD_RUNNING,
    WORDS,
    Command,
    Machine,
    Ran,
    ServiceError,
    SystemRunner,
    carry_out,
    install_plan,
    reach_problems,
    show_plan,
    uninstall_plan,
    unreachable,
)
from companion.ops.service_status import ending_journaled, read_show, status_command, status_lines
from companion.ops.service_unit import (
    CACHE_DIR,
    CPU_POLICY,
    GETTY_MARK,
    SAVED_GOVERNOR,
    STATE_DIR,
    UnitSettings,
    clock_commands,
    exec_word,
    unit_text,
)
from companion.runner.priority import FIFO_PRIORITY, PROCESS_NICE

ROOT = Path(__file__).resolve().parent.parent
PYTHON = Path(sys.executable)
BASE = UnitSettings(python=PYTHON, project=ROOT)
UNIT = "/etc/systemd/system/companion.service"
ANALYZE = shutil.which("systemd-analyze")

FRESH_PI = Machine(
    root=False,
    sudo=True,
    systemd=True,
    user_exists=False,
    user_groups=frozenset(),
    groups=frozenset({"gpio", "audio"}),
    getty_enabled=True,
    unit=None,
)


def settings_of(text: str) -> dict[str, list[str]]:
    """``Section.Key`` -> its values in order, as systemd reads the file."""
    found: dict[str, list[str]] = {}
    section = ""
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, _, value = line.partition("=")
        found.setdefault(f"{section}.{key}", []).append(value)
    return found


class FakeRunner:
    """Records what it is asked to run; answers ``answers[argv]`` (or 0)."""

    def __init__(self, answers: dict[tuple[str, ...], Ran] | None = None) -> None:
        self.answers = answers or {}
        self.ran: list[Command] = []

    def __call__(self, command: Command) -> Ran:
        self.ran.append(command)
        return self.answers.get(command.argv, Ran(0))


# --- the unit file, read by systemd ------------------------------------------------------


def verify(tmp_path: Path, text: str) -> subprocess.CompletedProcess[str]:
    if ANALYZE is None:
        pytest.skip("systemd-analyze is not installed (Debian package systemd)")
    path = tmp_path / "companion.service"
    path.write_text(text, encoding="utf-8")
    return subprocess.run(
        [ANALYZE, "verify", "--man=no", str(path)], capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    "unit",
    [
        dataclasses.replace(BASE, groups=("gpio", "audio"), getty_disabled=True),
        dataclasses.replace(BASE, groups=(), tty="/dev/tty2", user="pi"),
    ],
    ids=["a-pi", "no-groups-tty2"],
)
def test_systemd_reads_the_unit_without_a_word_of_complaint(
    tmp_path: Path, unit: UnitSettings
) -> None:
    # verify warns (standard error, exit status 0) of unknown keys and bad
    # values, and fails on a program that is not there: both must be silent.
    done = verify(tmp_path, unit_text(unit))
    assert (done.returncode, done.stderr) == (0, "")


def test_verify_does_complain_of_a_bad_setting(tmp_path: Path) -> None:
    # The check above can fail: a misspelt key, a bad value, a missing program.
    text = (
        unit_text(BASE).replace("TTYReset=", "TTYRest=").replace("LimitNICE=-10", "LimitNICE=-30")
    )
    assert "TTYRest" in verify(tmp_path, text).stderr
    assert "-30" in verify(tmp_path, text).stderr
    missing = unit_text(dataclasses.replace(BASE, python=tmp_path / "no-python"))
    assert verify(tmp_path, missing).returncode != 0


def test_a_folder_with_a_space_and_a_percent_sign_is_quoted_for_systemd(tmp_path: Path) -> None:
    project = tmp_path / "club 100% ready"
    (project / "docs").mkdir(parents=True)
    (project / "python").symlink_to(PYTHON)
    text = unit_text(UnitSettings(python=project / "python", project=project))
    start = settings_of(text)["Service.ExecStart"]
    assert start == [f'"{project}/python" -m companion.cli console --service'.replace("%", "%%")]
    # systemd finds the program there (it says "not executable" otherwise).
    done = verify(tmp_path, text)
    assert (done.returncode, done.stderr) == (0, "")


@pytest.mark.parametrize("path", ["/opt/a$b/python", '/opt/a"b/python', "/opt/a\\b/python"])
def test_a_path_systemd_cannot_run_is_refused_in_one_line(path: str) -> None:
    with pytest.raises(ValueError, match="move the companion's folder"):
        UnitSettings(python=Path(path), project=ROOT)


@pytest.mark.parametrize(("word", "written"), [
    ("/usr/bin/python3", "/usr/bin/python3"),
    ("/a b/python", '"/a b/python"'),
    ("/a%b", "/a%%b"),
])  # fmt: skip
def test_exec_words(word: str, written: str) -> None:
    assert exec_word(word) == written


def test_the_unit_runs_the_console_as_a_watched_service_on_the_screen() -> None:
    unit = settings_of(unit_text(dataclasses.replace(BASE, groups=("gpio", "audio"))))
    expected = {
        "Service.Type": ["notify"],
        # Only the console may ping: a table child pinging would hide a hung console.
        "Service.NotifyAccess": ["main"],
        "Service.WatchdogSec": ["30"],
        "Service.ExecStart": [f"{PYTHON} -m companion.cli console --service"],
        "Service.Restart": ["always"],
        "Service.User": ["companion"],
        "Service.SupplementaryGroups": ["gpio audio"],
        "Service.StateDirectory": ["companion"],
        "Service.WorkingDirectory": [str(STATE_DIR)],
        "Service.TTYPath": ["/dev/tty1"],
        "Service.StandardInput": ["tty"],
        "Service.StandardOutput": ["tty"],
        "Service.StandardError": ["tty"],
        "Service.TTYVHangup": ["yes"],
        "Unit.Conflicts": ["getty@tty1.service"],
        "Install.WantedBy": ["multi-user.target"],
    }
    assert {key: unit.get(key) for key in expected} == expected
    assert "Service.SupplementaryGroups" not in settings_of(unit_text(BASE))


def test_the_unit_grants_the_priorities_the_timing_threads_ask_for() -> None:
    unit = settings_of(unit_text(BASE))
    assert int(unit["Service.LimitRTPRIO"][0]) >= max(FIFO_PRIORITY.values())
    assert int(unit["Service.LimitNICE"][0]) <= PROCESS_NICE  # "-10": the nice value itself
    assert "Service.RestrictRealtime" not in unit


def test_the_unit_runs_the_cpu_at_full_clock_and_gives_the_governor_back() -> None:
    unit = settings_of(unit_text(BASE))
    start, stop = clock_commands()
    assert unit["Service.ExecStartPre"] == [f"+/bin/sh -c '{start}'"]
    assert unit["Service.ExecStopPost"] == [f"+/bin/sh -c '{stop}'"]
    assert "$" not in start + stop  # systemd would expand it
    left = settings_of(unit_text(dataclasses.replace(BASE, full_clock=False)))
    assert "Service.ExecStartPre" not in left and "Service.ExecStopPost" not in left


def test_the_clock_commands_on_a_cpu_s_policy_folder(tmp_path: Path) -> None:
    """The unit's two shell commands, run on a folder laid out as the
    kernel's cpufreq policy: the governor set and put back, the first one
    found kept over a restart, and nothing at all where there is no clock."""
    policy, saved = tmp_path / "policy0", tmp_path / "companion.governor"
    policy.mkdir()
    governor = policy / "scaling_governor"
    governor.write_text("ondemand\n")
    start, stop = clock_commands(policy, saved)
    assert str(CPU_POLICY) not in start and str(SAVED_GOVERNOR) not in stop

    def sh(command: str) -> None:
        assert subprocess.run(["/bin/sh", "-c", command], timeout=10).returncode == 0

    sh(start)
    assert (governor.read_text(), saved.read_text()) == ("performance\n", "ondemand\n")
    sh(start)  # a restart that did not pass through the stop: the first kept
    assert saved.read_text() == "ondemand\n"
    sh(stop)
    assert governor.read_text() == "ondemand\n" and not saved.exists()
    sh(stop)  # stopped again (systemd's stop after a failed start)
    assert governor.read_text() == "ondemand\n"
    none = tmp_path / "no-cpufreq"
    sh(clock_commands(none, saved)[0])
    sh(clock_commands(none, saved)[1])
    assert not none.exists() and not saved.exists()


@pytest.mark.parametrize(
    "trap",
    ["PrivateDevices", "DeviceAllow", "DevicePolicy", "ProtectClock", "MemoryDenyWriteExecute",
     "RestrictRealtime", "ProcSubset", "PrivateTmp", "PrivateUsers", "PrivateNetwork"],
)  # fmt: skip
def test_no_hardening_that_takes_the_gpio_the_sound_card_or_the_screen(trap: str) -> None:
    # PrivateDevices hides /dev/gpiochip*, /dev/snd and the tty; ProtectClock
    # implies a device allow-list (systemd 252) that shuts out every other
    # device; cffi's callbacks (sounddevice) need writable-executable memory;
    # ProcSubset=pid hides /proc/device-tree, where a Pi names itself;
    # PrivateTmp's /var/tmp is removed when the service stops, and with it a
    # journal that moved there off a full card (runner/fallback.py);
    # PrivateUsers maps the gpio and audio groups to nobody; PrivateNetwork
    # would shut out the hall's broker (docs/service.md).
    assert f"Service.{trap}" not in settings_of(unit_text(BASE))


def test_the_unit_s_tighter_hardening() -> None:
    unit = settings_of(unit_text(BASE))
    expected = {
        "Service.ProtectKernelLogs": ["yes"],
        "Service.ProtectProc": ["invisible"],
        "Service.PrivateMounts": ["yes"],
        "Service.RemoveIPC": ["yes"],
        "Service.SystemCallArchitectures": ["native"],
        # what the audio, GPIO and priority paths make (tests/test_service_syscalls.py)
        "Service.SystemCallFilter": ["@system-service", "~@privileged"],
        "Service.SystemCallErrorNumber": ["EPERM"],  # refused: an error, not a killed game
        "Service.RestrictAddressFamilies": ["AF_UNIX AF_NETLINK"],
        "Service.IPAddressDeny": ["any"],
        "Service.IPAddressAllow": ["localhost"],
    }
    assert {key: unit.get(key) for key in expected} == expected


def test_networks_to_reach_open_ip_to_them_alone(tmp_path: Path) -> None:
    """The hook for a hall's broker on the club's LAN (issue 27): internet
    sockets, and IP to this machine and the networks named only."""
    hall = dataclasses.replace(BASE, networks=("192.168.1.0/24", "fe80::/10"))
    unit = settings_of(unit_text(hall))
    assert unit["Service.RestrictAddressFamilies"] == ["AF_UNIX AF_NETLINK AF_INET AF_INET6"]
    assert unit["Service.IPAddressDeny"] == ["any"]
    assert unit["Service.IPAddressAllow"] == ["localhost 192.168.1.0/24 fe80::/10"]
    done = verify(tmp_path, unit_text(hall))
    assert (done.returncode, done.stderr) == (0, "")
    with pytest.raises(ValueError, match="'the-lan': a network is an address"):
        dataclasses.replace(BASE, networks=("the-lan",))


def test_a_person_s_login_user_keeps_their_ipc() -> None:
    """RemoveIPC= wipes the user's shared memory and semaphores at every
    stop: right for the service's own user, not for ``--user pi``, whose
    desktop session has its own."""
    own = install_plan(BASE, FRESH_PI)
    person = install_plan(
        dataclasses.replace(BASE, user="pi"),
        dataclasses.replace(FRESH_PI, user_exists=True, user_login=True),
    )
    assert own.unit is not None and person.unit is not None
    assert settings_of(own.unit)["Service.RemoveIPC"] == ["yes"]
    assert "Service.RemoveIPC" not in settings_of(person.unit)


def test_systemd_rates_the_unit_s_exposure_at_most_2(tmp_path: Path) -> None:
    """``systemd-analyze security`` on the unit file: 4.2 before ProtectKernelLogs,
    ProtectProc, PrivateMounts, RemoveIPC, the system-call filter and the
    IP address lists; 1.9 with them (docs/service.md)."""
    if ANALYZE is None:
        pytest.skip("systemd-analyze is not installed (Debian package systemd)")
    path = tmp_path / "companion.service"
    path.write_text(unit_text(BASE), encoding="utf-8")
    done = subprocess.run(
        [ANALYZE, "security", "--offline=true", "--no-pager", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    last = done.stdout.strip().splitlines()[-1]
    exposure = float(last.split("companion.service:")[1].split()[0])
    print(last)
    assert exposure <= 2.0, done.stdout


def test_the_journals_fallback_folders_stay_writable() -> None:
    # strict would make /media and /var/tmp read-only (runner/fallback.py)
    unit = settings_of(unit_text(BASE))
    assert unit["Service.ProtectSystem"] == ["full"]
    assert unit["Service.ProtectHome"] == ["read-only"]


def test_the_units_environment_puts_the_clubs_data_in_the_state_folder(tmp_path: Path) -> None:
    env = {"PATH": os.environ.get("PATH", "")}
    for value in settings_of(unit_text(BASE))["Service.Environment"]:
        key, _, setting = value.partition("=")
        env[key] = setting
    code = (
        "from companion.config.values import config_path\n"
        "from companion.config.load import load_config\n"
        "from companion.ears.models import models_dir\n"
        "from companion.voice.tts import default_cache\n"
        "c = load_config()\n"
        "print(config_path(), c.paths.journals, c.paths.games, c.paths.roster, models_dir(),\n"
        "      default_cache())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [
        f"{STATE_DIR}/config.toml",
        f"{STATE_DIR}/journals",
        f"{STATE_DIR}/games",
        f"{STATE_DIR}/roster.toml",
        f"{STATE_DIR}/models",
        f"{CACHE_DIR}/voice",
    ]


# --- install and uninstall: what they would write and run ----------------------------------


def argvs(commands: tuple[Command, ...] | list[Command]) -> list[str]:
    return [" ".join(c.argv) for c in commands]


def test_install_on_a_fresh_pi() -> None:
    plan = install_plan(BASE, FRESH_PI)
    assert plan.unit_path == Path(UNIT)
    assert argvs(plan.commands) == [
        "useradd --system --user-group --home-dir /var/lib/companion --no-create-home "
        "--shell /usr/sbin/nologin --comment companion (Mafia table) --groups gpio,audio companion",
        "install -d -o companion -m 0700 /var/lib/companion",
        f"install -m 0644 /dev/stdin {UNIT}",
        "systemctl daemon-reload",
        "systemctl disable getty@tty1.service",
        "systemctl enable companion.service",
        "systemctl restart companion.service",
    ]
    written = next(c for c in plan.commands if c.stdin is not None)
    assert written.stdin == plan.unit
    assert plan.unit == unit_text(
        dataclasses.replace(BASE, groups=("gpio", "audio"), getty_disabled=True)
    )
    assert GETTY_MARK.format(getty="getty@tty1.service") in plan.unit
    assert plan.problems == ()


@pytest.mark.parametrize(
    ("facts", "first", "disables_getty"),
    [
        # the user is there, in audio only: gpio is added
        (dict(user_exists=True, user_groups=frozenset({"companion", "audio"})),
         "usermod --append --groups gpio companion", True),
        # installed before: the login prompt is off already, and stays marked
        (dict(user_exists=True, user_groups=frozenset({"gpio", "audio"}), getty_enabled=False,
              unit=GETTY_MARK.format(getty="getty@tty1.service")),
         "install -d -o companion -m 0700 /var/lib/companion", False),
    ],
    ids=["user-without-gpio", "again"],
)  # fmt: skip
def test_install_on_a_machine_set_up_before(
    facts: dict[str, object], first: str, disables_getty: bool
) -> None:
    plan = install_plan(BASE, dataclasses.replace(FRESH_PI, **facts))  # type: ignore[arg-type]
    commands = argvs(plan.commands)
    assert commands[0] == first
    assert not any(c.startswith("useradd") for c in commands)
    assert ("systemctl disable getty@tty1.service" in commands) is disables_getty
    assert plan.unit is not None
    assert GETTY_MARK.format(getty="getty@tty1.service") in plan.unit


def test_install_takes_only_the_groups_the_machine_has_and_says_so() -> None:
    plan = install_plan(BASE, dataclasses.replace(FRESH_PI, groups=frozenset({"audio"})))
    assert plan.unit is not None
    assert settings_of(plan.unit)["Service.SupplementaryGroups"] == ["audio"]
    assert "--groups audio companion" in argvs(plan.commands)[0]
    assert ("no_group", {"group": "gpio"}) in plan.notes


def test_install_with_no_start_enables_but_does_not_start() -> None:
    plan = install_plan(BASE, FRESH_PI, start=False)
    assert argvs(plan.commands)[-1] == "systemctl enable companion.service"
    assert ("start_later", {"unit": "companion.service"}) in plan.notes


def test_uninstall_stops_removes_and_gives_the_login_prompt_back() -> None:
    installed = dataclasses.replace(FRESH_PI, unit=install_plan(BASE, FRESH_PI).unit)
    plan = uninstall_plan(BASE, installed)
    assert argvs(plan.commands) == [
        "systemctl disable --now companion.service",
        f"rm -f {UNIT}",
        "systemctl daemon-reload",
        "systemctl reset-failed companion.service",
        "systemctl enable --now getty@tty1.service",
    ]
    assert [c.required for c in plan.commands] == [True, True, True, False, True]
    assert ("kept", {"dir": "/var/lib/companion", "user": "companion"}) in plan.notes


def test_uninstall_leaves_a_login_prompt_alone_that_install_did_not_take() -> None:
    unit = install_plan(BASE, dataclasses.replace(FRESH_PI, getty_enabled=False)).unit
    plan = uninstall_plan(BASE, dataclasses.replace(FRESH_PI, unit=unit))
    assert not any("getty" in c for c in argvs(plan.commands))


def test_uninstall_of_nothing_runs_nothing() -> None:
    plan = uninstall_plan(BASE, FRESH_PI)
    assert plan.commands == ()
    assert plan.notes[0] == ("not_installed", {"path": UNIT})


def test_a_real_run_runs_the_plan_with_sudo_and_stops_at_the_first_failure() -> None:
    plan = install_plan(BASE, FRESH_PI)
    runner = FakeRunner({("systemctl", "daemon-reload"): Ran(1, "", "Access denied\n")})
    out = io.StringIO()
    with pytest.raises(ServiceError) as error:
        carry_out(plan, runner, True, WORDS["en"], out)
    assert str(error.value) == "sudo systemctl daemon-reload: Access denied"
    assert argvs(runner.ran) == argvs(plan.commands)[:4]
    shown = [line for line in out.getvalue().splitlines() if line.startswith("+ ")]
    assert shown[2] == f"+ sudo install -m 0644 /dev/stdin {UNIT} <<'UNIT'"
    assert all(line.startswith("+ sudo ") for line in shown)


def test_where_systemd_is_not_running_nothing_is_run() -> None:
    plan = install_plan(BASE, dataclasses.replace(FRESH_PI, systemd=False))
    runner = FakeRunner()
    with pytest.raises(ServiceError, match="systemd is not running"):
        carry_out(plan, runner, True, WORDS["ru"], io.StringIO())
    assert runner.ran == []


def test_the_dry_run_is_a_shell_script_that_writes_the_unit(tmp_path: Path) -> None:
    plan = install_plan(BASE, FRESH_PI)
    out = io.StringIO()
    show_plan(plan, "install", True, WORDS["en"], out)
    script = out.getvalue()
    assert f"# the unit file {UNIT}:" in script
    assert f"sudo install -m 0644 /dev/stdin {UNIT} <<'UNIT'\n{plan.unit}UNIT\n" in script
    # bash reads it whole: the here-document ends where it should.
    bash = shutil.which("bash")
    assert bash is not None
    (tmp_path / "plan.sh").write_text(script)
    done = subprocess.run([bash, "-n", str(tmp_path / "plan.sh")], capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (0, "")


def test_the_unit_command_writes_the_file_the_plan_holds(tmp_path: Path) -> None:
    # The very command install runs, run here (as root: no sudo) into a folder of the test's.
    plan = install_plan(BASE, FRESH_PI, unit_dir=tmp_path)
    write = next(c for c in plan.commands if c.stdin is not None)
    ran = SystemRunner(as_root=True)(write)
    assert ran.returncode == 0, ran.stderr
    written = tmp_path / "companion.service"
    assert written.read_text(encoding="utf-8") == plan.unit
    assert stat.S_IMODE(written.stat().st_mode) == 0o644


def test_a_runner_without_sudo_says_so(tmp_path: Path) -> None:
    if shutil.which("sudo") is not None:
        pytest.skip("sudo is installed here: it would ask for a password")
    ran = SystemRunner(as_root=False)(Command(("true",)))
    assert ran.returncode == 127
    assert ran.stderr.startswith("sudo:")


# --- can the service's user get at the companion? ----------------------------------------


@pytest.fixture
def open_tmp() -> Iterator[Path]:
    """A folder every user may pass on the way to (pytest's own is 0700)."""
    folder = Path(tempfile.mkdtemp(prefix="companion-service-", dir="/tmp"))
    folder.chmod(0o755)
    yield folder
    for path in [folder, *folder.rglob("*")]:
        if path.is_dir():
            path.chmod(0o755)
    shutil.rmtree(folder)


@pytest.mark.parametrize(("mode", "group_ok", "blocked"), [
    (0o755, False, False),
    (0o700, False, True),  # a Debian 12 home folder
    (0o750, True, False),  # the user is in the folder's group
    (0o750, False, True),
])  # fmt: skip
def test_a_folder_the_user_may_not_pass_is_found(
    open_tmp: Path, mode: int, group_ok: bool, blocked: bool
) -> None:
    home = open_tmp / "home"
    program = home / "club" / "python"
    program.parent.mkdir(parents=True)
    program.write_text("")
    program.chmod(0o755)
    home.chmod(mode)
    gids = [home.stat().st_gid] if group_ok else []
    assert unreachable(program, gids) == (home if blocked else None)


def test_a_program_the_user_may_not_read_is_found(open_tmp: Path) -> None:
    program = open_tmp / "python"
    program.write_text("")
    program.chmod(0o700)
    assert unreachable(program, []) == program


def test_install_names_the_folder_that_keeps_the_user_out(open_tmp: Path) -> None:
    home = open_tmp / "pi"
    (home / "companion" / "companion").mkdir(parents=True)
    home.chmod(0o700)
    unit = UnitSettings(python=PYTHON, project=home / "companion", user="no-such-user-xyz")
    problems = [p for p in reach_problems(unit, []) if p.startswith(str(home))]
    assert problems == [
        f"{home} (mode 0700) keeps user 'no-such-user-xyz' from {home}/companion/companion: put "
        f"the companion in a folder others may read (e.g. /opt/companion, with its .venv made "
        f"there) or 'chmod o+rx {home}'"
    ]


# --- status ------------------------------------------------------------------------------

SHOW_RUNNING = """\
LoadState=loaded
FragmentPath=/etc/systemd/system/companion.service
UnitFileState=enabled
ActiveState=active
SubState=running
ActiveEnterTimestamp=Sat 2025-05-10 19:03:01 MSK
Result=success
NRestarts=1
ExecMainCode=0
ExecMainStatus=0
ExecMainExitTimestamp=
"""
# What the journal holds of a watchdog's restart (journalctl -o json, fields trimmed).
WATCHDOG_JOURNAL = "\n".join(json.dumps(entry) for entry in [
    {"MESSAGE": "companion.service: Watchdog timeout (limit 30s)!", "__REALTIME_TIMESTAMP": "1746892980000000"},
    {"MESSAGE": "companion.service: Main process exited, code=dumped, status=6/ABRT",
     "EXIT_CODE": "dumped", "EXIT_STATUS": "6", "__REALTIME_TIMESTAMP": "1746892981000000"},
    {"MESSAGE": "companion.service: Failed with result 'watchdog'.", "UNIT_RESULT": "watchdog",
     "__REALTIME_TIMESTAMP": "1746892981500000"},
    {"MESSAGE": "Started companion.service", "__REALTIME_TIMESTAMP": "1746892984000000"},
])  # fmt: skip


def show_of(text: str, **changes: str) -> dict[str, str]:
    found = dict(line.split("=", 1) for line in text.splitlines())
    return {**found, **changes}


def test_status_after_a_watchdog_restart_says_why_from_the_journal() -> None:
    from datetime import datetime

    runner = FakeRunner()
    runner.answers = {
        tuple(c): Ran(0, out)
        for c, out in [
            (("systemctl", "show", "companion.service", "--property=LoadState,FragmentPath,"
              "UnitFileState,ActiveState,SubState,ActiveEnterTimestamp,Result,NRestarts,"
              "ExecMainCode,ExecMainStatus,ExecMainExitTimestamp,StatusText"), SHOW_RUNNING),
            (("journalctl", "--unit=companion.service", "--output=json", "--lines=2000",
              "--no-pager", "--quiet"), WATCHDOG_JOURNAL),
        ]
    }  # fmt: skip
    out = io.StringIO()
    assert status_command(runner, "ru", out) == 0
    when = f"{datetime.fromtimestamp(1746892981.5):%Y-%m-%d %H:%M:%S}"
    assert out.getvalue().splitlines() == [
        "Служба: установлена (/etc/systemd/system/companion.service)",
        "Запуск при включении: да",
        "Работает: да (running, с Sat 2025-05-10 19:03:01 MSK)",
        f"Перезапусков: 1; последний выход: сторожевой таймер: консоль или стол зависли ({when})",
        "Слушание: процесс слушания ещё не запускался (микрофон выключен или игры не было); "
        "перезапусков: 0; последняя ошибка: не было",
        "Данные клуба: /var/lib/companion",
    ]
    assert all(not c.root for c in runner.ran)  # status asks for no sudo


@pytest.mark.parametrize(("changes", "line"), [
    (dict(ActiveState="failed", SubState="failed", Result="exit-code", ExecMainCode="1",
          ExecMainStatus="2", ExecMainExitTimestamp="Sat 2025-05-10 19:05:00 MSK"),
     "Restarts: 1; last exit: exited with status 2 (Sat 2025-05-10 19:05:00 MSK)"),
    (dict(ActiveState="failed", SubState="failed", Result="start-limit-hit", ExecMainCode="1",
          ExecMainStatus="1"),
     "Restarts: 1; last exit: too many failed starts in a row; again: "
     "sudo systemctl reset-failed companion && sudo systemctl start companion"),
    (dict(ActiveState="inactive", SubState="dead", Result="success", ExecMainCode="2",
          ExecMainStatus="15"),
     "Restarts: 1; last exit: killed by SIGTERM"),
])  # fmt: skip
def test_status_of_a_stopped_service_says_how_it_ended(changes: dict[str, str], line: str) -> None:
    lines = status_lines(show_of(SHOW_RUNNING, **changes), None, "en")
    assert lines[3] == line
    assert lines[2].startswith("Running: no")


def test_status_when_the_journal_cannot_be_read_or_there_is_no_unit() -> None:
    unreadable = status_lines(show_of(SHOW_RUNNING), "unreadable", "en")
    assert unreadable[3] == "Restarts: 1; last exit: unknown (journalctl -u companion.service)"
    quiet = status_lines(show_of(SHOW_RUNNING, NRestarts="0"), None, "en")
    assert quiet[3] == "Restarts: 0; last exit: none"
    absent = status_lines(show_of(SHOW_RUNNING, LoadState="not-found"), None, "ru")
    assert absent == [
        "Служба: не установлена (companion service install)",
        "Данные клуба: /var/lib/companion",
    ]


def test_the_journal_s_last_failure_wins() -> None:
    later = json.dumps({"UNIT_RESULT": "exit-code", "__REALTIME_TIMESTAMP": "1746900000000000"})
    ending = ending_journaled(WATCHDOG_JOURNAL + "\nnot json\n" + later)
    assert ending is not None
    assert (ending.result, ending.code, ending.status) == ("exit-code", "dumped", 6)


def test_status_without_systemd_says_what_systemctl_said() -> None:
    answer = Ran(1, "", "System has not been booted with systemd as init system (PID 1). "
                 "Can't operate.\nFailed to connect to bus: Host is down\n")  # fmt: skip

    def runner(command: Command) -> Ran:
        return answer

    with pytest.raises(ServiceError) as error:
        read_show(runner)
    assert str(error.value) == (
        "systemctl show companion.service: System has not been booted with systemd as init "
        "system (PID 1). Can't operate."
    )


# --- the command line, as a user runs it ---------------------------------------------------


def companion(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )


def test_install_dry_run_prints_the_unit_and_the_commands_and_runs_nothing() -> None:
    done = companion("service", "install", "--dry-run", "--lang", "en")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("# companion service install --dry-run: nothing was run.")
    assert f"# the unit file {UNIT}:" in out
    body = out.split("<<'UNIT'\n", 1)[1].split("\nUNIT\n", 1)[0]
    unit = settings_of(body)
    assert unit["Service.ExecStart"] == [f"{PYTHON} -m companion.cli console --service"]
    assert "systemctl enable companion.service" in out


def test_uninstall_dry_run_runs_nothing() -> None:
    done = companion("service", "uninstall", "--dry-run")
    assert done.returncode == 0, done.stderr
    if Path(UNIT).exists():
        assert "systemctl disable --now companion.service" in done.stdout
    else:
        assert "служба не установлена" in done.stdout
    assert "данные клуба остались в /var/lib/companion" in done.stdout


def test_a_bad_option_is_one_line_naming_it() -> None:
    done = companion("service", "install", "--dry-run", "--tty", "/dev/sda")
    assert done.returncode == 2
    assert done.stderr == (
        "companion: --tty /dev/sda: give a virtual console, /dev/tty1 to /dev/tty63\n"
    )


@pytest.mark.skipif(SYSTEMD_RUNNING.is_dir(), reason="systemd runs here: a real install would")
def test_install_where_systemd_is_not_running_refuses_and_changes_nothing() -> None:
    before = (
        sorted(os.listdir("/etc/systemd/system")) if Path("/etc/systemd/system").is_dir() else []
    )
    done = companion("service", "install")
    assert done.returncode == 2
    assert done.stderr.startswith("companion: systemd is not running on this machine")
    assert done.stderr.count("\n") == 1
    assert done.stdout == ""
    after = (
        sorted(os.listdir("/etc/systemd/system")) if Path("/etc/systemd/system").is_dir() else []
    )
    assert after == before
