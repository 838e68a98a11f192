"""A whole game of each ruleset played through the console's keys (issue 9):
set-up with names and a companion deal, nominations, a vote from held
buttons, a tie and a revote, a hand lifted too early and its proposal
confirmed, a third offence that costs a speech, a night kill, the best move,
removals, a win; then the protocol saved in all three formats."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from console_driver import Host, config, console, hosting

from companion.console.dialogs import AskYesNo
from companion.console.protocol_screen import ProtocolScreen
from companion.console.setup_screen import SetupScreen
from companion.console.sports.screen import TableScreen
from companion.core.sports.state import current_turn, table_seat
from companion.core.sports.state import table as table_state
from companion.core.views import phase_name
from companion.protocol import deal as fair

ROOT = Path(__file__).resolve().parent.parent

RULES = {
    # ruleset: (lifting a hand is an offence when, a removal, the winners, the speech lost on)
    "tournament": ("window", "leaving_the_table", ("red",), 1),
    "club": ("count", "swearing", ("civilians",), 2),
}


@pytest.mark.parametrize("ruleset", ["tournament", "club"])
async def test_a_whole_game_by_keys(tmp_path: Path, ruleset: str) -> None:
    lift_when, removal, winners, speech_lost_on = RULES[ruleset]
    app = console(config(tmp_path, ruleset))
    async with hosting(app) as host:
        assert isinstance(app.screen, SetupScreen)
        await host.keys(*"Аня")  # seat 1's name; the others stay numbers
        await host.keys("ctrl+s", "enter")  # asked once, started
        assert isinstance(app.screen, TableScreen)
        game = host.game
        assert game.rules.name == ruleset and game.seat(1).name == "Аня"
        # A companion deal: the seed committed to on the set-up screen dealt the roles.
        order = fair.laid_out(game.rules, 10)
        assert order is not None and [s.role for s in game.seats] == fair.deal(order, 7)

        await host.until("speech")
        assert game is not host.game and host.game.day == 1
        civilians = host.seats_of("civilian")
        a, b, x = civilians[0], civilians[1], civilians[-1]
        await host.nominate(a)  # by the speaker, seat 1
        await host.offence(x, "speech_out_of_turn")  # found by its id
        for _ in range(2):
            await host.offence(x, "речь")  # by a word of what it says, as a host types
        assert host.game.seat(x).count == 3
        assert table_seat(host.game, x).silenced_day == speech_lost_on
        assert "−речь" in str(app.screen.query_one(f"#seat-{x}").render())
        await host.next()
        await host.nominate(b)
        assert table_state(host.game).nominees == (a, b)

        # The vote: five hands for a, the rest count for b: a tie. Neither
        # nominee raises a hand (a vote for oneself is an offence in the club).
        voters = [n for n in range(1, 11) if n not in (a, b)]
        await host.until("vote")
        await host.vote(voters[:5])
        assert phase_name(host.game) == "tie_speech"
        await host.until("vote")
        # The revote: six hands for a; one of them lifted too early.
        hands = voters[:6]
        lifted = hands[-1]
        await host.seat(*hands)
        if lift_when == "count":
            await host.close_window()
        await host.seat(lifted)
        assert host.game.proposals and host.game.proposals[0].seat == lifted
        await host.keys("y")  # the host confirms: the ruleset's offence
        assert not host.game.proposals and host.game.seat(lifted).count == 1
        if lift_when == "window":
            await host.close_window()
        await host.wait(host.game.rules.timings.count_s)
        assert host.game.seat(a).out is not None and host.game.seat(a).out.how == "voted"

        # The night: the mafia shoot a civilian.
        await host.until("night")
        for _ in range(10):
            step = table_state(host.game).tonight[table_state(host.game).night_step]
            if step.action == "shoot":
                break
            await host.next()
        victim = civilians[2]
        await host.choice(victim)
        # The sheriff's check: the answer is the host's alone (the log, while roles show).
        for _ in range(10):
            step = table_state(host.game).tonight[table_state(host.game).night_step]
            if step.action == "check" and "sheriff" in step.roles:
                break
            await host.next()
        sheriff = host.seats_of("sheriff")[0]
        black = host.seats_of("mafia", "don")[0]
        await host.choice(black)
        assert (step.id, sheriff, black) in table_state(host.game).choices
        await host.until("last_word")
        assert host.game.seat(victim).out is not None
        assert host.game.seat(victim).out.how == "killed"
        if table_state(host.game).first_victim == victim:
            await host.best_move(*host.seats_of("mafia", "don")[:3])
            assert table_state(host.game).best_move

        # Removals until one side is left: the civilians' side wins.
        await host.until("speech")
        for seat in host.seats_of("mafia", "don", "maniac"):
            await host.offence(seat, removal)
        # The last one ends the game: the console asks first, «Нет» in focus.
        assert isinstance(app.screen, AskYesNo) and "заканчивает игру" in str(
            app.screen.query_one(".prompt").render()
        )
        await host.keys("shift+tab", "enter")  # «Дать»
        result = host.game.result
        assert result is not None and result.winners == winners
        assert isinstance(app.screen, ProtocolScreen)

    saved = app.saved_protocol
    assert sorted(p.suffix for p in saved) == [".csv", ".html", ".json"]
    protocol = json.loads(saved[0].with_suffix(".json").read_text(encoding="utf-8"))
    text = json.dumps(protocol, ensure_ascii=False)
    for word in ("Аня", "speech_out_of_turn", removal, str(victim), "check"):
        assert word in text
    assert protocol["deal"]["seed"] == 7
    rows = list(csv.DictReader(io.StringIO(saved[0].with_suffix(".csv").read_text("utf-8"))))
    assert any("Аня" in json.dumps(row, ensure_ascii=False) for row in rows)
    html = saved[0].with_suffix(".html").read_text(encoding="utf-8")
    assert "Аня" in html and "<style" in html and "http" not in html.split("<body")[1]
    checked = subprocess.run(
        [sys.executable, "-m", "companion.cli", "verify-deal", str(saved[0].with_suffix(".json"))],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


async def play_to_day_one(host: Host) -> None:
    await host.keys("ctrl+s", "enter")
    await host.until("speech")


async def test_a_click_on_a_seat_is_its_button(tmp_path: Path) -> None:
    """Mouse and touch (the 7-inch Pi screen): a click on a seat's card
    presses its button, as its key does: the speaker's «Пас»."""
    app = console(config(tmp_path))
    async with hosting(app) as host:
        await play_to_day_one(host)
        speaker = current_turn(host.game)
        assert speaker is not None and speaker.seat == 1
        await host.pilot.click("#seat-1")
        await host.settle()
        assert current_turn(host.game) is not None and current_turn(host.game).seat == 2


