"""The toy game's part of the console (issue 25 part 3's proof, the shells'
side): a screen that shows its seats and phase and takes the host's keys
(«next», a pick, undo), its set-up part (the seat count its deals know),
its refusals' words, registered by ``procedure.register()`` with the
live table's and the voice's lines, as a procedure's folder under ``console/`` would be."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from textual.app import ComposeResult
from textual.widgets import RichLog, Static

from companion.console.dialogs import seat_numbers
from companion.console.game_screen import GameScreen
from companion.console.keymap import HostFooter, open_map
from companion.console.procedure_parts import ConsoleProcedure, ScreenArgs, SetupPart
from companion.console.refusals.core_words import Entry, ProcedureWords
from companion.core.effects import Effect, Ignored, TellHost
from companion.core.events import HostAdvanced, Nominated
from companion.core.rules import Ruleset
from companion.core.state import Game

from .procedure import ToyState

if TYPE_CHECKING:
    from textual.screen import Screen

    from companion.console.words import Words
    from companion.live.table_spec import Update

#: the toy's own words over the console's (``Words``), by language
WORDS = {
    "ru": {
        "key.pick": "Выбор",
        "ask_pick": "Кто выбирает кого (два номера)",
        "bad_pick": "Два номера мест: кто и кого",
        "phase.talk": "Раунд {day}: разговор",
        "phase.pick": "Раунд {day}: выбор",
        "phase.ended": "Игра окончена: {result}",
        "result.draw": "ничья",
        "result.won": "победа: {teams}",
        "seat": "{n:>2}  {name}  {role}{state}",
        "out": "  — выбыл",
        "picked": "  ✓ выбрал {target}",
    },
    "en": {
        "key.pick": "Pick",
        "ask_pick": "Who picks whom (two seat numbers)",
        "bad_pick": "Two seat numbers: who and whom",
        "phase.talk": "Round {day}: talk",
        "phase.pick": "Round {day}: pick",
        "phase.ended": "Game over: {result}",
        "result.draw": "a draw",
        "result.won": "won by {teams}",
        "seat": "{n:>2}  {name}  {role}{state}",
        "out": "  — out",
        "picked": "  ✓ picked {target}",
    },
}


#: the refusals its core raises (procedure.py), in the host's words
REFUSALS: dict[str, Entry] = {
    "a seat picks another": ((), "себя не выбирают", "a seat picks another seat"),
    "seat {} has picked": (("seat",), "игрок {0} уже выбрал", "seat {0} has already picked"),
}

#: its refusal words (console/refusals/procedures.py): a pick is a
#: ``nominate`` input, named by the toy's own key «Выбор»
REFUSAL_WORDS = ProcedureWords(REFUSALS, {"nominate": "key.pick"}, WORDS)


class ToyWords:
    """The toy's words, the console's where it has none of its own."""

    def __init__(self, words: Words) -> None:
        self.words = words
        self.own = WORDS[words.lang]

    def __call__(self, key: str, **args: object) -> str:
        if key not in self.own:
            return self.words(key, **args)
        template = self.own[key]
        return template.format(**args) if args else template


def phase_line(game: Game, words: Words) -> str:
    """Where the game stands: the round and its phase, or its end."""
    said = ToyWords(words)
    if game.phase != "ended":
        return said(f"phase.{game.phase}", day=game.day)
    result = game.result
    if result is None or not result.winners:
        return said("phase.ended", result=said("result.draw"))
    teams = ", ".join(t.name for t in game.rules.teams if t.id in result.winners)
    return said("phase.ended", result=said("result.won", teams=teams))


def seat_lines(game: Game, words: Words) -> str:
    """Each seat: its number, name, role and whether it has picked or left."""
    said = ToyWords(words)
    picks = dict(cast(ToyState, game.procedure_state).picks)
    lines = []
    for seat in game.seats:
        state = (
            said("out")
            if seat.out is not None
            else said("picked", target=picks[seat.number])
            if seat.number in picks
            else ""
        )
        lines.append(said("seat", n=seat.number, name=seat.name, role=seat.role, state=state))
    return "\n".join(lines)


#: the host's keys: (key, action, the footer's word)
TOY_KEYS = (
    ("space", "next", "key.next"),
    ("p", "pick", "key.pick"),
    ("u", "undo", "key.undo"),
)


class ToyScreen(GameScreen):
    HOST_KEYS = TOY_KEYS

    def __init__(self, args: ScreenArgs) -> None:
        self.words = args.words
        super().__init__(
            args.table, args.words, ToyWords(args.words), args.parts, args.intro, args.past
        )

    def compose(self) -> ComposeResult:
        yield Static(self.parts, id="parts", markup=False)
        yield Static("", id="toy-phase", markup=False)
        yield Static("", id="toy-seats", markup=False)
        yield RichLog(id="toy-log", wrap=True, markup=False, max_lines=200)
        yield HostFooter(lambda: ("space", "p", "u"))

    def action_keys_map(self) -> None:
        open_map(self, self.words)

    # --- what the table tells --------------------------------------------------------
    def write_log(self, line: str) -> None:
        self.query_one("#toy-log", RichLog).write(line)

    def write_steps(self, steps: Sequence[tuple[float, Game, tuple[Effect, ...]]]) -> None:
        for _at, _game, effects in steps:
            self._notes(effects)

    def show_update(self, update: Update) -> None:
        self.update_seen = update
        if update.game is None or not self.is_mounted:
            return  # on_mount shows the last update seen
        self._show_game(update.game)
        self._notes(update.effects)

    def _notes(self, effects: Sequence[Effect]) -> None:
        for effect in effects:
            line = self.host_lines.line(effect) if isinstance(effect, TellHost | Ignored) else None
            if line:
                self.write_log(line)

    def _show_game(self, game: Game) -> None:
        self.query_one("#toy-phase", Static).update(phase_line(game, self.words))
        self.query_one("#toy-seats", Static).update(seat_lines(game, self.words))

    # --- the host's keys -------------------------------------------------------------
    def action_next(self) -> None:
        self.submit(HostAdvanced())

    def action_pick(self) -> None:
        game = self.game
        if game is None:
            return

        def answered(text: str | None) -> None:
            if text is None:
                return
            numbers = seat_numbers(text, len(game.seats), low=2, high=2)
            if numbers is None:
                self.notify(self.said("bad_pick"), severity="error")
                return
            self.submit(Nominated(numbers[0], numbers[1]))

        self._ask(self.said("ask_pick"), answered)


class ToySetup(SetupPart):
    def seats_for(self, rules: Ruleset, count: int | None) -> int | None:
        """The first count its deals know, when the one asked is not one."""
        if count is not None and rules.deal_for(count) is not None:
            return None
        return min((seats for seats, _ in rules.deals), default=None)


class ToyConsole(ConsoleProcedure):
    setup = ToySetup()

    def screen(self, args: ScreenArgs) -> Screen[None]:
        return ToyScreen(args)

    def where(self, game: Game, words: Words) -> str:
        return phase_line(game, words)


CONSOLE = ToyConsole()
