"""The forum game at the console (issue 11): the set-up with its date and
options, a role's choice and the votes entered by keys and stamped by the
forum clock, the deadline clock, a window closed by the host, and the
results in two panes: what to post publicly, what to tell whom privately.

Textual's pilot on a fake game clock and a fake wall clock the test sets
(the forum clock); nothing waits on real time."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path

from console_driver import SIZE, Host, config, settle, started
from textual.widgets import Checkbox, Digits, Input, RichLog, Select, Static

from companion.config.values import TableConfig
from companion.console.app import ConsoleApp
from companion.console.forum.results import Panes, batches
from companion.console.forum.screen import ForumScreen
from companion.console.forum.words import ForumWords, phrase
from companion.console.setup_screen import SetupScreen
from companion.console.words import Words
from companion.core.forum.state import state
from companion.core.views import phase_name
from companion.runner.clock import Clock, FakeClock

MORNING = datetime(2026, 12, 1, 10, 0)


class Wall:
    """The forum clock the test moves."""

    def __init__(self, at: datetime = MORNING) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at


def forum_app(
    tmp: Path, wall: Wall, lang: str = "ru", ruleset: str = "forum", seats: int = 20
) -> ConsoleApp:
    cfg = dataclasses.replace(
        config(tmp, ruleset, lang), table=TableConfig(ruleset=ruleset, seats=seats)
    )

    def clock(start: float) -> Clock:
        return FakeClock(start)

    return ConsoleApp(cfg, clock=clock, threaded=False, now=wall, seed=7)


class ForumHost(Host):
    @property
    def screen(self) -> ForumScreen:
        screen = self.app.screen
        assert isinstance(screen, ForumScreen)
        return screen

    def text(self, widget: str) -> str:
        return str(self.screen.query_one(widget, Static).render())

    async def choose(self, actor: int, action: str, target: int | str) -> None:
        """``c``, the seat's choice found by typing "seat:action", its target."""
        await self.keys("c")
        await self.type(f"{actor}:{action}")
        await self.type(str(target))

    async def votes(self, text: str, edit: bool = False) -> None:
        await self.keys("e" if edit else "v")
        await self.type(text)

    async def close(self, window: str) -> None:
        """``k``: with two windows open, the one typed; then yes (Enter: a
        window whose closing sends nobody out for a missing post)."""
        await self.keys("k")
        if len(state(self.game).open) > 1:
            await self.type(window)
        await self.keys("enter")

    def words(self) -> ForumWords:
        return ForumWords(Words(self.app.config.lang))

    def say(self, cue: str, **args: int | str) -> str:
        """A public announcement's words."""
        return phrase("public", cue, args, self.game.rules, self.app.config.lang)

    def note(self, cue: str, **args: int | str) -> str:
        """A private note's words."""
        return phrase("private", cue, args, self.game.rules, self.app.config.lang)


@asynccontextmanager
async def forum_game(app: ConsoleApp) -> AsyncIterator[ForumHost]:
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        host = ForumHost(app, pilot)
        assert isinstance(app.screen, SetupScreen)
        await host.keys("ctrl+s", "enter")  # asked once, started
        assert isinstance(app.screen, ForumScreen)
        yield host


async def _vote_out(host: ForumHost, target: int) -> None:
    """Every living seat votes ``target`` out (``target`` votes for another)."""
    other = next(x.number for x in host.game.seats if x.out is None and x.number != target)
    living = [x.number for x in host.game.seats if x.out is None]
    await host.votes("; ".join(f"{n} {target if n != target else other}" for n in living))


