"""The help of every command and option in Russian, keyed by its English
as the module that builds the parser writes it (commands/parser.py, commands/offline.py,
club/commands.py, ops/doctor/command.py, ears/models.py, seats/selftest_command.py,
ops/service.py): the parsers keep their English, ``words.in_words``
puts these in their place on a Russian command line. A help whose English
is not here stays English, and tests/test_cli_words.py fails on it, so a
new option is worded before it ships.

Option names, choices, file names and ids a user types (``--format json``,
``vote_question``) stay as they are; ``%`` is written ``%%`` (argparse
formats help with ``%``).
"""

from __future__ import annotations

HELP_RU: dict[str, str] = {
    # --- commands/parser.py ---------------------------------------------------------------
    "language of the words, the protocol and the voice (default: the config's lang, else ru)": (
        "язык слов, протокола и голоса (по умолчанию — lang из конфига, иначе ru)"
    ),
    "the host's console (also: no command)": "консоль ведущего (она же — без команды)",
    "replay the demo game and print its protocol": (
        "сыграть демонстрационную игру и показать её протокол"
    ),
    "run a table script": "сыграть сценарий стола",
    "rebuild a game from its journal, go on": "восстановить игру по её журналу и продолжить",
    "list the rulesets": "список правил",
    "speak one cue, to try a voice": "произнести одну реплику, чтобы послушать голос",
    "list or pre-render the voice": "список реплик голоса или их запись заранее",
    "where the club's config file is, what it sets": "где конфиг клуба и что в нём задано",
    "listen for speech out of turn on this input (an index, part of a name, '' for the "
    "default, or file:REC.wav) whatever the config says": (
        "слушать речь не в свой черёд на этом входе (номер, часть названия, '' — вход "
        "по умолчанию, или file:REC.wav), что бы ни было в конфиге"
    ),
    "the service's start-up (systemd): an unfinished game is resumed without asking": (
        "запуск службой (systemd): незаконченная игра продолжается без вопроса"
    ),
    "rehearsals and benches: play this table script at the live table (implies --service; "
    "after a restart it goes on after the inputs the journal holds)": (
        "репетиции и замеры: сыграть этот сценарий за живым столом (включает --service; "
        "после перезапуска игра идёт дальше с первого ввода, которого нет в журнале)"
    ),
    "practice: the table's clock N times as fast, journaled as such (the simulated "
    "table's key t switches it off and on); with --inputs: the script's pace (1)": (
        "тренировка: часы стола идут во столько раз быстрее, и это пишется в журнал "
        "(клавиша t на имитации стола выключает и включает ускорение); с --inputs — "
        "темп сценария (1)"
    ),
    "espeak-ng voice, e.g. ru, ru+f3, en (default: --lang)": (
        "голос espeak-ng, например ru, ru+f3, en (по умолчанию — по --lang)"
    ),
    "words per minute (165)": "слов в минуту (165)",
    "a voice pack folder of recorded WAV files": "папка записанного голоса (файлы WAV)",
    "sound output device (default: the system's)": (
        "устройство вывода звука (по умолчанию — системное)"
    ),
    "print cues, play no sound": "печатать реплики, без звука",
    "where captions go (default: standard output)": (
        "куда писать реплики (по умолчанию — стандартный вывод)"
    ),
    "where the host's lines and the result go (default: standard error)": (
        "куда писать строки для ведущего и итог (по умолчанию — стандартный поток ошибок)"
    ),
    "at the script's own pace, with the voice": "в темпе самого сценария, с голосом",
    "with --realtime: play N times as fast (1)": "с --realtime: во столько раз быстрее (1)",
    "print the final state as JSON": "вывести итоговое состояние в JSON",
    "journal every accepted input to this file": "записывать каждый принятый ввод в этот журнал",
    "continue with this script after the journaled lines": (
        "после строк журнала продолжить этим сценарием"
    ),
    "a cue of the phrase catalogue, e.g. vote_question": (
        "реплика из каталога фраз, например vote_question"
    ),
    "NAME=VALUE, e.g. seat=3": "значения для реплики, например seat=3",
    "the ruleset whose phrases are spoken (tournament)": "правила, чьи фразы звучат (tournament)",
    "how many seats' numbers are rendered (10)": "для скольких мест записать номера (10)",
    "path: the file ($COMPANION_CONFIG or the config folder); show: every value": (
        "path — где файл ($COMPANION_CONFIG или папка конфига); show — все значения"
    ),
    # --- commands/offline.py ----------------------------------------------------------------
    "the protocol of a past game, from its journal": "протокол прошедшей игры по её журналу",
    "text (the default, as a terminal shows it), json (for programs), csv, html": (
        "text (по умолчанию, как в терминале), json (для программ), csv, html"
    ),
    "write here (default: standard output)": "куда записать (по умолчанию — стандартный вывод)",
    "check a protocol's deal against its seed's hash": (
        "проверить раздачу в протоколе по хешу её зерна"
    ),
    "a protocol in JSON (companion protocol --format json)": (
        "протокол в JSON (companion protocol --format json)"
    ),
    "the hash as shown before the deal (16 or more hex digits)": (
        "хеш, показанный до раздачи (16 или больше шестнадцатеричных цифр)"
    ),
    "the speech in a recording, and with its journal the flags (docs/listening.md)": (
        "речь в записи, а с журналом игры — отметки (docs/listening.md)"
    ),
    "a 16 kHz WAV recording of the table": "запись стола в WAV, 16 кГц",
    "one microphone, one per seat (channel n is seat n + 1), or an array": (
        "один микрофон, по микрофону на место (канал 0 — место 1 и так далее) или массив"
    ),
    "with --layout array: companion calibrate's file (default: the club's)": (
        "с --layout array: файл companion calibrate (по умолчанию — клуба)"
    ),
    "the game's journal: flags from its phases": "журнал игры: отметки по её фазам",
    "the voice-activity detector (silero-whisper, as at the live table)": (
        "детектор речи (silero-whisper, как за живым столом)"
    ),
    "how far a voice must stand above the room's floor (11; [microphone] above_room_db)": (
        "на сколько децибел голос громче фона комнаты (11; [microphone] above_room_db)"
    ),
    "print JSON (for programs; default: lines in words)": (
        "вывести JSON (для программ; по умолчанию — строки словами)"
    ),
    "hear each seat once through the array and save where it is (docs/listening.md)": (
        "услышать каждое место через массив микрофонов и запомнить, где оно (docs/listening.md)"
    ),
    "the array's input device, by name or index (default: the config's microphone)": (
        "вход массива, по названию или номеру (по умолчанию — микрофон из конфига)"
    ),
    "how many seats (default: the config's table)": "сколько мест (по умолчанию — как в конфиге)",
    "where to save it (default: the club's data folder)": (
        "куда сохранить (по умолчанию — в папку данных клуба)"
    ),
    "a recording in which each seat speaks in turn, instead of the device": (
        "запись, где места говорят по очереди, вместо устройства"
    ),
    "the array: respeaker-6mic (default) or respeaker-4mic": (
        "массив: respeaker-6mic (по умолчанию) или respeaker-4mic"
    ),
    "seconds of sound to wait for each seat (15)": "сколько секунд ждать звука от места (15)",
    "print the prompts, do not speak them": "печатать подсказки, не произносить их",
    # --- club/commands.py ---------------------------------------------------------------------
    "copy the club's data (roster, games, journals, config)": (
        "резервная копия данных клуба (игроки, игры, журналы, конфиг)"
    ),
    "the folder to put the backup in (a USB stick)": "папка для резервной копии (флешка)",
    "put the club's data back from a backup": "вернуть данные клуба из резервной копии",
    "a backup (.tar.gz or its folder), or the folder holding them": (
        "резервная копия (.tar.gz или её папка) или папка с копиями"
    ),
    "replace files that differ, keeping each aside": (
        "заменить отличающиеся файлы, сохранив прежние рядом"
    ),
    "keep this machine's config: only the roster, games and journals, where it puts them": (
        "оставить конфиг этой машины: вернуть только игроков, игры и журналы, туда, куда "
        "он указывает"
    ),
    "say what it would do; change nothing": "сказать, что было бы сделано; ничего не менять",
    "install a companion release folder, keeping the data": (
        "установить новую версию companion из папки, сохранив данные"
    ),
    "the release folder (default: the folder the companion runs from)": (
        "папка новой версии (по умолчанию — та, из которой запущен companion)"
    ),
    "even while a game is in progress": "даже во время игры",
    "list the club's players (the roster)": "список игроков клуба",
    # --- ops/doctor/command.py ---------------------------------------------------------------
    "check the table: GPIO, pin map, speaker, microphone, the service's listening process, "
    "voice, model, space, priority, clock": (
        "проверить стол: GPIO, карта выводов, динамик, микрофон, процесс слушания службы, "
        "голос, модель, место на диске, приоритет, часы"
    ),
    "print the results as a JSON list": "вывести результаты списком JSON",
    "open the speaker but play no test phrase": "открыть динамик, но не играть проверочную фразу",
    # --- ears/models.py -------------------------------------------------------------------
    "speech models for the forbidden words: list, fetch": (
        "модели речи для запрещённых слов: list — список, fetch — загрузка"
    ),
    "installed and known models": "установленные и известные модели",
    "download and install one": "скачать и установить модель",
    "the models folder (default: $COMPANION_MODELS_DIR or the user's data folder)": (
        "папка моделей (по умолчанию — $COMPANION_MODELS_DIR или папка данных пользователя)"
    ),
    "ru-small": "модель: ru-small",
    "where the archives are (default: $COMPANION_MODELS_URL or alphacephei)": (
        "откуда брать архивы (по умолчанию — $COMPANION_MODELS_URL или alphacephei)"
    ),
    # --- seats/selftest_command.py ---------------------------------------------------------
    "light each seat, ask for its button; the host buttons and the buzzer too": (
        "зажечь каждое место и проверить его кнопку; также кнопки ведущего и зуммер"
    ),
    "pin map: hardware/NAME.toml or a path (default: the config's)": (
        "карта выводов: hardware/NAME.toml или путь к файлу (по умолчанию — из конфига)"
    ),
    "seconds to wait for each button (10)": "сколько секунд ждать каждую кнопку (10)",
    "print the prompts, speak nothing": "печатать подсказки, ничего не говорить",
    "sound output device (default: the config's)": (
        "устройство вывода звука (по умолчанию — из конфига)"
    ),
    # --- ops/service.py -----------------------------------------------------------------------
    "the console as a systemd service on the Pi": "консоль как служба systemd на Raspberry Pi",
    "set up, enable and start the service": "установить, включить и запустить службу",
    "stop and remove it; keep the club's data": "остановить и удалить службу; данные клуба остаются",
    "installed, enabled, running, the last exit and why": (
        "установлена ли, включена ли, работает ли; последний выход и его причина"
    ),
    "the service's user (companion)": "пользователь службы (companion)",
    "the screen's console (/dev/tty1)": "консоль экрана (/dev/tty1)",
    "leave the CPU's clock governor as it is (default: full clock while it runs)": (
        "не трогать регулятор частоты процессора (по умолчанию — полная частота, пока"
        " служба работает)"
    ),
    "print what would be written and run; run nothing": (
        "показать, что было бы записано и запущено; ничего не запускать"
    ),
    "enable it for the next boot, do not start it now": (
        "включить со следующей загрузки, сейчас не запускать"
    ),
    # the tournament hall (companion/hall/commands.py, docs/hall.md)
    "the tournament hall: the broker and the board (docs/hall.md)": (
        "турнирный зал: брокер и табло (docs/hall.md)"
    ),
    "the hall's folder (default: hall in the club's data folder)": (
        "папка зала (по умолчанию hall в папке данных клуба)"
    ),
    "write the broker's configuration, users and ACL": "создать настройки брокера, его пользователей и права доступа",
    "the event's name in the topics (letters, digits, - and _)": (
        "имя события в топиках (буквы, цифры, - и _)"
    ),
    "how many tables (numbered from 1)": "сколько столов (номера с 1)",
    "how tables reach this machine (a name or address)": "как столы находят эту машину (имя или адрес)",
    "the address the broker listens on (default: every one)": (
        "адрес, на котором слушает брокер (по умолчанию все)"
    ),
    "the tables' port (1883)": "порт для столов (1883)",
    "the spectators' read-only port (1884)": "порт зрителей, только чтение (1884)",
    "TLS with a self-signed CA made here": "шифрование с удостоверяющим центром, созданным здесь",
    "spectators may connect without a password (read-only)": (
        "зрители могут подключаться без пароля (только чтение)"
    ),
    "make the hall anew (every password changes)": "создать зал заново (все пароли сменятся)",
    "print the lines of a table's [hall] (adding the table if new)": (
        "показать строки [hall] для стола (добавив стол, если его нет)"
    ),
    "the table's number": "номер стола",
    "the spectators' web pages": "веб-страницы для зрителей",
    "the address the web server listens on (0.0.0.0)": "адрес веб-сервера (0.0.0.0)",
    "the web server's port (8080)": "порт веб-сервера (8080)",
    "the scoring scheme: a name in rulesets/scoring or a .toml file (tournament)": (
        "схема очков: имя в rulesets/scoring или путь к файлу (tournament)"
    ),
    "the standings and the protocols' archive, from a folder or the hall's broker": (
        "турнирная таблица и архив протоколов из папки или от брокера зала"
    ),
    "a folder of protocol JSON files (default: the protocols the hall's broker keeps)": (
        "папка с протоколами JSON (по умолчанию протоколы, которые хранит брокер зала)"
    ),
    "write the standings as CSV": "записать таблицу в CSV",
    "write the standings as an HTML page": "записать таблицу страницей HTML",
    "write the protocols as one zip": "записать протоколы одним архивом",
}

