"""Real games for the protocol tests (and docs/protocol.png): example
scripts of both rulesets dealt from a seed instead of given roles, with
names, run the way a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cli_here import companion_here
from helpers import EXAMPLES, ROOT

#: seeds whose deal gives exactly the roles the example scripts list (found
#: by search; tests/test_protocol_deal.py checks each one against the engine)
SEEDS = {"tournament": 4123, "club": 159764}

NAMES = [
    "Анна",
    "Борис",
    "Вера",
    "Глеб",
    "Даша",
    "Егор",
    "Жанна",
    "Зоя <b>&amp;",  # markup in a name must come out as text
    "Игорь",
    "Кира",
]

#: example script, ruleset, lines added at its end
GAMES: dict[str, tuple[str, str, list[dict[str, object]]]] = {
    "tournament": ("demo.jsonl", "tournament", []),
    "club-full": ("club-maniac-wins.jsonl", "club", []),
    # offences with clauses, one cancelled, then the host stops the game
    "club-stopped": (
        "club-ladder.jsonl",
        "club",
        [
            {"after": 1, "input": "offence", "seat": 1, "offence": "shouting"},
            {"after": 1, "input": "cancel_offence", "seat": 1, "offence": "shouting"},
            {"after": 1, "input": "stop", "reason": "пожарная тревога"},
        ],
    ),
}


def dealt_script(game: str, folder: Path) -> Path:
    """The example with its setup dealing from the seed, names given."""
    example, ruleset, extra = GAMES[game]
    lines = []
    for line in (EXAMPLES / example).read_text(encoding="utf-8").splitlines():
        if '"input": "setup"' in line:
            setup = {"at": 0, "input": "setup", "ruleset": ruleset, "seats": 10}
            line = json.dumps({**setup, "seed": SEEDS[ruleset], "names": NAMES}, ensure_ascii=False)
        lines.append(line)
    lines += [json.dumps(x, ensure_ascii=False) for x in extra]
    path = folder / f"{game}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def companion(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """``companion ARGS``, run in this process (cli_here.py): the
    arguments, files and words; ``companion_process`` starts one."""
    return companion_here(*args, cwd=ROOT)


def companion_process(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """``python -m companion.cli ARGS`` as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def journal_of(game: str, folder: Path) -> Path:
    """Play the game's script, journaling it: a real past game."""
    journal = folder / f"{game}.game.jsonl"
    run = companion("replay", dealt_script(game, folder), "--journal", journal)
    assert run.returncode == 0, run.stderr
    return journal


def chromium() -> str | None:
    """The headless Chromium binary (Debian chromium-headless-shell, or chromium)."""
    import shutil

    for name in ("chromium-headless-shell", "chromium"):
        found = shutil.which(name)
        if found:
            return found
    return None


def render_page(
    page: Path, out: Path, *, width: int = 1000, height: int = 1400, pdf: bool = False
) -> subprocess.CompletedProcess[str]:
    """A PNG screenshot (or, with ``pdf``, the print layout as a PDF) of a
    local HTML file. ``--no-sandbox``: the tests may run as root, where
    Chromium's sandbox refuses to start; the page is our own."""
    binary = chromium()
    assert binary is not None
    what = f"--print-to-pdf={out}" if pdf else f"--screenshot={out}"
    return subprocess.run(
        [
            binary,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-pdf-header-footer",
            f"--window-size={width},{height}",
            what,
            page.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


if __name__ == "__main__":
    # docs/protocol.png: python tests/protocol_games.py docs/protocol.png
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        page = folder / "protocol.html"
        run = companion(
            "protocol", journal_of("club-stopped", folder), "--format", "html", "-o", page
        )
        assert run.returncode == 0, run.stderr
        shot = render_page(page, Path(sys.argv[1]).resolve(), height=1800)
        assert shot.returncode == 0, shot.stderr
