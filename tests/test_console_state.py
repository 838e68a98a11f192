"""The table's state on the host's screen (issue 23, «the state is on
screen»): night choices on the cards and in the log until morning, hands
that clear once counted, nominations gone with their vote, «Дальше:» right
in every phase, an undo that says what it took back, and a resumed game
with its timer running and its log written again. Textual's pilot on a
fake clock, keys only."""

from __future__ import annotations

from pathlib import Path

from console_driver import Host, config, console, hosting

from companion.console import words as console_words
from companion.console.sports import words as sports_words
from companion.console.sports.next_view import after_next, next_words
from companion.console.sports.seat_marks import hands_up
from companion.console.words import Words
from companion.core import views
from companion.core.sports.state import current_turn
from companion.core.sports.state import table as table_state
from companion.core.views import phase_name

RU = Words("ru")


def test_the_sports_screens_words_are_the_consoles_and_shadow_none() -> None:
    """Words answers the sports table screen's keys (console/sports/words.py)
    with the console's own; a key in both tables would hide one of them."""
    for own, screen in ((console_words.RU, sports_words.RU), (console_words.EN, sports_words.EN)):
        assert sorted(set(own) & set(screen)) == []
    assert Words("ru")("phase.night", day=2) == "Ночь 2"
    assert Words("en")("next", what="x") == "Next: x"
    assert Words("ru").reason("voted for themself") == "голос за себя"
    assert Words("en")("key.next") == "Next"


def card(host: Host, seat: int) -> str:
    return str(host.app.screen.query_one(f"#seat-{seat}").render())


def logged(host: Host) -> str:
    log = host.app.screen.query_one("#log")
    return "\n".join(str(line.text) for line in log.lines)  # type: ignore[attr-defined]


def shown(host: Host, widget: str) -> str:
    return str(host.app.screen.query_one(f"#{widget}").render())


async def day_one(host: Host) -> None:
    await host.keys("ctrl+s", "enter")
    await host.until("speech")


async def nominate_and_vote(host: Host, first: int, second: int, hands: list[int]) -> None:
    """Seat 1 nominates ``first``, seat 2 ``second``; everyone else passes;
    ``hands`` for ``first``."""
    await host.nominate(first)
    await host.next()
    await host.nominate(second)
    await host.until("vote")
    await host.seat(*hands)


async def test_hands_clear_once_counted_and_nominations_leave_with_their_vote(
    tmp_path: Path,
) -> None:
    app = console(config(tmp_path, "club"))
    async with hosting(app) as host:
        await day_one(host)
        await nominate_and_vote(host, 5, 8, [1, 2, 3])
        assert "рука" in card(host, 1) and "выставлен" in card(host, 5)
        assert "выставлен" in card(host, 5)
        assert "«Спасибо»" in shown(host, "next")  # the window waits for the host
        await host.next()  # «Спасибо»: the hands stay until «Принято»
        assert "рука" in card(host, 1)
        await host.wait(host.game.rules.timings.count_s)  # «Принято»
        assert not hands_up(host.game) and "рука" not in card(host, 1)
        seats = host.app.table.simulated_seats  # type: ignore[union-attr]
        assert seats is not None and not seats.held  # the keys let the hands go
        assert phase_name(host.game) == "last_word"  # 3 for 5, the other 7 for 8
        assert "выставлен" not in card(host, 5) and "Выставлены" not in shown(host, "nominees")
        assert "▶" in card(host, 8) and "последнее слово" in card(host, 8)
        assert "ночь" in shown(host, "next")  # not «голосование» (trap 6)


async def at_the_mafias_shot(host: Host) -> list[int]:
    """A club game to night 1's shot; the mafia's seats."""
    await day_one(host)
    await host.until("night")
    await host.next()  # the Putana's step: to the mafia's shot
    return host.seats_of("mafia", "don")


async def test_night_choices_show_until_morning(tmp_path: Path) -> None:
    app = console(config(tmp_path, "club"))
    async with hosting(app) as host:
        mafia = await at_the_mafias_shot(host)
        target = host.seats_of("civilian")[0]
        await host.choice(target)
        for seat in mafia:
            assert f"выстрел {target}" in card(host, seat)
        assert "← выстрел" in card(host, target)
        assert "Ночной выбор записан: Выстрел мафии" in logged(host)
        assert f"→ игрок {target}" not in logged(host)  # who and whom: with the roles only
        await host.keys("r")
        assert f"игрок {mafia[0]} → игрок {target}" in logged(host)
        await host.until("speech")
        assert all("выстрел" not in card(host, seat) for seat in mafia)


