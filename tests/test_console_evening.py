"""A host's whole evening at the console (issue 23, must-hold 12), by keys
only, at practice speed, on simulated seats and a fake clock the test moves:

1. a club game to a win, with a tie and a revote, a vote undone and keyed
   again, a ladder of remarks to a removal;
2. a tournament game quit in the middle of a speech and resumed, its timer
   and its log back, then played to a win;
3. a forum game to its end.

It asserts what a host would check (the right seats out, the right winner,
the protocol files) and, on every screen and dialog it passes through, that
the Russian console shows no Latin word but a player's name and the names
of keys (must-hold 5): the screen is read as the terminal would show it
(Textual's own export of the screen, its text)."""

from __future__ import annotations

import html
import re
from datetime import datetime
from pathlib import Path

import pytest
from console_driver import SIZE, Host, config, started
from test_console_forum import ForumHost, Wall
from textual.widgets import Select

from companion.console.app import ConsoleApp
from companion.console.dialogs import AskYesNo
from companion.console.forum.screen import ForumScreen
from companion.console.protocol_screen import ProtocolScreen
from companion.console.setup_screen import SetupScreen
from companion.console.sports.screen import TableScreen
from companion.core.forum.state import state as forum_state
from companion.core.sports.state import current_turn
from companion.core.sports.state import table as table_state
from companion.core.views import phase_name
from companion.runner.clock import Clock, FakeClock

#: the Latin a Russian screen may show: a player's name typed in, the names
#: of keys as they are printed on keycaps; paths (names of places on the
#: disk) and the deal's hash (hex digits) are names too, and skipped
ALLOWED = {"Bob"}
KEYCAPS = {"esc", "enter", "tab", "shift", "ctrl", "space", *(f"f{n}" for n in range(1, 13))}
LATIN = re.compile(r"[A-Za-z][A-Za-z0-9]*")
PATH = re.compile(r"(?:~|\.{1,2})?/[^\s,│]*")
HEX = re.compile(r"\b(?=[0-9a-f]*[0-9])[0-9a-f]{6,}\b")
EVENING = datetime(2026, 12, 1, 10, 0)


def evening_app(tmp: Path, wall: Wall) -> ConsoleApp:
    def clock(start: float) -> Clock:
        return FakeClock(start)

    return ConsoleApp(config(tmp, "club"), clock=clock, threaded=False, now=wall, seed=7)


def screen_text(app: ConsoleApp) -> str:
    """What the terminal shows now, as text: the rows of Textual's own
    export of the screen (dialogs over the screen included)."""
    svg = app.export_screenshot()
    rows: dict[str, list[tuple[float, str]]] = {}
    for x, y, text in re.findall(r'<text[^>]*?x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>', svg):
        rows.setdefault(y, []).append((float(x), html.unescape(text).replace("\xa0", " ")))
    return "\n".join(
        "".join(part for _, part in sorted(parts))
        for _, parts in sorted(rows.items(), key=lambda r: float(r[0]))
    )


class Evening(ForumHost):
    """The host, and a reader of every screen the host sees."""

    def __init__(self, host: Host) -> None:
        super().__init__(host.app, host.pilot)
        self.latin: dict[str, str] = {}

    async def keys(self, *keys: str) -> None:
        await super().keys(*keys)
        self.read_screen()

    def screen_text_now(self) -> str:
        self.read_screen()
        return screen_text(self.app)

    def read_screen(self) -> None:
        for line in screen_text(self.app).splitlines():
            for word in LATIN.findall(HEX.sub(" ", PATH.sub(" ", line))):
                if word not in ALLOWED and word.lower() not in KEYCAPS and len(word) > 1:
                    self.latin.setdefault(word, line.strip())

    async def answer_yes(self) -> None:
        """A question whose safe answer has the focus: the other button."""
        assert isinstance(self.app.screen, AskYesNo)
        await self.keys("shift+tab", "enter")

    async def start(self, ruleset: str) -> None:
        """On the set-up screen: the ruleset chosen (as a click on the list
        would), the first seat's name typed, F5, and the question answered."""
        screen = self.app.screen
        assert isinstance(screen, SetupScreen)
        screen.query_one("#ruleset", Select).value = ruleset
        await self.settle()
        await self.keys("ctrl+u")  # the name field offers the last game's name
        await self.keys("B", "o", "b")
        await self.keys("f5")
        assert isinstance(self.app.screen, AskYesNo)  # «Начать игру?», once
        await self.keys("enter")
        assert isinstance(self.app.screen, TableScreen | ForumScreen)


def protocol_files(games: Path) -> list[str]:
    return sorted(p.suffix for p in games.iterdir() if p.is_file())


