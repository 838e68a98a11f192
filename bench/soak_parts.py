"""Pieces of ``bench/soak.py``: a process's resident memory, open files and
threads (read off ``/proc``), the console and what it hears from its table,
and a bot that plays through the console's keys.

The console is ``ConsoleApp`` itself, run headless by Textual's pilot; it
builds each game's table in a process of its own (``table_host.py``: a
spare spawned at the set-up screen, one per game) with its clock
``speed`` times as fast (``ConsoleApp(speed=...)``, ``TableSpec.speed``),
so that hours of game time pass in minutes.
"""

from __future__ import annotations

import dataclasses
import os
import random
import threading
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from companion.config.values import Config
from companion.console import app as console_app
from companion.console.app import ConsoleApp
from companion.console.sports.screen import SEAT_KEYS, TableScreen
from companion.console.table_host import TableRefused, TableUpdated
from companion.core.events import (
    Event,
    GameSetUp,
    HostAdvanced,
    ProposalDismissed,
    SeatPressed,
    SeatReleased,
    SpeechPassed,
    Undone,
)
from companion.core.state import Game
from companion.runner import codec
from testkit.bots import Bot, load

#: wall seconds the bot waits for the console to hear back about an input
ANSWER_S = 5.0
#: the console's key for each seat
KEY_OF_SEAT = {seat: key for key, seat in SEAT_KEYS.items()}


# --- a process, as /proc shows it ----------------------------------------------------------
@dataclasses.dataclass(frozen=True, slots=True)
class Figures:
    """One process at one moment: resident memory (MB), open file
    descriptors (``/proc/PID/fd``) and threads (``/proc/PID/task``)."""

    pid: int
    rss_mb: float
    fds: int
    threads: int