async def test_a_mistaken_shot_is_one_undo(tmp_path: Path) -> None:
    """Session 32's trap: «c 2» for all three shooters took three «u» to
    take back, the first saying «Отменено» while two shots stayed on the
    cards. One entry is one input now: one undo, and the cards are clear.
    The table sees one «записан» line, not one per living mafia seat."""
    app = console(config(tmp_path, "club"))
    async with hosting(app) as host:
        mafia = await at_the_mafias_shot(host)
        wrong, right = host.seats_of("civilian")[:2]
        await host.choice(wrong)
        assert logged(host).count("Ночной выбор записан: Выстрел мафии") == 1
        assert all(f"выстрел {wrong}" in card(host, seat) for seat in mafia)
        await host.keys("u")
        assert "Отменено: ночной выбор" in logged(host)
        assert table_state(host.game).choices == ()
        assert all("выстрел" not in card(host, seat) for seat in mafia)
        assert "← выстрел" not in card(host, wrong)
        await host.choice(right)
        await host.until("speech")
        assert host.game.seat(right).out is not None and host.game.seat(wrong).out is None
    (journal,) = (tmp_path / "journals").glob("*.jsonl")
    shots = [line for line in journal.read_text("utf-8").splitlines() if '"choice"' in line]
    assert len(shots) == 2 and all('"seat"' not in line for line in shots)


async def test_an_undo_says_what_it_took_back_and_where_the_table_is(tmp_path: Path) -> None:
    """Trap 7: a refused nomination, then an undo that took back the one
    before without a word. Now the log and a notice say which."""
    app = console(config(tmp_path, "club"))
    async with hosting(app) as host:
        await day_one(host)
        await host.nominate(6)
        await host.nominate(7)  # refused: seat 1 has nominated today
        assert "Не принято" in logged(host)
        await host.keys("u")
        assert "Отменено: выставление игрока 6" in logged(host)
        assert table_state(host.game).nominees == ()
        # The window's end undone: back in it, paused, and said so.
        await host.nominate(5)
        await host.next()
        await host.nominate(8)
        await host.until("vote")
        await host.next()  # «Спасибо» with no hand
        await host.keys("u")
        assert phase_name(host.game) == "vote" and host.game.paused == ()
        text = " ".join(logged(host).split())  # the log wraps its lines
        assert text.endswith("Снова: Голосование: за игрока 5"), text[-200:]


async def test_a_resumed_speech_has_its_timer_and_its_log(tmp_path: Path) -> None:
    """Trap 2: after a restart the big timer showed -:-- and the log began
    empty. Now both are as they were."""
    cfg = config(tmp_path, "tournament")
    async with hosting(console(cfg)) as host:
        await day_one(host)
        await host.wait(20)  # 20 s of seat 1's minute, and no input since it began
        hash_line = next(x for x in logged(host).splitlines() if "Хеш расклада" in x)
        await host.keys("ctrl+q")
    async with hosting(console(cfg)) as host:
        await host.keys("enter")  # «Продолжить»
        assert current_turn(host.game) is not None and current_turn(host.game).seat == 1  # type: ignore[union-attr]
        timer = host.app.screen.query_one("#timer")
        # The clock goes on from the journal's last input (the minute's start):
        # the time the journal gives it, running.
        assert str(timer.value) == "1:00"  # type: ignore[attr-defined]
        await host.wait(15)
        host.app.screen.tick()  # type: ignore[attr-defined]  # its 0.1-s interval, now
        assert str(timer.value) == "0:45"  # type: ignore[attr-defined]
        log = logged(host)
        assert hash_line.split(": ")[-1][:16] in log.replace("\n", "")
        assert "Слово предоставляется игроку номер один" in log
        assert "игра продолжена из журнала" in log


