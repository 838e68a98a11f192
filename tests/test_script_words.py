"""A script's or journal's line that cannot be read, and a journal that
cannot be taken, in the host's words (issue 23, must-hold 5).

The reader (runner/codec.py, runner/script.py), the journal's modules and
the commands that check a script against its journal write English naming
keys as a script does (``'seat' must be a seat number (1, 2, ...), got
'3'``); console/refusals/script.py words each. As tests/test_refusals.py
does for the core: their source walked for every message (a new one fails
until it is worded); each, filled with sample arguments, read in Russian
with no Latin word but the names a script is written in; real broken
scripts and journals at the command line in both languages, and at the
console's resume.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT, TOURNAMENT_ROLES
from test_refusals import PLACEHOLDER, _template

from companion import cli
from companion.config.rulesets import available_rulesets
from companion.console.refusals.inputs import JOURNAL_REFUSALS
from companion.console.refusals.lines import error_line, journal_warning
from companion.console.refusals.script import JOURNAL_DAMAGE, JOURNAL_LINES, SCRIPT_LINES
from companion.console.refusals.terms import shown_words
from companion.console.refusals.wording import compiled, match
from companion.runner import codec, fields
from companion.runner.journal_check import JournalDamaged, JournalError
from companion.runner.script import ScriptError
from companion.textfiles.toml_table import DataFileError

PACKAGE = ROOT / "companion"
#: where messages are made: file -> {call: the message's argument}; an
#: ``append`` is a warning added to ``warnings`` or ``notes``
SOURCES: dict[str, dict[str, int]] = {
    "runner/codec.py": {"BadEvent": 0},
    "runner/fields.py": {"BadEvent": 0},
    "runner/script.py": {"BadEvent": 0, "fail": 0, "ScriptError": 3},
    "commands/play.py": {"ScriptError": 3},
    "console/script_inputs.py": {"ScriptError": 3},
    "config/rulesets.py": {"DataFileError": 3},
    "runner/journal.py": {"JournalError": 0, "JournalWriteError": 0},
    "runner/journal_check.py": {"JournalError": 0, "JournalDamaged": 2, "append": 0},
    "runner/journal_lock.py": {"JournalError": 0, "JournalLocked": 0},
    "live/table_serve.py": {"ValueError": 0},
}
#: messages passed on, not made: (file, the argument) -> the function whose
#: returned (first) values they are, or None: another module's, walked there
#: (the codec's BadEvent, a ruleset's error) or the parameter of a helper
PASSED_ON: dict[tuple[str, str], str | None] = {
    ("runner/script.py", "str(error)"): None,
    ("runner/script.py", "message"): None,
    ("runner/journal_check.py", "problem"): "_check",
}
#: a DataFileError's str() begins with its source
PREFIXED = {"config/rulesets.py": "{}: "}


def _assigned(tree: ast.Module, name: str) -> str | None:
    """The template a name is given in the module (``problem = f"..."``)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            return _template(node.value)
    return None


def _returned_first(tree: ast.Module, function: str) -> list[str]:
    found = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == function)
    said = []
    for node in ast.walk(found):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple):
            said.append(_template(node.value.elts[0]))
    return [s for s in said if s]


