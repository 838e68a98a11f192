"""A table script's or journal's line that could not be read, and a
journal that could not be taken, in the host's words (Russian).

The keys are the messages as the reader writes them (runner/codec.py,
runner/script.py, the journal's modules, the command line), with every
``{}`` of an f-string written ``{}``, a repr ``{!r}``, a format spec kept
(``{:g}``); the values say what each placeholder holds (a kind
console/refusals/wording.py words) and the Russian line. English keeps the
reader's own words, which name keys and inputs as a script writes them:
an entry's English is empty. The names a script is written in (its keys
``seat``, ``input``, its inputs ``press``, JSON's ``true``) stay as they
are, in «»: the author looks for them in the file. tests/test_refusals.py
walks those modules and fails on a message that is not here.

Kinds besides the refusals' (refusals/wording.py): shown (a value as
``fields.shown`` echoes it), number (a bound), path, list (as given, not
cut), json (the JSON reader's complaint), hidden, holder (who holds a
journal).
"""

from __future__ import annotations

from .core_words import Entry

#: a line that does not parse (runner/codec.py, runner/script.py), a
#: script that does not fit its journal (cli.py, console/script_inputs.py),
#: a setup's ruleset that is not there (config/rulesets.py)
SCRIPT_LINES: dict[str, Entry] = {
    # --- runner/codec.py ---------------------------------------------------------------
    "{!r} must be a whole number from {} to {}, got {}": (
        ("key", "num", "num", "shown"),
        "«{0}» — целое число от {1} до {2}, а дано {3}",
        "",
    ),
    "{!r} must be a seat number (1, 2, ...), got {}": (
        ("key", "shown"),
        "«{0}» — номер места (1, 2, …), а дано {1}",
        "",
    ),
    "{!r} must be a non-empty string, got {}": (
        ("key", "shown"),
        "«{0}» — непустая строка, а дано {1}",
        "",
    ),
    "{!r} is {} characters long (at most {})": (
        ("key", "num", "num"),
        "«{0}»: знаков {1}, а можно не больше {2}",
        "",
    ),
    "{!r} must be printable text of at most {} characters, got {}": (
        ("key", "num", "shown"),
        "«{0}» — обычный текст, знаков не больше {1}, а дано {2}",
        "",
    ),
    "{!r} must be a number of seconds, got {}": (
        ("key", "shown"),
        "«{0}» — число секунд, а дано {1}",
        "",
    ),
    "{!r} must be at most {:g} seconds, got {}": (
        ("key", "number", "shown"),
        "«{0}» — не больше {1} секунд, а дано {2}",
        "",
    ),
    "{!r} must be a number of seconds from {:g} to {:g}, got {}": (
        ("key", "number", "number", "shown"),
        "«{0}» — число секунд от {1} до {2}, а дано {3}",
        "",
    ),
    "{!r} must be a speed from {:g} to {:g}, got {}": (
        ("key", "number", "number", "shown"),
        "«{0}» — скорость от {1} до {2}, а дано {3}",
        "",
    ),
    "{!r} must be a list of seat numbers, got {}": (
        ("key", "shown"),
        "«{0}» — список номеров мест, а дано {1}",
        "",
    ),
    "{!r} must be a list of seat numbers, got {} in it": (
        ("key", "shown"),
        "«{0}» — список номеров мест, а в нём {1}",
        "",
    ),
    "'roles' must be a list of role ids, one per seat, got {}": (
        ("shown",),
        "«roles» — список ролей, по одной на место, а дано {0}",
        "",
    ),
    "'roles' must be a list of role ids, got {} in it": (
        ("shown",),
        "«roles» — список ролей, а в нём {0}",
        "",
    ),
    "'journal' must be true or false, got {}": (
        ("shown",),
        "«journal» — true или false, а дано {0}",
        "",
    ),
    "'names' must be a list of names, one per seat, got {}": (
        ("shown",),
        "«names» — список имён, по одному на место, а дано {0}",
        "",
    ),
    "'options' must be a list of option names, got {}": (
        ("shown",),
        "«options» — список названий настроек, а дано {0}",
        "",
    ),
    "'remaining' must be a list of [timer, seconds] pairs, got {}": (
        ("shown",),
        "«remaining» — список пар «таймер, секунды», а дано {0}",
        "",
    ),
    "'confidence' must be a number from 0 to 1, got {}": (
        ("shown",),
        "«confidence» — число от 0 до 1, а дано {0}",
        "",
    ),
    "{!r} must be true or false, got {}": (
        ("key", "shown"),
        "«{0}» — true или false, а дано {1}",
        "",
    ),
    "'teams' must be a list of team ids, got {}": (
        ("shown",),
        "«teams» — список команд, а дано {0}",
        "",
    ),
    # --- runner/script.py ---------------------------------------------------------------
    "is a folder, not a table script": ((), "это папка, а не сценарий стола", ""),
    "line is {} bytes long (at most {})": (
        ("num", "num"),
        "в строке байт: {0}, а можно не больше {1}",
        "",
    ),
    "not UTF-8 text (byte {} of the line)": (("num",), "не текст в UTF-8 (байт {0} строки)", ""),
    "line is {} characters long (at most {})": (
        ("num", "num"),
        "в строке знаков: {0}, а можно не больше {1}",
        "",
    ),
    "not JSON ({} at column {})": (("json", "num"), "не JSON ({0}, столбец {1})", ""),
    "nested too deeply": ((), "слишком глубокая вложенность", ""),
    "not a number a script may hold ({})": (
        ("hidden",),
        "число, какого в сценарии быть не может (слишком длинное)",
        "",
    ),
    "a line must be a JSON object": ((), "строка должна быть объектом JSON", ""),
    "'input' must be one of {}, got {}": (
        ("list", "shown"),
        "«input» — одно из: {0}; а дано {1}",
        "",
    ),
    "unknown key {} for input {!r}": (("shown", "key"), "у ввода «{1}» нет ключа {0}", ""),
    "input {!r} needs {!r}": (("key", "key"), "вводу «{0}» нужен ключ «{1}»", ""),
    "give either 'at' or 'after', not both": ((), "нужно что-то одно: «at» или «after»", ""),
    "'at' must be a number of seconds not before {:g}": (
        ("number",),
        "«at» — число секунд не раньше {0}",
        "",
    ),
    "this line's time is past {:g} seconds": (
        ("number",),
        "время этой строки — позже {0} секунд",
        "",
    ),
    # --- cli.py (resume --script) ---------------------------------------------------------
    "'line' {} is not an input of {} (its inputs are on lines {})": (
        ("num", "path", "list"),
        "«line» {0} — не ввод сценария {1} (его вводы — в строках {2})",
        "",
    ),
    "line {} of {} is {!r}, not this input: was the journal made from another script?": (
        ("num", "path", "value"),
        "строка {0} сценария {1} — ввод {2}, а не этот: журнал вёлся по другому сценарию?",
        "",
    ),
    # --- console/script_inputs.py (console --inputs) ----------------------------------------
    "no setup line: nothing to play": ((), "нет строки setup (начала игры): играть нечего", ""),
    "a journal; use 'companion resume {}'": (
        ("path",),
        "это журнал; его продолжают так: companion resume {0}",
        "",
    ),
    "the journal's line {} ({!r}) is not its line {}: was the game begun from another script?": (
        ("num", "value", "num"),
        "строка журнала {0} (ввод {1}) — не строка {2} сценария: игру начинали по другому "
        "сценарию?",
        "",
    ),
    # --- config/rulesets.py (a setup's ruleset), as DataFileError writes them: "source: ..." -------
    "{}: no such ruleset file": (("path",), "{0}: нет такого файла правил", ""),
    "{}: no ruleset named {!r} in {}; available: {}": (
        ("path", "value", "path", "list"),
        "{0}: нет правил {1} в папке {2}; есть: {3}",
        "",
    ),
    "{}: cannot read: {}": (("path", "disk"), "{0}: не читается: {1}", ""),
}

