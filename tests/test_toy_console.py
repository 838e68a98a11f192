"""The console plays a third procedure (issue 25 part 3's proof, the
shells' side): the toy game of tests/toy_game/, registered by its registry
lines alone (``registry.register``), is chosen on the set-up screen from a
rulesets folder that holds its file, started, played to its end with the
host's keys on its own screen, and its end is shown and its protocol saved.
Textual's pilot on the fake clock, simulated seats, as in the other
console tests."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import cast

import pytest
from console_driver import Host, config, console, hosting
from test_procedure_registries import REGISTRIES
from textual.widgets import Input, RichLog, Select, Static

from companion.config.rulesets import DEFAULT_DIR, available_rulesets, load_ruleset
from companion.console import procedures as console_procedures
from companion.console.procedure_parts import ConsoleProcedure
from companion.console.protocol_screen import ProtocolScreen
from companion.console.refusals.wording import refusal_line
from companion.console.setup_screen import SetupScreen
from companion.console.table_host import TableNotice
from tests.toy_game import registry
from tests.toy_game.console import REFUSALS, WORDS, ToyScreen

TOY = Path(__file__).resolve().parent / "toy_game" / "toy.toml"


@pytest.fixture(autouse=True)
def registered() -> Iterator[None]:
    registry.register()
    yield
    registry.unregister()


@pytest.fixture
def rulesets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A club's rulesets folder (``COMPANION_RULESETS``): the shipped files
    and the toy's, which rulesets/ itself never holds."""
    folder = tmp_path / "rulesets"
    folder.mkdir()
    for path in [*DEFAULT_DIR.glob("*.toml"), TOY]:
        shutil.copy(path, folder / path.name)
    monkeypatch.setenv("COMPANION_RULESETS", str(folder))
    return available_rulesets()


def test_its_lines_are_in_every_registry_a_shell_looks_a_procedure_up_in() -> None:
    for shell, entries in REGISTRIES.items():
        assert registry.NAME in cast(Mapping[str, object], entries), shell
    entry = console_procedures.PROCEDURES[registry.NAME]
    assert isinstance(entry, ConsoleProcedure)
    assert type(entry).screen is not ConsoleProcedure.screen


def test_its_words_are_in_both_languages() -> None:
    assert WORDS["ru"].keys() == WORDS["en"].keys()


def test_its_refusals_are_in_its_own_words(caplog: pytest.LogCaptureFixture) -> None:
    """The core's refusal of a pick, led by the toy's own key «Выбор», not a
    borrowed one («Выставить» is the sports table's), and no «no words»."""
    rules = load_ruleset(TOY)
    ru = refusal_line("nominate: a seat picks another", rules, "ru")
    assert ru == "Выбор — себя не выбирают"
    assert refusal_line("nominate: seat 2 has picked", rules, "ru") == "Выбор — игрок 2 уже выбрал"
    en = refusal_line("nominate: a seat picks another", rules, "en")
    assert en == "Pick — a seat picks another seat"
    assert "no words" not in caplog.text
    # the sports table's game still reads its own key for the same input
    assert refusal_line("nominate: seat 3 is already nominated", load_ruleset("club"), "ru") == (
        "Выставить — игрок 3 уже выставлен"
    )
    source = (TOY.parent / "procedure.py").read_text(encoding="utf-8")
    assert all(f'"{template}"' in source for template in REFUSALS)  # its core's, as said


def shown(screen: ToyScreen, widget: str) -> str:
    return str(screen.query_one(widget, Static).render())


async def choose(host: Host, names: list[str], name: str) -> None:
    """The ruleset list opened, walked by arrows to ``name``, taken."""
    screen = host.app.screen
    assert isinstance(screen, SetupScreen)
    screen.query_one("#ruleset", Select).focus()
    steps = names.index(name) - names.index(screen.ruleset_name)
    await host.keys("enter", *["down" if steps > 0 else "up"] * abs(steps), "enter")


async def pick_out(host: Host, screen: ToyScreen, target: int) -> None:
    """Every living seat picks: ``target`` by all the others, and it
    picks the first other living seat."""
    living = [s.number for s in host.game.seats if s.out is None]
    for by in living:
        other = target if by != target else next(n for n in living if n != target)
        await host.keys("p")
        await host.type(f"{by} {other}")


async def test_the_toy_is_chosen_started_and_played_to_its_end_by_keys(
    tmp_path: Path, rulesets: list[str]
) -> None:
    assert "toy" in rulesets
    app = console(config(tmp_path, "tournament"))
    async with hosting(app) as host:
        setup = app.screen
        assert isinstance(setup, SetupScreen)
        await choose(host, rulesets, "toy")
        assert setup.ruleset_name == "toy"
        # the toy's set-up part offers the one table its deals know
        assert setup.query_one("#seats", Input).value == "4"
        await host.keys("ctrl+s", "enter")  # asked once, started
        screen = app.screen
        assert isinstance(screen, ToyScreen)
        assert host.game.rules.name == "toy" and len(host.game.seats) == 4
        assert shown(screen, "#toy-phase") == "Раунд 1: разговор"
        # the table's news reach its screen as any procedure's: the hall's line
        app.on_table_notice(TableNotice("hall", "Зал: всё доставлено", app.host.number))
        assert shown(screen, "#parts").endswith("Зал: всё доставлено")

        # round 1: the host's «next» ends the talk; a red seat is picked out
        await host.next()
        assert shown(screen, "#toy-phase") == "Раунд 1: выбор"
        reds = [s.number for s in host.game.seats if s.team == "red"]
        await host.keys("p")
        await host.type("1 1")  # a seat picks another: the core refuses, the screen says so
        said = "\n".join(str(line.text) for line in screen.query_one(RichLog).lines)
        assert "✗" in said and "Выбор — себя не выбирают" in said
        await pick_out(host, screen, reds[0])
        assert host.game.seat(reds[0]).out is not None
        assert shown(screen, "#toy-phase") == "Раунд 2: разговор"
        assert "выбыл" in shown(screen, "#toy-seats")

        # round 2: the talk's timer runs out on the table's clock
        await host.wait(30)
        assert shown(screen, "#toy-phase") == "Раунд 2: выбор"
        await pick_out(host, screen, reds[1])

        # blue alone is left: the game's end, on the toy's screen and the protocol's
        result = host.game.result
        assert host.game.phase == "ended" and result is not None and result.winners == ("blue",)
        assert isinstance(app.screen, ProtocolScreen)
        assert shown(screen, "#toy-phase") == "Игра окончена: победа: Blue"

    saved = {path.suffix: path for path in app.saved_protocol}
    assert sorted(saved) == [".csv", ".html", ".json"]
    protocol = json.loads(saved[".json"].read_text(encoding="utf-8"))
    game = protocol["game"]
    assert (game["ruleset"], game["seats"]) == ("toy", 4)
    assert game["result"]["winners"] == ["blue"] and protocol["deal"]["seed"] == 7
