"""``companion hall``: the tournament hall's commands (docs/hall.md).

- ``companion hall`` starts the hall's Mosquitto (or uses one already
  listening on its port, and says which), then the hall board;
- ``companion hall init --event NAME --tables N``: the broker's folder;
- ``companion hall add-table N``: the lines of table N's ``[hall]``;
- ``companion hall web``: the spectators' pages;
- ``companion hall standings [FOLDER]``: the board's exports from the
  command line (hall/exports.py), from a folder or the broker.

The parser's Russian help is in commands/help.py with every command's.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

from . import words
from .broker import (
    BOARD,
    SPECTATOR_PORT,
    TABLE_PORT,
    WEB,
    Hall,
    HallError,
    add_table,
    init_hall,
    listening,
    read_hall,
    start_broker,
    stop_broker,
    table_lines,
)

MAX_TABLE = 999
_EVENT = re.compile(r"[A-Za-z0-9_-]{1,64}\Z")


def hall_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    where = argparse.ArgumentParser(add_help=False, parents=[common])
    where.add_argument(
        "--dir",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="the hall's folder (default: hall in the club's data folder)",
    )
    hall = sub.add_parser(
        "hall", parents=[where], help="the tournament hall: the broker and the board (docs/hall.md)"
    )
    actions = hall.add_subparsers(dest="hall_action")
    init = actions.add_parser(
        "init", parents=[where], help="write the broker's configuration, users and ACL"
    )
    init.add_argument(
        "--event",
        metavar="NAME",
        required=True,
        help="the event's name in the topics (letters, digits, - and _)",
    )
    init.add_argument(
        "--tables", metavar="COUNT", type=int, default=10, help="how many tables (numbered from 1)"
    )
    init.add_argument(
        "--host", metavar="HOST", help="how tables reach this machine (a name or address)"
    )
    init.add_argument(
        "--bind",
        metavar="HOST",
        default="",
        help="the address the broker listens on (default: every one)",
    )
    init.add_argument(
        "--port", metavar="PORT", type=int, default=TABLE_PORT, help="the tables' port (1883)"
    )
    init.add_argument(
        "--spectator-port",
        metavar="PORT",
        type=int,
        default=SPECTATOR_PORT,
        help="the spectators' read-only port (1884)",
    )
    init.add_argument("--tls", action="store_true", help="TLS with a self-signed CA made here")
    init.add_argument(
        "--anonymous-spectators",
        action="store_true",
        help="spectators may connect without a password (read-only)",
    )
    init.add_argument(
        "--force", action="store_true", help="make the hall anew (every password changes)"
    )
    add = actions.add_parser(
        "add-table",
        parents=[where],
        help="print the lines of a table's [hall] (adding the table if new)",
    )
    add.add_argument("table", metavar="TABLE", type=int, help="the table's number")
    scheme = argparse.ArgumentParser(add_help=False)
    scheme.add_argument(
        "--scheme",
        metavar="SCHEME",
        default="tournament",
        help="the scoring scheme: a name in rulesets/scoring or a .toml file (tournament)",
    )
    hall._add_action(scheme._actions[0])  # the board's scheme, for companion hall itself
    standings = actions.add_parser(
        "standings",
        parents=[where, scheme],
        help="the standings and the protocols' archive, from a folder or the hall's broker",
    )
    standings.add_argument(
        "folder",
        nargs="?",
        metavar="FOLDER",
        help="a folder of protocol JSON files (default: the protocols the hall's broker keeps)",
    )
    standings.add_argument("--csv", metavar="FILE", help="write the standings as CSV")
    standings.add_argument("--html", metavar="FILE", help="write the standings as an HTML page")
    standings.add_argument("--archive", metavar="FILE", help="write the protocols as one zip")
    web = actions.add_parser("web", parents=[where, scheme], help="the spectators' web pages")
    web.add_argument(
        "--host",
        metavar="HOST",
        default="0.0.0.0",
        help="the address the web server listens on (0.0.0.0)",
    )
    web.add_argument(
        "--port", metavar="PORT", type=int, default=8080, help="the web server's port (8080)"
    )


def hall_command(args: argparse.Namespace) -> int:
    lang = getattr(args, "lang", None) or _config_lang()
    given = getattr(args, "dir", None)
    folder = Path(given).expanduser() if given else _default_folder()
    action = args.hall_action
    try:
        if action == "init":
            return _init(args, folder, lang)
        if action == "standings" and args.folder:
            return _standings(args, None, lang)
        hall = _read(folder, lang)
        if action == "standings":
            return _standings(args, hall, lang)
        if action == "add-table":
            return _add_table(hall, args.table, lang)
        if action == "web":
            return _web(hall, args.host, args.port, lang, args.scheme)
        return _run(hall, lang, args.scheme)
    except HallError as error:
        print(f"companion: {words.line('failed', lang, error=error)}", file=sys.stderr)
        return 2


def _config_lang() -> str:
    from ..config.load import load_config

    try:
        return load_config().lang
    except Exception:  # a broken config is the config command's to say
        return "ru"


def _default_folder() -> Path:
    from ..config.load import load_config

    return load_config().paths.journals.parent / "hall"


def _read(folder: Path, lang: str) -> Hall:
    if not (folder / "hall.toml").exists():
        raise HallError(words.line("no_hall", lang, dir=folder))
    return read_hall(folder)


def _init(args: argparse.Namespace, folder: Path, lang: str) -> int:
    if (folder / "hall.toml").exists() and not args.force:
        raise HallError(words.line("init_exists", lang, dir=folder))
    if not _EVENT.match(args.event):
        raise HallError(words.line("bad_event", lang))
    if not 1 <= args.tables <= MAX_TABLE:
        raise HallError(words.line("bad_table", lang, max=MAX_TABLE))
    host = args.host or _this_host()
    hall = Hall(
        folder=folder,
        event=args.event,
        tables=tuple(range(1, args.tables + 1)),
        host=host,
        bind=args.bind,
        port=args.port,
        spectator_port=args.spectator_port,
        tls=args.tls,
        anonymous_spectators=args.anonymous_spectators,
    )
    init_hall(hall)
    print(
        words.line(
            "init_done",
            lang,
            dir=folder,
            host=host,
            port=hall.port,
            tables=len(hall.tables),
            spectators=hall.spectator_port,
        )
    )
    return 0


def _this_host() -> str:
    import socket

    return socket.gethostname() or "localhost"


def _add_table(hall: Hall, table: int, lang: str) -> int:
    if not 1 <= table <= MAX_TABLE:
        raise HallError(words.line("bad_table", lang, max=MAX_TABLE))
    hall, new = add_table(hall, table)
    print(words.line("table_added", lang, table=table))
    print(table_lines(hall, table), end="")
    if new:
        print(words.line("table_new", lang, table=table), file=sys.stderr)
    return 0


def _broker(hall: Hall, lang: str) -> object | None:
    """Our own Mosquitto (returned, to be stopped), or None: one is listening."""
    if listening("127.0.0.1", hall.port):
        print(words.line("broker_system", lang, host="127.0.0.1", port=hall.port))
        return None
    process = start_broker(hall)
    print(words.line("broker_started", lang, conf=hall.conf, port=hall.port, log=hall.log))
    return process


def _standings(args: argparse.Namespace, hall: Hall | None, lang: str) -> int:
    """The board's exports from the command line (hall/exports.py)."""
    from .exports import export_from_broker, export_standings

    csv = Path(args.csv) if args.csv else None
    html = Path(args.html) if args.html else None
    archive = Path(args.archive) if args.archive else None
    if hall is None:
        return export_standings(
            Path(args.folder), args.scheme, lang=lang, csv_path=csv, html_path=html,
            archive_path=archive,
        )  # fmt: skip
    return export_from_broker(
        hall.address(BOARD), hall.event, args.scheme, lang=lang, csv_path=csv, html_path=html,
        archive_path=archive,
    )  # fmt: skip


def _run(hall: Hall, lang: str, scheme: str = "tournament") -> int:
    process = _broker(hall, lang)
    try:
        try:
            from .board.app import run_board  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            print(words.line("board_missing", lang), file=sys.stderr)
            return _hold(process)
        return int(run_board(hall.address(BOARD), hall.event, lang, scheme=scheme))
    finally:
        if process is not None:
            stop_broker(process)  # type: ignore[arg-type]


def _hold(process: object | None) -> int:
    """No board in this build: the broker runs until ctrl+c."""
    if process is None:
        return 1
    try:
        while True:
            time.sleep(1)
    except KeyboardInterrupt:
        return 0


def _web(hall: Hall, host: str, port: int, lang: str, scheme: str = "tournament") -> int:
    try:
        from .web.server import serve  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        print(words.line("web_missing", lang), file=sys.stderr)
        return 1
    return int(serve(hall.address(WEB), hall.event, host, port, lang=lang, scheme=scheme))
