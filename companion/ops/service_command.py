"""``companion service``: its arguments and what each action does (the
plans are ops/service.py's, the state ops/service_status.py's)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from ..paths import PROJECT
from .service import (
    WORDS,
    Machine,
    Runner,
    SystemRunner,
    carry_out,
    install_plan,
    reach_problems,
    read_machine,
    show_plan,
    uninstall_plan,
)
from .service_status import status_command
from .service_unit import UnitSettings


def service_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    service = sub.add_parser(
        "service", parents=[common], help="the console as a systemd service on the Pi"
    )
    actions = service.add_subparsers(dest="service_action", required=True)
    unit = argparse.ArgumentParser(add_help=False)
    unit.add_argument("--user", default="companion", help="the service's user (companion)")
    unit.add_argument("--tty", default="/dev/tty1", help="the screen's console (/dev/tty1)")
    unit.add_argument(
        "--leave-clock",
        action="store_true",
        help="leave the CPU's clock governor as it is (default: full clock while it runs)",
    )
    dry = argparse.ArgumentParser(add_help=False)
    dry.add_argument(
        "--dry-run", action="store_true", help="print what would be written and run; run nothing"
    )
    install = actions.add_parser(
        "install", parents=[common, unit, dry], help="set up, enable and start the service"
    )
    install.add_argument(
        "--no-start", action="store_true", help="enable it for the next boot, do not start it now"
    )
    actions.add_parser(
        "uninstall", parents=[common, unit, dry], help="stop and remove it; keep the club's data"
    )
    actions.add_parser(
        "status", parents=[common], help="installed, enabled, running, the last exit and why"
    )


def service_command(
    args: argparse.Namespace,
    runner: Runner | None = None,
    machine: Machine | None = None,
    out: TextIO | None = None,
) -> int:
    """``runner``/``machine``: a test's (default: this machine's)."""
    out = out or sys.stdout
    words = WORDS.get(args.lang, WORDS["ru"])
    run = runner or SystemRunner()
    if args.service_action == "status":
        return status_command(run, args.lang, out)
    base = UnitSettings(
        python=Path(sys.executable),
        project=PROJECT,
        user=args.user,
        tty=args.tty,
        full_clock=not args.leave_clock,
    )
    facts = machine or read_machine(base, run)
    if args.service_action == "install":
        reach = reach_problems(base, facts.groups)
        plan = install_plan(base, facts, start=not args.no_start, problems=reach)
    else:
        plan = uninstall_plan(base, facts)
    sudo = not facts.root
    if args.dry_run:
        show_plan(plan, args.service_action, sudo, words, out)
        return 0
    carry_out(plan, run, sudo, words, out)
    if plan.commands:
        print(words[f"done_{args.service_action}"], file=out)
    return 0
