"""Reading a phrase catalogue's TOML: every check, and errors that name the
file, the key and the line (the format: docs/voice.md, "Editing phrases").

Besides the checks of the format, bounds (voices/README.md): a phrase of at
most 500 characters (about half a minute of speech), cue names snake_case
and at most 64 characters (they name the voice cache's files), variant names
and team names of at most 64 and 100 characters, at most 1000 cues and 100
variants of a cue, and what every TOML file must be (UTF-8, at most 1 MiB,
nested at most 16 deep). Values echoed in messages are cut short."""

from __future__ import annotations

import re
from pathlib import Path
from typing import NoReturn

from ..textfiles.toml_lines import KeyPath, clip, format_path, key_lines, line_of
from ..textfiles.toml_table import MAX_ENTRIES, MAX_FILE_BYTES, decode_toml, parse_toml, show
from . import numerals
from .phrases import (
    _GENDERS,
    CUE_ARGS,
    KNOWN_RULESET_CUES,
    SELFTEST_CUE_ARGS,
    TABLE_CUE_ARGS,
    VOICES_DIR,
    Catalogue,
    CatalogueError,
    Entry,
    Placeholder,
    Template,
)

_OPTIONS = frozenset({"m", "f", "n", "ordinal", "list", "count", "noun", "abs", "team", "tally"})
_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")
_CUE = re.compile(r"[a-z][a-z0-9_]{0,63}\Z")
_FIELD = re.compile(r"\{\{|\}\}|\{([^{}]*)\}|[{}]")
_TOP = ("language", "teams", "cues")
MAX_PHRASE = 500
MAX_CUES = 1000
MAX_VARIANT_NAME = 64
MAX_TEAM_NAME = 100
#: The arguments of every cue whose arguments are known (any other cue's are not checked).
_DECLARED = {**KNOWN_RULESET_CUES, **SELFTEST_CUE_ARGS, **TABLE_CUE_ARGS, **CUE_ARGS}