#: a journal that could not be taken or read (runner/journal.py,
#: journal_check.py, journal_lock.py), and the game it holds (live/table_serve.py)
JOURNAL_LINES: dict[str, Entry] = {
    "{}: is a folder, not a journal": (("path",), "{0}: это папка, а не журнал", ""),
    "{}: journal exists; use 'companion resume {}'": (
        ("path", "path"),
        "{0}: журнал уже есть; его продолжают так: companion resume {1}",
        "",
    ),
    "{}: no such journal; a game is journaled from its start with 'companion replay "
    "SCRIPT --journal {}'": (
        ("path", "path"),
        "{0}: такого журнала нет; журнал игры пишется с её начала: companion replay "
        "СЦЕНАРИЙ --journal {1}",
        "",
    ),
    "{}: {}": (("path", "disk"), "{0}: {1}", ""),
    "{}: the game went on in {}, which is not there: plug in or mount what holds it, then "
    "try again (docs/faults.md)": (
        ("path", "path"),
        "{0}: игра продолжилась в {1}, а его нет: вставьте или подключите то, на чём он "
        "лежит, и попробуйте снова (docs/faults.md)",
        "",
    ),
    "{}: its lock file points to {}, another game's journal": (
        ("path", "path"),
        "{0}: его файл блокировки указывает на {1}, журнал другой игры",
        "",
    ),
    "{}: moved more than {} times; resume the last one by name": (
        ("path", "num"),
        "{0}: журнал переезжал больше {1} раз; продолжайте последний по его имени",
        "",
    ),
    "{}: in use by {}; a journal has one writer: stop that one first": (
        ("path", "holder"),
        "{0}: занят: {1}; журнал пишет кто-то один — сначала остановите его",
        "",
    ),
    "{}: is a folder; give a journal file name, e.g. {}/game.jsonl": (
        ("path", "path"),
        "{0}: это папка; укажите файл журнала, например {1}/game.jsonl",
        "",
    ),
    "{}: no game to resume": (("path",), "{0}: продолжать нечего: игры в журнале нет", ""),
    # what a resume warns of (printed, or a notice on the console)
    "{}:{}: torn last line skipped ({} characters): {!r}": (
        ("path", "num", "num", "hidden"),
        "{0}:{1}: оборванная последняя строка пропущена (знаков: {2})",
        "",
    ),
    "{}: no lock file beside it ({}.lock): lines removed from its end could not be checked": (
        ("path", "path"),
        "{0}: рядом нет файла блокировки ({1}.lock): не удалены ли строки с конца, "
        "проверить нельзя",
        "",
    ),
    "{}: the game went on in {} (docs/faults.md): that one is read": (
        ("path", "path"),
        "{0}: игра продолжилась в {1} (docs/faults.md): читается он",
        "",
    ),
}

