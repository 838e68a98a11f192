"""The club's data on the command line: ``companion backup|restore|update|
players`` (docs/club-data.md). What is said is in WORDS (Russian, English
with ``--lang en``); errors are one line (ClubDataError) as everywhere."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from datetime import datetime
from pathlib import Path

from ..config.load import load_config
from ..config.values import Config, ConfigError, config_path
from ..textfiles.printable import printable
from .backup import make_backup, size_text
from .data import ClubDataError, Entry, club_places, companion_version

COMMANDS = ("backup", "restore", "update", "players")

WORDS = {
    "ru": {
        "made": "Резервная копия: {path} ({size}, файлов: {count}); прочитана с диска, контрольные суммы сходятся.",
        "roles": "  {role}: {count}",
        "in_use": "  {name}: журнал идущей игры, скопирован до строки {lines}",
        "torn": "  {name}: оборванная последняя строка не скопирована (запись прервалась), строк: {lines}",
        "unchecked": "  {name}: журнал не проходит проверку ({why}); скопирован как есть",
        "moved": "  {name}: игра продолжилась в {path} (диск был полон): скопирован оттуда",
        "lost": "  {name}: игра продолжилась на другом диске, его нет ({why}); скопировано начало",
        "from": "Копия: {path}",
        "newest": "Копия: {path} — самая новая из {count} в {folder}",
        "checked": "Сделана {made} на {host} (companion {version}); контрольные суммы всех файлов ({count}) сходятся.",
        "would": "Восстановление (--dry-run, ничего не изменено):",
        "would_write": "  записал бы: {path}",
        "would_replace": "  заменил бы, сохранив прежний рядом: {path}",
        "wrote": "  записан: {path}",
        "extras": "  правила, карта выводов, калибровка и записанный голос из копии — в папке данных клуба {folder} (ruleset.toml, pin-map.toml, array-calibration.json, voice-pack/): конфиг, который называет другое место, укажите на них",
        "restored": "Восстановлено:",
        "new": "  новых файлов: {count}",
        "replaced": "  заменено файлов: {count}",
        "same": "  уже такие же: {count}",
        "newer": "  журналы здесь новее копии, оставлены: {count}",
        "in_use_kept": "  журнал идущей игры не тронут: {path}",
        "differs": "  здесь другие, чем в копии (нужен --force): {path}",
        "aside": "  прежний файл сохранён: {path} -> {aside}",
        "config_bad": "companion: восстановленный конфиг здесь не читается: {error}",
        "now": "Установлено сейчас: companion {version} из {folder}",
        "release": "Новая версия: companion {version} из {folder}{commit}",
        "data": "Конфиг и данные клуба остаются на месте (код их не содержит):",
        "place": "  {role}: {path}",
        "debs": "companion: не установлены пакеты Debian, нужные новой версии: {names} (sudo apt-get install --no-install-recommends {names})",
        "busy": "companion: идёт игра ({path}); обновление с --force: перезапустите консоль после игры",
        "plan": "Обновление (--dry-run, ничего не изменено): выполнил бы",
        "then": "и проверил бы: python -m companion.cli rulesets",
        "done": "Готово: companion {old} -> {new}, код теперь из {folder}; проверка (companion rulesets) прошла.",
        "old_kept": "Прежняя папка {folder} не тронута: companion update {folder} вернёт версию {version}.",
        "players": "Игроки клуба ({path}): {count}",
        "player": "  {name:<24} игр: {games:>4}   последняя: {last}",
        "nobody": "  пока никого: имена запоминаются после каждой игры",
        "roster_bad": "{where}: список игроков не читается — проверьте файл в этом месте",
    },
    "en": {
        "made": "Backup: {path} ({size}, {count} files); read back from the disk, every checksum matches.",
        "roles": "  {role}: {count}",
        "in_use": "  {name}: the journal of a game in progress, copied up to its line {lines}",
        "torn": "  {name}: a torn last line left out (a write cut short); {lines} lines",
        "unchecked": "  {name}: the journal does not check out ({why}); copied as it is",
        "moved": "  {name}: the game went on in {path} (the disk was full): copied from there",
        "lost": "  {name}: the game went on on another disk, not here ({why}); its beginning copied",
        "from": "Backup: {path}",
        "newest": "Backup: {path}, the newest of {count} in {folder}",
        "checked": "Made {made} on {host} (companion {version}); every file's checksum matches ({count}).",
        "would": "Restore (--dry-run, nothing changed):",
        "would_write": "  would write: {path}",
        "would_replace": "  would replace, keeping the file here beside it: {path}",
        "wrote": "  written: {path}",
        "extras": "  the ruleset, pin map, calibration and voice pack of the backup are in the club's data folder {folder} (ruleset.toml, pin-map.toml, array-calibration.json, voice-pack/): point a config that names another place at them",
        "restored": "Restored:",
        "new": "  new files: {count}",
        "replaced": "  files replaced: {count}",
        "same": "  the same already: {count}",
        "newer": "  journals newer here than in the backup, kept: {count}",
        "in_use_kept": "  the journal of a game in progress, not touched: {path}",
        "differs": "  differs here from the backup (needs --force): {path}",
        "aside": "  the file here kept as: {path} -> {aside}",
        "config_bad": "companion: the restored config cannot be used here: {error}",
        "now": "Installed now: companion {version} from {folder}",
        "release": "New release: companion {version} from {folder}{commit}",
        "data": "The club's config and data stay where they are (not in the code):",
        "place": "  {role}: {path}",
        "debs": "companion: Debian packages the new release needs are not installed: {names} (sudo apt-get install --no-install-recommends {names})",
        "busy": "companion: a game is in progress ({path}); updating with --force: restart the console after the game",
        "plan": "Update (--dry-run, nothing changed): would run",
        "then": "and check: python -m companion.cli rulesets",
        "done": "Done: companion {old} -> {new}, the code now from {folder}; the check (companion rulesets) passed.",
        "old_kept": "The old folder {folder} is untouched: companion update {folder} goes back to {version}.",
        "players": "The club's players ({path}): {count}",
        "player": "  {name:<24} games: {games:>4}   last: {last}",
        "nobody": "  nobody yet: names are remembered after each game",
    },
}

ROLE_NAMES = {
    "ru": {
        "config": "конфиг",
        "roster": "игроки",
        "journals": "журналы",
        "games": "папка игр (протоколы)",
        "ruleset": "файл правил",
        "pin_map": "карта выводов",
        "calibration": "калибровка микрофонов",
        "pack": "записанный голос",
    },
    "en": {
        "config": "config",
        "roster": "roster",
        "journals": "journals",
        "games": "games (protocols)",
        "ruleset": "ruleset file",
        "pin_map": "pin map",
        "calibration": "array calibration",
        "pack": "voice pack",
    },
}


def club_parsers(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    backup = sub.add_parser(
        "backup", parents=[common], help="copy the club's data (roster, games, journals, config)"
    )
    backup.add_argument("dest", help="the folder to put the backup in (a USB stick)")
    restore = sub.add_parser(
        "restore", parents=[common], help="put the club's data back from a backup"
    )
    restore.add_argument("src", help="a backup (.tar.gz or its folder), or the folder holding them")
    restore.add_argument(
        "--force", action="store_true", help="replace files that differ, keeping each aside"
    )
    restore.add_argument(
        "--keep-config",
        action="store_true",
        help="keep this machine's config: only the roster, games and journals, where it puts them",
    )
    restore.add_argument(
        "--dry-run", action="store_true", help="say what it would do; change nothing"
    )
    update = sub.add_parser(
        "update", parents=[common], help="install a companion release folder, keeping the data"
    )
    update.add_argument(
        "src", nargs="?", help="the release folder (default: the folder the companion runs from)"
    )
    update.add_argument("--force", action="store_true", help="even while a game is in progress")
    update.add_argument(
        "--dry-run", action="store_true", help="say what it would do; change nothing"
    )
    sub.add_parser("players", parents=[common], help="list the club's players (the roster)")


def club_command(args: argparse.Namespace) -> int:
    """Run a club's command. Everything from data that is printed (a
    manifest's fields, file names, paths, a release's version, a player's
    name) goes through ``printable``, error lines too."""
    words = WORDS.get(args.lang, WORDS["ru"])
    roles = ROLE_NAMES.get(args.lang, ROLE_NAMES["ru"])
    try:
        if args.command == "backup":
            _backup(Path(args.dest), words, roles)
        elif args.command == "restore":
            _restore(Path(args.src), args, words)
        elif args.command == "update":
            _update(Path(args.src) if args.src else None, args.force, args.dry_run, words, roles)
        else:
            _players(words)
    except ClubDataError as error:
        raise ClubDataError(printable(error)) from None
    except OSError as error:
        if isinstance(error.filename, str):
            error.filename = printable(error.filename)
        raise
    return 0


def _backup(dest: Path, words: dict[str, str], roles: dict[str, str]) -> None:
    config_file = config_path()
    places = club_places(load_config(config_file), config_file)
    made = make_backup(dest, places, now=datetime.now(), version=companion_version())
    entries = made.manifest.entries
    print(
        words["made"].format(
            path=printable(made.path), size=size_text(made.size), count=len(entries)
        )
    )
    counted = Counter(entry.role for entry in entries if not entry.name.endswith(".jsonl.lock"))
    for role, count in counted.items():
        print(words["roles"].format(role=roles.get(role, role), count=count))
    for entry in entries:
        _journal_note(entry, words)


def _journal_note(entry: Entry, words: dict[str, str]) -> None:
    name = printable(entry.inner)
    for note in filter(None, entry.note.split("; ")):
        kind, _, rest = note.partition(" ")
        if kind in ("in_use", "torn"):
            print(words[kind].format(name=name, lines=printable(rest)))
        elif kind in ("unchecked", "lost"):
            print(words[kind].format(name=name, why=printable(rest)))
        elif kind == "moved":
            print(words[kind].format(name=name, path=printable(rest)))


def _restore(src: Path, args: argparse.Namespace, words: dict[str, str]) -> None:
    from .data import check_backup
    from .layout import DATA_FILES, machine_layout
    from .restore import restore
    from .restore_plan import find_backup, plan_restore

    backup, count = find_backup(src)
    path = printable(backup.path)
    if count > 1:
        print(words["newest"].format(path=path, count=count, folder=printable(src)))
    else:
        print(words["from"].format(path=path))
    manifest = check_backup(backup)
    print(
        words["checked"].format(
            made=printable(manifest.made.replace("T", " ")),
            host=printable(manifest.host),
            version=printable(manifest.version),
            count=len(manifest.entries),
        )
    )
    config_file = config_path()
    layout = machine_layout(config_file)
    plan = plan_restore(backup, manifest, layout, keep_config=args.keep_config)
    if args.dry_run:
        print(words["would"])
        print(words["new"].format(count=len(plan.of("new"))))
        for item in plan.of("new"):
            for target in item.writes():
                print(words["would_write"].format(path=printable(target)))
        key = "would_replace" if args.force else "differs"
        for item in plan.of("differs"):
            for target in item.writes():
                print(words[key].format(path=printable(target)))
        written = plan.of("new", "differs")
    else:
        done = restore(plan, force=args.force, stamp=f"{datetime.now():%Y-%m-%d_%H-%M-%S}")
        print(words["restored"])
        print(words["new"].format(count=len(done.written) - len(done.replaced)))
        print(words["replaced"].format(count=len(done.replaced)))
        for target in done.written:
            print(words["wrote"].format(path=printable(target)))
        for target, aside in done.aside:
            print(words["aside"].format(path=printable(target), aside=printable(aside.name)))
        written = [item for item in plan.of("new", "differs") if item.target in done.written]
    print(words["same"].format(count=len(plan.of("same"))))
    if plan.of("newer"):
        print(words["newer"].format(count=len(plan.of("newer"))))
    for item in plan.of("in_use"):
        print(words["in_use_kept"].format(path=printable(item.target)))
    if any(item.entry.role in DATA_FILES or item.entry.role == "pack" for item in written):
        print(words["extras"].format(folder=printable(layout.data)))
    if not args.dry_run and any(item.entry.role == "config" for item in written):
        try:
            load_config(config_file)
        except ConfigError as error:
            print(words["config_bad"].format(error=printable(error)), file=sys.stderr)


def _update(
    src: Path | None, force: bool, dry_run: bool, words: dict[str, str], roles: dict[str, str]
) -> None:
    from .update import installed_now, plan_update, run_update

    installed = installed_now()
    config_file = config_path()
    try:
        config = load_config(config_file)
    except ConfigError as error:  # a release may be what mends it: the defaults meanwhile
        print(f"companion: {printable(error)}", file=sys.stderr)
        config = Config()
    plan = plan_update(src or installed.folder, installed, config.paths.journals, force=force)
    release = plan.release
    commit = f" (git {release.commit})" if release.commit else ""
    old = printable(installed.version)
    print(words["now"].format(version=old, folder=printable(installed.folder)))
    print(
        words["release"].format(
            version=printable(release.version),
            folder=printable(release.folder),
            commit=printable(commit),
        )
    )
    print(words["data"])
    places = [("config", config_file), ("roster", config.paths.roster)]
    places += [("journals", config.paths.journals), ("games", config.paths.games)]
    for role, path in places:
        print(words["place"].format(role=roles[role], path=printable(path)))
    if plan.missing_packages:
        names = printable(" ".join(plan.missing_packages))
        print(words["debs"].format(names=names), file=sys.stderr)
    for path in plan.busy:
        print(words["busy"].format(path=printable(path)), file=sys.stderr)
    if dry_run:
        print(f"{words['plan']}: {printable(' '.join(plan.install))}")
        print(words["then"])
        return
    started = run_update(plan)
    new = printable(started.version)
    print(words["done"].format(old=old, new=new, folder=printable(started.folder)))
    if started.folder != installed.folder:
        print(words["old_kept"].format(folder=printable(installed.folder), version=old))


def _players(words: dict[str, str]) -> None:
    from ..textfiles.printable import printable
    from .roster import RosterError, read_roster

    path = load_config().paths.roster
    try:
        roster = read_roster(path)
    except RosterError as error:
        if "roster_bad" not in words:  # English: the reader's own line says what is wrong
            raise
        where = error.source + (f":{error.line}" if error.line else "")
        raise ValueError(words["roster_bad"].format(where=where)) from None
    print(words["players"].format(path=printable(path), count=len(roster.players)))
    for player in roster.players:
        last = player.last.isoformat() if player.last else "—"
        print(words["player"].format(name=printable(player.name), games=player.games, last=last))
    if not roster.players:
        print(words["nobody"])
