"""Pictures of the console's screens (issue 9), kept in the repo
(tests/__snapshots__/) and shown in docs/console.md: the set-up screen and
the table in a speech, in a vote and with a proposal waiting. A change to
what the host sees shows up here; ``pytest --snapshot-update`` takes the
new pictures after a look at them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from console_driver import SIZE, Host, config, console
from textual.pilot import Pilot


def host_of(pilot: Pilot[Any]) -> Host:
    return Host(pilot.app, pilot)  # type: ignore[arg-type]


async def to_day_one(pilot: Pilot[Any]) -> Host:
    host = host_of(pilot)
    await host.keys("ctrl+s")
    await host.until("speech")
    return host


def test_setup_screen(snap_compare: Any, tmp_path: Path) -> None:
    async def names(pilot: Pilot[Any]) -> None:
        await host_of(pilot).keys(*"Аня", "tab", "tab", *"Boris")

    assert snap_compare(console(config(tmp_path)), terminal_size=SIZE, run_before=names)


def test_table_in_a_speech(snap_compare: Any, tmp_path: Path) -> None:
    async def speech(pilot: Pilot[Any]) -> None:
        host = await to_day_one(pilot)
        await host.nominate(4)
        await host.offence(6, "speech_out_of_turn")
        await host.offence(6, "speech_out_of_turn")
        await host.wait(51)  # the warning: 9 s left

    assert snap_compare(console(config(tmp_path)), terminal_size=SIZE, run_before=speech)


def test_table_in_a_vote(snap_compare: Any, tmp_path: Path) -> None:
    async def vote(pilot: Pilot[Any]) -> None:
        host = await to_day_one(pilot)
        await host.nominate(4)
        await host.next()
        await host.nominate(9)
        await host.until("vote")
        await host.seat(1, 2, 5)  # three hands down in the window for seat 4

    assert snap_compare(console(config(tmp_path)), terminal_size=SIZE, run_before=vote)


def test_table_with_a_proposal_waiting(snap_compare: Any, tmp_path: Path) -> None:
    async def proposal(pilot: Pilot[Any]) -> None:
        host = await to_day_one(pilot)
        await host.nominate(4)
        await host.next()
        await host.nominate(9)
        await host.until("vote")
        await host.seat(1, 2)
        await host.seat(2)  # lifted before «Спасибо»: the table proposes a foul (4.6.4)

    assert snap_compare(console(config(tmp_path)), terminal_size=SIZE, run_before=proposal)
