"""Every refusal the core can raise, in the host's words (issue 23, must-hold 5).

The core refuses in English naming ids (``seat 5 (maniac) does not act in
night step 'doctor'``); console/refusals/wording.py words each of its templates
(console/refusals/core_words.py, and each procedure's own table registered
in console/refusals/procedures.py). Here: the core's source walked for every
template given to ``require``/``IllegalInput``/``BadEvent`` (a new one
fails until it is worded); each template, filled with sample arguments,
read in Russian (no Latin word) and English (no ids, lists or long
floats); refusals met in real games, at the command line and on the
console's screens.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from console_driver import Host, config, console, hosting
from helpers import ROOT, play, setup
from textual.widgets import RichLog

from companion import cli
from companion.config.rulesets import load_ruleset
from companion.console.forum.screen import ForumScreen
from companion.console.refusals import wording as refusals
from companion.console.refusals.core_words import REFUSALS
from companion.console.refusals.inputs import INPUT_WORDS, JOURNAL_REFUSALS, MALFORMED
from companion.console.refusals.procedures import PROCEDURES
from companion.console.refusals.wording import input_word, match, refusal_line
from companion.console.sports.screen import TableScreen
from companion.core.events import FLAG_KINDS
from companion.runner.codec import shapes
from companion.runner.script import ScriptError

CORE = ROOT / "companion" / "core"
#: every template worded: a game's refusals (the shared core's, each built-in
#: procedure's registered tables) and a malformed input's
OWN = {template: entry for each in PROCEDURES.values() for template, entry in each.refusals.items()}
WORDED = {**REFUSALS, **OWN, **MALFORMED}
#: where the core gives its message: the call and the message's argument
CALLS = {"require": 1, "IllegalInput": 0, "BadEvent": 0}
#: messages the core builds at run time: (file, the argument) -> the
#: function whose returned sentences they are
DYNAMIC = {("forum/procedure.py", "why or ''"): ("forum/outcome.py", "may_declare")}
#: the date-time notation the console asks for (console/forum/words.py): a «T» that is no word
NOTATION = "ГГГГ-ММ-ДДTЧЧ:ММ:СС"
LATIN = re.compile(r"[A-Za-z]+")
CLUB_ROLES = [
    "civilian", "sheriff", "mafia", "civilian", "doctor",
    "don", "putana", "civilian", "maniac", "mafia",
]  # fmt: skip


def _template(node: ast.expr) -> str | None:
    """A message argument as its template: each f-string field ``{}``, a
    repr ``{!r}``; None for a message built otherwise."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if not isinstance(node, ast.JoinedStr):
        return None
    parts = []
    for value in node.values:
        if isinstance(value, ast.Constant):
            parts.append(str(value.value))
            continue
        assert isinstance(value, ast.FormattedValue)
        spec = value.format_spec
        shown = ast.unparse(spec)[2:-1] if isinstance(spec, ast.JoinedStr) else ""
        parts.append(
            "{"
            + ("!r" if value.conversion == ord("r") else "")
            + (":" + shown if shown else "")
            + "}"
        )
    return "".join(parts)


def _returned(path: Path, function: str) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == function)
    said = [_template(n.value) for n in ast.walk(found) if isinstance(n, ast.Return) and n.value]
    return [s for s in said if s]


def core_templates() -> dict[str, str]:
    """Every refusal template of companion/core -> where it is (file:line)."""
    found: dict[str, str] = {}
    for path in sorted(CORE.rglob("*.py")):
        file = path.relative_to(CORE).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        inside_require = {
            id(n)
            for f in ast.walk(tree)
            if isinstance(f, ast.FunctionDef) and f.name == "require"
            for n in ast.walk(f)
        }
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or id(node) in inside_require:
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if name not in CALLS or len(node.args) <= CALLS[name]:
                continue
            argument = node.args[CALLS[name]]
            where = f"{file}:{node.lineno}"
            template = _template(argument)
            if template is not None:
                found.setdefault(template, where)
                continue
            source = DYNAMIC.get((file, ast.unparse(argument)))
            assert source is not None, f"{where}: a message built at run time: add it to DYNAMIC"
            for said in _returned(CORE / source[0], source[1]):
                found.setdefault(said, f"{source[0]}:{source[1]}")
    return found


def test_every_refusal_of_the_core_is_worded() -> None:
    found = core_templates()
    assert len(found) > 80  # the walk finds them (today 90)
    missing = [
        f"{where}: {template!r}" for template, where in found.items() if template not in WORDED
    ]
    assert not missing, (
        "no words in console/refusals/core_words.py, refusals/inputs.py or a procedure's"
        " registered tables (console/<procedure>/refusals.py) for:\n" + "\n".join(missing)
    )
    gone = [template for template in WORDED if template not in found]
    assert not gone, f"worded, but the core no longer says them: {gone}"


# --- each template, filled ------------------------------------------------------

