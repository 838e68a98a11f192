"""The forum host's two panes after each deadline: what to post publicly
(the announcements, in order) and what to tell whom privately (the notes,
by recipient). Read off the game's protocol records (``public`` and
``private``, written by ``core.forum.dusk.announce`` and ``tell``): a
batch is everything from one ``deadline`` record to the next, the first
one the deal (each player's role, the teams, the balance).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...core.rules import Ruleset
from ...core.state import Game
from ...protocol.report import records
from ..setup_ask import is_filled_in
from .words import ForumWords, phrase

Args = tuple[tuple[str, int | str], ...]


@dataclass(frozen=True, slots=True)
class Batch:
    """What one deadline brought (``closed`` "": the game's start)."""

    closed: str
    day: int
    public: tuple[tuple[str, Args], ...]
    private: tuple[tuple[int, str, Args], ...]


def batches(game: Game) -> list[Batch]:
    """Every deadline's results, oldest first (one at least: the start)."""
    out: list[Batch] = []
    closed, day = "", 0
    public: list[tuple[str, Args]] = []
    private: list[tuple[int, str, Args]] = []
    for record in records(game):
        data = dict(record.data)
        if record.kind == "deadline":
            out.append(Batch(closed, day, tuple(public), tuple(private)))
            closed, day, public, private = str(data["name"]), record.day, [], []
        elif record.kind == "public":
            data.pop("phase", None)
            cue = str(data.pop("cue"))
            public.append((cue, _args(data)))
        elif record.kind == "private":
            to, cue = data.pop("to"), str(data.pop("cue"))
            assert isinstance(to, int)
            private.append((to, cue, _args(data)))
    out.append(Batch(closed, day, tuple(public), tuple(private)))
    return out


def _args(data: dict[str, object]) -> Args:
    return tuple((k, v if isinstance(v, int | str) else str(v)) for k, v in data.items())


def title(batch: Batch, w: ForumWords) -> str:
    return w(f"batch.{batch.closed or 'start'}", day=batch.day)


class Panes:
    """Renders a batch as the two panes' text, in the host's language."""

    def __init__(self, rules: Ruleset, words: ForumWords) -> None:
        self.rules = rules
        self.words = words

    def say(self, kind: str, cue: str, args: Args) -> str:
        return phrase(kind, cue, dict(args), self.rules, self.words.lang)

    def public(self, batch: Batch) -> str:
        """The announcements in the order the game made them."""
        if not batch.public:
            return self.words("nothing_to_post")
        return "\n".join(self.say("public", cue, args) for cue, args in batch.public)

    def private(self, game: Game, batch: Batch) -> str:
        """The notes grouped by recipient, in seat order; each one's notes
        in the order the game made them."""
        if not batch.private:
            return self.words("nothing_to_tell")
        by_seat: dict[int, list[str]] = {}
        for to, cue, args in batch.private:
            by_seat.setdefault(to, []).append(self.say("private", cue, args))
        blocks = []
        for to in sorted(by_seat):
            name = game.seat(to).name if 1 <= to <= len(game.seats) else ""
            shown = name and not is_filled_in(name, to)  # not «Игроку 3 (Игрок 3)»
            head = self.words("to_seat", seat=to, name=f" ({name})" if shown else "")
            blocks.append("\n".join([head, *("  • " + note for note in by_seat[to])]))
        return "\n\n".join(blocks)