async def test_a_night_entered_and_closed_shows_what_to_post_and_whom_to_tell(
    tmp_path: Path,
) -> None:
    async with forum_game(forum_app(tmp_path, Wall())) as host:
        # The deal: each player's role, privately; the day's start, publicly.
        assert host.text("#forum-batch") == "Начало игры"
        don, vampire, doctor = (host.seats_of(role)[0] for role in ("don", "vampire", "doctor"))
        assert f"Игроку {vampire}:" in host.text("#forum-private-text")
        civilians = host.seats_of("civilian")
        await _vote_out(host, civilians[0])
        await host.close("vote")
        assert phase_name(host.game) == "night"

        victim = civilians[1]
        await host.choose(don, "shoot", victim)
        await host.choose(vampire, "bite", doctor)
        posts = state(host.game).posts
        stamp = "2026-12-01T10:00:00"  # the forum clock when the host entered them
        assert (don, "shoot", victim, "", stamp) in posts
        assert (vampire, "bite", doctor, "", stamp) in posts
        assert f"выстрел → {victim}" in host.text("#forum-seats")

        await host.close("night")
        assert phase_name(host.game) == "day_choices" and host.game.day == 2
        assert host.game.seat(victim).out is not None
        assert host.text("#forum-batch").startswith("Ночь 1: итоги")
        public = host.text("#forum-public-text").splitlines()
        assert host.say("forum_killed", seat=victim) in public
        assert public[-1] == host.say("forum_day", day=2)  # the new day opens last
        # Privately: the bitten Doctor loses his role, the Vampire learns it
        # (roles.vampire.7), grouped by recipient in seat order.
        private = host.text("#forum-private-text")
        first, second = sorted((vampire, doctor))
        assert private.index(f"Игроку {first}:") < private.index(f"Игроку {second}:")
        vampire_block = private.split(f"Игроку {vampire}:")[1].split("Игроку")[0]
        assert host.note("your_role", role="doctor") in vampire_block
        doctor_block = private.split(f"Игроку {doctor}:")[1].split("Игроку")[0]
        assert host.note("lost_role") in doctor_block
        # Everything the night wrote, and nothing else, in the panes.
        night = batches(host.game)[-1]
        panes = Panes(host.game.rules, host.words())
        assert host.text("#forum-public-text") == panes.public(night)
        assert private == panes.private(host.game, night)

        # [ pages back to the vote's results, ] forward again.
        await host.keys("left_square_bracket")
        assert host.text("#forum-batch").startswith("День 1: итоги голосования")
        await host.keys("right_square_bracket")
        assert host.text("#forum-batch").startswith("Ночь 1: итоги")


async def test_a_vote_entered_and_closed_shows_the_tally(tmp_path: Path) -> None:
    wall = Wall()
    async with forum_game(forum_app(tmp_path, wall)) as host:
        living = [x.number for x in host.game.seats]
        out, other = living[2], living[5]
        voters = [n for n in living if n != out]
        # One post by its own time (read off the forum later), the rest now.
        await host.votes(f"{voters[0]} {other} 20:59:30")
        await host.votes("; ".join(f"{n} {out}" for n in voters[1:]))
        await host.votes(f"{voters[0]} {out}", edit=True)  # vote.3: he edited his post
        await host.votes(f"{out} {other}")
        votes = {voter: (target, at) for voter, target, at in state(host.game).votes}
        assert votes[voters[0]] == (out, "2026-12-01T10:00:00")
        assert votes[out] == (other, "2026-12-01T10:00:00")
        tally = host.text("#forum-tally")
        assert f"за {out}: {len(voters)}" in tally and f"за {other}: 1 ({out})" in tally
        # A second post without an edit does not count (vote.2): the host is told.
        notes = host.screen.query_one("#forum-notes", RichLog)
        told = len(notes.lines)
        await host.votes(f"{voters[1]} {other}")
        assert dict((v, t) for v, t, _ in state(host.game).votes)[voters[1]] == out
        assert len(notes.lines) > told

        wall.at = datetime(2026, 12, 1, 21, 0)
        await host.close("vote")
        public = host.text("#forum-public-text").splitlines()
        assert public[0] == host.say("vote_tally", tally=f"{out}:{len(voters)},{other}:1")
        assert host.say("forum_voted_out", seat=out) in public
        assert host.game.seat(out).out is not None and phase_name(host.game) == "night"
        assert host.text("#forum-tally") == ""  # the vote is closed


async def test_the_deadline_clock_shows_the_next_deadline(tmp_path: Path) -> None:
    wall = Wall()
    async with forum_game(forum_app(tmp_path, wall)) as host:
        timer = host.screen.query_one("#forum-timer", Digits)
        assert host.text("#forum-next-label") == "До срока «выборы дня»:"
        assert timer.value == "3:00:01"
        clock = host.text("#forum-clock")
        assert "выборы дня: срок 01.12 13:00:01, осталось 3:00:01" in clock
        assert "голосование: срок 01.12 21:01:00, осталось 11:01:00" in clock

        wall.at = datetime(2026, 12, 1, 13, 30)
        host.screen.tick()
        assert timer.value == "0:00:00" and timer.has_class("-overrun")
        assert "выборы дня: срок 01.12 13:00:01 прошёл 0:29:59 назад" in host.text("#forum-clock")

        await host.close("day_choices")  # the host closes it (the watch would have)
        assert state(host.game).open == ("vote",)
        assert host.text("#forum-next-label") == "До срока «голосование»:"
        assert timer.value == "7:31:00"

        # m: the vote's deadline moved (deadline.change.1), announced publicly.
        await host.keys("m")
        await host.type("vote")
        await host.keys("ctrl+u")  # the field offers the deadline's time: cleared
        await host.type("21:30")
        assert dict(state(host.game).deadlines)["vote"] == "2026-12-01T21:30:00"
        assert timer.value == "8:00:00"
        assert host.say("deadline_moved", name="vote", at="2026-12-01T21:30:00") in host.text(
            "#forum-public-text"
        )

        # The table's watch closes the vote on the same clock at its deadline.
        await _vote_out(host, host.seats_of("civilian")[0])
        wall.at = datetime(2026, 12, 1, 21, 30)
        table = host.app.table
        assert table is not None and table.deadlines is not None
        table.deadlines.tick()
        table.pump()
        await host.settle()
        assert phase_name(host.game) == "night"
        assert host.text("#forum-next-label") == "До срока «ночные выборы»:"