def reader_templates() -> dict[str, tuple[str, str]]:
    """Every message template of SOURCES -> (where, "script", "journal" or "damage")."""
    found: dict[str, tuple[str, str]] = {}
    for name, calls in SOURCES.items():
        tree = ast.parse((PACKAGE / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            call = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if call == "append" and not (
                isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
                and func.value.id in ("warnings", "notes")
            ):
                continue
            if call not in calls or len(node.args) <= calls[call]:
                continue
            argument = node.args[calls[call]]
            where = f"{name}:{node.lineno}"
            kind = "damage" if call == "JournalDamaged" else "journal"
            kind = "script" if name in ("runner/codec.py", "runner/fields.py", "runner/script.py", "commands/play.py",
                                        "console/script_inputs.py", "config/rulesets.py") else kind  # fmt: skip
            template = _template(argument)
            if template is None and isinstance(argument, ast.Name):
                template = _assigned(tree, argument.id)
            if template is not None:
                found.setdefault(PREFIXED.get(name, "") + template, (where, kind))
                continue
            key = (name, ast.unparse(argument))
            assert key in PASSED_ON, f"{where}: a message built at run time: add it to PASSED_ON"
            function = PASSED_ON[key]
            for said in _returned_first(tree, function) if function else []:
                found.setdefault(said, (f"{name}:{function}", kind))
    return found


TABLES = {"script": SCRIPT_LINES, "journal": JOURNAL_LINES, "damage": JOURNAL_DAMAGE}
FOUND = reader_templates()


def test_every_message_of_the_reader_and_the_journal_is_worded() -> None:
    assert len(FOUND) > 60  # the walk finds them (today 65)
    # A journal that cannot be written refuses the input: the refusals' words.
    known = {"script": SCRIPT_LINES, "journal": {**JOURNAL_LINES, **JOURNAL_REFUSALS}}
    known["damage"] = JOURNAL_DAMAGE
    missing = [f"{where}: {t!r}" for t, (where, kind) in FOUND.items() if t not in known[kind]]
    assert not missing, "no words in console/refusals/script.py for:\n" + "\n".join(missing)
    gone = [t for table in TABLES.values() for t in table if t not in FOUND]
    assert not gone, f"worded, but no longer said: {gone}"


# --- each message, filled ---------------------------------------------------------

SAMPLES: dict[str, Any] = {
    "key": "seat",
    "num": 7,
    "shown": "a list of 3 items",
    "number": 10_000_000.0,
    "path": "/игры/вечер",
    "list": "club, forum, tournament",
    "json": "Expecting ',' delimiter",
    "hidden": "x",
    "holder": "pid 12 on стол since 2026-05-01 20:15:00 (companion console)",
    "disk": "No space left on device",
    "value": "press",
}
#: Latin words a Russian line may hold: the names a script is written in
#: (its inputs and keys), JSON's own, the commands it names, ruleset names
SCRIPT_NAMES = (
    set(codec.shapes())
    | {key for required, optional in codec.shapes().values() for key in required + optional}
    | codec.COMMON_KEYS
    | set(available_rulesets())
    | {"JSON", "UTF", "true", "false", "companion", "resume", "replay", "console", "pid"}
)
LATIN = re.compile(r"[A-Za-z][A-Za-z_]*")
#: file names and paths, options: names too
NAMES = re.compile(r"\S*/\S*|\S+\.(?:jsonl|lock|md)\b|--[\w-]+")


def latin_words(line: str) -> list[str]:
    """The Latin words of ``line`` that are not names a user types."""
    return [w for w in LATIN.findall(NAMES.sub(" ", line)) if w not in SCRIPT_NAMES]


def filled(template: str, kinds: tuple[str, ...]) -> str:
    values = iter(SAMPLES[kind] for kind in kinds)

    def one(found: re.Match[str]) -> str:
        value = next(values)
        return repr(value) if found.group(1) else format(value, found.group(2) or "")

    return PLACEHOLDER.sub(one, template)


LINE = '{"input": "x"}'
ECHO = f"/игры/вечер.jsonl:3: {LINE}: "


def _entries() -> list[tuple[str, str]]:
    return [(kind, template) for kind, table in TABLES.items() for template in table]


@pytest.mark.parametrize(("kind", "template"), _entries(), ids=[t for _, t in _entries()])
def test_a_message_reads_in_russian(kind: str, template: str) -> None:
    entry = TABLES[kind][template]
    assert len(entry[0]) == len(PLACEHOLDER.findall(template)), "one kind for every placeholder"
    message = filled(template, entry[0])
    found = match(message, compiled(TABLES[kind]))
    assert found is not None and found[0] is entry, f"{message!r} matches another template"
    if kind == "script":
        error: Exception = ScriptError("/игры/вечер.jsonl", 3, LINE, message)
    elif kind == "damage":
        error = JournalDamaged("/игры/вечер.jsonl", 3, message)
    else:
        error = JournalError(message)
    ru, en = error_line(error, "ru"), error_line(error, "en")
    assert en == str(error)  # English: the reader's own words
    said = ru.removeprefix(ECHO)  # the line as the file has it, then why
    assert ru != en and not latin_words(said), ru
    assert not re.search(r"\d\.\d\d|e\+0|'[^' ]+'|_", NAMES.sub(" ", said)), (
        ru
    )  # floats, reprs, ids


def test_what_the_codec_echoes_is_worded() -> None:
    """``fields.shown``'s own forms of what it does not echo whole."""
    cases = {
        fields.shown(list(range(5))): "список (элементов: 5)",
        fields.shown({"a": 1, "b": 2}): "объект (ключей: 2)",
        fields.shown(2**70): "число длиной 71 бит",
        fields.shown("я" * 50): f"«{'я' * 40}…» (знаков: 50)",
        fields.shown(float("nan")): "не число",
    }
    for shown, said in cases.items():
        assert shown_words(shown, "ru") == said, shown
        assert shown_words(shown, "en") is None  # English: as the codec gives it
    assert shown_words("'x'", "ru") is None  # a plain repr: worded as any value


# --- at the command line and the console ----------------------------------------------

SETUP = {"input": "setup", "ruleset": "tournament", "roles": TOURNAMENT_ROLES}


@pytest.fixture(autouse=True)
def no_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COMPANION_CONFIG", str(tmp_path / "no-config.toml"))  # Russian


def _run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> str:
    assert cli.main([str(a) for a in args]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    return err


#: a broken line of a script -> (the Russian, the English) the command line ends with
BROKEN = [
    ('{"input": "press", "seat": 0}', "«seat» — номер места (1, 2, …), а дано 0",
     "'seat' must be a seat number (1, 2, ...), got 0"),
    ('{"input": "adjust", "seconds": 1e400}', "«seconds» — число секунд от -10000000 до "
     "10000000, а дано бесконечность", "'seconds' must be a number of seconds from"),
    ('{"input": "setup", "ruleset": "club", "names": 5}',
     "«names» — список имён, по одному на место, а дано 5", "'names' must be a list of names"),
    ('{"input": "next", "at": 1, "after": 2}', "нужно что-то одно: «at» или «after»",
     "give either 'at' or 'after', not both"),
    ('[1, 2]', "строка должна быть объектом JSON", "a line must be a JSON object"),
    ('{"input": "next"', "не JSON (ожидалось «,», столбец 17)",
     "not JSON (Expecting ',' delimiter at column 17)"),
]  # fmt: skip


@pytest.mark.parametrize(("line", "ru", "en"), BROKEN, ids=[b[2][:30] for b in BROKEN])
def test_a_broken_line_at_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, ru: str, en: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(SETUP) + "\n" + line + "\n", encoding="utf-8")
    err = _run(capsys, "replay", path)
    assert err == f"companion: {path}:2: {line}: {ru}\n"
    assert en in _run(capsys, "replay", path, "--lang", "en")


def _journal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    script, journal = tmp_path / "game.jsonl", tmp_path / "j.jsonl"
    lines = [SETUP, {"at": 80, "input": "wait"}, {"at": 85, "input": "nominate", "by": 1, "target": 3}]  # fmt: skip
    script.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    assert cli.main(["replay", str(script), "--journal", str(journal)]) == 0
    capsys.readouterr()
    return journal


def test_a_damaged_or_used_journal_at_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = _journal(tmp_path, capsys)
    err = _run(capsys, "replay", tmp_path / "game.jsonl", "--journal", journal)
    assert err == f"companion: {journal}: журнал уже есть; его продолжают так: companion resume {journal}\n"  # fmt: skip
    lines = journal.read_text(encoding="utf-8").splitlines()
    journal.write_text("\n".join([lines[0], lines[1].replace('"timer"', '"timer" ')]) + "\n")
    err = _run(capsys, "resume", journal)
    assert err.startswith(f"companion: {journal}:2: контрольная сумма не сходится: ")
    assert err.endswith("; продолжать игру по нему нельзя\n") and not latin_words(err[11:])
    assert _run(capsys, "resume", journal, "--lang", "en").endswith("; resume refused\n")


def test_what_a_resume_warns_of(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = _journal(tmp_path, capsys)
    (tmp_path / "j.jsonl.lock").unlink()
    with journal.open("a", encoding="utf-8") as torn:
        torn.write('{"input": "ne')
    assert cli.main(["resume", str(journal), "--json"]) == 0
    warned = capsys.readouterr().err.splitlines()
    assert warned == [
        f"companion: {journal}:5: оборванная последняя строка пропущена (знаков: 13)",
        f"companion: {journal}: рядом нет файла блокировки (j.jsonl.lock): не удалены ли "
        "строки с конца, проверить нельзя",
    ]
    english = f"{journal}: no lock file beside it (j.jsonl.lock): lines removed"
    assert journal_warning(english + " from its end could not be checked", "en").startswith(english)


def test_a_ruleset_error_and_an_os_error_in_words(tmp_path: Path) -> None:
    error = DataFileError("street", None, None, "no ruleset named 'street' in /r; available: club")
    assert error_line(error, "ru") == "street: нет правил «street» в папке /r; есть: club"
    assert error_line(error, "en") == str(error)
    missing = FileNotFoundError(2, "No such file or directory", str(tmp_path / "x.jsonl"))
    assert error_line(missing, "ru") == f"{tmp_path / 'x.jsonl'}: нет такой папки или файла"


async def test_a_journal_at_the_consoles_resume_is_said_in_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the console says when it resumes a journal: its warnings, and
    why a damaged one is refused («Стол не запущен: …»), in the host's words."""
    from console_driver import config, console, hosting

    good = _journal(tmp_path, capsys)
    damaged = tmp_path / "damaged.jsonl"
    lines = good.read_text(encoding="utf-8").splitlines()
    damaged.write_text("\n".join([lines[0], lines[2]]) + "\n", encoding="utf-8")  # one cut out
    for lang, warned, refused in (
        ("ru", "рядом нет файла блокировки", "Стол не запущен: "
         f"{damaged}:2: контрольная сумма не сходится"),
        ("en", "no lock file beside it", f"The table did not start: {damaged}:2: checksum"),
    ):  # fmt: skip
        (tmp_path / "j.jsonl.lock").unlink()  # no lock file: a warning
        app = console(config(tmp_path / lang, "tournament", lang))
        said: list[str] = []
        async with hosting(app) as host:
            monkeypatch.setattr(
                app, "notify", lambda message, said=said, **_: said.append(str(message))
            )
            assert not app.resume(damaged)
            assert app.resume(good)
            await host.pilot.pause()
            app.host.close()
        assert said[0].startswith(refused), said
        assert any(warned in line for line in said[1:]), said
        if lang == "ru":
            assert not latin_words(said[0].removeprefix("Стол не запущен: ")), said[0]
