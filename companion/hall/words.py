"""The hall's words, Russian and English: the table's status line and the
``companion hall`` commands' lines."""

from __future__ import annotations

LINES: dict[str, dict[str, str]] = {
    "delivered": {"ru": "Зал: всё доставлено", "en": "Hall: everything delivered"},
    "waiting": {
        "ru": "Зал: нет связи, {n} {events} {wait}",
        "en": "Hall: no link, {n} {events} waiting",
    },
    "sending": {"ru": "Зал: отправляется, {n} {events}", "en": "Hall: sending, {n} {events}"},
    "connecting": {"ru": "Зал: подключение…", "en": "Hall: connecting…"},
    "init_done": {
        "ru": "Зал готов в {dir}: брокер {host}:{port}, столов {tables}, зрители на порту {spectators}",
        "en": "Hall ready in {dir}: broker {host}:{port}, {tables} tables, spectators on port {spectators}",
    },
    "init_exists": {
        "ru": "{dir}: зал уже создан (--force создаст заново, пароли сменятся)",
        "en": "{dir}: a hall is there already (--force makes it anew, passwords change)",
    },
    "no_hall": {
        "ru": "{dir}: зала нет; сначала companion hall init",
        "en": "{dir}: no hall there; run companion hall init first",
    },
    "no_mosquitto": {
        "ru": "не найден mosquitto: поставьте пакет (sudo apt install mosquitto) или scripts/setup.sh hall",
        "en": "mosquitto not found: install the package (sudo apt install mosquitto) or scripts/setup.sh hall",
    },
    "broker_started": {
        "ru": "Брокер запущен: mosquitto -c {conf} (порт {port}, журнал {log})",
        "en": "Broker started: mosquitto -c {conf} (port {port}, log {log})",
    },
    "broker_system": {
        "ru": "Брокер уже слушает {host}:{port} (системный или запущенный раньше): используется он",
        "en": "A broker is already listening on {host}:{port} (the system's or started before): using it",
    },
    "broker_failed": {
        "ru": "Брокер не запустился (код {code}); последние строки его журнала {log}: {tail}",
        "en": "The broker did not start (exit code {code}); the last lines of its log {log}: {tail}",
    },
    "table_added": {
        "ru": "# В config.toml стола {table} (companion config path):",
        "en": "# Into table {table}'s config.toml (companion config path):",
    },
    "table_new": {
        "ru": "Стол {table} добавлен: перезапустите брокер (или kill -HUP его процессу)",
        "en": "Table {table} added: restart the broker (or kill -HUP its process)",
    },
    "bad_table": {"ru": "номер стола от 1 до {max}", "en": "a table's number is 1 to {max}"},
    "bad_event": {
        "ru": "имя события: буквы, цифры, - и _ (до 64)",
        "en": "an event's name: letters, digits, - and _ (up to 64)",
    },
    "board_missing": {
        "ru": "Табло зала ещё не собрано в этой версии (companion.hall.board)",
        "en": "The hall board is not in this build yet (companion.hall.board)",
    },
    "web_missing": {
        "ru": "Страницы зала ещё не собраны в этой версии (companion.hall.web)",
        "en": "The hall's web pages are not in this build yet (companion.hall.web)",
    },
    "failed": {"ru": "ошибка: {error}", "en": "error: {error}"},
}

_EVENTS = {"ru": ("событие", "события", "событий"), "en": ("event", "events", "events")}


def line(key: str, lang: str = "ru", **args: object) -> str:
    words = LINES[key]
    return words.get(lang, words["en"]).format(**args)


def events(n: int, lang: str = "ru") -> str:
    """«событие», «события», «событий» as ``n`` asks (English: event(s))."""
    forms = _EVENTS.get(lang, _EVENTS["en"])
    if lang != "ru":
        return forms[0] if n == 1 else forms[1]
    if n % 10 == 1 and n % 100 != 11:
        return forms[0]
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return forms[1]
    return forms[2]


def status_line(connected: bool, waiting: int, lang: str = "ru") -> str:
    """The console's line: everything delivered, or how much waits."""
    if waiting == 0 and connected:
        return line("delivered", lang)
    n = waiting
    key = "sending" if connected else "waiting"
    one = lang == "ru" and n % 10 == 1 and n % 100 != 11
    return line(key, lang, n=n, events=events(n, lang), wait="ждёт" if one else "ждут")