async def test_the_setup_takes_the_forum_game_its_date_and_options(tmp_path: Path) -> None:
    wall = Wall(datetime(2026, 12, 3, 9, 0))
    app = forum_app(tmp_path, wall, lang="en", ruleset="tournament", seats=10)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        host = ForumHost(app, pilot)
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        assert not screen.query_one("#forum-fields").display
        screen.query_one("#ruleset", Select).value = "forum"
        await settle(pilot)
        assert screen.query_one("#forum-fields").display
        assert screen.query_one("#seats", Input).value == "20"  # the smallest forum deal
        assert screen.query_one("#forum-start", Input).value == "2026-12-03"  # today
        screen.query_one("#seats", Input).value = "24"
        await settle(pilot)
        screen.query_one("#name-24", Input).value = "Last"  # rows beyond the table's twelve
        screen.query_one("#option-two_sided", Checkbox).value = True
        screen.query_one("#option-no_basements", Checkbox).value = True
        screen.query_one("#forum-start", Input).value = "2026-12-04"
        await host.keys("ctrl+s", "enter")
        assert isinstance(app.screen, ForumScreen)
        game = host.game
        assert len(game.seats) == 24 and game.seat(24).name == "Last"
        s = state(game)
        assert s.options == ("two_sided", "no_basements") and s.date == "2026-12-04"
        assert dict(s.deadlines)["vote"] == "2026-12-04T21:01:00"
        assert not host.seats_of("maniacs_member", "maniacs_don")  # the two-sided deal
        # The English console.
        assert host.text(".pane-title") == "Post publicly"
        assert host.text("#forum-next-label") == "Until the day choices deadline:"


async def test_a_late_post_counts_for_nothing_and_a_mistyped_one_is_not_sent(
    tmp_path: Path,
) -> None:
    async with forum_game(forum_app(tmp_path, Wall())) as host:
        lawyer = host.seats_of("lawyer")[0]
        await host.choose(lawyer, "protect", 5)
        # Read off the forum later: posted at 13:30, after the 13:00:01 deadline.
        await host.choose(lawyer, "protect", "5 13:30")
        assert [p[2] for p in state(host.game).posts if p[0] == lawyer] == [5]
        assert host.game.log is not None and host.game.log.kind == "late"
        await host.keys("c")
        await host.type(f"{lawyer}:protect")
        await host.type("five")  # not a number: said, nothing submitted
        assert host.game.log.kind == "late"
        await host.keys("u", "u")  # undo: the late post, then the choice
        assert state(host.game).posts == ()


def test_a_game_set_up_after_the_day_choices_deadline_starts_tomorrow() -> None:
    """Set up at 17:06 with today's date, the watch would close day 1's
    choices at once (a skip for the Lawyer and the Bouncer): the screen
    offers tomorrow instead; before 13:00:01, today."""
    from companion.console.forum.setup import first_game_day

    assert first_game_day(datetime(2026, 12, 3, 13, 0, 0)).isoformat() == "2026-12-03"
    assert first_game_day(datetime(2026, 12, 3, 13, 0, 1)).isoformat() == "2026-12-04"
    assert first_game_day(datetime(2026, 12, 31, 17, 6)).isoformat() == "2027-01-01"


async def test_closing_a_vote_nobody_posted_in_asks_and_counts_the_autokills(
    tmp_path: Path,
) -> None:
    """Trap 3: `k`, Enter on the day's choices, `k`, Enter on the vote with
    no votes in sent everyone out and ended the game. Now the question
    says so, and a stray Enter keeps the window open."""
    async with forum_game(forum_app(tmp_path, Wall())) as host:  # 20 seats dealt
        await host.close("day_choices")
        assert phase_name(host.game) == "vote"
        await host.keys("k")
        question = str(host.app.screen.query_one(".prompt", Static).render())
        assert "Уйдут из игры: 20, из них автокилл: 20." in question
        assert "Игра на этом закончится." in question
        await host.keys("enter")  # the safe answer has the focus
        assert phase_name(host.game) == "vote" and all(s.out is None for s in host.game.seats)
        await host.votes("1 2; 2 1")
        await host.keys("k")
        question = str(host.app.screen.query_one(".prompt", Static).render())
        assert "из них автокилл: 18." in question
        await host.keys("escape")
        assert phase_name(host.game) == "vote"
