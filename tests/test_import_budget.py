"""What the console's first screen waits for (issue 23, must-hold 11).

``companion`` draws its first screen (the set-up screen, or the question
whether to resume an unfinished game) before it loads the table's parts:
the voice (numpy, sounddevice, pyttsx3), the ears, the live table, the
game's screens, the protocol's pages and the other commands' modules come
after it (the spare table process and ``app._import_game_screens`` once the
first screen is drawn, the rest when used). ``bench/console_start.py``
measures the time; these tests keep a later import from undoing the gain
unnoticed. Each looks at ``sys.modules`` of a fresh interpreter: after
importing the command line and the console, and at the first screen drawn
by the console itself (Textual's pilot), with the work that is meant to
come after that screen switched off.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from testkit.command import unfinished_game
from testkit.terminal import hermetic_env

ROOT = Path(__file__).resolve().parent.parent

#: modules (and their submodules) the first screen must not wait for, and why
HEAVY = {
    "numpy": "the voice's and the ears' arrays",
    "sounddevice": "PortAudio",
    "pyttsx3": "the speech engine",
    "vosk": "the ears' recogniser",
    "companion.voice": "the voice: the spare table process loads it",
    "companion.ears": "the ears: their own process",
    "companion.live.assembly": "the live table: its own process",
    "companion.live.table_process": "the live table: its own process",
    "companion.console.sports.screen": "a game's screen: after the first screen",
    "companion.console.forum.screen": "a game's screen: after the first screen",
    "companion.console.protocol_screen": "the game's end",
    "companion.protocol.archive": "the game's end",
    "companion.protocol.page": "the protocol's HTML",
    "companion.club.commands": "the club's commands",
    "companion.club.backup": "backups (tarfile, urllib)",
    "companion.ops.service": "the service's commands",
    "companion.seats.selftest_command": "the self-test command",
    "companion.seats.silent": "the pin map's reader: the table's",
    "http": "downloads (models, updates)",
    "email": "downloads (models, updates)",
    "tarfile": "backups",
}

#: the console drawing its first screen in the pilot, as ``companion``
#: builds it (the club's config from COMPANION_CONFIG); what comes once the
#: first screen is drawn, by design, switched off: then the screen's name
#: and every module loaded, as JSON
FIRST_SCREEN = """
import asyncio, json, sys
from companion.config.load import load_config
from companion.console import app as console_app
from companion.console.table_host import TableHost

for owner, name in ((TableHost, "spare_for_next_game"), (TableHost, "preload"),
                    (console_app, "_import_game_screens")):
    assert hasattr(owner, name), name  # renamed? then this test must follow
TableHost.spare_for_next_game = lambda self: None
TableHost.preload = lambda self: None
console_app._import_game_screens = lambda: None

async def first_screen() -> None:
    app = console_app.ConsoleApp(load_config())
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        print(json.dumps([type(app.screen).__name__, sorted(sys.modules)]))

asyncio.run(first_screen())
"""


def loaded(code: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env or dict(os.environ),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def heavy(modules: list[str]) -> dict[str, str]:
    return {
        module: why
        for module in modules
        for name, why in HEAVY.items()
        if module == name or module.startswith(name + ".")
    }


def test_the_command_line_and_the_console_import_nothing_heavy() -> None:
    modules = json.loads(
        loaded(
            "import json, sys, companion.cli, companion.console.app; print(json.dumps(sorted(sys.modules)))"
        )
    )
    assert "textual.app" in modules  # the console was imported at all
    assert heavy(modules) == {}


def test_the_set_up_screen_is_drawn_without_the_table_parts(tmp_path: Path) -> None:
    screen, modules = json.loads(loaded(FIRST_SCREEN, hermetic_env(tmp_path, bytecode="checkout")))
    assert screen == "SetupScreen"
    assert heavy(modules) == {}


def test_the_resume_question_is_drawn_without_the_table_parts(tmp_path: Path) -> None:
    env = hermetic_env(tmp_path, bytecode="checkout")
    unfinished_game(env, tmp_path / "journals")
    screen, modules = json.loads(loaded(FIRST_SCREEN, env))
    assert screen == "AskYesNo"
    assert heavy(modules) == {}
