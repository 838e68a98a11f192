"""When sound reaches the sink: a recording of PulseAudio's null-sink
monitor with every sample placed on ``time.monotonic()``.

``parec`` records ``vsink.monitor`` (the sink ``scripts/pulse-null-sink.sh``
starts) through a pipe; a reader thread notes when each chunk arrives. A
chunk cannot arrive before its last sample was played, so the earliest
arrival, less the samples before it, pins the recording to the monotonic
clock (the pipe only ever adds delay). The sink's clock and the monotonic
one drift apart (~0.3 ms a second here: over a run of minutes, a timer cue
seemed to sound 100 ms early), so a moment is pinned by the chunks that
arrived within ``PIN_WINDOW_S`` of it. The same pinning serves every path
measured, so they compare fairly.
"""

from __future__ import annotations

import bisect
import os
import shutil
import subprocess
import threading
import time

import numpy as np

RATE = 22050
#: a moment is placed by the chunks that arrived this close to it (s)
PIN_WINDOW_S = 5.0


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
        self._offset = float("inf")  # monotonic time of sample 0, by the earliest chunk
        self._arrivals: list[float] = []  # when each chunk arrived
        self._pins: list[float] = []  # and the time of sample 0 it gives
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
                pin = arrived - end / self.rate
                self._offset = min(self._offset, pin)
                self._arrivals.append(arrived)
                self._pins.append(pin)

    def _offset_at(self, moment: float) -> float:
        """The time of sample 0 as the chunks around ``moment`` place it
        (under the lock)."""
        first = bisect.bisect_left(self._arrivals, moment - PIN_WINDOW_S)
        last = bisect.bisect_right(self._arrivals, moment + PIN_WINDOW_S)
        return min(self._pins[first:last], default=self._offset)

    def samples(self) -> int:
        with self._lock:
            return len(self._data) // 2

    def onset(self, after: float, threshold: int = 1000, timeout: float = 10.0) -> float | None:
        """The monotonic time of the first sample louder than ``threshold``
        recorded at or after ``after``; None if none came within ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                offset = self._offset_at(after)
                first = max(0, int((after - offset) * self.rate))
                audio = np.frombuffer(bytes(self._data[first * 2 :]), "<i2")
            loud = np.flatnonzero(np.abs(audio.astype(np.int32)) > threshold)
            if len(loud):
                return offset + (first + int(loud[0])) / self.rate
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.05)

    def quiet(self, start: float, end: float, threshold: int = 1000) -> bool:
        """Nothing louder than ``threshold`` was recorded from ``start`` to
        ``end`` (monotonic times; False if that was not recorded)."""
        with self._lock:
            offset = self._offset_at(start)
            first = int((start - offset) * self.rate)
            last = int((end - offset) * self.rate)
            if first < 0 or last * 2 > len(self._data):
                return False
            audio = np.frombuffer(bytes(self._data[first * 2 : last * 2]), "<i2")
        return not len(audio) or int(np.abs(audio.astype(np.int32)).max()) <= threshold

    def wait_quiet(
        self, seconds: float = 0.25, threshold: int = 1000, timeout: float = 30.0
    ) -> None:
        """Wait until the last ``seconds`` heard at the sink were silent."""
        deadline = time.monotonic() + timeout
        frames = int(seconds * self.rate)
        while time.monotonic() < deadline:
            now = time.monotonic()
            with self._lock:
                tail = np.frombuffer(bytes(self._data[-2 * frames :]), "<i2")
                caught_up = self._offset_at(now) + len(self._data) / 2 / self.rate > now - 0.05
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