async def club_game(host: Evening, games: Path) -> None:
    await host.start("club")
    await host.keys("t")  # practice speed
    assert "Тренировка ×10" in host.screen_text_now()
    await host.until("speech")
    civilians = host.seats_of("civilian")
    a, b = civilians[0], civilians[1]
    await host.nominate(a)
    await host.next()
    await host.nominate(b)
    voters = [n for n in range(1, 11) if n not in (a, b)]
    await host.until("vote")
    await host.vote(voters[:5])  # 5 for a, the other 5 for b: a tie
    assert phase_name(host.game) == "tie_speech"
    await host.until("vote")
    # The revote, keyed wrong: 4 hands for a, so b leaves ...
    await host.vote(voters[:4])
    assert host.game.seat(b).out is not None
    # ... undone twice: «Принято», then «Спасибо»; back in a's window.
    await host.keys("u")
    assert phase_name(host.game) == "count" and host.game.paused
    await host.keys("u")
    assert phase_name(host.game) == "vote" and host.game.seat(b).out is None
    assert "Отменено" in host.screen_text_now()
    await host.seat(*voters[4:6])  # the two hands that were missed
    await host.close_window()
    await host.wait(host.game.rules.timings.count_s)
    assert host.game.seat(a).out is not None and host.game.seat(b).out is None
    seats = host.app.table.simulated_seats  # type: ignore[union-attr]
    assert seats is not None and not seats.held  # the keys let the hands go
    # The night: the mafia's shot on a civilian.
    await host.until("night")
    while table_state(host.game).tonight[table_state(host.game).night_step].action != "shoot":
        await host.next()
    victim = host.seats_of("civilian")[0]
    await host.choice(victim)
    assert "← выстрел" in host.screen_text_now()
    await host.until("speech")
    assert host.game.seat(victim).out is not None
    # Day 2: a ladder of remarks to a removal (club: the fifth), then the
    # rest of the black side and the maniac removed.
    don = host.seats_of("don")[0]
    for _ in range(5):
        await host.offence(don, "shouting")
    assert host.game.seat(don).out is not None and host.game.seat(don).out.how == "removed"
    for seat in host.seats_of("mafia", "maniac"):
        await host.offence(seat, "swearing")
        if isinstance(host.app.screen, AskYesNo):  # the last one ends the game: asked
            await host.answer_yes()
    result = host.game.result
    assert result is not None and result.winners == ("civilians",)
    assert isinstance(host.app.screen, ProtocolScreen)
    assert protocol_files(games) == [".csv", ".html", ".json"]


async def tournament_until_quit(host: Evening) -> tuple[int, list[str]]:
    await host.keys("n")  # the next game's set-up
    await host.start("tournament")
    await host.until("speech")
    await host.nominate(5)
    await host.next()
    await host.wait(20)
    speaker = current_turn(host.game)
    assert speaker is not None and speaker.seat == 2
    log = host.screen_text_now()
    return speaker.seat, [x for x in ("Хеш расклада", "Слово предоставляется") if x in log]


async def tournament_resumed_to_a_win(host: Evening, games: Path) -> None:
    await host.keys("enter")  # «Продолжить»
    turn = current_turn(host.game)
    assert turn is not None and turn.seat == 2
    shown = host.screen_text_now()
    timer = host.app.screen.query_one("#timer")
    assert str(timer.value) == "1:00"  # type: ignore[attr-defined]  # the minute, from the journal
    assert "Хеш расклада" in shown and "игра продолжена из журнала" in shown
    assert table_state(host.game).nominees == (5,)
    for seat in host.seats_of("mafia", "don"):
        await host.offence(seat, "leaving_the_table")
        if isinstance(host.app.screen, AskYesNo):
            await host.answer_yes()
    result = host.game.result
    assert result is not None and result.winners == ("red",)
    assert protocol_files(games).count(".json") == 2


async def forum_to_its_end(host: Evening, wall: Wall) -> None:
    await host.keys("n")
    await host.start("forum")
    assert isinstance(host.app.screen, ForumScreen)
    for _ in range(60):
        game = host.game
        if game.phase == "ended":
            break
        name = phase_name(game)
        if name == "vote":
            living = [s.number for s in game.seats if s.out is None]
            black = [s.number for s in game.seats if s.out is None and s.team != "civilians"]
            target = black[0]
            other = next(n for n in living if n != target)
            await host.votes("; ".join(f"{n} {target if n != target else other}" for n in living))
        window = {"day_choices": "day_choices", "vote": "vote"}.get(name, "night")
        await host.keys("k")
        if len(forum_state(host.game).open) > 1:
            await host.type(window)
        assert isinstance(host.app.screen, AskYesNo), window
        if host.app.screen.safe:  # autokills or the end: said, and answered
            await host.answer_yes()
        else:
            await host.keys("enter")
    assert host.game.phase == "ended", phase_name(host.game)
    result = host.game.result
    assert result is not None and "civilians" in result.winners


@pytest.mark.slow  # three whole games by keys, the screen read after each: ~30 s
async def test_a_hosts_whole_evening(tmp_path: Path) -> None:
    wall = Wall(EVENING)
    app = evening_app(tmp_path, wall)
    games = tmp_path / "games"
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        host = Evening(Host(app, pilot))
        await club_game(host, games)
        _, seen = await tournament_until_quit(host)
        assert seen == ["Хеш расклада", "Слово предоставляется"]
        await host.keys("ctrl+q")  # the power goes; the journal holds the game
        latin = dict(host.latin)
    app = evening_app(tmp_path, wall)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        host = Evening(Host(app, pilot))
        assert "Есть незаконченная игра" in host.screen_text_now()
        await tournament_resumed_to_a_win(host, games)
        await forum_to_its_end(host, wall)
        latin.update(host.latin)
    assert not latin, f"Latin on the Russian console: {latin}"