#: why a journal's line is refused (``JournalDamaged``: "source:line: why;
#: resume refused")
JOURNAL_DAMAGE: dict[str, Entry] = {
    "a line of {} bytes (at most {})": (
        ("num", "num"),
        "в строке байт: {0}, а можно не больше {1}",
        "",
    ),
    "no checksum at the end of the line (not a journal line, or cut)": (
        (),
        "в конце строки нет контрольной суммы (это не строка журнала или она обрезана)",
        "",
    ),
    "a copy of the line before it": ((), "это копия строки перед ней", ""),
    "checksum does not match: this line was changed, or a line before it was deleted, "
    "added or moved": (
        (),
        "контрольная сумма не сходится: строку изменили, или перед ней строку удалили, "
        "добавили или переставили",
        "",
    ),
    "not UTF-8 text": ((), "не текст в UTF-8", ""),
    "missing: its lock file ({}) records {} lines, the journal has {}: lines were removed "
    "from its end": (
        ("path", "num", "num"),
        "нет строки: в файле блокировки ({0}) записано строк {1}, а в журнале {2}: строки "
        "удалены с конца",
        "",
    ),
    "not the line its lock file ({}) records as line {}": (
        ("path", "num"),
        "не та строка, что записана в файле блокировки ({0}) под номером {1}",
        "",
    ),
}
#: the end of every JournalDamaged message
DAMAGE_END = ("; resume refused", "; продолжать игру по нему нельзя")
