"""bench/ears_cost.py says what a figure was measured on (the board or the
CPU, the clock's governor, the clock seen): on a Pi, the figure that would
close issue 26's cost comes with the clock it ran at."""

from __future__ import annotations

from pathlib import Path

from bench.ears_cost import ClockWatch, machine


def test_a_pi_is_named_by_its_board_and_its_governor(tmp_path: Path) -> None:
    board = tmp_path / "model"
    board.write_bytes(b"Raspberry Pi 4 Model B Rev 1.4\x00")
    cpufreq = tmp_path / "cpufreq"
    cpufreq.mkdir()
    (cpufreq / "scaling_governor").write_text("ondemand\n")
    said = machine(board, tmp_path / "none", cpufreq)
    assert said == "Raspberry Pi 4 Model B Rev 1.4; clock governor: ondemand"


def test_elsewhere_the_cpu_is_named_and_no_governor_said(tmp_path: Path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nmodel name\t: AMD EPYC\n")
    said = machine(tmp_path / "no-board", cpuinfo, tmp_path / "no-cpufreq")
    assert said == "AMD EPYC; clock governor: none (no cpufreq here)"


def test_the_clock_seen_is_its_range_and_median() -> None:
    watch = ClockWatch()
    assert watch.said() == ""  # nothing read: nothing said
    watch.mhz = [1500.0, 600.0, 600.0, 1500.0, 600.0]
    assert watch.said() == "; clock 600-1500 MHz, median 600"