#: metavars (the placeholder a user replaces: ``--journal ЖУРНАЛ``), as
#: argparse shows them in English (an option's dest in capitals, a
#: positional's dest, or the metavar given)
METAVARS_RU: dict[str, str] = {
    "VOICE": "ГОЛОС",
    "RATE": "ЧИСЛО",
    "PACK": "ПАПКА",
    "DEVICE": "УСТРОЙСТВО",
    "FILE": "ФАЙЛ",
    "SPEED": "ЧИСЛО",
    "SCRIPT": "СЦЕНАРИЙ",
    "script": "СЦЕНАРИЙ",
    "JOURNAL": "ЖУРНАЛ",
    "journal": "ЖУРНАЛ",
    "RULESET": "ПРАВИЛА",
    "SEATS": "ЧИСЛО",
    "cue": "РЕПЛИКА",
    "args": "ИМЯ=ЗНАЧЕНИЕ",
    "audio": "ЗАПИСЬ",
    "DB": "ДБ",
    "PINS": "КАРТА",
    "TIMEOUT": "СЕКУНДЫ",
    "WAIT": "СЕКУНДЫ",
    "ARRAY": "МАССИВ",
    "DIR": "ПАПКА",
    "name": "МОДЕЛЬ",
    "URL": "АДРЕС",
    "NAME": "ИМЯ",
    "COUNT": "ЧИСЛО",
    "TABLE": "СТОЛ",
    "HOST": "АДРЕС",
    "PORT": "ПОРТ",
    "SCHEME": "СХЕМА",
    "FOLDER": "ПАПКА",
    "USER": "ПОЛЬЗОВАТЕЛЬ",
    "TTY": "КОНСОЛЬ",
    "dest": "КУДА",
    "src": "ОТКУДА",
    "protocol": "ПРОТОКОЛ",
    "HEX": "ХЕШ",
}
