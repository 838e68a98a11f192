"""Recordings without limits (issue 24, item 7): what ``companion listen``
(and the other readers of a WAV a person names) do with a file that is not
a recording, or a recording that is not what its header says.

Before: the recording was read whole and as float32 (a 1-hour file took
600 MB, a 4-hour one died of ``ArrayMemoryError``), a FIFO hung the
command, a header could claim anything. Must hold: regular files only,
the header checked before any sound is read, the sound read a block at a
time; one line naming the file and what is wrong (Russian by default,
English with ``--lang en``), exit status 2, no traceback, no hang. Some
run the way a user runs them, ``python -m companion.cli listen``, under a
timeout that turns a hang into a failure.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import tracemalloc
import wave
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from cli_here import companion_here
from helpers import ROOT

from companion.ears.wav_file import WavRecording, WavRefused

#: a hang is a failure within this, not a stuck suite
GUARD_S = 60
RATE = 16_000


#: the files a broken reader would wait on or read without end: the
#: command runs in a process of its own (under a timeout) for these, in the
#: test's own process (tests/cli_here.py) for the others
UNBOUNDED = ("fifo", "link-to-dev-zero")


def companion(hostile: str, *args: str | Path) -> subprocess.CompletedProcess[str]:
    if hostile not in UNBOUNDED:
        return companion_here(*args, cwd=ROOT)
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", *map(str, args)],
        cwd=ROOT, capture_output=True, text=True, timeout=GUARD_S,
    )  # fmt: skip


def fmt_chunk(
    tag: int = 1, channels: int = 1, rate: int = RATE, bits: int = 16, extra: bytes = b""
) -> bytes:
    align = channels * bits // 8
    body = struct.pack("<HHIIHH", tag, channels, rate, rate * align % 2**32, align, bits) + extra
    return b"fmt " + struct.pack("<I", len(body)) + body


def wav_bytes(fmt: bytes, data: bytes, declared: int | None = None, before: bytes = b"") -> bytes:
    """A WAV file's bytes: ``before`` (other chunks), ``fmt``, the data
    chunk claiming ``declared`` bytes (default: as many as there are)."""
    size = len(data) if declared is None else declared
    body = b"WAVE" + before + fmt + b"data" + struct.pack("<I", size) + data
    return b"RIFF" + struct.pack("<I", min(len(body), 2**32 - 1)) + body


def extensible(sub: int, bits: int = 16, channels: int = 1) -> bytes:
    guid = struct.pack("<H", sub) + bytes.fromhex("000000001000800000aa00389b71")
    return fmt_chunk(0xFFFE, channels, RATE, bits, struct.pack("<HHI", 22, bits, 0) + guid)


def sparse_wav(path: Path, declared: int, size: int) -> Path:
    """A WAV header claiming ``declared`` bytes of 16 kHz mono sound in a
    file of ``size`` bytes that takes no room on the disk."""
    path.write_bytes(wav_bytes(fmt_chunk(), b"", declared))
    os.truncate(path, size)
    return path


def _write(name: str, content: bytes) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        path = folder / name
        path.write_bytes(content)
        return path

    return make


def _fifo(folder: Path) -> Path:
    os.mkfifo(folder / "table.wav")
    return folder / "table.wav"


def _zero_link(folder: Path) -> Path:
    (folder / "table.wav").symlink_to("/dev/zero")
    return folder / "table.wav"


def _folder(folder: Path) -> Path:
    (folder / "table.wav").mkdir()
    return folder / "table.wav"


SECOND = np.zeros(RATE, dtype="<i2").tobytes()
#: name: (the file, what the line says of it in English, in Russian)
HOSTILE: dict[str, tuple[Callable[[Path], Path], str, str]] = {
    "fifo": (_fifo, "a named pipe (FIFO), not a file", "именованный канал (FIFO), а не файл"),
    "link-to-dev-zero": (_zero_link, "a device, not a file", "устройство, а не файл"),
    "folder": (_folder, "a folder, not a file", "папка, а не файл"),
    "truncated-header": (
        _write("table.wav", wav_bytes(fmt_chunk(), b"")[:30]),
        "broken WAV file (no fmt chunk)",
        "испорченный WAV-файл (нет блока fmt)",
    ),
    "claims-4GiB": (
        _write("table.wav", wav_bytes(fmt_chunk(), SECOND, declared=2**32 - 16)),
        "the header declares 4294967280 bytes of sound, the file holds 32000 after it",
        "в заголовке 4294967280 байт звука, а в файле за ним 32000",
    ),
    "sparse-8GiB": (
        lambda folder: sparse_wav(folder / "table.wav", 2**32 - 1, 8 * 2**30),
        "37 h 16 min of sound: longer than 24 h",
        "37 ч 16 мин звука: длиннее 24 ч",
    ),
    "over-24h": (
        lambda folder: sparse_wav(folder / "table.wav", (86_400 + 60) * 2 * RATE, 2_766_720_044),
        "24 h 1 min of sound: longer than 24 h",
        "24 ч 1 мин звука: длиннее 24 ч",
    ),
    "44-kHz": (
        _write("table.wav", wav_bytes(fmt_chunk(rate=44_100), SECOND)),
        "44100 Hz; the ears take 16000 Hz (resample it first)",
        "44100 Гц; слух берёт 16000 Гц",
    ),
}


@pytest.mark.parametrize("hostile", sorted(HOSTILE))
def test_companion_listen_says_what_is_wrong_in_one_line(tmp_path: Path, hostile: str) -> None:
    make, english, _ = HOSTILE[hostile]
    path = make(tmp_path)
    done = companion(hostile, "listen", path, "--lang", "en")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"companion: {path}: ")
    assert english in done.stderr


@pytest.mark.parametrize("hostile", ["fifo", "over-24h", "claims-4GiB", "44-kHz"])
def test_the_line_is_russian_by_default(tmp_path: Path, hostile: str) -> None:
    make, _, russian = HOSTILE[hostile]
    path = make(tmp_path)
    done = companion(hostile, "listen", path, "--layout", "channels")
    assert done.returncode == 2 and done.stderr.startswith(f"companion: {path}: ")
    assert russian in done.stderr, done.stderr


#: headers refused, and the line's why (English)
REFUSED: dict[str, tuple[bytes, str]] = {
    "not a WAV": (b"ID3\x04" + bytes(100), "not a WAV file (no RIFF/WAVE header)"),
    "empty": (b"", "not a WAV file (no RIFF/WAVE header)"),
    "no fmt": (b"RIFF\x0c\x00\x00\x00WAVEdata\x00\x00\x00\x00", "broken WAV file (no fmt chunk)"),
    "no data": (b"RIFF\x24\x00\x00\x00WAVE" + fmt_chunk(), "broken WAV file (no data chunk)"),
    "a chunk claiming 4 GiB before the data": (
        wav_bytes(b"", SECOND, before=fmt_chunk() + b"LIST" + struct.pack("<I", 2**32 - 2)),
        "broken WAV file (no data chunk)",
    ),
    "zero channels": (
        wav_bytes(fmt_chunk(channels=0), SECOND),
        "0 channels; a recording has 1 to 32",
    ),
    "33 channels": (
        wav_bytes(fmt_chunk(channels=33), SECOND),
        "33 channels; a recording has 1 to 32",
    ),
    "rate 0": (wav_bytes(fmt_chunk(rate=0), SECOND), "a sample rate of 0 Hz is no recording's"),
    "rate 4 GHz": (
        wav_bytes(fmt_chunk(rate=4_000_000_000), SECOND),
        "a sample rate of 4000000000 Hz is no recording's",
    ),
    "12-bit": (wav_bytes(fmt_chunk(bits=12), SECOND), "12-bit samples; save it as 16-bit PCM"),
    "16-bit float": (wav_bytes(fmt_chunk(tag=3, bits=16), SECOND), "16-bit samples"),
    "IMA ADPCM": (wav_bytes(fmt_chunk(tag=0x11, bits=4), SECOND), "compressed WAV (format 0x11)"),
    "MP3 inside": (wav_bytes(extensible(0x55), SECOND), "compressed WAV (format 0x55)"),
    "a short extensible header": (
        wav_bytes(fmt_chunk(0xFFFE, extra=b"\x00\x00"), SECOND),
        "broken WAV header (WAVE_FORMAT_EXTENSIBLE)",
    ),
    "claims a second more": (
        wav_bytes(fmt_chunk(), SECOND, declared=2 * len(SECOND)),
        "the header declares 64000 bytes",
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_header_is_checked_before_any_sound_is_read(tmp_path: Path, case: str) -> None:
    content, why = REFUSED[case]
    path = tmp_path / "table.wav"
    path.write_bytes(content)
    with pytest.raises(WavRefused) as refused:
        WavRecording(path)
    assert str(refused.value).startswith(f"{path}: {why}")
    russian = refused.value.said("ru")
    assert russian.startswith(f"{path}: ") and russian != str(refused.value)
    assert "\n" not in russian


def test_what_a_recorder_writes_is_read_as_the_voice_reads_it(tmp_path: Path) -> None:
    """8-, 16-, 24- and 32-bit PCM, 32- and 64-bit float, plain or
    extensible headers, other chunks before the sound, a torn last frame:
    the same samples (int16's, / 32768) block by block as whole."""
    values = np.array([0, 1, -1, 256, -256, 32767, -32768, 12345, -4321, 77], dtype=np.int16)
    stereo = values.reshape(-1, 2)
    wide = values.astype("<i4")
    files = {
        "16": wav_bytes(fmt_chunk(channels=2), values.astype("<i2").tobytes()),
        "16-extensible": wav_bytes(extensible(1, channels=2), values.astype("<i2").tobytes()),
        "16-after-LIST": wav_bytes(
            fmt_chunk(channels=2), values.astype("<i2").tobytes(), before=b"LIST\x03\x00\x00\x00abc\x00"
        ),
        "16-torn": wav_bytes(fmt_chunk(channels=2), values.astype("<i2").tobytes() + b"\x01\x02\x03"),
        "24": wav_bytes(fmt_chunk(channels=2, bits=24), (wide << 8).view(np.uint8).reshape(-1, 4)[:, :3].tobytes()),
        "32": wav_bytes(fmt_chunk(channels=2, bits=32), (wide << 16).astype("<i4").tobytes()),
        "float32": wav_bytes(fmt_chunk(3, 2, bits=32), (values / 32767).astype("<f4").tobytes()),
        "float64-extensible": wav_bytes(extensible(3, 64, 2), (values / 32767).astype("<f8").tobytes()),
    }  # fmt: skip
    for name, content in files.items():
        path = tmp_path / f"{name}.wav"
        path.write_bytes(content)
        with WavRecording(path) as recording:
            assert (recording.channels, recording.rate, recording.frames) == (2, RATE, 5), name
            blocks = list(recording.blocks(2))
            assert [len(b) for b in blocks] == [2, 2, 1]
            assert np.array_equal(np.concatenate(blocks), stereo / np.float32(32768)), name
    eight = tmp_path / "8.wav"
    eight.write_bytes(wav_bytes(fmt_chunk(bits=8), bytes([128, 129, 0, 255])))
    with WavRecording(eight) as recording:
        assert recording.read_all()[:, 0].tolist() == [0.0, 256 / 32768, -1.0, 127 * 256 / 32768]


def test_the_array_s_channels_are_said_in_one_line(tmp_path: Path) -> None:
    from companion.ears.array import Calibration
    from companion.ears.calibration import save
    from companion.ears.review import review

    calibration = tmp_path / "array.json"
    save(Calibration("respeaker-6mic", RATE, {1: (0.0,) * 15, 2: (1e-5,) * 15}), calibration)
    path = tmp_path / "table.wav"
    path.write_bytes(wav_bytes(fmt_chunk(channels=3), SECOND * 3))
    with pytest.raises(WavRefused) as refused:
        review(path, layout="array", calibration=calibration)
    assert str(refused.value) == (
        f"{path}: 3 channel(s); the respeaker-6mic array gives 6 (or 8 from its card)"
    )
    assert refused.value.said("ru") == (
        f"{path}: каналов: 3; массив respeaker-6mic даёт 6 (или 8 со своей звуковой карты)"
    )


def test_an_evening_is_heard_in_the_memory_of_a_few_seconds(tmp_path: Path) -> None:
    """Twelve minutes of a quiet room with a voice now and then: whole as
    float32 that is 46 MB; ``review`` holds a block and a few seconds."""
    path = tmp_path / "evening.wav"
    rng = np.random.default_rng(7)
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        for _ in range(12):
            sound = rng.standard_normal(60 * RATE) * 30
            sound[20 * RATE : 22 * RATE] *= 100  # a voice's loudness, for two seconds
            out.writeframes(sound.astype("<i2").tobytes())
    from companion.ears.review import review

    tracemalloc.start()
    try:
        found = review(path, detector="webrtc")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(found["segments"]) >= 1
    assert peak < 12 * 2**20, f"{peak / 2**20:.1f} MiB"


def _within(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=ROOT, capture_output=True, text=True, timeout=GUARD_S,
    )  # fmt: skip


def test_the_file_microphone_and_the_voice_s_reader_refuse_a_fifo_at_once(tmp_path: Path) -> None:
    """``--microphone file:REC.wav`` (the console's listening process) and
    ``voice.audio.read_wav`` (a voice pack's clips): a FIFO is refused at
    once, not waited on."""
    fifo = _fifo(tmp_path)
    code = (
        "import sys\n"
        "from companion.ears.hearing import EarsSettings, open_listener\n"
        "try:\n"
        "    open_listener(EarsSettings(device='file:' + sys.argv[1]))\n"
        "except OSError as error:\n"
        "    print(error)\n"
    )
    done = _within(code, str(fifo))
    assert done.stdout == f"{fifo}: a named pipe (FIFO), not a file\n", done.stderr
    code = (
        "import sys\nfrom pathlib import Path\n"
        "from companion.voice.audio import BadAudio, read_wav\n"
        "try:\n"
        "    read_wav(Path(sys.argv[1]))\n"
        "except BadAudio as error:\n"
        "    print(error)\n"
    )
    done = _within(code, str(fifo))
    assert done.stdout == f"{fifo}: cannot be read (a named pipe (FIFO), not a file)\n", done.stderr
