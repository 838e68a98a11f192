"""The standings as CSV and HTML, the round's protocols as one zip, with or
without a broker: from the protocols the board holds, from those the broker
keeps (``export_from_broker``), or from a folder of protocol JSON files
(``export_standings``: ``companion hall standings DIR --csv F --html F
--archive F``).

A folder is read as the archive lays it out (``table-<N>/<game>.json``) or
flat (``<game>.json``, table unknown). Every protocol is read with the
limits of any file a person names (protocol/verify.py's ``read_json``); a
bad one stops the export with one line naming it. CSV cells pass through
protocol/formats.py's ``csv_cell`` (no formula reaches a spreadsheet); HTML
escapes every name.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
import sys
import zipfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TextIO

from ..protocol.formats import csv_cell
from ..protocol.verify import MAX_PROTOCOL, ProtocolFileError, read_json
from ..textfiles.printable import printable
from ..textfiles.regular_file import read_regular
from .board_words import words
from .model import HallModel
from .scoring import Scheme, ScoringError, find_scheme
from .standings import Game, Row, places, points_text, standings
from .topics import BrokerAddress

_TABLE_DIR = re.compile(r"table-(\d{1,4})\Z")
#: a game id as a file name holds it
_SAFE = re.compile(r"[^A-Za-z0-9._-]")


def read_protocol_dir(folder: Path, lang: str = "ru") -> list[Game]:
    """Every protocol JSON of a folder (``table-N/*.json`` and ``*.json``)."""
    return read_protocols(folder, lang)[0]


def read_protocols(
    folder: Path, lang: str = "ru"
) -> tuple[list[Game], dict[tuple[int, str], bytes]]:
    """The folder's protocols, parsed and as their bytes (the archive's)."""
    places = [(0, path) for path in sorted(folder.glob("*.json"))]
    for sub in sorted(folder.iterdir()):
        match = _TABLE_DIR.match(sub.name)
        if match and sub.is_dir():
            places += [(int(match.group(1)), path) for path in sorted(sub.glob("*.json"))]
    games: list[Game] = []
    raw: dict[tuple[int, str], bytes] = {}
    for table, path in places:
        # read_json checks the file and words what is wrong with it; the bytes
        # read again must be the same protocol (a file rewritten meanwhile is refused)
        data = read_json(path, lang)
        again = read_regular(path, MAX_PROTOCOL)
        try:
            same = json.loads(again.decode("utf-8")) == data
        except ValueError:
            same = False
        if not same:
            raise ProtocolFileError(f"{printable(path)}: changed while it was read")
        games.append(Game(table, path.stem, data))
        raw[(table, path.stem)] = again
    return games, raw


def _player(row: Row, lang: str) -> str:
    # an unnamed seat is "#<table>.<seat>" (standings.player_of)
    match = re.fullmatch(r"#(\d+)\.(\d+)", row.player)
    if match:
        return words(lang)["seat_player"].format(table=match.group(1), seat=match.group(2))
    return row.player


def standings_rows(rows: list[Row], lang: str) -> list[list[object]]:
    """The standings as a header and cells (places shared by equal rows)."""
    w = words(lang)
    head: list[object] = [
        w[key] for key in ("place", "player", "games", "wins", "best_move", "penalties", "points")
    ]
    body: list[list[object]] = [
        [
            place,
            _player(row, lang),
            row.games,
            row.wins,
            points_text(row.best_move),
            points_text(row.penalties),
            points_text(row.points),
        ]
        for place, row in zip(places(rows), rows, strict=True)
    ]
    return [head, *body]


def standings_csv(rows: list[Row], lang: str) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    for line in standings_rows(rows, lang):
        writer.writerow([csv_cell(cell) for cell in line])
    return buffer.getvalue()


_STYLE = """
body { font-family: sans-serif; margin: 2em; color: #111; background: #fff; }
table { border-collapse: collapse; }
th, td { border-bottom: 1px solid #ccc; padding: .3em .8em; text-align: right; }
th:nth-child(2), td:nth-child(2) { text-align: left; }
caption { text-align: left; font-size: 1.4em; margin-bottom: .5em; }
"""


def standings_html(rows: list[Row], scheme: Scheme, event: str, lang: str) -> str:
    w = words(lang)
    lines = standings_rows(rows, lang)
    esc = html.escape
    head = "".join(f"<th>{esc(str(cell))}</th>" for cell in lines[0])
    body = "\n".join(
        "<tr>" + "".join(f"<td>{esc(str(cell))}</td>" for cell in line) + "</tr>"
        for line in lines[1:]
    )
    title = esc(w["title"].format(event=event))
    return (
        f'<!DOCTYPE html>\n<html lang="{"en" if lang == "en" else "ru"}">\n<head>\n'
        f'<meta charset="utf-8">\n<title>{title}</title>\n<style>{_STYLE}</style>\n</head>\n'
        f"<body>\n<h1>{title}</h1>\n<p>{esc(w['scheme'].format(title=scheme.title))}</p>\n"
        f"<table>\n<caption>{esc(w['standings'])}</caption>\n<thead><tr>{head}</tr></thead>\n"
        f"<tbody>\n{body}\n</tbody>\n</table>\n</body>\n</html>\n"
    )


def archive_bytes(protocols: Mapping[tuple[int, str], bytes]) -> bytes:
    """The protocols as one zip, ``table-<N>/<game>.json`` each, byte for
    byte as they arrived; the entries' times fixed, so the same protocols
    make the same archive."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for (table, game), data in sorted(protocols.items()):
            name = f"table-{table}/{_SAFE.sub('_', game)}.json"
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return buffer.getvalue()


def _write(path: Path, data: bytes) -> None:
    """Written whole or not at all: a temporary file beside it, renamed."""
    temporary = path.with_name(f".{path.name}.part")
    temporary.write_bytes(data)
    temporary.replace(path)


def write_exports(
    games: Iterable[Game],
    raw: Mapping[tuple[int, str], bytes],
    scheme: Scheme,
    event: str,
    lang: str,
    *,
    csv_path: Path | None = None,
    html_path: Path | None = None,
    archive_path: Path | None = None,
) -> list[Path]:
    """Write what was asked; the paths written (an OSError goes up)."""
    rows = standings(games, scheme)
    written = []
    if csv_path is not None:
        _write(csv_path, standings_csv(rows, lang).encode("utf-8-sig"))  # Excel reads UTF-8 by it
        written.append(csv_path)
    if html_path is not None:
        _write(html_path, standings_html(rows, scheme, event, lang).encode("utf-8"))
        written.append(html_path)
    if archive_path is not None:
        _write(archive_path, archive_bytes(raw))
        written.append(archive_path)
    return written


def export_standings(
    folder: Path,
    scheme_name: str,
    *,
    event: str = "",
    lang: str = "ru",
    csv_path: Path | None = None,
    html_path: Path | None = None,
    archive_path: Path | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """``companion hall standings``: a folder of protocols -> the files
    asked for. 0 when written; 2 with one line on `err` when not."""
    out, err = out or sys.stdout, err or sys.stderr
    w = words(lang)
    if csv_path is None and html_path is None and archive_path is None:
        print(w["no_outputs"], file=err)
        return 2
    if not folder.is_dir():
        print(w["no_folder"].format(folder=folder), file=err)
        return 2

    def collect() -> Collected:
        games, raw = read_protocols(folder, lang)
        if not games:  # the wrong folder (the hall's own, say): not an empty table "saved"
            raise _NothingToExport(w["no_protocol_files"].format(folder=folder))
        return games, raw

    paths = (csv_path, html_path, archive_path)
    return _export(collect, scheme_name, event or folder.name, lang, paths, out, err)


def collect_from_broker(
    broker: BrokerAddress, event: str, *, quiet_s: float = 2.0, limit_s: float = 30.0
) -> HallModel:
    """The protocols the broker keeps for the event (retained): subscribed,
    taken until nothing more has come for `quiet_s` after the connection
    (the retained ones come at once), or `limit_s` in all. A broker that
    refuses or never answers raises ConnectionError with one line."""
    import queue
    import time

    from .subscriber import Subscriber  # paho only when asked for

    inbox: queue.Queue[tuple[str, bytes] | bool] = queue.Queue()
    subscriber = Subscriber(
        broker, event, lambda t, p: inbox.put((t, p)), lambda up, why: inbox.put(up)
    )
    model = HallModel(event)
    subscriber.start()
    try:
        end = time.monotonic() + limit_s
        connected = False
        while time.monotonic() < end:
            wait = min(quiet_s, end - time.monotonic()) if connected else end - time.monotonic()
            try:
                item = inbox.get(timeout=max(0.0, wait))
            except queue.Empty:
                break
            if item is True:
                connected = True
            elif item is False and not connected:
                raise ConnectionError(f"{broker.host}:{broker.port}: refused or not there")
            elif isinstance(item, tuple):
                model.feed(*item)
        if not connected:
            raise ConnectionError(f"{broker.host}:{broker.port}: no answer in {limit_s:g} s")
    finally:
        subscriber.stop()
    return model


def export_from_broker(
    broker: BrokerAddress,
    event: str,
    scheme_name: str,
    *,
    lang: str = "ru",
    csv_path: Path | None = None,
    html_path: Path | None = None,
    archive_path: Path | None = None,
    out: TextIO | None = None,
    err: TextIO | None = None,
    quiet_s: float = 2.0,
) -> int:
    """``companion hall standings`` with the hall's broker: the protocols it
    keeps -> the files asked for. 0 when written; 2 with one line when not."""
    out, err = out or sys.stdout, err or sys.stderr
    w = words(lang)
    if csv_path is None and html_path is None and archive_path is None:
        print(w["no_outputs"], file=err)
        return 2

    def collect() -> Collected:
        try:
            model = collect_from_broker(broker, event, quiet_s=quiet_s)
        except ConnectionError as error:
            why = w["broker_down"].format(host=broker.host, port=broker.port, why=error)
            raise _NothingToExport(why) from None
        return model.protocols(), model.raw_protocols

    paths = (csv_path, html_path, archive_path)
    return _export(collect, scheme_name, event, lang, paths, out, err)


#: the games read and each protocol's bytes by (table, game)
Collected = tuple[Iterable[Game], Mapping[tuple[int, str], bytes]]


class _NothingToExport(Exception):
    """Nothing to export, said in the user's words (``str()``)."""


def _export(
    collect: Callable[[], Collected],
    scheme_name: str,
    event: str,
    lang: str,
    paths: tuple[Path | None, Path | None, Path | None],
    out: TextIO,
    err: TextIO,
) -> int:
    """The standings' files (CSV, HTML, archive) from what ``collect``
    gathers: 0 when written; 2 with one line on `err` when not."""
    w = words(lang)
    csv_path, html_path, archive_path = paths
    try:
        scheme = find_scheme(scheme_name)
        games, raw = collect()
        written = write_exports(
            games,
            raw,
            scheme,
            event,
            lang,
            csv_path=csv_path,
            html_path=html_path,
            archive_path=archive_path,
        )
    except ScoringError as error:
        print(w["no_scheme"].format(why=error), file=err)
        return 2
    except (ProtocolFileError, _NothingToExport) as error:
        print(str(error), file=err)
        return 2
    except OSError as error:
        print(w["export_failed"].format(why=f"{error.filename}: {error.strerror}"), file=err)
        return 2
    print(w["exported"].format(files=", ".join(map(str, written))), file=out)
    return 0