SAMPLES: dict[str, Any] = {
    "seat": 5,
    "num": 7,
    "text": "x",
    "value": -3,
    "seconds": 11.4864,
    "key": "4.6.9",
    "what": "target",
    "role": "maniac",
    "team": "mafia",
    "step": "doctor",
    "phase": "night",
    "timer": "turn",
    "timers": ["turn", "warning"],
    "action": "heal",
    "cost": "removal",
    "offence": "shouting",
    "ruleset": "club",
    "window": "day choices",
    "deadline": "day_choices",
    "deadlines": "day_choices, vote, night",
    "option": "two_sided",
    "options": "two_sided, no_basements, multi_child",
    "kind": "word",
    "kinds": ", ".join(FLAG_KINDS),
    "phrase": "oath",
    "gun": "5",
    "clause": "roles.doctor.3",
    "index": 2,
    "disk": "No space left on device",
}
#: the forum game's own
FORUM_SAMPLES = {**SAMPLES, "role": "tramp", "action": "bite", "ruleset": "forum", "what": "voter"}
PLACEHOLDER = re.compile(r"\{(!r)?(?::([^{}]*))?\}")


def filled(template: str, kinds: tuple[str, ...], samples: dict[str, Any]) -> str:
    """The message the core makes from ``template`` with sample arguments."""
    values = iter(samples[kind] for kind in kinds)

    def one(found: re.Match[str]) -> str:
        value = next(values)
        return repr(value) if found.group(1) else format(value, found.group(2) or "")

    return PLACEHOLDER.sub(one, template)


WHERE = core_templates()
ALL = {**WORDED, **JOURNAL_REFUSALS}


def _rules_for(template: str) -> str:
    return "forum" if WHERE.get(template, "").startswith("forum") else "club"


@pytest.mark.parametrize("template", list(ALL))
def test_a_refusal_reads_in_russian_and_english(template: str) -> None:
    kinds = ALL[template][0]
    assert len(kinds) == len(PLACEHOLDER.findall(template)), "one kind for every placeholder"
    name = _rules_for(template)
    rules = load_ruleset(name)
    message = filled(template, kinds, FORUM_SAMPLES if name == "forum" else SAMPLES)
    found = match(message)
    assert found is not None and found[0] is ALL[template], f"{message!r} matches another template"
    ru = refusal_line(f"nominate: {message}", rules, "ru")
    en = refusal_line(f"nominate: {message}", rules, "en")
    assert ru.startswith("Выставить — ") and en.startswith("Nominate — ")
    assert LATIN.findall(ru.replace(NOTATION, "")) == [], ru
    for line in (ru, re.sub(r"clause [\w.]+", "", en)):  # an English clause cites the id
        assert not re.search(r"[_\[\]{}]|\d[.,]\d\d|4864", line), line  # ids, lists, floats
        assert not re.search(r"'[^' ]+'", line), line  # no repr's quotes
    if "seconds" in kinds:
        assert "11,5" in ru and "11.5" in en


def test_every_input_has_the_hosts_word_for_it() -> None:
    for name in shapes():
        assert name in INPUT_WORDS, name
        ru, en = input_word(name, "ru"), input_word(name, "en")
        assert ru and not LATIN.findall(ru), (name, ru)
        assert en and "_" not in en, (name, en)
    assert input_word("nominate", "ru") == "Выставить"  # the console's key (words.py)
    assert input_word("vote", "ru") == "Голос"  # the forum screen's (console/forum/words.py)


def test_an_unknown_message_is_a_russian_line_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    reason = "nominate: the moon is not full"
    line = refusal_line(reason, load_ruleset("club"), "ru")
    assert line == "Выставить — " + refusals.UNKNOWN
    assert reason in caplog.text  # the original, for whoever reads the log
    assert refusal_line(reason, None, "en") == reason  # English: the core's own words
    assert refusal_line("the moon is not full", None, "ru")[0].isupper()


# --- refusals from real games -----------------------------------------------------

DAY_1 = [{"at": 80, "input": "wait"}] + [
    {"after": 5, "input": "pass", "seat": n} for n in range(1, 11)
]
#: (the lines after setup, the last refused; the core's words; the host's, Russian)
REAL = [
    (
        [{"after": 1, "input": "nominate", "by": 3, "target": 5}],
        "nominate: not allowed in phase night",
        "Выставить — не в эту фазу игры (ночь)",
    ),
    (
        [DAY_1[0], {"after": 1, "input": "nominate", "by": 3, "target": 5}],
        "nominate: seat 3 may nominate only in their own speech",
        "Выставить — игрок 3 выставляет только в свою минуту",
    ),
    (
        [
            {"after": 1, "input": "offence", "seat": 10, "offence": "incorrect_statements_removal"},
            {"after": 1, "input": "offence", "seat": 10, "offence": "shouting"},
        ],
        "offence: seat 10 is out of the game; offence 'shouting' applies to players at the table",
        "Нарушение — игрок 10 уже вне игры, а нарушение «крики за игровым столом»"
        " (замечания, п. 5) даётся только игрокам за столом",
    ),
    (
        [
            *DAY_1,
            {"after": 81, "input": "wait"},
            {"after": 1, "input": "choice", "seat": 9, "target": 1},
        ],
        "choice: seat 9 (maniac) does not act in night step 'doctor'",
        "Ночной выбор — игрок 9 (Маньяк) не действует в шаге ночи «Доктор»",
    ),
    (
        [
            *DAY_1,
            {"after": 81, "input": "wait"},
            {"after": 1, "input": "kill", "seat": 9, "target": 1},
        ],
        "kill: night step 'doctor' takes a heal, not a kill",
        "Ночной выбор — в шаге ночи «Доктор» ход — лечение, а не убийство",
    ),
]


