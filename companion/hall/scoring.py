"""A scoring scheme as data: ``rulesets/scoring/*.toml`` read and checked.

A scheme says how many points a seat takes from one game's protocol: for
its team's win, loss or a draw, for the best move (by the number of black
seats among the suspects it named), and what a seat loses for being removed
from the table, for each count of its ladder (fouls, remarks) and for the
rating penalty the ruleset gave (the club's −10 rule). The club or the
federation chooses; each shipped file says where its numbers come from.

Read through the project's line-tracking TOML reader: every refusal is one
line naming the file, its line and the key (:class:`ScoringError`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..paths import PROJECT
from ..textfiles.regular_file import FileRefused, read_regular
from ..textfiles.toml_table import Context, DataFileError, TomlTable, decode_toml, parse_toml

#: where the shipped schemes are
FOLDER = PROJECT / "rulesets" / "scoring"
KEYS = (
    "name",
    "title",
    "source",
    "win",
    "loss",
    "draw",
    "removed",
    "per_foul",
    "rating_penalty",
    "best_move",
)
#: a scheme's points lie within this (a hall's numbers are small)
MOST = 1000.0


class ScoringError(DataFileError):
    """A scoring scheme that cannot be used: one line naming file:line: key."""


@dataclass(frozen=True, slots=True)
class Scheme:
    name: str
    title: str
    source: str
    win: float  # a seat whose team won
    loss: float  # a seat whose team lost
    draw: float  # every seat of a game that ended in a draw
    removed: float  # added when the seat was removed from the table (a negative number)
    per_foul: float  # added per count of the seat's ladder over the game (fouls_total)
    #: the ruleset's own rating penalty (the seat's ``rating_penalty``) times this:
    #: 1 takes the club's −10 as it stands, 0 ignores it
    rating_penalty: float
    #: black seats among the best move's suspects -> points (a count not listed: 0)
    best_move: tuple[tuple[int, float], ...]

    def best_move_points(self, black: int) -> float:
        return dict(self.best_move).get(black, 0.0)


def parse_scheme(text: str, source: str) -> Scheme:
    """A scheme's TOML text (``source`` names it in errors)."""
    data = parse_toml(text, source, ScoringError)
    root = TomlTable(Context(source, text, ScoringError), data, (), KEYS)

    def points(key: str, default: float) -> float:
        return root.float_(key, default, minimum=-MOST, maximum=MOST)

    best: list[tuple[int, float]] = []
    table = root.table("best_move", None, required=False)
    if table is not None:
        for key in table.data:
            if key not in ("0", "1", "2", "3"):
                table.fail(key, "must be the number of black suspects: 0, 1, 2 or 3")
            best.append((int(key), table.float_(key, 0.0, minimum=-MOST, maximum=MOST)))
    return Scheme(
        name=root.str_("name", required=True),
        title=root.str_("title", required=True),
        source=root.str_("source", required=True),
        win=points("win", 1.0),
        loss=points("loss", 0.0),
        draw=points("draw", 0.0),
        removed=points("removed", 0.0),
        per_foul=points("per_foul", 0.0),
        rating_penalty=root.float_("rating_penalty", 0.0, minimum=0.0, maximum=MOST),
        best_move=tuple(sorted(best)),
    )


def load_scheme(path: Path) -> Scheme:
    """A scheme file, read with the limits of every data file."""
    source = str(path)
    try:
        raw = read_regular(path, 1 << 20)
    except FileRefused as error:
        raise ScoringError(source, None, None, error.why("en")) from None
    except OSError as error:
        raise ScoringError(source, None, None, error.strerror or "cannot be read") from None
    return parse_scheme(decode_toml(raw, source, ScoringError), source)


def shipped() -> list[str]:
    """The names of the schemes in rulesets/scoring/."""
    return sorted(path.stem for path in FOLDER.glob("*.toml") if path.is_file())


def find_scheme(name_or_path: str) -> Scheme:
    """A shipped scheme by name (``club``), or a scheme file by its path."""
    if name_or_path in shipped():
        return load_scheme(FOLDER / f"{name_or_path}.toml")
    path = Path(name_or_path)
    if path.suffix != ".toml":
        known = ", ".join(shipped())
        raise ScoringError(name_or_path, None, None, f"no such scheme (shipped: {known})")
    return load_scheme(path)