def figures(pid: int) -> Figures | None:
    """``pid``'s figures now; None if it has gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="ascii")
        fds = len(os.listdir(f"/proc/{pid}/fd"))
        threads = len(os.listdir(f"/proc/{pid}/task"))
    except (FileNotFoundError, ProcessLookupError):
        return None
    rss = next((line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")), "")
    return Figures(pid, int(rss) / 1024 if rss else float("nan"), fds, threads)


@dataclasses.dataclass(frozen=True, slots=True)
class Child:
    """A child process: its id, its state letter (``Z``: a zombie nobody
    reaped) and what it is ("table": spawned by multiprocessing, as every
    table process is; "resource tracker": multiprocessing's own, started
    with the first spawned process and kept; else its command's name)."""

    pid: int
    state: str
    what: str


def children(pid: int | None = None) -> list[Child]:
    """The processes whose parent is ``pid`` (default: this one), read off
    ``/proc`` so that nothing is reaped by looking."""
    parent = os.getpid() if pid is None else pid
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text(encoding="ascii", errors="replace")
            command = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except (FileNotFoundError, ProcessLookupError):
            continue
        name, _, rest = stat.rpartition(")")  # the name may hold spaces
        fields = rest.split()
        if int(fields[1]) != parent:
            continue
        words = b" ".join(command)
        if b"resource_tracker" in words:
            what = "resource tracker"
        elif b"spawn_main" in words:
            what = "table"
        else:
            what = name.partition("(")[2]
        found.append(Child(int(entry), fields[0], what))
    return sorted(found, key=lambda child: child.pid)


# --- the console, and what it hears from its table ------------------------------------
class News:
    """What the console has heard from its current table, kept on the app's
    thread for the bot on its own: the latest update and the refusals."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self.update: Any = None  # assembly.Update
        self.latest_at = float("-inf")  # the game time of the latest update
        self.refusals = 0
        self.updates = 0

    def reset(self) -> None:
        with self._changed:
            self.update, self.latest_at = None, float("-inf")

    def heard(self, update: Any) -> None:
        with self._changed:
            self.update = update
            self.latest_at = max(self.latest_at, update.at)
            self.updates += 1
            self._changed.notify_all()

    def refused(self) -> None:
        with self._changed:
            self.refusals += 1
            self._changed.notify_all()

    def wait(self, until: Callable[[News], bool], timeout: float) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: until(self), timeout)


class SoakConsole(ConsoleApp):
    """The console (its table in a process of its own, its clock ``speed``
    times as fast), which also tells ``news`` what it hears from its table."""

    # Textual reads a relative CSS_PATH beside the class's own module.
    CSS_PATH = str(Path(console_app.__file__).with_name("console.tcss"))

    def __init__(self, config: Config, speed: float) -> None:
        super().__init__(config, now=datetime.now, speed=speed)
        self.speed = speed
        self.news = News()

    # Textual calls these, then ConsoleApp's own handlers, for every message.
    def on_table_updated(self, message: TableUpdated) -> None:
        if message.table == self.host.number:
            self.news.heard(message.update)

    def on_table_refused(self, message: TableRefused) -> None:
        if message.table == self.host.number:
            self.news.refused()


# --- the host's and the players' hands on the console ------------------------------------
class Hands:
    """Inputs given at the console, from the bot's thread: a key where the
    console has one (a seat, «next», undo, dismiss; posted to the app as a
    terminal's key is, so its bindings take it), else what the console's
    dialog ends in (``TableScreen.submit``: a nomination, an offence, a night
    choice, the best move). A seat's key is a press and a release, or during
    a vote one of the two (the console's own rule)."""

    def __init__(self, app: SoakConsole) -> None:
        self.app = app
        self.keys = 0
        self.submitted = 0

    def give(self, event: Event) -> None:
        if isinstance(event, SeatPressed | SeatReleased | SpeechPassed):
            self.key(KEY_OF_SEAT[event.seat])  # «Пас» is the speaker's own button
        elif isinstance(event, HostAdvanced):
            self.key("space")
        elif isinstance(event, Undone):
            self.key("u")
        elif isinstance(event, ProposalDismissed) and event.index == 0:
            self.key("d")
        else:
            self.app.call_from_thread(self._submit, event)
            self.submitted += 1

    def key(self, key: str) -> None:
        # Not the pilot's press: it waits for the whole process to be idle
        # after every key (a second or more on a busy machine, while the
        # table's clock runs on). post_message is thread-safe.
        self.app.simulate_key(key)
        self.keys += 1

    def _submit(self, event: Event) -> None:
        screen = self.app.screen
        if isinstance(screen, TableScreen):
            screen.submit(event)


# --- the bot, playing live ----------------------------------------------------------------
class LiveBot(Bot):
    """``testkit/bots.py``'s bot at the console: it reads the state the
    console last heard, waits its game seconds on the table's clock and gives
    each input with the console's hands, then waits until the console hears
    back (an update of that moment, or a refusal). What it chose may meet a
    state that moved on meanwhile (a timer ran out): then it is refused or
    ignored, and the bot looks again, as a host would."""

    def __init__(
        self,
        seed: int,
        ruleset: str,
        hands: Hands,
        news: News,
        clock: Callable[[], float],
        speed: float,
    ) -> None:
        """``clock``: the table's game time as the console reads it;
        ``speed``: game seconds per wall second."""
        # Not Bot.__init__: the game is set up at the console, not in a script.
        self.rng = random.Random(seed)
        self.keep_alive = False
        rules = load(ruleset)
        self.warning = next(o.id for o in rules.offences if o.cost == "warning")
        self.fouls = [o.id for o in rules.offences if o.cost == "count"]
        self.hands, self.news, self.clock, self.speed = hands, news, clock, speed
        self.sent = 0
        self.unanswered = 0
        self.lines: list[str] = []  # none kept: the table's journal holds them
        obj = {"input": "setup", "ruleset": ruleset, "seats": 10, "seed": seed}
        setup = codec.decode("setup", obj, load)
        assert isinstance(setup, GameSetUp)
        self.setup = setup

    @property
    def game(self) -> Game:
        update = self.news.update
        assert update is not None and update.game is not None
        game: Game = update.game
        return game

    def emit(self, obj: dict[str, Any], after: float = 0.0) -> bool:
        """Give one input ``after`` game seconds from now; False if the
        table refused it (or the console heard nothing back)."""
        if after > 0:
            time.sleep(after / self.speed)
        event = codec.decode(str(obj["input"]), obj, load)
        if event is None:
            return True
        refusals, sent_at = self.news.refusals, self.clock()
        self.hands.give(event)
        self.sent += 1
        # The input is stamped when the table takes it: no earlier than sent_at.
        if not self.news.wait(
            lambda n: n.refusals > refusals or n.latest_at >= sent_at - 1e-5, ANSWER_S
        ):
            self.unanswered += 1
            return False
        return self.news.refusals == refusals

    def wait_for(self, timer: str) -> None:
        """Let a running timer run out on the table's clock."""
        update = self.news.update
        due = update.deadlines.get(timer) if update is not None else None
        if due is None:  # it has already run out (an overrun): the host moves on
            self.emit({"input": "next"}, 1)
            return
        deadline = due[0]
        wait = max(0.0, deadline - self.clock()) / self.speed + ANSWER_S
        if not self.news.wait(
            lambda n: (
                n.latest_at >= deadline - 1e-5
                or n.update is None
                or n.update.deadlines.get(timer) != due
            ),
            wait,
        ):
            self.unanswered += 1

    def play(self, until_inputs: int = 3_000) -> list[str]:
        """Bot.play, live: until the game has ended."""
        return super().play(until_inputs)

    def taken(self) -> int:
        return self.sent
