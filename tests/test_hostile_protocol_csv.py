"""The protocol's CSV in a spreadsheet (issue 24, item 2).

A club publishes protocols that members open in spreadsheets. A game whose
names and stop reason begin like formulas (``=HYPERLINK(…)``, ``=cmd|' /C
calc'!A0``, ``+``, ``-``, ``@``): every cell of its CSV is read back with the
csv module, and the file is opened by a real spreadsheet (LibreOffice,
headless, with formulas evaluated) in which no cell is a formula; the same
rows unprotected are formulas there, which shows the reader is one that
would have run them. (The tampered protocols are tests/test_hostile_protocol.py.)
"""

from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from helpers import EXAMPLES
from protocol_games import companion

from companion.protocol.formats import FORMULA_START, csv_cell

#: names a spreadsheet would take for formulas (OWASP's list), and plain ones
NAMES = [
    '=HYPERLINK("http://x.example/","click")',
    "+1+1",
    "-2+3",
    "@SUM(A1:A2)",
    "=cmd|' /C calc'!A0",
    " =1+1",
    "Егор",
    "Жанна",
    "Игорь",
    "-",
]
REASON = "=cmd|' /C calc'!A0"


@pytest.fixture(scope="module")
def formula_journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A club game played with those names and stopped with that reason."""
    folder = tmp_path_factory.mktemp("formulas")
    lines = []
    for line in (EXAMPLES / "club-ladder.jsonl").read_text(encoding="utf-8").splitlines():
        if '"input": "setup"' in line:
            setup = {"at": 0, "input": "setup", "ruleset": "club", "seats": 10, "seed": 159764}
            line = json.dumps({**setup, "names": NAMES}, ensure_ascii=False)
        lines.append(line)
    lines.append(json.dumps({"after": 1, "input": "stop", "reason": REASON}))
    script = folder / "formulas.jsonl"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    journal = folder / "formulas.game.jsonl"
    done = companion("replay", script, "--journal", journal)
    assert done.returncode == 0, done.stderr
    return journal


def _is_formula(cell: str) -> bool:
    return cell.lstrip(" ").startswith(FORMULA_START)


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_every_cell_of_the_csv_is_text_not_a_formula(formula_journal: Path, lang: str) -> None:
    done = companion("protocol", formula_journal, "--format", "csv", "--lang", lang)
    assert done.returncode == 0, done.stderr
    rows = list(csv.reader(io.StringIO(done.stdout, newline="")))
    cells = [cell for row in rows for cell in row]
    assert len(rows) > 40 and all(len(row) == 14 for row in rows)
    assert not [cell for cell in cells if _is_formula(cell)]
    assert all(cell.isprintable() for cell in cells)
    names = {row[5] for row in rows[1:] if row[0] in ("место", "seat")}
    protected = {("'" + n if _is_formula(n) else n) for n in NAMES}
    assert names == protected  # each shown as typed, behind one '
    assert "'" + REASON in cells  # the stop reason too
    assert "'-" in names and "Егор" in names


@pytest.mark.parametrize(
    ("value", "cell"),
    [
        ("=1+1", "'=1+1"),
        ("+1", "'+1"),
        ("-1", "'-1"),
        ("@A1", "'@A1"),
        ("  =1", "'  =1"),
        ("\t=1", "\\x09=1"),  # a control character is shown, not kept
        ("\r=1", "\\x0d=1"),
        ("\x1b]0;x\x07", "\\x1b]0;x\\x07"),
        ("a=1", "a=1"),
        ("Анна", "Анна"),
        ("", ""),
        (-5, -5),  # a number is a number, not a name
        (7, 7),
    ],
)
def test_a_cell(value: object, cell: object) -> None:
    assert csv_cell(value) == cell


SOFFICE = shutil.which("soffice") or shutil.which("libreoffice")
_NS = {
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
}
#: LibreOffice's CSV import: comma, double quotes, UTF-8, from line 1, English
#: (US) locale; token 13 true: evaluate formulas (what a member's copy may do)
_CSV_IMPORT = "CSV:44,34,76,1,,1033,false,false,false,false,false,false,true"


def _spreadsheet(csv_file: Path, out: Path) -> list[tuple[str, str | None]]:
    """Every cell as LibreOffice reads the CSV: (the text it shows, its
    formula or None), from the flat ODS file it converts it to."""
    profile = out / "profile"
    done = subprocess.run(
        [str(SOFFICE), f"-env:UserInstallation={profile.as_uri()}", "--headless",
         f"--infilter={_CSV_IMPORT}", "--convert-to", "fods", "--outdir", str(out), str(csv_file)],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    sheet = out / (csv_file.stem + ".fods")
    assert done.returncode == 0 and sheet.is_file(), done.stdout + done.stderr
    cells = []
    formula = f"{{{_NS['table']}}}formula"
    for cell in ET.parse(sheet).getroot().iterfind(".//table:table-cell", _NS):
        text = "\n".join("".join(p.itertext()) for p in cell.iterfind("text:p", _NS))
        cells.append((text, cell.get(formula)))
    return cells


@pytest.mark.skipif(SOFFICE is None, reason="LibreOffice (Debian libreoffice-calc-nogui) not here")
def test_a_spreadsheet_runs_no_formula_from_the_csv(formula_journal: Path, tmp_path: Path) -> None:
    table = tmp_path / "protocol.csv"
    done = companion("protocol", formula_journal, "--format", "csv", "-o", table)
    assert done.returncode == 0, done.stderr
    # The same rows without the protection: the reader is one that runs formulas.
    raw = tmp_path / "raw.csv"
    rows = list(csv.reader(io.StringIO(table.read_text(encoding="utf-8"), newline="")))
    unprotected = [[cell[1:] if cell.startswith("'") else cell for cell in row] for row in rows]
    with raw.open("w", encoding="utf-8", newline="") as stream:
        csv.writer(stream, lineterminator="\r\n").writerows(unprotected)
    formulas = [f for _, f in _spreadsheet(raw, tmp_path / "raw") if f]
    assert any("HYPERLINK" in f for f in formulas) and any("cmd|" in f for f in formulas)
    cells = _spreadsheet(table, tmp_path / "protected")
    assert [f for _, f in cells if f] == []
    shown = {text for text, _ in cells}
    assert "'" + REASON in shown and "'" + NAMES[0] in shown and "Егор" in shown
