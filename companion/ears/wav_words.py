"""A refused recording's words, in Russian and English (``wav_file``,
``review``): the file's name goes first, then one of these."""

from __future__ import annotations

from typing import Any

WAV_LINES: dict[str, tuple[str, str]] = {
    "wav_not_wav": (
        "не WAV-файл (нет заголовка RIFF/WAVE)",
        "not a WAV file (no RIFF/WAVE header)",
    ),
    "wav_no_chunk": (
        "испорченный WAV-файл (нет блока {chunk})",
        "broken WAV file (no {chunk} chunk)",
    ),
    "wav_header": ("испорченный заголовок WAV ({what})", "broken WAV header ({what})"),
    "wav_compressed": (
        "сжатый WAV (формат {tag}); сохраните запись как PCM",
        "compressed WAV (format {tag}); save it as PCM",
    ),
    "wav_bits": (
        "отсчёты по {bits} бит; сохраните запись как 16-битный PCM",
        "{bits}-bit samples; save it as 16-bit PCM",
    ),
    "wav_channels": (
        "каналов: {channels}; в записи их может быть от 1 до {most}",
        "{channels} channels; a recording has 1 to {most}",
    ),
    "wav_rate_bad": (
        "частота {rate} Гц — такой у записей не бывает",
        "a sample rate of {rate} Hz is no recording's",
    ),
    "wav_short": (
        "в заголовке {declared} байт звука, а в файле за ним {present}: файл обрезан "
        "или запись не была закончена",
        "the header declares {declared} bytes of sound, the file holds {present} after it: "
        "cut short, or its recording never finished",
    ),
    "wav_too_long": (
        "{hours} ч {minutes} мин звука: длиннее {most} ч",
        "{hours} h {minutes} min of sound: longer than {most} h",
    ),
    "wav_cut": (
        "файл стал короче, пока его читали",
        "the file grew shorter while it was read",
    ),
    "wav_rate": (
        "{rate} Гц; слух берёт {want} Гц (сначала передискретизируйте запись)",
        "{rate} Hz; the ears take {want} Hz (resample it first)",
    ),
    "wav_array": (
        "каналов: {channels}; массив {array} даёт {mics}",
        "{channels} channel(s); the {array} array gives {mics}",
    ),
    "wav_array_card": (
        "каналов: {channels}; массив {array} даёт {mics} (или {card} со своей звуковой карты)",
        "{channels} channel(s); the {array} array gives {mics} (or {card} from its card)",
    ),
}


def wav_line(key: str, lang: str, **fields: Any) -> str:
    """A line of ``WAV_LINES`` in ``lang`` (English for any other)."""
    ru, en = WAV_LINES[key]
    return (ru if lang == "ru" else en).format(**fields)
