"""The words of the hall's board, pages and exports: Russian by default,
English by ``lang`` (as the console's words, console/words.py)."""

from __future__ import annotations

from ..textfiles.printable import printable

RU: dict[str, str] = {
    "title": "Зал: {event}",
    "table": "Стол",
    "phase": "Фаза",
    "speaker": "Говорит",
    "left": "Осталось",
    "out": "Выбыли",
    "fouls": "Фолы",
    "said": "Объявление",
    "link": "Связь",
    "online": "на связи",
    "offline": "нет связи",
    "unknown": "—",
    "no_tables": "Столы ещё не прислали ничего.",
    "standings": "Турнирная таблица",
    "scheme": "Подсчёт: {title}",
    "place": "Место",
    "player": "Игрок",
    "games": "Игр",
    "wins": "Побед",
    "best_move": "ЛХ",
    "penalties": "Штрафы",
    "points": "Очки",
    "no_protocols": "Протоколов пока нет.",
    "protocols": "Протоколов: {count}",
    "paused": "пауза",
    "result": "Итог: {winner}",
    "seat_player": "Стол {table}, место {seat}",
    "exported": "Сохранено: {files}",
    "export_failed": "Не сохранено: {why}",
    "broker_down": "Брокер {host}:{port} недоступен: {why}",
    "broker_connected": "Брокер {host}:{port}: подключено",
    "keys": "q — выход · e — сохранить таблицу и протоколы",
    "seats_word": "Места",
    "seat": "Место {seat}",
    "no_scheme": "Схема подсчёта: {why}",
    "no_folder": "{folder}: нет такой папки",
    "no_protocol_files": "{folder}: нет протоколов (*.json, table-N/*.json); протоколы со стола: companion protocol ЖУРНАЛ --format json",
    "no_outputs": "Укажите --csv, --html или --archive",
}

EN: dict[str, str] = {
    "title": "Hall: {event}",
    "table": "Table",
    "phase": "Phase",
    "speaker": "Speaking",
    "left": "Left",
    "out": "Out",
    "fouls": "Fouls",
    "said": "Announcement",
    "link": "Link",
    "online": "online",
    "offline": "offline",
    "unknown": "—",
    "no_tables": "No table has sent anything yet.",
    "standings": "Standings",
    "scheme": "Scoring: {title}",
    "place": "Place",
    "player": "Player",
    "games": "Games",
    "wins": "Wins",
    "best_move": "Best move",
    "penalties": "Penalties",
    "points": "Points",
    "no_protocols": "No protocols yet.",
    "protocols": "Protocols: {count}",
    "paused": "paused",
    "result": "Result: {winner}",
    "seat_player": "Table {table}, seat {seat}",
    "exported": "Saved: {files}",
    "export_failed": "Not saved: {why}",
    "broker_down": "Broker {host}:{port} unreachable: {why}",
    "broker_connected": "Broker {host}:{port}: connected",
    "keys": "q — quit · e — save the standings and protocols",
    "seats_word": "Seats",
    "seat": "Seat {seat}",
    "no_scheme": "Scoring scheme: {why}",
    "no_folder": "{folder}: no such folder",
    "no_protocol_files": "{folder}: no protocols (*.json, table-N/*.json); a table's: companion protocol JOURNAL --format json",
    "no_outputs": "Give --csv, --html or --archive",
}


#: the phases a table's state names, in words (anything else shown as sent)
PHASES: dict[str, tuple[str, str]] = {
    "setup": ("подготовка", "set-up"),
    "night": ("ночь", "night"),
    "day": ("день", "day"),
    "speech": ("речь", "speech"),
    "last_word": ("последнее слово", "last word"),
    "tie_speech": ("оправдание", "tie speech"),
    "vote": ("голосование", "vote"),
    "voting": ("голосование", "vote"),
    "count": ("подсчёт", "count"),
    "all_leave_vote": ("голосование за уход всех", "all-leave vote"),
    "all_leave_count": ("подсчёт: уход всех", "all-leave count"),
    "ended": ("конец", "ended"),
    "paused": ("пауза", "paused"),
}


def phase_words(phase: str, lang: str) -> str:
    """A phase id in words; an id not known shown as sent (made printable)."""
    known = PHASES.get(phase)
    return printable(phase) if known is None else known[1 if lang == "en" else 0]


def words(lang: str) -> dict[str, str]:
    return RU if lang != "en" else EN


def clock(seconds: float | None) -> str:
    """Time left as the board shows it: ``0:42``, ``1:00``; ``—`` when none."""
    if seconds is None:
        return "—"
    whole = int(seconds + 0.999)  # 0.2 s left still shows 0:01: the speech is not over
    return f"{whole // 60}:{whole % 60:02d}"
