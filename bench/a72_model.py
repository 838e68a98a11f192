"""What a Raspberry Pi 4's Cortex-A72 would spend running a program, from
the events ``bench/arm/a72.c`` counts under emulation (issue 26; run by
``bench/ears_arm.py``).

A program's cycles are taken as its instructions at the core's own rate
plus a price for every event that stalls it: a branch mispredicted, a
cache line missed at L1 (served by L2) or at L2 (served by the memory),
each either random or in a stream a prefetcher runs ahead of (``a72.c``
says which). The core's own rate is not assumed but calibrated: n-body's
published time on a Pi 4, less its own events at the same prices, leaves
the cycles its instructions took.

The prices are assumptions, stated here and in docs/listening.md ("The
cost"), and every event is paid in full, none overlapping another: the
figure is an upper bound for these prices, where n-body's plain rate
(every instruction at the rate n-body runs at) is a lower one.
"""

from __future__ import annotations

CLOCK_HZ = 1.5e9  # a Pi 4's Cortex-A72, the performance governor
#: cycles at 1.5 GHz an event costs (assumed):
#: - a branch mispredicted: the A72's pipeline, some 15 stages, refilled;
#: - an L1 miss the L2 serves: ~20 cycles random, 3 in a prefetched stream;
#: - an L2 miss: random, 150 ns of LPDDR4 with its page walk (225 cycles);
#:   in a stream, 64 bytes at 2.8 GB/s (a Pi 4's single-core STREAM copy,
#:   5.5 GB/s, read and write together, halved): 34 cycles.
PRICES = {
    "cond_miss": 15.0,
    "indirect_miss": 15.0,
    "ret_miss": 15.0,
    "l1i_random": 20.0,
    "l1i_stream": 3.0,
    "l1d_random": 20.0,
    "l1d_stream": 3.0,
    "l2_random": 225.0,
    "l2_stream": 34.0,
}
#: the events shown a thousand instructions, in this order
SHOWN = (
    ("branches mispredicted", ("cond_miss", "indirect_miss", "ret_miss")),
    ("L1 misses, random", ("l1i_random", "l1d_random")),
    ("L1 misses, in streams", ("l1i_stream", "l1d_stream")),
    ("L2 misses, random", ("l2_random",)),
    ("L2 misses, in streams", ("l2_stream",)),
)

Events = dict[str, float]


def parse(text: str) -> Events:
    """``a72.c``'s line: ``name=count ...``."""
    return {name: float(count) for name, count in (field.split("=") for field in text.split())}


def per_unit(late: Events, early: Events, units: float) -> Events:
    """The events of the ``units`` (seconds of audio, steps) between two runs."""
    return {name: (late[name] - early[name]) / units for name in late}


def stalls(events: Events) -> float:
    """Cycles the events cost at ``PRICES``."""
    return sum(events[name] * price for name, price in PRICES.items())


def core_rate(nbody_step: Events, seconds_per_step: float) -> float:
    """Instructions a cycle the core runs where nothing stalls it: n-body's
    step on a Pi 4, less its events at ``PRICES``."""
    cycles = seconds_per_step * CLOCK_HZ - stalls(nbody_step)
    if cycles <= 0:
        raise ValueError("the prices cost more than n-body's measured time: lower them")
    return nbody_step["insns"] / cycles


def seconds(events: Events, rate: float) -> float:
    """The events' seconds on a Pi 4: instructions at ``rate``, stalls priced."""
    return (events["insns"] / rate + stalls(events)) / CLOCK_HZ


def per_thousand(events: Events) -> list[tuple[str, float]]:
    """(what, how many a thousand instructions), as ``SHOWN``."""
    return [
        (what, 1000.0 * sum(events[name] for name in names) / events["insns"])
        for what, names in SHOWN
    ]