def test_next_is_the_procedures_own_next_phase_in_every_phase() -> None:
    """«Дальше:» against what the host's "next" really leads to, over every
    phase transition of whole games of both sports rulesets (the examples):
    the words name the phase the table reaches, a night never names the
    morning's speaker, a window's next is «Спасибо»."""
    from helpers import EXAMPLES

    from companion.config.rulesets import load_ruleset
    from companion.runner.replay import ScriptReplay
    from companion.runner.script import read_script

    seen: set[tuple[str, str]] = set()
    for path in sorted(EXAMPLES.glob("*.jsonl")):
        if "forum" in path.name:
            continue
        replay = ScriptReplay()
        states = []
        replay.on_effects = lambda at, effects, r=replay, s=states: s.append(r.game)
        replay.run(read_script(path, load_ruleset))
        for game in states:
            if game is None or game.phase in ("setup", "ended"):
                continue
            after = after_next(game)
            said = next_words(game, RU)
            name = views.phase_name(game)
            assert after is not None, (path.name, name)
            reached = views.phase_name(after)
            seen.add((name, reached))
            if name in ("vote", "all_leave_vote"):
                assert said == "«Спасибо»"
            elif game.phase == "night" and after.phase != "night":
                assert said in ("утро", "итог игры"), said
            elif after.phase == "ended":
                assert said.endswith("итог игры")
            elif reached == "night":
                assert "ночь" in said
            elif reached in ("speech", "last_word", "tie_speech"):
                turn = current_turn(after)
                assert turn is not None and said.endswith(RU(f"next.{reached}", seat=turn.seat))
            elif reached == "vote":
                assert "голосование за игрока" in said
    # every kind of transition the sports table has was walked
    assert {("speech", "speech"), ("speech", "vote"), ("vote", "count"), ("count", "vote")} <= seen
    assert {("last_word", "night"), ("night", "night"), ("night", "speech")} <= seen
    assert {("tie_speech", "vote"), ("count", "tie_speech"), ("count", "last_word")} <= seen


async def test_undoing_a_games_end_sets_its_protocol_files_aside(tmp_path: Path) -> None:
    """Trap 3's second half: the undone ending's protocol files stayed in
    games/. Now they are moved to games/undone/ and the host is told."""
    from companion.console.protocol_screen import ProtocolScreen

    cfg = config(tmp_path, "club")
    async with hosting(console(cfg)) as host:
        await day_one(host)
        await host.keys("e")
        prompt = str(host.app.screen.query_one(".prompt").render())
        assert "игра закончится" in prompt  # a game-ending key says so
        await host.type("пожарная тревога")
        assert isinstance(host.app.screen, ProtocolScreen)
        games = cfg.paths.games
        saved = sorted(p.name for p in games.iterdir() if p.is_file())
        assert len(saved) == 3
        await host.keys("escape", "u")
        assert host.game.phase != "ended"
        assert not [p for p in games.iterdir() if p.is_file()]
        assert sorted(p.name for p in (games / "undone").iterdir()) == saved


def test_the_forum_clocks_next_deadline_is_the_window_the_game_closes_next() -> None:
    """The forum game's «next» is its next deadline: for every state of the
    forum examples, the window the clock counts down to is open, falls
    first, and is one the engine takes a deadline for now."""
    from datetime import datetime

    from helpers import EXAMPLES

    from companion.config.rulesets import load_ruleset
    from companion.console.forum.view import clock_view
    from companion.console.forum.words import ForumWords
    from companion.core.engine import apply
    from companion.core.forum.events import DeadlinePassed
    from companion.core.forum.state import open_deadlines
    from companion.runner.replay import ScriptReplay
    from companion.runner.script import read_script

    words = ForumWords(RU)
    walked = 0
    for path in sorted(EXAMPLES.glob("forum-*.jsonl")):
        replay = ScriptReplay()
        states = []
        replay.on_effects = lambda at, effects, r=replay, s=states: s.append(r.game)
        replay.run(read_script(path, load_ruleset))
        for game in states:
            pending = open_deadlines(game)
            if not pending:
                continue
            now = datetime(2026, 12, 1, 9, 0)
            view = clock_view(game, now, words)
            assert view.next_window in dict(pending)
            assert view.next_window == min(pending, key=lambda p: p[1][-8:])[0]
            after, _ = apply(game, DeadlinePassed(view.next_window))
            assert after is not game
            walked += 1
    assert walked > 10


async def test_typed_brackets_reach_the_screen_as_text(tmp_path: Path) -> None:
    """A stop reason with «[/]» killed the console at the game's end (the
    protocol screen read it as markup): typed text is text, everywhere it
    is shown (the protocol, the log, the notices)."""
    from companion.console.protocol_screen import ProtocolScreen

    async with hosting(console(config(tmp_path, "club"))) as host:
        await day_one(host)
        await host.keys("e")
        await host.type("тревога [/] [b]жирно[@click=app.quit]")
        assert isinstance(host.app.screen, ProtocolScreen)
        shown = str(host.app.screen.query("Static").last().render())
        protocol = "\n".join(str(s.render()) for s in host.app.screen.query("Static"))
        assert "тревога [/] [b]жирно[@click=app.quit]" in protocol, (shown, protocol)
        assert host.app.is_running
