"""The offline commands as a user runs them (the installed ``companion``
script): ``protocol`` prints the text a terminal shows unless asked for
another format, and ``protocol``, ``verify-deal``, ``players`` and
``listen`` speak Russian, English with ``--lang en``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import wave
from pathlib import Path

import pytest
from helpers import EXAMPLES, ROOT
from protocol_games import NAMES, companion, journal_of
from test_protocol_words import ALLOWED, LATIN

from companion.protocol import deal

#: the console script pip installed beside the interpreter
SCRIPT = Path(sys.executable).with_name("companion")


def run(*args: str | Path, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = None
    if home is not None:
        import os

        env = {**os.environ, "COMPANION_CONFIG": str(home / "config.toml")}
    return subprocess.run(
        [str(SCRIPT), *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


@pytest.fixture(scope="module")
def journals(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("games")
    return {game: journal_of(game, folder) for game in ("club-full", "tournament")}


@pytest.fixture(scope="module")
def journal(journals: dict[str, Path]) -> Path:
    """A club game with a revote."""
    return journals["club-full"]


def latin(text: str, *verbatim: str | Path) -> set[str]:
    """Latin words but the names, the given paths, the hash, the program's
    name and the deal check's commands (and ALLOWED)."""
    for name in sorted([*NAMES, "Bob", *map(str, verbatim)], key=len, reverse=True):
        text = text.replace(name, " ")
    text = re.sub(r"\b[0-9a-f]{16,64}\b", " ", text)  # the commitment
    text = re.sub(r'echo "companion-deal-v1 \d+" \| sha256sum', " ", text)
    text = re.sub(r"companion-deal-v1 \d+|companion verify-deal ПРОТОКОЛ\.json", " ", text)
    text = re.sub(r"^companion: ", "", text, flags=re.MULTILINE)  # every error's prefix
    return set(LATIN.findall(text)) - ALLOWED


def test_the_script_is_installed() -> None:
    assert SCRIPT.is_file(), f"{SCRIPT}: run scripts/setup.sh (pip install -e .)"


@pytest.mark.parametrize("game", ["club-full", "tournament"])
def test_protocol_prints_the_text_by_default_in_russian(
    journals: dict[str, Path], game: str
) -> None:
    journal = journals[game]
    done = run("protocol", journal)
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert text.startswith("Протокол игры: ") and "<!DOCTYPE" not in text
    assert done.stdout == run("protocol", journal, "--format", "text").stdout
    if game == "club-full":
        assert "\n  Переголосование: за игрока 4: 3 (голосовали: 1, 8, 9)\n" in text
    else:
        assert "\nЛучший ход: 2, 5, 6 (игрок 7, чёрных: 2)\n" in text
    assert not latin(text, journal.name), latin(text, journal.name)
    assert "[" not in text


def test_protocol_in_english_and_other_formats(journal: Path) -> None:
    english = run("protocol", journal, "--lang", "en")
    assert english.returncode == 0, english.stderr
    assert english.stdout.startswith("Game protocol: ") and "Revote: for seat" in english.stdout
    assert "Протокол" not in english.stdout and "Переголосование" not in english.stdout
    page = run("protocol", journal, "--format", "html")
    assert page.stdout.startswith("<!DOCTYPE html>")
    table = run("protocol", journal, "--format", "csv")
    assert table.stdout.startswith("раздел,день,период,что,")
    assert run("protocol", journal, "--format", "csv", "--lang", "en").stdout.startswith("section,")
    data = json.loads(run("protocol", journal, "--format", "json").stdout)
    assert data["game"]["lang"] == "ru" and any(e.get("revote") for e in data["events"])


def test_verify_deal_speaks_russian_and_english(journal: Path, tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    assert run("protocol", journal, "--format", "json", "-o", path).returncode == 0
    russian = run("verify-deal", path)
    assert russian.returncode == 0, russian.stderr
    assert russian.stdout == (
        f"{path}: раздача честная: хеш {deal.commitment(159764)[:16]}… — это хеш зерна 159764,"
        " и это зерно раздаёт ровно эти роли (10)\n"
    )
    assert not latin(russian.stdout, path)
    english = run("verify-deal", path, "--lang", "en")
    assert english.returncode == 0 and ": the deal is fair: the commitment " in english.stdout
    data = json.loads(path.read_text(encoding="utf-8"))
    seats = data["seats"]
    seats[0]["role"], seats[-1]["role"] = seats[-1]["role"], seats[0]["role"]
    path.write_text(json.dumps(data), encoding="utf-8")
    unfair = run("verify-deal", path)
    assert (
        unfair.returncode == 1
        and ": раздача НЕ честная: зерно 159764 даёт месту 1 " in unfair.stdout
    )
    assert "роль «Мирный житель», а в протоколе «Мафия»" in unfair.stdout
    assert not latin(unfair.stdout, path)


def test_verify_deal_of_a_bad_file_and_of_given_roles(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "companion-protocol/1", "game": {"ruleset": "club"}}', "utf-8")
    russian = run("verify-deal", bad)
    assert russian.returncode == 2 and russian.stdout == ""
    assert russian.stderr == f"companion: {bad}: 'deal': нет такого поля\n"
    english = run("verify-deal", bad, "--lang", "en")
    assert english.stderr == f"companion: {bad}: 'deal': missing\n"
    given = tmp_path / "given.jsonl"
    assert companion("replay", EXAMPLES / "demo.jsonl", "--journal", given).returncode == 0
    made = tmp_path / "given.json"
    assert run("protocol", given, "--format", "json", "-o", made).returncode == 0
    nothing = run("verify-deal", made)
    assert nothing.returncode == 3
    assert (
        nothing.stdout
        == f"{made}: проверять нечего: роли назначил ведущий при рассадке (по картам)\n"
    )


def test_players_speaks_russian_and_english(tmp_path: Path) -> None:
    roster = tmp_path / "roster.toml"
    (tmp_path / "config.toml").write_text(f'[paths]\nroster = "{roster}"\n', encoding="utf-8")
    roster.write_text(
        'players = [\n  { name = "Анна", games = 3, last = 2026-11-30 },\n  { name = "Bob" },\n]\n',
        encoding="utf-8",
    )
    russian = run("players", home=tmp_path)
    assert russian.returncode == 0, russian.stderr
    assert russian.stdout.splitlines() == [
        f"Игроки клуба ({roster}): 2",
        "  Анна                     игр:    3   последняя: 2026-11-30",
        "  Bob                      игр:    0   последняя: —",
    ]
    assert not latin(russian.stdout, roster)
    english = run("players", "--lang", "en", home=tmp_path)
    assert english.stdout.splitlines()[0] == f"The club's players ({roster}): 2"
    roster.write_text("players = 5\n", encoding="utf-8")
    broken = run("players", home=tmp_path)
    assert broken.returncode == 2 and broken.stderr.count("\n") == 1
    assert "список игроков не читается" in broken.stderr and not latin(broken.stderr, roster)


def test_listen_prints_words_unless_asked_for_json(tmp_path: Path) -> None:
    audio = tmp_path / "quiet.wav"
    with wave.open(str(audio), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16_000)
        out.writeframes(b"\0\0" * 16_000)
    russian = run("listen", audio, "--detector", "webrtc")
    assert russian.returncode == 0, russian.stderr
    assert russian.stdout == "Речь: отрезков 0\n"
    english = run("listen", audio, "--detector", "webrtc", "--lang", "en")
    assert english.stdout == "Speech: 0 segments\n"
    data = run("listen", audio, "--detector", "webrtc", "--json")
    assert json.loads(data.stdout) == {"segments": []}
