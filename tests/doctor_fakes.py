"""Fakes for ``companion doctor``'s probes: a Pi where every check
passes (``healthy``), and the means to break one part of it (``swap``,
``raises``) in a test of that check's failing case."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from companion.config.values import Config, PathsConfig, SeatsConfig
from companion.ops.doctor.command import Probes
from companion.ops.doctor.listening import ListeningProbes
from companion.ops.doctor.seats import ChipAccess, GpioProbes, GroupInfo
from companion.ops.doctor.sound import OutputReport, SoundProbes
from companion.ops.doctor.system import FolderState, Privileges, SystemProbes
from companion.ops.doctor.voice import Rendered, VoiceProbes
from companion.voice.audio import tone

GB = 1024**3


class LGPIOFactory:
    """Stands for gpiozero's lgpio factory on a Pi (none here)."""


def noise(db: float, seconds: float = 1.0, channels: int = 1) -> tuple[np.ndarray, int]:
    """Gaussian noise at ``db`` dBFS (mean square), as a card would give it."""
    rng = np.random.default_rng(7)
    samples = rng.normal(0.0, 10 ** (db / 20), (int(16_000 * seconds), channels))
    return samples.astype(np.float32), 16_000


def table(tmp_path: Path, **changes: Any) -> Config:
    """A club's config at a table on GPIO, its folders in ``tmp_path``."""
    paths = PathsConfig(tmp_path / "journals", tmp_path / "games", tmp_path / "roster.toml")
    return dataclasses.replace(Config(seats=SeatsConfig(mode="gpio"), paths=paths), **changes)


def healthy(config: Config) -> Probes:
    """Fakes of a Pi where every check passes."""
    return Probes(
        load_config=lambda path: config,
        gpio=GpioProbes(
            pin_factory=LGPIOFactory,
            chips=lambda: [ChipAccess("/dev/gpiochip0", True), ChipAccess("/dev/gpiochip4", True)],
            group=lambda: GroupInfo("club", root=False, member=True),
            open_pins=lambda pinmap, factory: None,
        ),
        sound=SoundProbes(
            test_cue=lambda config: (tone(660, 0.1), "Проверка звука. Раз, два, три."),
            play=lambda device, latency, clip, timeout: OutputReport(
                "USB Audio (ALSA)", 48_000, clip is not None
            ),
            outputs=lambda: ["0 USB Audio", "1 pulse"],
            capture=lambda device, channels, seconds, timeout: noise(-45, channels=channels),
            inputs=lambda: ["0 USB Audio", "2 ReSpeaker 4 Mic Array"],
        ),
        voice=VoiceProbes(
            espeak=lambda: "espeak-ng 1.51",
            render=lambda text, tts: Rendered("pyttsx3", 2.9, silent=False),
            pack=lambda config: None,
            load_model=lambda folder: 1.2,
            folder_bytes=lambda folder: 48 * 1024 * 1024,
        ),
        system=SystemProbes(
            folder=lambda path: FolderState(True, 20 * GB, 1),
            user=lambda: "club",
            privileges=lambda: Privileges(root=False, cap_sys_nice=True, rtprio=0),
            try_fifo=lambda priority: None,
            try_nice=lambda nice: None,
            timedatectl=lambda: True,
            adjtimex=lambda: True,
            now=lambda: "2026-12-01 19:30 MSK",
        ),
        listening=ListeningProbes(service=lambda: None),  # not run as the service
    )


def swap(probes: Probes, part: str, **fakes: Any) -> Probes:
    """``probes`` with some probes of one part replaced."""
    return dataclasses.replace(
        probes, **{part: dataclasses.replace(getattr(probes, part), **fakes)}
    )


def raises(error: BaseException) -> Callable[..., Any]:
    def probe(*args: Any) -> Any:
        raise error

    return probe
