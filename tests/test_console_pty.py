"""``companion`` started the way a host starts it (issue 9): the real
command in a pseudo-terminal, on this machine with no GPIO and no sound card
(no PulseAudio server is reachable and there is no card), the real clock and the loop in
its own thread. A day is played by keys, the console quits, starts again,
offers the unfinished game, resumes it, and the game is where it was; no
traceback appears at any point."""

from __future__ import annotations

import fcntl
import os
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

from companion.rulesets import load_ruleset
from companion.runner.journal import read
from companion.runner.replay import ScriptReplay
from companion.runner.script import parse_lines

ROOT = Path(__file__).resolve().parent.parent
ANSI = re.compile(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[()][A-Z0-9]|\x1b[=>]|\x1b\][^\x07]*\x07")
#: waiting for the screen: generous, for a loaded machine (the test itself
#: never measures time, it only waits for what the screen says)
PATIENCE_S = 60.0


class Terminal:
    """A process on a pseudo-terminal of 160x48: keys in, text out."""

    def __init__(self, env: dict[str, str]) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 48, 160, 0, 0))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "companion.cli"],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            cwd=ROOT,
            start_new_session=True,
        )
        os.close(slave)
        self.seen = ""

    def read(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            ready, _, _ = select.select([self.master], [], [], left)
            if not ready:
                return
            try:
                data = os.read(self.master, 65536)
            except OSError:  # the process has gone
                return
            if not data:
                return
            self.seen += ANSI.sub("", data.decode("utf-8", errors="replace"))

    def wait_for(self, text: str) -> None:
        end = time.monotonic() + PATIENCE_S
        while text not in self.seen.replace("\n", "").replace("\r", ""):
            if time.monotonic() > end or self.process.poll() is not None:
                raise AssertionError(
                    f"{text!r} never appeared; the screen said:\n{self.seen[-3000:]}"
                )
            self.read(0.2)

    def keys(self, *keys: str, settle: float = 0.15) -> None:
        for key in keys:
            os.write(self.master, key.encode())
            self.read(settle)  # each key answered before the next, as a host types

    def close(self) -> int:
        try:
            return self.process.wait(PATIENCE_S)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            raise
        finally:
            os.close(self.master)


def environment(tmp: Path) -> dict[str, str]:
    config = tmp / "config.toml"
    config.write_text(
        f'[paths]\njournals = "{tmp / "journals"}"\ngames = "{tmp / "games"}"\n'
        f'roster = "{tmp / "roster.toml"}"\n',
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PULSE", "GPIOZERO"))}
    env.update(
        COMPANION_CONFIG=str(config),
        TERM="xterm-256color",
        HOME=str(tmp),
        XDG_RUNTIME_DIR=str(tmp),  # no PulseAudio server there: no sound device at all
    )
    return env


def journal_game(folder: Path) -> tuple[str, int, tuple[int, ...], int]:
    (path,) = folder.glob("*.jsonl")
    text = read(path)
    replay = ScriptReplay(auto_timers=False)
    game = replay.run(parse_lines(text.lines, str(path), load_ruleset))
    assert game is not None
    return game.phase, game.day, game.nominees, len(text.lines)


def test_a_day_by_keys_then_quit_and_resume(tmp_path: Path) -> None:
    env = environment(tmp_path)
    first = Terminal(env)
    try:
        first.wait_for("Новая игра")
        first.keys("\x1b[15~")  # F5: start with the defaults (tournament, 10 seats, a deal)
        first.wait_for("Кнопки: симуляция")
        first.wait_for("Голос: титры")
        # Night 0's steps, then the speeches: the host moves on with the space bar.
        first.keys(" ", " ", " ")
        first.wait_for("речь игрока 1")
        first.keys("n")
        first.keys("5", "\r")
        first.wait_for("Выставлены: 5")
        first.keys("1")  # seat 1's button: «Пас», seat 2 speaks
        first.wait_for("речь игрока 2")
        first.keys("\x11")  # ctrl+q
        assert first.close() == 0
    finally:
        if first.process.poll() is None:
            os.killpg(first.process.pid, signal.SIGKILL)
    assert "Traceback" not in first.seen
    before = journal_game(tmp_path / "journals")
    assert before[:3] == ("speeches", 1, (5,))

    second = Terminal(env)
    try:
        second.wait_for("Есть незаконченная игра")
        second.keys("\r")  # «Продолжить»
        second.wait_for("Выставлены: 5")
        second.wait_for("Журнал: ")
        second.keys("\x11")
        assert second.close() == 0
    finally:
        if second.process.poll() is None:
            os.killpg(second.process.pid, signal.SIGKILL)
    assert "Traceback" not in second.seen
    after = journal_game(tmp_path / "journals")
    # The same game, at the same point: nothing lost, nothing added by resuming.
    assert after == before
    log = (tmp_path / "companion.log").read_text(encoding="utf-8")
    assert "Traceback" not in log
