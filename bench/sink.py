"""When sound reaches the sink: a recording of PulseAudio's null-sink
monitor with every sample placed on ``time.monotonic()``.

``parec`` records ``vsink.monitor`` (the sink ``scripts/pulse-null-sink.sh``
starts) through a pipe; a reader thread notes when each chunk arrives. A
chunk cannot arrive before its last sample was played, so the earliest
arrival over the recording, less the samples before it, pins sample 0 to
the monotonic clock (the pipe only ever adds delay). The same pinning serves
every path measured, so they compare fairly.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time

import numpy as np

RATE = 22050


class SinkMonitor:
    def __init__(self, rate: int = RATE) -> None:
        if shutil.which("parec") is None:
            raise OSError("parec is not installed (Debian: pulseaudio-utils)")
        self.rate = rate
        self._process = subprocess.Popen(
            [
                "parec",
                "--device=vsink.monitor",
                "--format=s16le",
                f"--rate={rate}",
                "--channels=1",
                "--latency-msec=5",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self._data = bytearray()
        self._offset = float("inf")  # monotonic time of sample 0
        self._lock = threading.Lock()
        threading.Thread(target=self._read, name="sink monitor", daemon=True).start()
        deadline = time.monotonic() + 10
        while self.samples() < rate // 5:  # 0.2 s recorded: it runs
            if time.monotonic() > deadline or self._process.poll() is not None:
                self.close()
                raise OSError("parec records nothing from vsink.monitor (no null sink?)")
            time.sleep(0.01)

    def _read(self) -> None:
        stream = self._process.stdout
        assert stream is not None
        while chunk := os.read(stream.fileno(), 4096):
            arrived = time.monotonic()
            with self._lock:
                self._data += chunk
                end = len(self._data) // 2
                self._offset = min(self._offset, arrived - end / self.rate)

    def samples(self) -> int:
        with self._lock:
            return len(self._data) // 2

    def onset(self, after: float, threshold: int = 1000, timeout: float = 10.0) -> float | None:
        """The monotonic time of the first sample louder than ``threshold``
        recorded at or after ``after``; None if none came within ``timeout``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                first = max(0, int((after - self._offset) * self.rate))
                audio = np.frombuffer(bytes(self._data[first * 2 :]), "<i2")
                offset = self._offset
            loud = np.flatnonzero(np.abs(audio.astype(np.int32)) > threshold)
            if len(loud):
                return offset + (first + int(loud[0])) / self.rate
            time.sleep(0.05)
        return None

    def wait_quiet(
        self, seconds: float = 0.25, threshold: int = 1000, timeout: float = 30.0
    ) -> None:
        """Wait until the last ``seconds`` heard at the sink were silent."""
        deadline = time.monotonic() + timeout
        frames = int(seconds * self.rate)
        while time.monotonic() < deadline:
            with self._lock:
                tail = np.frombuffer(bytes(self._data[-2 * frames :]), "<i2")
                caught_up = self._offset + len(self._data) / 2 / self.rate > time.monotonic() - 0.05
            if (
                caught_up
                and len(tail) == frames
                and np.abs(tail.astype(np.int32)).max() <= threshold
            ):
                return
            time.sleep(0.02)
        raise TimeoutError(f"the sink was not quiet for {seconds} s within {timeout} s")

    def close(self) -> None:
        self._process.terminate()
        self._process.wait(timeout=10)