class Reader:
    """Builds a :class:`Catalogue` from TOML text, failing with file/key/line."""

    def __init__(self, text: str, source: str) -> None:
        self.text, self.source = text, source
        self.lines: dict[KeyPath, int] | None = None

    def fail(self, path: KeyPath, message: str) -> NoReturn:
        raise CatalogueError(self.source, format_path(path) or None, self.line(path), message)

    def line(self, path: KeyPath) -> int | None:
        if self.lines is None:
            self.lines = key_lines(self.text)
        return line_of(self.lines, path)

    def catalogue(self, default_language: str) -> Catalogue:
        data = parse_toml(self.text, self.source, CatalogueError)
        for key in data:
            if key not in _TOP:
                self.fail((key,), f"unknown key; expected one of {', '.join(_TOP)}")
        language = data.get("language", default_language)
        if not isinstance(language, str) or language not in numerals.LANGUAGES:
            self.fail(
                ("language",), f"{show(language)} is not one of {', '.join(numerals.LANGUAGES)}"
            )
        teams = data.get("teams", {})
        if not isinstance(teams, dict):
            self.fail(("teams",), "expected a table of team id = name")
        for team, name in teams.items():
            if not isinstance(name, str):
                self.fail(("teams", team), "a team's name must be a string")
            if len(name) > MAX_TEAM_NAME:
                self.fail(("teams", team), f"a team's name is at most {MAX_TEAM_NAME} characters")
        cues = data.get("cues")
        if not isinstance(cues, dict):
            self.fail(("cues",) if "cues" in data else (), "expected a [cues] table")
        if len(cues) > MAX_CUES:
            self.fail(("cues",), f"at most {MAX_CUES} cues, got {len(cues)}")
        entries = {cue: self.entry(cue, value, language) for cue, value in cues.items()}
        return Catalogue(language, self.source, entries, teams)

    def entry(self, cue: str, value: object, lang: str) -> Entry:
        if not _CUE.match(cue):
            self.fail(("cues", cue), "a cue is snake_case (a-z, 0-9, _), at most 64 characters")
        allowed = _DECLARED.get(cue)
        if isinstance(value, str):
            template = self.template(("cues", cue), value, lang, cue, allowed)
            return Entry((), {"": template}, tuple(sorted(template.args)))
        if not isinstance(value, dict):
            self.fail(("cues", cue), "expected a phrase (a string) or a table of variants")
        by = self.by(cue, value.get("by"), allowed)
        if len(value) > MAX_ENTRIES + 1:
            self.fail(("cues", cue), f"at most {MAX_ENTRIES} variants, got {len(value) - 1}")
        templates: dict[str, Template] = {}
        for name, text in value.items():
            if name == "by":
                continue
            if len(name) > MAX_VARIANT_NAME:
                self.fail(
                    ("cues", cue, name),
                    f"a variant's name is at most {MAX_VARIANT_NAME} characters",
                )
            if not isinstance(text, str):
                self.fail(("cues", cue, name), "a variant must be a phrase (a string)")
            templates[name] = self.template(("cues", cue, name), text, lang, cue, allowed)
        if not templates:
            self.fail(("cues", cue), "a table of variants needs at least one phrase")
        used = frozenset(by).union(*(t.args for t in templates.values()))
        return Entry(by, templates, tuple(sorted(used)))

    def by(self, cue: str, by: object, allowed: tuple[str, ...] | None) -> tuple[str, ...]:
        """The arguments a table of variants is chosen by: one name, or a
        list of names (the variants' names are their values joined by "-")."""
        names = [by] if isinstance(by, str) else by
        if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
            self.fail(("cues", cue), 'a table of variants needs by = "<argument>"')
        for name in names:
            if not _NAME.match(name):
                self.fail(
                    ("cues", cue, "by"), f"{show(name)} is not an argument name (a-z, 0-9, _)"
                )
            if allowed is not None and name not in allowed:
                self.fail(("cues", cue, "by"), _unknown_arg(cue, name, allowed))
        if len(set(names)) != len(names):
            self.fail(("cues", cue, "by"), "an argument is named twice")
        return tuple(names)

    def template(
        self, path: KeyPath, text: str, lang: str, cue: str, allowed: tuple[str, ...] | None
    ) -> Template:
        if len(text) > MAX_PHRASE:
            self.fail(path, f"a phrase is at most {MAX_PHRASE} characters, got {len(text)}")
        pieces: list[str | Placeholder] = []
        at = 0
        for match in _FIELD.finditer(text):
            pieces.append(text[at : match.start()])
            at = match.end()
            token = match.group()
            if token in ("{{", "}}"):
                pieces.append(token[0])
            elif match.group(1) is None:
                self.fail(path, f"unmatched {token!r} (write {token * 2} for a brace)")
            else:
                pieces.append(self.placeholder(path, match.group(1), lang, cue, allowed))
        pieces.append(text[at:])
        merged: list[str | Placeholder] = []
        for piece in pieces:
            if isinstance(piece, str) and merged and isinstance(merged[-1], str):
                merged[-1] += piece
            elif piece != "":
                merged.append(piece)
        return Template(tuple(merged), path, self.line(path))

    def placeholder(
        self, path: KeyPath, body: str, lang: str, cue: str, allowed: tuple[str, ...] | None
    ) -> Placeholder:
        head, *forms = body.split("|")
        name, *options = (part.strip() for part in head.split(":"))
        shown = "{" + clip(body, 40) + "}"
        if not _NAME.match(name):
            self.fail(path, f"{shown}: {show(name)} is not an argument name (a-z, 0-9, _)")
        if allowed is not None and name not in allowed:
            self.fail(path, f"{shown}: " + _unknown_arg(cue, name, allowed))
        for option in options:
            if option not in _OPTIONS:
                self.fail(path, f"{shown}: unknown option {show(option)}; known: {_known()}")
        opts = frozenset(options)
        if len(opts & set(_GENDERS)) > 1:
            self.fail(path, f"{shown}: more than one gender")
        if "team" in opts and (len(opts) > 1 or forms):
            self.fail(path, f"{shown}: 'team' takes no other option and no noun")
        if "tally" in opts and opts - {"tally", *_GENDERS}:
            self.fail(path, f"{shown}: 'tally' takes only a gender and the votes' noun")
        if "list" in opts and (opts - {"list", *_GENDERS} or forms):
            self.fail(path, f"{shown}: 'list' takes only a gender, no noun")
        if "noun" in opts and not forms:
            self.fail(path, f"{shown}: 'noun' needs the noun's forms after |")
        if forms and "ordinal" in opts:
            self.fail(path, f"{shown}: an ordinal takes no noun forms (write the noun after it)")
        want = numerals.PLURAL_FORMS[lang]
        if forms and len(forms) != want:
            example = "|голос|голоса|голосов" if lang == "ru" else "|vote|votes"
            self.fail(
                path,
                f"{shown}: {lang} needs {want} noun forms "
                f"(one, {'few, many' if want == 3 else 'other'}; e.g. {example}), got {len(forms)}",
            )
        return Placeholder(name, opts, tuple(forms))


def _unknown_arg(cue: str, name: str, allowed: tuple[str, ...]) -> str:
    given = ", ".join(allowed) if allowed else "no arguments"
    return f"unknown placeholder {show(name)}: cue {show(cue)} is given {given}"


def _known() -> str:
    return ", ".join(sorted(_OPTIONS))


def load_catalogue(lang: str = "ru", folder: Path | None = None) -> Catalogue:
    """Read ``<folder>/<lang>.toml`` (folder: the repository's ``voices/``)."""
    path = (folder or VOICES_DIR) / f"{lang}.toml"
    source = _display(path)
    try:
        with path.open("rb") as file:  # no more than the limit, whatever the file's size
            data = file.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise CatalogueError(source, None, None, "no such phrase catalogue") from None
    except OSError as exc:
        raise CatalogueError(source, None, None, f"cannot read: {exc.strerror}") from None
    text = decode_toml(data, source, CatalogueError)
    return parse_catalogue(text, source, default_language=lang)


def parse_catalogue(text: str, source: str, default_language: str = "ru") -> Catalogue:
    """Parse and check a catalogue's TOML text; `source` names it in messages."""
    return Reader(text, source).catalogue(default_language)


def _display(path: Path) -> str:
    """The path as messages show it: relative to the working directory when
    it lies below it (``voices/ru.toml``), else absolute."""
    absolute = path.resolve()
    try:
        return absolute.relative_to(Path.cwd()).as_posix()
    except ValueError:
        return str(absolute)
