"""``companion`` started the way a host starts it (issue 9): the real
command in a pseudo-terminal, on this machine with no GPIO and no sound card
(no PulseAudio server is reachable and there is no card), the real clock and
the table in a process of its own. The pseudo-terminal driver is the
console bench's (``testkit/terminal.py``); it waits for what the screen
says and never measures time here. A day is played by keys, the console quits, starts again,
offers the unfinished game, resumes it, and the game is where it was; no
traceback appears at any point."""

from __future__ import annotations

from pathlib import Path

from companion.config.rulesets import load_ruleset
from companion.core.sports.state import table as table_state
from companion.runner.journal import read
from companion.runner.replay import ScriptReplay
from companion.runner.script import parse_lines
from testkit.terminal import Terminal, console_env


def journal_game(folder: Path) -> tuple[str, int, tuple[int, ...], int]:
    (path,) = folder.glob("*.jsonl")
    text = read(path)
    replay = ScriptReplay(auto_timers=False)
    game = replay.run(parse_lines(text.lines, str(path), load_ruleset))
    assert game is not None
    return game.phase, game.day, table_state(game).nominees, len(text.lines)


def test_a_day_by_keys_then_quit_and_resume(tmp_path: Path) -> None:
    env = console_env(tmp_path)
    first = Terminal(env)
    try:
        first.until("Новая игра")
        first.keys("\x1b[15~")  # F5: start with the defaults (tournament, 10 seats, a deal)
        first.until("Начать игру?")  # asked once
        first.keys("\r")
        first.until("Кнопки: симуляция")
        first.until("Голос: титры")
        # Night 0's two steps, then the speeches: the host moves on with the
        # space bar once the night is on screen (a key typed while the table
        # is still starting is not the night's: on a quiet machine it was lost,
        # on a busy one it counted, and the test ended speech 1 by accident).
        first.until("Договорка мафии")
        first.keys(" ")
        first.until("Свободная посадка")
        first.keys(" ")
        first.until("речь игрока 1")
        first.keys("n")
        # A host reads the prompt before typing: on a busy machine a seat typed
        # before the dialog is up would go to the table screen instead.
        first.until("Выставить: номер")
        first.keys("5", "\r")
        first.until("Выставлены: 5")
        first.keys("1")  # seat 1's button: «Пас», seat 2 speaks
        first.until("речь игрока 2")
        assert first.quit() == 0  # ctrl+q
    finally:
        first.kill()
    assert "Traceback" not in first.seen
    before = journal_game(tmp_path / "journals")
    assert before[:3] == ("speeches", 1, (5,))

    second = Terminal(env)
    try:
        second.until("Есть незаконченная игра")
        second.keys("\r")  # «Продолжить»
        second.until("Выставлены: 5")
        second.until("Журнал: ")
        assert second.quit() == 0
    finally:
        second.kill()
    assert "Traceback" not in second.seen
    after = journal_game(tmp_path / "journals")
    # The same game, at the same point: nothing lost, nothing added by resuming.
    assert after == before
    log = (tmp_path / "companion.log").read_text(encoding="utf-8")
    assert "Traceback" not in log