@pytest.mark.parametrize(
    ("lines", "core", "host"), REAL, ids=[r[1].split(":")[0] + str(i) for i, r in enumerate(REAL)]
)
def test_refusals_met_in_a_club_game(lines: list[dict[str, Any]], core: str, host: str) -> None:
    with pytest.raises(ScriptError) as refused:
        play(setup("club", CLUB_ROLES), *lines)
    error = refused.value
    assert error.message == core  # the core's words stay the script authors'
    assert error.refused_in is not None and error.refused_in.name == "club"
    assert refusal_line(error.message, error.refused_in, "ru") == host


def test_a_refusal_met_in_a_forum_game() -> None:
    first = (ROOT / "examples" / "forum-two-sided.jsonl").read_text(encoding="utf-8")
    forum_setup = json.loads(next(x for x in first.splitlines() if x.startswith("{")))
    order = {"at": 1, "input": "post", "seat": 9, "action": "order", "target": 5}
    with pytest.raises(ScriptError) as refused:
        play(forum_setup, order)
    line = refusal_line(refused.value.message, refused.value.refused_in, "ru")
    assert line == "Выбор роли — у игрока 9 нет голоса Бомжа (роли, Бомж, п. 3)"


def _script(tmp_path: Path, *lines: dict[str, Any]) -> Path:
    path = tmp_path / "refused.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return path


def test_the_command_line_words_a_refusal_in_its_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COMPANION_CONFIG", str(tmp_path / "no-config.toml"))  # Russian
    lines, core, host = REAL[3]
    path = _script(tmp_path, setup("club", CLUB_ROLES), *lines)
    bad = json.dumps(lines[-1])
    assert cli.main(["replay", str(path)]) == 2
    assert capsys.readouterr().err == f"companion: {path}:14: {bad}: {host}\n"
    assert cli.main(["replay", str(path), "--lang", "en"]) == 2
    assert capsys.readouterr().err == f"companion: {path}:14: {bad}: {core}\n"
    # A line that does not parse: the reader's words (tests/test_script_words.py).
    broken = _script(tmp_path, setup("club", CLUB_ROLES), {"input": "press", "seat": "3"})
    assert cli.main(["replay", str(broken)]) == 2
    assert "«seat» — номер места (1, 2, …), а дано «3»" in capsys.readouterr().err
    assert cli.main(["replay", str(broken), "--lang", "en"]) == 2
    assert "'seat' must be a seat number" in capsys.readouterr().err


def test_the_module_imports_no_textual() -> None:
    code = "import sys, companion.console.refusals.wording; print('textual' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


# --- on the console's screens -------------------------------------------------------


def _lines(host: Host) -> list[str]:
    screen = host.app.screen
    assert isinstance(screen, TableScreen)
    return [line for line, _ in screen.log_lines]


@pytest.mark.parametrize(
    ("lang", "shown"),
    [
        ("ru", "✗ Не принято: Выставить — не в эту фазу игры (ночь)"),
        ("en", "✗ Refused: Nominate — not in this phase of the game (night)"),
    ],
)
async def test_the_table_screen_shows_a_refusal_in_words(
    tmp_path: Path, lang: str, shown: str
) -> None:
    app = console(config(tmp_path, "club", lang))
    async with hosting(app) as host:
        await host.keys("ctrl+s")
        if not isinstance(app.screen, TableScreen):  # «Начать» asks once
            await host.keys("enter")
        assert host.game.phase == "night"
        await host.nominate(5, by=3)
        assert shown in _lines(host)


async def test_the_forum_screen_shows_a_refusal_in_words(tmp_path: Path) -> None:
    from test_console_forum import Wall, forum_app, forum_game

    async with forum_game(forum_app(tmp_path, Wall())) as host:
        await host.keys("w")
        await host.type("mafia")  # no parity on day 1: the host may not declare it
        if not isinstance(host.app.screen, ForumScreen):  # «it ends the game»: yes
            await host.pilot.click("#yes")
            await host.settle()
        notes = host.screen.query_one("#forum-notes", RichLog)
        said = [strip.text for strip in notes.lines]
        assert any(line.startswith("✗ Не принято: Объявить победу — ведущий") for line in said)
        assert not any(LATIN.search(line) for line in said if line.startswith("✗"))
