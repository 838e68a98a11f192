"""bench/a72_model.py: the Pi 4's seconds from the events a72.c counts."""

from __future__ import annotations

import pytest

from bench import a72_model

QUIET = dict.fromkeys(a72_model.PRICES, 0.0)


def _events(insns: float, **events: float) -> a72_model.Events:
    return {"insns": insns, "cond": 0.0, "indirect": 0.0, "l1d": 0.0, **QUIET, **events}


def test_parse_reads_the_plugins_line() -> None:
    line = "insns=1000 cond=10 cond_miss=2 l2_random=3\n"
    assert a72_model.parse(line) == {"insns": 1000, "cond": 10, "cond_miss": 2, "l2_random": 3}


def test_the_events_between_two_runs_a_unit() -> None:
    early, late = _events(100, cond_miss=1), _events(700, cond_miss=13)
    between = a72_model.per_unit(late, early, 3)
    assert between["insns"] == 200 and between["cond_miss"] == 4


def test_the_core_rate_is_n_bodys_time_less_its_stalls() -> None:
    # 3000 instructions, 20 mispredicts at 15 cycles: 300 of the 1800 cycles
    step = _events(3000, cond_miss=20)
    rate = a72_model.core_rate(step, 1800 / a72_model.CLOCK_HZ)
    assert rate == pytest.approx(3000 / 1500)
    # the same events at that rate take n-body's own time again
    assert a72_model.seconds(step, rate) == pytest.approx(1800 / a72_model.CLOCK_HZ)


def test_every_event_is_paid_at_its_price() -> None:
    stalls = _events(0, l2_random=2, l2_stream=4, l1d_random=1)
    assert a72_model.stalls(stalls) == 2 * 225 + 4 * 34 + 20


def test_prices_beyond_n_bodys_time_are_refused() -> None:
    with pytest.raises(ValueError, match="lower them"):
        a72_model.core_rate(_events(3000, l2_random=100), 1000 / a72_model.CLOCK_HZ)


def test_the_events_shown_a_thousand_instructions() -> None:
    shown = dict(a72_model.per_thousand(_events(2000, cond_miss=4, indirect_miss=2)))
    assert shown["branches mispredicted"] == 3.0
    assert shown["L2 misses, random"] == 0.0
