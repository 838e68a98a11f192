"""The console in a pseudo-terminal, as a host runs it: keys in, the
screen's text out, with a club's config of its own in a folder (no sound
server: captions). Tests of the console's process and the benches that
time it use the same terminal."""

from __future__ import annotations

import codecs
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
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ANSI = re.compile(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[()][A-Z0-9]|\x1b[=>]|\x1b\][^\x07]*\x07")
#: an escape sequence that a read ended in (the rest comes with the next)
UNFINISHED = re.compile(r"\x1b(\[[0-9;?<>=]*[ -/]*|[()]|\][^\x07]*)?\Z")


class Terminal:
    """``companion`` on a pseudo-terminal of 160x48: keys in, text out;
    ``args``: the command's (none: the console as a host starts it);
    ``command``: what is run (``python -m companion.cli``; the start-up
    bench runs the virtualenv's ``companion`` script, as ``./run`` does)."""

    def __init__(
        self, env: dict[str, str], args: Sequence[str] = (), command: Sequence[str] = ()
    ) -> None:
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 48, 160, 0, 0))
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            [*(command or (sys.executable, "-m", "companion.cli")), *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
            cwd=ROOT,
            start_new_session=True,
        )
        os.close(slave)
        self.seen = ""
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending = ""

    def until(self, text: str, timeout: float = 60.0) -> float:
        """Seconds since the process started when ``text`` was on screen."""
        end = time.perf_counter() + timeout
        while text not in self.seen.replace("\r", "").replace("\n", ""):
            left = end - time.perf_counter()
            if left <= 0 or self.process.poll() is not None:
                raise RuntimeError(f"{text!r} never appeared:\n{self.seen[-2000:]}")
            self.read(min(left, 0.05))
        return time.perf_counter() - self.started

    def key(self, text: str) -> float:
        os.write(self.master, text.encode())
        return time.perf_counter() - self.started

    def keys(self, *keys: str, settle: float = 0.15) -> None:
        """Each key answered before the next, as a host types."""
        for key in keys:
            self.key(key)
            self.read(settle)

    def read(self, seconds: float) -> None:
        """What the screen shows for ``seconds``."""
        end = time.perf_counter() + seconds
        while (left := end - time.perf_counter()) > 0:
            ready, _, _ = select.select([self.master], [], [], left)
            if not ready:
                return
            try:
                data = os.read(self.master, 65536)
            except OSError:  # the process has gone
                return
            if not data:
                return
            self.seen += self._text(data)

    def _text(self, data: bytes) -> str:
        """The text of what was read, without escape sequences. A read may
        end inside a character or an escape sequence (the terminal hands
        over a frame in pieces): that part waits for the next read, so a
        word split there is still found whole."""
        text = self._pending + self._decoder.decode(data)
        cut = UNFINISHED.search(text, max(0, len(text) - 256))
        self._pending = text[cut.start() :] if cut else ""
        return ANSI.sub("", text[: cut.start()] if cut else text)

    def kill(self) -> None:
        """Kill what is left of the process's group (a test that failed)."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)

    def quit(self) -> int:
        """ctrl+q, then the exit status."""
        self.key("\x11")
        end = time.perf_counter() + 30
        try:
            while self.process.poll() is None:  # read on: a full terminal would block it
                if time.perf_counter() > end:
                    self.process.kill()
                    raise RuntimeError("the console did not quit")
                ready, _, _ = select.select([self.master], [], [], 0.05)
                if ready:
                    try:
                        os.read(self.master, 65536)
                    except OSError:
                        break
            return self.process.wait(5)
        finally:
            os.close(self.master)


def console_env(folder: Path) -> dict[str, str]:
    """A club's config in ``folder``; no PulseAudio: captions (the start-up
    of the console itself, not of a sound card)."""
    config = folder / "config.toml"
    config.write_text(
        f'[paths]\njournals = "{folder / "journals"}"\ngames = "{folder / "games"}"\n'
        f'roster = "{folder / "roster.toml"}"\n',
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PULSE", "GPIOZERO"))}
    env.update(
        COMPANION_CONFIG=str(config),
        TERM="xterm-256color",
        HOME=str(folder),
        XDG_RUNTIME_DIR=str(folder),  # no PulseAudio server there: no sound device at all
    )
    return env


#: where the starts find the project's compiled bytecode (``--bytecode``)
BYTECODE = {
    "cached": "a bytecode cache of the bench's own, written by the warm-up start, as Python "
    "writes one on a host's first start",
    "checkout": "the checkout's __pycache__ folders and the caller's PYTHONDONTWRITEBYTECODE",
}


def hermetic_env(folder: Path, bytecode: str = "cached") -> dict[str, str]:
    """``console_env`` (a club's config in ``folder``, no sound server) with
    every XDG folder in ``folder`` too: no config, data or cache of the
    machine's own; ``bytecode``: one of ``BYTECODE``."""
    env = {k: v for k, v in console_env(folder).items() if not k.startswith("XDG_")}
    for name in ("CONFIG", "DATA", "CACHE", "STATE"):
        env[f"XDG_{name}_HOME"] = str(folder / name.lower())
    env["XDG_RUNTIME_DIR"] = str(folder)  # no PulseAudio server there
    if bytecode == "cached":
        # In the temporary folder, not the shared checkout; PYTHONDONTWRITEBYTECODE
        # (set in some shells here) would compile every module at every start.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
    return env