async def test_roles_stay_hidden_until_revealed(tmp_path: Path) -> None:
    app = console(config(tmp_path))
    async with hosting(app) as host:
        await play_to_day_one(host)
        sheriff = host.seats_of("sheriff")[0]
        card = app.screen.query_one(f"#seat-{sheriff}")
        log = app.screen.query_one("#log")

        def logged() -> str:
            return "\n".join(str(line.text) for line in log.lines)  # type: ignore[attr-defined]

        def shown() -> str:
            return str(card.render()) + logged()

        assert "Шериф" not in shown() and "sheriff" not in shown()
        await host.keys("r")
        # The card and the dealt roles in the log, in words (never the role's id).
        assert "Шериф" in str(card.render()) and "Шериф" in logged()
        assert "sheriff" not in shown()
        await host.keys("r")
        assert "Шериф" not in shown() and "sheriff" not in shown()


async def test_the_hosts_corrections_by_keys_are_journaled(tmp_path: Path) -> None:
    """Pause and resume, ±10 s, an offence given and cancelled, an undo,
    the game stopped with a reason: each a key, each a journal line."""
    app = console(config(tmp_path))
    async with hosting(app) as host:
        await play_to_day_one(host)
        await host.wait(20)
        await host.keys("p")
        assert dict(host.game.paused)["turn"] == pytest.approx(40)
        await host.wait(30)  # paused: nothing runs out
        await host.keys("p")
        assert not host.game.paused
        await host.keys("right_square_bracket")  # +10 s: 50 s left
        await host.wait(45)
        assert current_turn(host.game) is not None and current_turn(host.game).seat == 1
        await host.keys("left_square_bracket")  # -10 s: it runs out now
        await host.wait(0.01)
        assert table_state(host.game).turn_over or current_turn(host.game).seat != 1
        await host.offence(3, "речь")
        await host.offence(3, "речь")
        await host.cancel_offence(3, "речь")
        assert host.game.seat(3).count == 1
        await host.keys("u")  # the cancel taken back
        assert host.game.seat(3).count == 2
        await host.keys("e")
        await host.type("пожарная тревога")
        assert host.game.phase == "ended" and host.game.result is not None
        assert isinstance(app.screen, ProtocolScreen)
    (journal,) = (tmp_path / "journals").glob("*.jsonl")
    inputs = [json.loads(line)["input"] for line in journal.read_text("utf-8").splitlines()]
    for name in ("pause", "resume", "adjust", "offence", "cancel_offence", "undo", "stop"):
        assert name in inputs
    assert "пожарная тревога" in journal.read_text("utf-8")


async def test_roles_from_the_cards(tmp_path: Path) -> None:
    """The players drew cards: the host enters each seat's role."""
    from textual.widgets import Input, RadioButton, Select

    app = console(config(tmp_path))
    async with hosting(app) as host:
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        await host.pilot.click("#deal-cards")
        assert screen.query_one("#deal-cards", RadioButton).value
        screen.query_one("#seats", Input).value = "7"
        await host.settle()
        roles = ["civilian", "sheriff", "civilian", "mafia", "civilian", "don", "civilian"]
        for n, role in enumerate(roles[:-1], 1):
            screen.query_one(f"#role-{n}", Select).value = role
        await host.keys("f5")  # seat 7 has no role yet: refused, said on screen
        assert isinstance(app.screen, SetupScreen) and app.table is None
        screen.query_one("#role-7", Select).value = roles[-1]
        await host.keys("f5", "enter")
        assert isinstance(app.screen, TableScreen)
        assert [s.role for s in host.game.seats] == roles
    (journal,) = (tmp_path / "journals").glob("*.jsonl")
    assert '"roles"' in journal.read_text("utf-8")


async def test_a_gone_games_widgets_are_freed(tmp_path: Path) -> None:
    """A night of games in one console: once the next game's set-up screen
    replaces the table, nothing drawn for the last table stays in memory
    (Textual 8 keeps up to 1024 gone widgets' style caches, each with its
    drawn lines, unless the console lets them go)."""
    import gc

    from textual._styles_cache import StylesCache
    from textual.widget import Widget

    app = console(config(tmp_path))
    async with hosting(app) as host:
        alive = []
        for _ in range(3):
            await play_to_day_one(host)
            await host.keys("space")  # the table draws a speech or two
            app.action_new_game()
            await host.settle()
            gc.collect()
            everything = gc.get_objects()  # once: a worker's heap is large
            widgets = sum(isinstance(o, Widget) for o in everything)
            caches = sum(isinstance(o, StylesCache) for o in everything)
            del everything
            alive.append((widgets, caches))
        # One style cache per live widget (give or take one that Textual
        # holds a moment longer); a gone table's ~90 were kept before.
        assert all(caches <= widgets + 2 for widgets, caches in alive), alive
