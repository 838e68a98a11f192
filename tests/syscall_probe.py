"""What the table's parts ask of the kernel, one call of each kind, as a
JSON object of ``what: "ok" | the errno's name``
(tests/test_service_syscalls.py runs it with and without the service's
system-call filter and compares).

Each probe goes through the companion's own code where it has one (the
priorities), else makes the call the library makes: lgpio's notification
FIFO and its ioctls on a GPIO chip, RPi.GPIO's mmap of a device, ALSA's
ioctls and mmap, the console's terminal, the journal's fsync, the
listening process's socketpair and spawn. ``mincore`` is the control: no
ordinary service makes it, and the filter refuses it.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import json
import mmap
import multiprocessing
import os
import pty
import socket
import struct
import subprocess
import sys
import tempfile
import termios
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path


def _answer(conn: Connection) -> None:
    conn.send(os.getpid())


def probes(folder: Path) -> dict[str, Callable[[], object]]:
    from companion.runner.priority import favour_process, raise_priority

    def fifo_thread() -> object:
        got: list[str] = []
        thread = threading.Thread(target=lambda: got.append(raise_priority("audio")))
        thread.start()
        thread.join()
        if not got[0].startswith("fifo"):
            raise PermissionError(errno.EPERM, got[0])
        return got[0]

    def nice() -> object:
        if favour_process() == 0:
            raise PermissionError(errno.EPERM, "no thread reniced")
        return None

    def gpio_fifo() -> object:  # lgpio's notification pipe
        os.mkfifo(folder / ".lgd-nfy0")
        return None

    def device_mmap() -> object:  # /dev/gpiomem's way: a character device mapped
        with open("/dev/zero", "r+b") as device:
            mapped = mmap.mmap(device.fileno(), 4096, mmap.MAP_SHARED)
            mapped.close()
        return None

    def terminal() -> object:  # the console: the window's size, raw mode, back
        leader, follower = pty.openpty()
        try:
            fcntl.ioctl(follower, termios.TIOCGWINSZ, struct.pack("HHHH", 0, 0, 0, 0))
            mode = termios.tcgetattr(follower)
            termios.tcsetattr(follower, termios.TCSANOW, mode)
        finally:
            os.close(leader)
            os.close(follower)
        return None

    def journal_fsync() -> object:
        path = folder / "journal.jsonl"
        with open(path, "a", encoding="utf-8") as file:
            file.write("{}\n")
            file.flush()
            os.fsync(file.fileno())
            os.fdatasync(file.fileno())
        os.statvfs(folder)  # the journal watch's free space
        return None

    def spawn() -> object:  # the table's process, the listening process
        context = multiprocessing.get_context("spawn")
        mine, theirs = context.Pipe()
        child = context.Process(target=_answer, args=(theirs,))
        child.start()
        pid = mine.recv()
        child.join(60)
        mine.close()
        if child.exitcode != 0 or pid != child.pid:
            raise ChildProcessError(errno.ECHILD, f"the child ended with {child.exitcode}")
        return pid

    def socket_pair_and_exec() -> object:
        mine, theirs = socket.socketpair()
        done = subprocess.run(["/bin/true"], pass_fds=(theirs.fileno(),), timeout=60)
        mine.close()
        theirs.close()
        return done.returncode

    def sound_cards() -> object:  # PortAudio's start: every ALSA card probed
        import sounddevice

        return len(sounddevice.query_devices())

    def mincore() -> object:
        libc = ctypes.CDLL(None, use_errno=True)
        page = mmap.mmap(-1, mmap.PAGESIZE)
        vector = ctypes.create_string_buffer(1)
        address = ctypes.addressof(ctypes.c_char.from_buffer(page))
        answer = libc.mincore(ctypes.c_void_p(address), mmap.PAGESIZE, vector)
        number = ctypes.get_errno()
        del vector
        if answer != 0:
            raise OSError(number, os.strerror(number))
        return None

    return {
        "fifo_thread": fifo_thread,
        "nice": nice,
        "gpio_fifo": gpio_fifo,
        "device_mmap": device_mmap,
        "terminal": terminal,
        "journal_fsync": journal_fsync,
        "spawn": spawn,
        "socket_pair_and_exec": socket_pair_and_exec,
        "sound_cards": sound_cards,
        "mincore": mincore,
    }


def main() -> None:
    found: dict[str, str] = {}
    with tempfile.TemporaryDirectory() as folder:
        for name, probe in probes(Path(folder)).items():
            try:
                probe()
                found[name] = "ok"
            except OSError as error:
                found[name] = errno.errorcode.get(error.errno or 0, str(error))
    print(json.dumps(found))


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
