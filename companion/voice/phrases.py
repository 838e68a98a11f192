"""Phrase catalogues: what each cue of the engine sounds like, per language.

A catalogue is a TOML file a club can edit, ``voices/<lang>.toml``: a
template per cue, with placeholders for the cue's arguments. The syntax
(documented for editors in ``docs/voice.md``, "Editing phrases")::

    {seat}                            the argument; a number is said in words: «три»
    {seconds:f|секунда|секунды|секунд}  number + agreeing noun: «двадцать одна секунда»
    {count:ordinal:n}                 ordinal, with gender m/f/n: «четвёртое»
    {nominees:list}                   "3,6" -> «три и шесть»
    {nominees:count:noun|игрок|игрока|игроков}  only the noun agreeing with the list's length
    {team:team}                       team ids -> names (catalogue [teams], else the ruleset)
    {seconds:abs|...}                 the number without its sign
    {tally:tally|голос|голоса|голосов}  "5:4,3:2" -> «пять — четыре голоса и три — два голоса»

A cue given as a table picks its template by one argument's value::

    offence_counted.by = "unit"
    offence_counted.foul = "Игрок номер {seat}, {count:ordinal:m} фол."
    offence_counted.remark = "Игрок номер {seat}, {count:ordinal:n} замечание."

looking for the exact value, then ``negative`` / ``positive`` for a number,
then ``default``; or by several arguments' values joined by ``-``
(``by = ["basements", "child"]``, ``forum_balance.yes-multi``), then
``default``. A placeholder that starts a sentence is capitalised.

:data:`CUE_ARGS` is the engine's side of the contract: the arguments each cue
is given, as the engine declares them (``core/vocabulary.py``). A template
may use only those (checked when the file is loaded), and
:meth:`Catalogue.variants` enumerates their values for one game. The TOML
reader and its checks live in ``catalogue_load.py``, with
``load_catalogue``, the way to a catalogue.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from ..core.rules import Ruleset
from ..paths import PROJECT
from ..textfiles.toml_lines import KeyPath, clip_message, error_line, format_path
from ..textfiles.toml_table import show
from . import numerals
from .game_cues import (
    CUE_ARGS,
    KNOWN_RULESET_CUES,
    RULESET_CUE_ARGS,
    SELFTEST_CUE_ARGS,
    TABLE_CUE_ARGS,
    argument_values,
    needed_cues,
)

#: the contract's names are kept here too, for their importers (game_cues.py has them)
__all__ = [
    "CUE_ARGS",
    "KNOWN_RULESET_CUES",
    "RULESET_CUE_ARGS",
    "SELFTEST_CUE_ARGS",
    "TABLE_CUE_ARGS",
    "VOICES_DIR",
    "Catalogue",
    "CatalogueError",
    "MissingArgument",
    "UnknownCue",
    "needed_cues",
]

#: The repository's catalogues.
VOICES_DIR = PROJECT / "voices"

_GENDERS: tuple[numerals.Gender, ...] = ("m", "f", "n")
#: Numbers are said up to a trillion (num2words fails on huge ones); an
#: argument is at most 200 characters (``int()`` fails on 4300 digits).
MAX_SAID = 10**12 - 1
MAX_ARGUMENT = 200
_NUMBER = re.compile(r"-?\d+\Z")
_SENTENCE_END = (".", "!", "?", "…")


class CatalogueError(ValueError):
    """A catalogue that cannot be used, or a cue it cannot say; ``str()``
    names the file, line and key: ``voices/ru.toml:12: cues.tie: ...``."""

    def __init__(self, source: str, key: str | None, line: int | None, message: str) -> None:
        self.source, self.key, self.line = source, key, line
        self.message = clip_message(message)
        super().__init__(str(self))

    def __str__(self) -> str:
        return error_line(self.source, self.key, self.line, self.message)


class UnknownCue(KeyError):
    """The catalogue has no template for a cue."""

    def __init__(self, cue: str, source: str) -> None:
        self.cue, self.source = cue, source
        super().__init__(cue)

    def __str__(self) -> str:
        return f"{self.source}: no phrase for cue {self.cue!r} (add cues.{self.cue})"


class MissingArgument(KeyError):
    """A template needs an argument the cue was not given."""

    def __init__(self, cue: str, arg: str, where: str) -> None:
        self.cue, self.arg, self.where = cue, arg, where
        super().__init__(arg)

    def __str__(self) -> str:
        return f"{self.where}: cue {self.cue!r} needs argument {self.arg!r}"


@dataclass(frozen=True, slots=True)
class Placeholder:
    arg: str
    options: frozenset[str]
    forms: tuple[str, ...]  # noun forms, as many as the language has

    @property
    def gender(self) -> numerals.Gender:
        for gender in _GENDERS:
            if gender in self.options:
                return gender
        return "m"


@dataclass(frozen=True, slots=True)
class Template:
    pieces: tuple[str | Placeholder, ...]
    path: KeyPath  # where it is in the file, for messages
    line: int | None

    @property
    def args(self) -> frozenset[str]:
        return frozenset(p.arg for p in self.pieces if isinstance(p, Placeholder))


@dataclass(frozen=True, slots=True)
class Entry:
    """One cue: a template, or templates chosen by the values of ``by``."""

    by: tuple[str, ...]  # the arguments that choose the template; () for one template
    #: by value ("" when there is no ``by``; values joined by "-" for several)
    templates: Mapping[str, Template]
    args: tuple[str, ...]  # every argument the phrase depends on, sorted


class Catalogue:
    """The phrases of one language; built by ``catalogue_load.load_catalogue``
    or ``parse_catalogue``."""

    def __init__(
        self, language: str, source: str, entries: Mapping[str, Entry], teams: Mapping[str, str]
    ) -> None:
        self.language = language
        self.source = source
        self.entries = dict(entries)
        self.teams = dict(teams)

    @property
    def cues(self) -> frozenset[str]:
        return frozenset(self.entries)

    def has(self, cue: str) -> bool:
        return cue in self.entries

    # -- saying --------------------------------------------------------------
    def text(self, cue: str, args: Mapping[str, int | str], rules: Ruleset | None = None) -> str:
        """The words for `cue` with `args`; arguments it does not use are ignored."""
        self._check(cue, args)
        template = self._choose(cue, args)
        out: list[str] = []
        for piece in template.pieces:
            if isinstance(piece, str):
                out.append(piece)
                continue
            if piece.arg not in args:
                raise MissingArgument(cue, piece.arg, self._where(template))
            words = self._render(piece, args[piece.arg], rules, template)
            before = "".join(out).rstrip()
            if words and (not before or before.endswith(_SENTENCE_END)):
                words = words[0].upper() + words[1:]
            out.append(words)
        return "".join(out)

    def key(self, cue: str, args: Mapping[str, int | str]) -> str:
        """A stable, file-name-safe name for the phrase: the cue, then each
        argument the phrase depends on with its value, sorted by name:
        ``vote_question-seat-3``, ``time_added-seconds-minus10``. A cue whose
        phrase uses no argument is its own key (``thanks``). Voice packs name
        their recordings by it."""
        self._check(cue, args)
        entry = self._entry(cue)
        parts = [cue]
        for name in entry.args:
            if name not in args:
                raise MissingArgument(cue, name, f"{self.source}: cues.{cue}")
            parts += [name, _safe(args[name])]
        return "-".join(parts)

    def variants(
        self, rules: Ruleset, seats: int
    ) -> Iterator[tuple[str, dict[str, int | str], str]]:
        """Every (cue, args, text) a game of `rules` with `seats` seats can
        say, one per distinct :meth:`key`, for rendering ahead of time.

        Lists of seats (``nominees``, ``seats``) are enumerated as single
        seats only: every seat is covered, but a list of two or more (a tie,
        the day's nominees) is known only during the game and must be
        rendered then. So is a vote's tally (only "-", no votes, is known
        ahead) and a moved deadline's new time (``at``: a phrase that says
        it is rendered during the game)."""
        for cue, cue_args in needed_cues(rules).items():
            entry = self._entry(cue)
            used = [name for name in entry.args if name in cue_args]
            domains = [argument_values(cue, name, rules, seats) for name in used]
            for values in itertools.product(*domains):
                args = dict(zip(used, values, strict=True))
                yield cue, args, self.text(cue, args, rules)

    # -- inside ----------------------------------------------------------------
    def _check(self, cue: str, args: Mapping[str, int | str]) -> None:
        """Arguments within what can be said and named: numbers up to
        :data:`MAX_SAID`, words and lists up to :data:`MAX_ARGUMENT` characters."""
        for name, value in args.items():
            if isinstance(value, bool) or not isinstance(value, int | str):
                problem = f"is {show(value)}, not a number or a word"
            elif isinstance(value, int) and abs(value) > MAX_SAID:
                problem = f"is too large to say (at most {MAX_SAID})"
            elif isinstance(value, str) and len(value) > MAX_ARGUMENT:
                problem = f"is longer than {MAX_ARGUMENT} characters"
            else:
                continue
            raise CatalogueError(self.source, f"cues.{cue}", None, f"argument {name} {problem}")

    def _entry(self, cue: str) -> Entry:
        entry = self.entries.get(cue)
        if entry is None:
            raise UnknownCue(cue, self.source)
        return entry

    def _choose(self, cue: str, args: Mapping[str, int | str]) -> Template:
        entry = self._entry(cue)
        if not entry.by:
            return entry.templates[""]
        for name in entry.by:
            if name not in args:
                raise MissingArgument(cue, name, f"{self.source}: cues.{cue}.by")
        values = [args[name] for name in entry.by]
        tried = ["-".join(map(str, values))]
        if len(values) == 1 and _is_number(values[0]):
            number = int(values[0])
            tried += ["negative"] if number < 0 else ["positive"] if number > 0 else []
        for name in [*tried, "default"]:
            if name in entry.templates:
                return entry.templates[name]
        given = ", ".join(
            f"{name}={show(value)}" for name, value in zip(entry.by, values, strict=True)
        )
        raise CatalogueError(
            self.source, f"cues.{cue}", _first_line(entry), f"no phrase for {given} and no default"
        )

    def _where(self, template: Template) -> str:
        where = self.source if template.line is None else f"{self.source}:{template.line}"
        return f"{where}: {format_path(template.path)}"

    def _render(
        self, p: Placeholder, value: int | str, rules: Ruleset | None, template: Template
    ) -> str:
        lang = self.language
        if "tally" in p.options:
            return numerals.join(
                (self._tally_item(p, item, template) for item in _items(value)), lang
            )
        if "team" in p.options:
            names = [self._team_name(team, rules) for team in _items(value)]
            return numerals.join(names, lang)
        if "list" in p.options:
            numbers = [self._number(p, item, template) for item in _items(value)]
            return numerals.join((numerals.cardinal(n, lang, p.gender) for n in numbers), lang)
        if not (p.options or p.forms or _is_number(value)):
            return str(value)  # a word given as it is, e.g. {unit}
        number = len(_items(value)) if "count" in p.options else self._number(p, value, template)
        if "abs" in p.options:
            number = abs(number)
        if "noun" in p.options:
            return numerals.agree(number, p.forms, lang)
        say = numerals.ordinal if "ordinal" in p.options else numerals.cardinal
        words = say(number, lang, p.gender)
        return f"{words} {numerals.agree(number, p.forms, lang)}" if p.forms else words

    def _tally_item(self, p: Placeholder, item: str, template: Template) -> str:
        """One "seat:votes" of a tally in words: «пять — четыре голоса»."""
        seat, _, votes = item.partition(":")
        number = self._number(p, votes, template)
        words = numerals.cardinal(number, self.language, p.gender)
        if p.forms:
            words = f"{words} {numerals.agree(number, p.forms, self.language)}"
        said = numerals.cardinal(self._number(p, seat, template), self.language)
        return f"{said} — {words}"

    def _number(self, p: Placeholder, value: int | str, template: Template) -> int:
        if not _is_number(value):
            raise CatalogueError(
                self.source,
                format_path(template.path),
                template.line,
                f"argument {p.arg}={show(value)} is not a number",
            )
        if abs(int(value)) > MAX_SAID:
            raise CatalogueError(
                self.source,
                format_path(template.path),
                template.line,
                f"argument {p.arg}={show(value)} is too large to say (at most {MAX_SAID})",
            )
        return int(value)

    def _team_name(self, team: str, rules: Ruleset | None) -> str:
        if team in self.teams:
            return self.teams[team]
        if rules is not None:
            try:
                return rules.team(team).name
            except KeyError:
                pass
        return team


def _first_line(entry: Entry) -> int | None:
    lines = [t.line for t in entry.templates.values() if t.line is not None]
    return min(lines, default=None)


def _items(value: int | str) -> list[str]:
    return [item.strip() for item in str(value).split(",") if item.strip()]


def _is_number(value: int | str) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or bool(_NUMBER.match(value.strip()))


def _safe(value: int | str) -> str:
    """A value as a file-name-safe key part: -10 -> minus10, "3,6" -> 3_6."""
    if _is_number(value) and int(value) < 0:
        return f"minus{-int(value)}"
    text = str(value).lower()
    safe = re.sub(r"[^a-z0-9]+", "_", text).strip("_")
    if text.isascii() and safe:
        return safe
    # not ASCII: keep keys apart by the bytes themselves
    return "_".join(filter(None, (safe, text.encode().hex())))
